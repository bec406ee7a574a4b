"""Where an official KnowU-Bench release is, which commit it is, and the files ``personal-envs data fetch knowu`` gets.

A release directory is a checkout (or the downloaded subset) of ZJU-REAL/KnowU-Bench with its paths kept: it holds
``src/knowu_bench/tasks/definitions/``.  It is found, in this order, at ``data_dir=``, at ``$PERSONAL_ENVS_DATA``
(or its ``knowu/`` folder) and in the cache that ``personal-envs data fetch knowu`` fills (``data_home()/knowu``).
The files are data: read at run time, never imported, never committed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from personal_envs.core.download import data_home
from personal_envs.core.errors import MissingDataError
from personal_envs.core.schema import existing_dir

REPOSITORY = "ZJU-REAL/KnowU-Bench"
#: The commit the project's reimplementation follows (2026-05-04, "fix time").
PINNED_COMMIT = "0dd79895e7469c70bca9687d16268c4996314ca8"
SHORT_COMMIT = PINNED_COMMIT[:7]
#: Task-set label of records and tables when the official tasks ran.
OFFICIAL_LABEL = f"KnowU-Bench {SHORT_COMMIT}"
#: Task-set label when the project's own tasks ran.
PROJECT_LABEL = "personal-envs tasks: not comparable with the paper"
#: Package root inside a release directory.
PACKAGE = "src/knowu_bench"
DEFINITIONS = f"{PACKAGE}/tasks/definitions"
RAW_BASE = f"https://raw.githubusercontent.com/{REPOSITORY}/{PINNED_COMMIT}"


@dataclass(frozen=True)
class OfficialRelease:
    """An official release directory.

    Attributes:
        root: The directory holding ``src/knowu_bench``.
        commit: The commit its files are from (the pinned one: the file list is checked against it).
    """

    root: Path
    commit: str = PINNED_COMMIT

    @property
    def label(self) -> str:
        """``"KnowU-Bench 0dd7989"``: the task-set label of records and tables."""
        return f"KnowU-Bench {self.commit[:7]}"

    @property
    def package(self) -> Path:
        """``<root>/src/knowu_bench``."""
        return self.root / PACKAGE

    @property
    def definitions_dir(self) -> Path:
        """The official task definitions (``general/``, ``preference/``, ``routine/``)."""
        return self.root / DEFINITIONS

    @property
    def profiles_dir(self) -> Path:
        """The official role profiles (``<role>.yaml``; ``template.yaml`` is not a role)."""
        return self.package / "user_profile"

    @property
    def logs_dir(self) -> Path:
        """The official role logs (``<role>.json`` clean, ``<role>_noise_25pct.json`` noisy)."""
        return self.package / "user_logs"

    def path(self, relpath: str) -> Path:
        """A file of the release by its repository path (``"src/knowu_bench/assets/invoice.pdf"``)."""
        return self.root / relpath

    def missing_files(self) -> list[str]:
        """Repository paths of :data:`FILES` absent from this directory."""
        return [rel for rel, _ in FILES if not (self.root / rel).is_file()]


def is_release_dir(path: Path) -> bool:
    """True if ``path`` holds the official task definitions."""
    return (path / DEFINITIONS).is_dir()


def candidate_dirs(data_dir: str | os.PathLike[str] | None = None) -> list[Path]:
    """Where a release is looked for, in order (a ``data_dir`` that is not a folder raises
    :class:`~personal_envs.core.errors.MissingDataError`)."""
    out: list[Path] = []
    if data_dir is not None:
        base = existing_dir(data_dir, "KnowU data_dir")
        out += [base, base / "knowu", base / "official"]
    env = os.environ.get("PERSONAL_ENVS_DATA")
    if env:
        out += [Path(env).expanduser(), Path(env).expanduser() / "knowu"]
    out.append(data_home() / "knowu")
    return out


def find_release(data_dir: str | os.PathLike[str] | None = None) -> OfficialRelease | None:
    """The official release at ``data_dir``, ``$PERSONAL_ENVS_DATA`` or the fetch cache; ``None`` if there is none.

    ``data_dir`` may be the release root itself or a folder holding it as ``knowu/`` or ``official/``.
    """
    for path in candidate_dirs(data_dir):
        if is_release_dir(path):
            return OfficialRelease(path.resolve())
    return None


def require_release(data_dir: str | os.PathLike[str] | None = None) -> OfficialRelease:
    """:func:`find_release`, or :class:`~personal_envs.core.errors.MissingDataError` (a ``FileNotFoundError``)
    saying where it looked and how to get one."""
    release = find_release(data_dir)
    if release is None:
        looked = ", ".join(str(p) for p in candidate_dirs(data_dir))
        raise MissingDataError(
            f"no official KnowU-Bench release found (looked for {DEFINITIONS} in {looked}); run "
            "'personal-envs data fetch knowu' or pass data_dir= a checkout of "
            f"{REPOSITORY} at {SHORT_COMMIT}")
    return release


#: The files the project reads, as (repository path, SHA-256) at :data:`PINNED_COMMIT`.
FILES: tuple[tuple[str, str], ...] = (
    ("LICENSE", "b09fcaf4fbc265223c2479c410beef2b98c5e687c78ecedf3452aa12ffc465f1"),
    ("scripts/calc_paper_metrics.py", "aed3459b7305211ee303a6ab7842e333991ec95d16e680fdb550a7caed637be7"),
    ("src/knowu_bench/agents/base.py", "5267dc9c859d0c1b92a62d1a9524ebc232417d3d3291399c669025e9982d33b7"),
    ("src/knowu_bench/agents/implementations/general_e2e_agent.py", "70101e7df46bbc7a9bfb4c654e1ebe7ac2d0f161eb07c69e70a011f34afcb181"),
    ("src/knowu_bench/agents/utils/prompts/general_e2e.py", "945d418f36bd38b568852460aba49c5416f8d0a5ba696430ff1087900c976a84"),
    ("src/knowu_bench/assets/imag0-2.jpeg", "601d560c49ce8da6eb63a6813c1e4d4e479005662a284e8fe8399bb121b43ad4"),
    ("src/knowu_bench/assets/image0-1.jpeg", "2fbd4489572472e1b43811a5932754ce4507bc6f85714c2c49d77cd24e8b1e69"),
    ("src/knowu_bench/assets/image0-3.jpeg", "a647f0b8785a14d16f712581b82986f5b8568bf69d5cb96d20c727edcf64a886"),
    ("src/knowu_bench/assets/image1.jpeg", "adcab790d93f1c70757613a2990ee67ed982efa17bf582d6c4eb7163bf1f4a4d"),
    ("src/knowu_bench/assets/image2.jpeg", "98a11ccd543f32f18717351c8d1ed928146664f0b2a2e4d24bc357a32b5085f5"),
    ("src/knowu_bench/assets/image3.jpeg", "c7c5ab56ce5296fa40c0b1b0cd1e7d1098a6d04f4f4dc1a84348ca658d196fb7"),
    ("src/knowu_bench/assets/image4.jpeg", "8eddba8027976dc015c8d561a1a73b6b27356f6bd932a906041ceaa7a0ac6ed3"),
    ("src/knowu_bench/assets/invoice.pdf", "2dceac79bb2964b32bd1972942b4bfcd702f46ec0f143e783e0c12884a1700bb"),
    ("src/knowu_bench/assets/qwen3-omni.pdf", "4608d7f5d0694dd09a66144dac921797e161331d92b5eef133615bec392ec928"),
    ("src/knowu_bench/assets/qwen3.pdf", "84a5e2b1fa04bb774bf12ae606d1e6d9dd2147ed2ebe78a4cfeb91ba380ffdd5"),
    ("src/knowu_bench/cache/users/aiden_lin/Agent_Learning_via_Early_Experience.pdf", "2a473c003e9239514bace0528fa24eb3e9b807e9ec083a0b071f6a0130146a07"),
    ("src/knowu_bench/cache/users/aiden_lin/email_share/training_reward.png", "f44a13202cdfa9824c1b4772aadb66ac6adb77da3ac5c0b68e2b1d690bdf993e"),
    ("src/knowu_bench/cache/users/aiden_lin/hugginggpt.pdf", "5add5f7ff9041299c305769d49615e1ac2de2229e17c46e0811d1a60f94d6e3b"),
    ("src/knowu_bench/cache/users/aiden_lin/mastodon_share/hugginggpt.jpg", "264f297b99e45883ad51c2764da805804b119c9ae494ea72b5cf8a7a82161afe"),
    ("src/knowu_bench/cache/users/aiden_lin/training_reward.png", "f44a13202cdfa9824c1b4772aadb66ac6adb77da3ac5c0b68e2b1d690bdf993e"),
    ("src/knowu_bench/cache/users/aiden_lin/whiteboard_brainstorming.jpg", "cd63f400bee868b711134fb7f0db8fa40de429547263b65ba6252728e6c7ccb5"),
    ("src/knowu_bench/cache/users/kenji_sato/email_share/dev.png", "e2081f9e5e7a8a1bb9d575d19dd54598a01b0ba6fb78f94d234dc2b82b5bfb28"),
    ("src/knowu_bench/cache/users/lucas_jensen/email_share/wzry.jpg", "8e6582f288012402c9711a63bdae323dea1035a21bf5795a08ecf691722c9f31"),
    ("src/knowu_bench/cache/users/lucas_jensen/mastodon_share/wzry.jpg", "8e6582f288012402c9711a63bdae323dea1035a21bf5795a08ecf691722c9f31"),
    ("src/knowu_bench/cache/users/wang_shulan/email_share/flower.jpeg", "c8a963eb875e178f72b859e93c3b27e03c34829a81bab1462fd155d22d1728c7"),
    ("src/knowu_bench/core/api/__init__.py", "be357a77c0529b68fb95c5fc4500408c08955b3a10a59f597fa7a39df2a11d54"),
    ("src/knowu_bench/core/api/env.py", "f7c549a5fa1763d3610b0514af599da7970ca47c4991b88401da5a569e6abc94"),
    ("src/knowu_bench/core/api/info.py", "9928b72e3f8d559316ae4b75d7649d9a0188461f5a4489084e0ac59940c21f14"),
    ("src/knowu_bench/core/api/server.py", "400897471167541a20ce705c421a07069d808c7b3bd48f2aad026b19320e99e9"),
    ("src/knowu_bench/core/runner.py", "dacc52631a0be8436d03aa0f85acbc217a5c268a91db078b532743b93bb40afe"),
    ("src/knowu_bench/core/server.py", "cd708f7355c196643df599e0603d213a25e01ee8e972a2b35344f73d49b19935"),
    ("src/knowu_bench/core/user_task_runner/__init__.py", "6a67de616156e800924988684be4c60086182bd4ae6c49663fd367dd39a95a83"),
    ("src/knowu_bench/core/user_task_runner/prerequisite.py", "0252b6dc8b8f8bc154fa28e4731a88485993c0b9c86e7793de44f5316a852cfe"),
    ("src/knowu_bench/core/user_task_runner/runner.py", "90f89a3424e9cb261babd22f9b9f627d23a120481afa40d71ef767d9bae4d66e"),
    ("src/knowu_bench/runtime/app_helpers/__init__.py", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("src/knowu_bench/runtime/app_helpers/extra_apps.py", "10802c3d62ee47c940132e77786bcc8b7833cda8f7172e86100fc06044b68669"),
    ("src/knowu_bench/runtime/app_helpers/fossify_calendar.py", "af5bd7288b48e7eed3448488690f73aee77836f6859c8768bc4d37ac638eaeb1"),
    ("src/knowu_bench/runtime/app_helpers/mail.py", "374157c47c6b7c310ea5fb3dedf1b01ff173b00cc0ec42080011fd6883f776bd"),
    ("src/knowu_bench/runtime/app_helpers/mall.py", "76e4e75e67a679f75eb558f435b6105126976ea132db0cdc4577b286e12264e8"),
    ("src/knowu_bench/runtime/app_helpers/mastodon.py", "8eab40ab988d0e615579028723bc09ef8f40c9c26bb03878a2994bdba0940a3f"),
    ("src/knowu_bench/runtime/app_helpers/mattermost.py", "3642fa9321cc37d028f6757a1219d7af0017be2495edc09b0c970cc9c5862e54"),
    ("src/knowu_bench/runtime/app_helpers/mcp.py", "4795a6eff41271d94e76303824d1c1ee9881615911a9ef3ec80a0b17e59fb9f2"),
    ("src/knowu_bench/runtime/app_helpers/system.py", "b27558dbd0b8525ce0e1368f19419aa1144489101fb72b8cee76a4cf05939525"),
    ("src/knowu_bench/runtime/client.py", "e7169795d2b15b4be100faaeedbdd1ad6c4ee888346d0dd805bf2bf1868dfcaf"),
    ("src/knowu_bench/runtime/controller.py", "2204bd5af73650b951dd6fcbc998d7c6f3500f28f2e6d47d3e2b87c545e11d52"),
    ("src/knowu_bench/runtime/utils/__init__.py", "97a3d2564472ef13356dc9f9b3e2cb2657019bd87032799119fc0e496379f31d"),
    ("src/knowu_bench/runtime/utils/constants.py", "fb6d11e5b351756cfe2e61a4c281d78a11a0a78ae6b7ff726a73d2c79afe0bd9"),
    ("src/knowu_bench/runtime/utils/docker.py", "a062c923d48e66c0ccafae0e80cf8ba561178241a631d106a6849fbc3b1c9f81"),
    ("src/knowu_bench/runtime/utils/helpers.py", "f0b2cef69016cb5f3154d10c84cebfbed98c9e03dd2489b2b6a448d525494774"),
    ("src/knowu_bench/runtime/utils/loader.py", "33ad4104fb62a1b5fa03bde210f41f23b4cb728500dfca6ef28368db34838a1a"),
    ("src/knowu_bench/runtime/utils/models.py", "203bf20c47ae93c4a07927487f40c8bca262b18d50077967c944a0a1b2c91966"),
    ("src/knowu_bench/runtime/utils/parsers.py", "4bfa86b781b926b63f0730671b409fca43b90f5fb5c89181f216fc55026ede4e"),
    ("src/knowu_bench/runtime/utils/precompute_task_embeddings.py", "31f43f590649b8b6a2c48ef8e22fcc2d30b176af72b9f4a0cb5053060bba39cd"),
    ("src/knowu_bench/runtime/utils/prompt_builder.py", "09b1bcc09f5de30606592a384dc33a352ac71c48f92a93f1e30e0b333f4fc2ed"),
    ("src/knowu_bench/runtime/utils/proxy_config.py", "dd29b6653b5d84a2dbcbc0ca7cedaf6f8709771d9306ab9f931bc1572501a2ec"),
    ("src/knowu_bench/runtime/utils/routine_time.py", "b4c3cb6512fee66309cbdbf565329f71651f2f860b43ba086548c6b28b633b27"),
    ("src/knowu_bench/runtime/utils/trajectory_logger.py", "aff4c8bc0010599cbb4e149c2d261e698c382ef48e6c8b1127538a4c44171968"),
    ("src/knowu_bench/runtime/utils/user_log_context.py", "48410b3589edf5bd6f4277d38c847455e997baa133db22e8800a2c8f191fd3fa"),
    ("src/knowu_bench/runtime/utils/validation.py", "12dfd85d491790a20fafecdc2666a2e0f942fac2664e999001a230b5b324c182"),
    ("src/knowu_bench/runtime/utils/xml.py", "3c8eb4c1c075917924e36f9aef82bd4962ad841c9cde37142c5b97eee73c874f"),
    ("src/knowu_bench/tasks/__init__.py", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("src/knowu_bench/tasks/base.py", "b1a5ebb3e2cab92726c40c783d603e85330271910dbc567740cda0a13ba15583"),
    ("src/knowu_bench/tasks/definitions/__init__.py", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("src/knowu_bench/tasks/definitions/general/__init__.py", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("src/knowu_bench/tasks/definitions/general/battery_saver_general.py", "fd8cc2a8950aec9c04363bebdd4a3346026a790252b71c8344bf98eefe427036"),
    ("src/knowu_bench/tasks/definitions/general/birthday_wish_general.py", "f24d57102b2f06f083547029d1bf04c19a15de72057f3fbdb1fde2447a8920eb"),
    ("src/knowu_bench/tasks/definitions/general/bluetooth_cleanup_general.py", "899e6a531810a8cb6224a4814a90af95a69b2a0ba469dccaf9aec08b3a84cefc"),
    ("src/knowu_bench/tasks/definitions/general/buy_cola_general.py", "6bd6aaa7cde0bbee7f753b7c26c36c7a46db6b7a934b972d4be606397204c663"),
    ("src/knowu_bench/tasks/definitions/general/buy_computer_general.py", "ad89b1bd27f9005e2e79ed575b44fac0829b5a92320b0f5d5fb4d534ca2e6a4a"),
    ("src/knowu_bench/tasks/definitions/general/calendar_invite_conflict_resolution_general.py", "208a1771d2f09bc5a470dd9679bf9b4f2d5368b8c34ddde67a8102ab535382b1"),
    ("src/knowu_bench/tasks/definitions/general/calendar_schedule_group_meeting_general.py", "e2a6d571a47e513caeefd6938b2f548f823631d4a5c977eff090dbc0a6dde065"),
    ("src/knowu_bench/tasks/definitions/general/cart_management_general.py", "c61e9bf4c175ed52ba8c57c38bebecc2a7707a140c2affc1b542fb954046397e"),
    ("src/knowu_bench/tasks/definitions/general/clock_out_general.py", "f640ea50195854d75a2da90dc6030d3822ca73c87c2da841270e1f5183f2a1d5"),
    ("src/knowu_bench/tasks/definitions/general/commute_late_night_general.py", "7ad1d035c54807a422d90ba72056603586537ef292ce7018f70e7bceea297a2f"),
    ("src/knowu_bench/tasks/definitions/general/commute_late_with_notice_general.py", "f0ee364915123457937971c3aa73c2fcae75d5d4fed4a745acc89a918a6bf821"),
    ("src/knowu_bench/tasks/definitions/general/commute_routing_bad_weather_general.py", "7e03fe94d0d6ed94f72c783ee0e07787738c0e18631eecc150e52372fd1fe55d"),
    ("src/knowu_bench/tasks/definitions/general/commute_routing_sunny_general.py", "7bca2b8e25ae2cf5c6d2111afd9b3fc1bc0c8e06f7b64c98c331bba34a6a2130"),
    ("src/knowu_bench/tasks/definitions/general/contact_saver_general.py", "63af96bc725f347a5e9ea1510d04b8ce045d51302a4777635e768e173435ddd5"),
    ("src/knowu_bench/tasks/definitions/general/daily_family_call_general.py", "0ed3a6999ebc0f75135072fbd797fbf40894f5ee4c9d7e5dff7a67591c7de1aa"),
    ("src/knowu_bench/tasks/definitions/general/deep_work_general.py", "087f106d89f4ae3c1486f7cb3a31fbf272e3eef91ce75fe954daf318ecb57ba7"),
    ("src/knowu_bench/tasks/definitions/general/delete_item_over_budget_general.py", "814d67125e065a4e10948d861fc0c77c2885aad7675b8ff53f7e48c38b9c503c"),
    ("src/knowu_bench/tasks/definitions/general/delete_items_general.py", "9d73390db42cd39d057e5aff5ce8bf589b0312079f90a8c9dcd206762ed312e5"),
    ("src/knowu_bench/tasks/definitions/general/gallery_cleanup_general.py", "7ce69a8753972c631f644e85a114a64711a4522fb92f50d310c21e5c3da9fa89"),
    ("src/knowu_bench/tasks/definitions/general/highlight_important_sms_sender_general.py", "e05d9e8bf1944b80942c2e9440bbab5380a06b63a6d1be5e1d0c6cf8bc835d1d"),
    ("src/knowu_bench/tasks/definitions/general/mastodon_interest_boost_general.py", "9aacd8cc7c8c1ffc6e014873a99fd46a919b43a7f969366d431aaa7d6ac2b3ee"),
    ("src/knowu_bench/tasks/definitions/general/mastodon_privacy_default_general.py", "dbb07ef89f0909aedee87c9d1f0a2b061451e096d5ae22794a6dad5c3848ecd4"),
    ("src/knowu_bench/tasks/definitions/general/mastodon_share_photos_general.py", "138abaa92fb2cfdac21f390565c3801e94a3f1548931d8ece49fb768e639db98"),
    ("src/knowu_bench/tasks/definitions/general/mattermost_leave_notice_general.py", "75238e733e490d67b135debe6f3cd9eeedadeced9888f39891bb2e36a97bd098"),
    ("src/knowu_bench/tasks/definitions/general/mattermost_response_general.py", "1ff2f1f83b4686ea5b0785f8c5aa29bee1745f8b6f9ee77df39e53175d47ee2c"),
    ("src/knowu_bench/tasks/definitions/general/messages_ask_mom_money_general.py", "c5f02477ea33d4b8417610d2ff2d6c1f5a1ab5cf9e7308896a4f40f294115e64"),
    ("src/knowu_bench/tasks/definitions/general/morning_paper_reading_general.py", "4ae0bd6405fa0c1936ddfb44452dc2b187320ffed3c06ad18f536393fda3ec43"),
    ("src/knowu_bench/tasks/definitions/general/morning_weather_check_general.py", "f1b9a31505f1b28d98a9e94d2ede7ac337ec4eb2a9a301670b5d549eba9febfd"),
    ("src/knowu_bench/tasks/definitions/general/night_social_general.py", "e0eda56dbdf7d5f39c8a700560c091dc49199bd192c540488468979a089584dc"),
    ("src/knowu_bench/tasks/definitions/general/note_the_courier_general.py", "4fd90485cd61d09c18675565079ad4ffd118a33b1921f8a5a4ca0842063eb7bc"),
    ("src/knowu_bench/tasks/definitions/general/order_lunch_first_time_general.py", "76c246cfdd93fa66b879c2f85fdd623964f345b3f033e5537f4f85ae162291da"),
    ("src/knowu_bench/tasks/definitions/general/order_lunch_tradeoff_general.py", "cf3db90360b64f27b42ce93204d5379619fffc67fa32394872a27b184eac57f5"),
    ("src/knowu_bench/tasks/definitions/general/pre_meeting_prep_general.py", "712e1ab5e5be352a862973688118e685dfe6dc1597be8f4017afb97bf81fa73a"),
    ("src/knowu_bench/tasks/definitions/general/scam_sms_intercept_general.py", "d4c735c7202b960226ac0df04cc75ac6943f60f29e8ef3253a1ee266a06d15c8"),
    ("src/knowu_bench/tasks/definitions/general/search_top_info_general.py", "5ec4a10cc0cc505e1766f4c8f3da767eba471e2fc7752d9f493977e29a69b9a6"),
    ("src/knowu_bench/tasks/definitions/general/search_white_sneakers_checkout_general.py", "ec97bf145429d54849da1f453e3c489a588ee747db12ae0518f4ba3b68540dbb"),
    ("src/knowu_bench/tasks/definitions/general/send_weekly_report_general.py", "7cfea8348923e1f43b2fd4b5956a0999225e5890ba3dbbb31658bab5a1af95a5"),
    ("src/knowu_bench/tasks/definitions/general/set_alarm_general.py", "4a05cd1cb33ccd35492c399f5637fcf45009fa7e2ff33eef17ebcce106d4da76"),
    ("src/knowu_bench/tasks/definitions/general/share_photos_general.py", "8f1bec18de659ce794489b48abd94f5450f5b9b26062c8e44913993ea482db09"),
    ("src/knowu_bench/tasks/definitions/general/sort_files_general.py", "2598ca1f2d4181ec5365f5027cd231ff4de94d6cd9d488c3fa0ef48b2a5bb2dd"),
    ("src/knowu_bench/tasks/definitions/general/takeout_remark_general.py", "f6b5cab6f1511c540a99c69b330e02dadde5a30ba8ba1f1fd2ecf5e963a774c0"),
    ("src/knowu_bench/tasks/definitions/general/weekend_sleeper_general.py", "c1c27bf6330569d85ed1e0d7dd9c56e2ed26839c07990159f312f99bd68ff308"),
    ("src/knowu_bench/tasks/definitions/preference/base_prefrence_task.py", "658454c4999cd4526e43bdffece7a18b056448b3379e87feaf7aa96fb4fa0818"),
    ("src/knowu_bench/tasks/definitions/preference/buy_cola_ask_user.py", "be2d15d2d18ee005dd2713011fe384df088539875b54ec161b938a0dc80da794"),
    ("src/knowu_bench/tasks/definitions/preference/buy_computer_ask_user.py", "4444e3fe57b7dbd8434cf95c9e586e275b0e9498a9374540c1abe2732ac9faef"),
    ("src/knowu_bench/tasks/definitions/preference/calendar_invite_conflict_resolution.py", "1b8414c4a74246e2f8891cf7c4ff04c02e9e47ac7f92d66658da54b8ceccf2a6"),
    ("src/knowu_bench/tasks/definitions/preference/calendar_schedule_group_meeting.py", "8b24f3afe0d334b09094f96e015c8403fb567385124b92f1a8057402243feeab"),
    ("src/knowu_bench/tasks/definitions/preference/cart_management_ask_user.py", "4fc623ed1277547c538baacbc650b50f0e96018f87922824abe5134fc24978e1"),
    ("src/knowu_bench/tasks/definitions/preference/commute_late_night.py", "9f846b643e0bf977896cabf509c2168121058f32e46e6428955787af2b1afc8f"),
    ("src/knowu_bench/tasks/definitions/preference/commute_late_with_notice.py", "6212362371afca549fdb5b711d47cbfd02635ed47c9a42076ee7d9174f44de5e"),
    ("src/knowu_bench/tasks/definitions/preference/commute_routing_bad_weather.py", "2ec436fb4c4125bd1981b08c6d3d66f5233e2c727389361e2371a43dba97d5ce"),
    ("src/knowu_bench/tasks/definitions/preference/commute_routing_sunny.py", "2f4cda16f4623fbbda3a50a52507c9300037249aef93592b41588b5e5300f68f"),
    ("src/knowu_bench/tasks/definitions/preference/delete_item_over_budget.py", "1d541fa5324eb86f34493d7b662f8f9ad53072fffe78f803140020335ab0cc08"),
    ("src/knowu_bench/tasks/definitions/preference/delete_items_ask_user.py", "27b6d6a16c2f94417ffa50e6d57db99fb0306702e055567eec566834069dbd7d"),
    ("src/knowu_bench/tasks/definitions/preference/highlight_important_sms_sender_ask_user.py", "ca04296f51c4c97110ab71ee94da47158a2bcd994e1a003fa8c8a9177b7a4d34"),
    ("src/knowu_bench/tasks/definitions/preference/mastodon_interest_boost.py", "8f7527e80b0ccced69f2898f27629a92e68e1b714fba76e36b25ed13c0269735"),
    ("src/knowu_bench/tasks/definitions/preference/mastodon_privacy_default_test.py", "fd7132ab371e0884d517de597fbcb42d177b2edce3ba28b7bdebab559eaf76e6"),
    ("src/knowu_bench/tasks/definitions/preference/mastodon_share_photos_preference_ask_user.py", "fa8dfa7226dabc03200aa27c675bc7a913e84d13feaffb49e6c4875745a7504d"),
    ("src/knowu_bench/tasks/definitions/preference/mattermost_leave_notice.py", "5ba097e7fd4bf63da53b3fd1c407f26ad6d4aed01bd0138fe7cd87fbff97f56a"),
    ("src/knowu_bench/tasks/definitions/preference/messages_ask_mom_money.py", "c7c992acd41b4517b3823d9f64f912c1229a020e2d674aa9d8dd5e7d8a84f3fb"),
    ("src/knowu_bench/tasks/definitions/preference/note_the_courier_fro_delivery.py", "7c7bb29fb7630aa1415380fa95780cc25989c3124386492b5855da8abddbc3de"),
    ("src/knowu_bench/tasks/definitions/preference/order_lunch_first_time.py", "ccacf9f2b52ea97e1ad8095402b4adb6525581c485017dcb610eaba35c6c5130"),
    ("src/knowu_bench/tasks/definitions/preference/order_lunch_tradeoff.py", "e7533e48dd3b62de64753bec2da8996f9e3f151bb7accb39cd0ac8bdb782d851"),
    ("src/knowu_bench/tasks/definitions/preference/search_top_info_ask_user.py", "2200273a2f130822147682c458fc5149f5fcc4e7268df75c0f64e65cfded77b8"),
    ("src/knowu_bench/tasks/definitions/preference/search_white_sneakers_checkout_ask_user.py", "8dd6a4201a9858e0e6eb88cd3984f0f1dbd5480bc5b150173ac19ec258f790e1"),
    ("src/knowu_bench/tasks/definitions/preference/set_alarm_ask_user_2.py", "597262d39d2da86a6941ce31db48a46862ea94963016f6aa29e590b693e2f5be"),
    ("src/knowu_bench/tasks/definitions/preference/share_photos_ask_user.py", "ad13aa5aa9b905f4a864f539e2c29f1c8e6f9ef871d0d90f48dbd02b3cdcf8ef"),
    ("src/knowu_bench/tasks/definitions/preference/sort_files_by_habit_ask_user.py", "21b69a98f6ec735e1e9f7f0f16e17af81155b3d95f921252e4d848ce45f23c42"),
    ("src/knowu_bench/tasks/definitions/preference/takeout_remark_ask_user.py", "dc510c4e7c3a646c477b6aba5f2255efea1494919431ae365f4a29f828ab4630"),
    ("src/knowu_bench/tasks/definitions/routine/base_routine_task.py", "b01bc51881cf1d82b665539ebea0438fc4e84a7854d47489f4aee4f70aae2aa5"),
    ("src/knowu_bench/tasks/definitions/routine/battery_saver.py", "32e01038e8c56ee2212f141facb4c16d127d49ffa6f594ac40216483015dbc68"),
    ("src/knowu_bench/tasks/definitions/routine/birthday_wish.py", "997b6549b31b30ec103055eaff2d6d2e61b9f86d83fd6bf7ce04afc03e0ed3f8"),
    ("src/knowu_bench/tasks/definitions/routine/bluetooth_cleanup.py", "28d0f7b9337fac037a4e6b5dfff058991fb7ec7f836b0f31e8ba9f139fdecfa7"),
    ("src/knowu_bench/tasks/definitions/routine/clock_out.py", "5a0bb9c3451d575e8196ed516a6b0c94eef605aea9ad1cfb283132bc645d413f"),
    ("src/knowu_bench/tasks/definitions/routine/contact_saver.py", "c3a16dd5388f5bf1091d7d44c316e802c61dc36271fb0598d5c38173a9556482"),
    ("src/knowu_bench/tasks/definitions/routine/daily_family_call.py", "d932230837d18a7e54b5698fa5740dd7606c76355c1153ab67555d969a7515e6"),
    ("src/knowu_bench/tasks/definitions/routine/deep_work.py", "747793c928f2e36fd76dcdf6f1d4f22b03b7122bd86ac6ade043c09a0cbc7aa9"),
    ("src/knowu_bench/tasks/definitions/routine/gallery_cleanup.py", "317f50975e96dde3a8ca98ad6dfecbd80a0eead4bc0edc7986dc5b942ead5476"),
    ("src/knowu_bench/tasks/definitions/routine/mattermost_response.py", "bbcb1604d3d20ce6e833c9020f13eae925922ea60e9c83c0c3645a77d4bcbbe5"),
    ("src/knowu_bench/tasks/definitions/routine/morning_paper_reading.py", "73d4251596c2f2869308df62ddb2cf40fb59f126b2682781f57b5db8e9a6d4bb"),
    ("src/knowu_bench/tasks/definitions/routine/morning_weather_check.py", "2cdf489c67b9d651f4ed01bdd6b707f139c85d27babff8885365fac704d167de"),
    ("src/knowu_bench/tasks/definitions/routine/night_social.py", "22d86dc5e9b329c812f3b3ce4a37cb6698864a3be2fdf0bd24df0d11cdb0be5f"),
    ("src/knowu_bench/tasks/definitions/routine/pre_meeting_prep.py", "4b9f2e4f44bf5a2784af45219540dc54919a2136e2eaa802356e1e46df8d8ea3"),
    ("src/knowu_bench/tasks/definitions/routine/scam_sm_intercept.py", "a2a8bd38c4e35d0a66ece187a7cb18b973a9f820214e5708b53e82bdb93bdd58"),
    ("src/knowu_bench/tasks/definitions/routine/send_weekly_report.py", "7523f1d7659dd14d67d0deb0c11b8c777946240f68f42efc833573b40cd1bc09"),
    ("src/knowu_bench/tasks/definitions/routine/weekend_sleeper.py", "f46e65dbc2bdb8b1ee4e2bdffe121aa5fda1e26a669192326b9156b2fd46fc2e"),
    ("src/knowu_bench/tasks/registry.py", "e006f682fcf681c277b8e6b2c49643340633b5afbf07a39acacdfd7d735d5c89"),
    ("src/knowu_bench/tasks/test_task.py", "d421c74a21dc5dc4a4be508d9ecba5333495954ede49f590866a53604f8a3d5b"),
    ("src/knowu_bench/tasks/utils.py", "5a87a923c87aa0330ed24a323c0cedb157780e532733822229fb3468b8fa6168"),
    ("src/knowu_bench/user_logs/developer.json", "abfd1531699f935391120f5fa3b42d44e7d7494227c25b6987a3b075c5c48037"),
    ("src/knowu_bench/user_logs/developer_noise_25pct.json", "c1ad3e819a3064867f5b2b8f352d3d46225735025941138f5663c6cdc3151b1a"),
    ("src/knowu_bench/user_logs/grandma.json", "d3594a3a072b96a9d2b82eac734461d5ea48c0ca80b68d210d9b590e09d7b62a"),
    ("src/knowu_bench/user_logs/grandma_noise_25pct.json", "651248c620294d8b912f68f1997e025d7121d429a5fa3e4ea2bce2a94f6a9f99"),
    ("src/knowu_bench/user_logs/student.json", "9ff29d86e56c36cfc2e589fe18a8ec203e338b02290d31c418cb8f7e69fff6ba"),
    ("src/knowu_bench/user_logs/student_noise_25pct.json", "338630c2cc00d1a8d9633d7d557ee8586a6885d3971d7bc8e259ad91584895b9"),
    ("src/knowu_bench/user_logs/user.json", "b8b3fd92f5cbe9de50ed7670e94a1bc4b4405ed0f4e359a39377af07b2938ef4"),
    ("src/knowu_bench/user_logs/user_noise_25pct.json", "5fe1d1ba8c6785bbac9dc6b81f6896c080a170a16d93b6a2084597dd15d56d87"),
    ("src/knowu_bench/user_profile/developer.yaml", "a1668ad03ec902862e6ec92b262fbe55beab70f1f303945126de576032ab58d5"),
    ("src/knowu_bench/user_profile/grandma.yaml", "431172fbf9f95f5a3769b525e7ae9f72dec5b4b0b15345406da20ec042a0eb3f"),
    ("src/knowu_bench/user_profile/student.yaml", "fcbc6f35ba873f94fff164b106c9f4aa72fa22992db48eb33c95072911475dfa"),
    ("src/knowu_bench/user_profile/template.yaml", "c99eed5409cb8022b5b3ee2229538db884d228c11e5816d78114330aeb271193"),
    ("src/knowu_bench/user_profile/user.yaml", "dacf0ee92e55c5c4ba5f9db5b3d31968a6c7bf0c7ae3d43b6370e57916e1f746"),
)


def file_url(relpath: str) -> str:
    """Raw download URL of a release file at the pinned commit."""
    return f"{RAW_BASE}/{relpath}"


def task_set_line(records: Any) -> str:
    """``"task set: KnowU-Bench 0dd7989"`` (or the project label) for a run's records; several sets are all named."""
    labels: list[str] = []
    for record in records:
        metrics = record.get("metrics") or {}
        label = str(metrics.get("task_set") or record.get("task_set") or PROJECT_LABEL)
        if label not in labels:
            labels.append(label)
    return "task set: " + (" + ".join(labels) if labels else PROJECT_LABEL)
