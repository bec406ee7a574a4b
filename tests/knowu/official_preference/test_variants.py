"""The 86 official preference variants: they build, score the official way, and near misses fail as officially."""

from __future__ import annotations

import ast
import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from personal_envs.knowu.official.preference.judge import JudgeProtocol, OfficialPreferenceJudge
from personal_envs.knowu.official.preference.variants import (
    MissingProfileField,
    PreferenceTask,
    build_variant,
)
from personal_envs.llm.client import ChatClient
from personal_envs.llm.testing import ScriptedChatServer
from personal_envs.simulators.phone.apps.food import BasketItem, FoodOrder
from personal_envs.simulators.phone.phone import Phone
from tests.knowu.official_preference.release import (
    NEEDS_RELEASE,
    PROFILES,
    RELEASE,
    end_of,
    personas,
    source,
    variant_names,
)

pytestmark = NEEDS_RELEASE


def _official_variants() -> list[str]:
    """Class x role as the official registry enumerates them, derived from the files here."""
    roles = sorted(p.stem for p in PROFILES.glob("*.yaml") if p.stem != "template")
    names = []
    for path in sorted((RELEASE / "src/knowu_bench/tasks/definitions/preference").glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("Base"):
                supported = None
                for item in node.body:
                    if isinstance(item, ast.Assign) and any(getattr(t, "id", "") == "supported_profiles"
                                                            for t in item.targets):
                        supported = ast.literal_eval(item.value)
                names += [f"{node.name}@{r}" for r in roles if supported is None or r in supported]
    return sorted(names)


def _build(variant: str, judge: OfficialPreferenceJudge | None = None) -> PreferenceTask:
    name, role = variant.split("@")
    return build_variant(source(), name, role, PROFILES / f"{role}.yaml", judge=judge, personas=personas())


def test_exactly_the_86_official_variants_build() -> None:
    names = variant_names("preference")
    assert len(names) == 86
    assert sorted(names) == _official_variants()
    for variant in names:
        task = _build(variant)
        assert task.task_id == variant and task.instruction and task.rubric.dimensions


def test_the_request_is_the_official_text_for_the_role() -> None:
    sunny = _build("CommuteRoutingSunnyTask@grandma").instruction
    assert "地坛公园" in sunny and "{" not in sunny  # the official per-role destination filled in
    privacy = _build("MastodonPrivacyDefaultTestTask@grandma").instruction
    assert "公园散步" in privacy
    assert _build("LateNightCommuteTask@developer").instruction.startswith("It's already 11:30 PM")


def test_a_profile_without_a_needed_field_names_it(tmp_path: Path) -> None:
    document = yaml.safe_load((PROFILES / "student.yaml").read_text(encoding="utf-8"))
    del document["user_profile"]["locations"]["work"]
    path = tmp_path / "newcomer.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    with pytest.raises(MissingProfileField, match=r"user_profile\.locations\.work"):
        build_variant(source(), "CommuteRoutingSunnyTask", "newcomer", path)
    # templates that do not need the field still build for that profile
    assert build_variant(source(), "BuyColaPreferenceTask", "newcomer", path).task_id == "BuyColaPreferenceTask@newcomer"


def test_doing_nothing_fails_as_the_official_check_fails() -> None:
    for variant in variant_names("preference"):
        task = _build(variant)
        result = task.score_end(end_of(task), [{"action_type": "finished"}])
        if variant in ("HighlightImportantSmsSenderPreferenceAskUserTask@student",
                       "HighlightImportantSmsSenderPreferenceAskUserTask@grandma"):
            assert result.score == 1.0, variant  # not important: leaving it alone is the right call
        elif variant.startswith(("SortFilesByHabit", "LateUrgentRoute")):
            # the Download list stays unsorted; the late notice asks the judge even without a post (official)
            assert result.score < 0.99 and result.base == 0.0, variant
        else:
            assert result.score == 0.0 and result.judge is None, (variant, result)


@contextlib.contextmanager
def _scripted(score: float) -> Iterator[tuple[OfficialPreferenceJudge, ScriptedChatServer]]:
    server = ScriptedChatServer(lambda request: f"<think>judged</think><score>{score}</score>").start()
    try:
        judge = OfficialPreferenceJudge(JudgeProtocol.from_release(RELEASE),
                                        ChatClient(base_url=server.base_url, model="m"))
        yield judge, server
    finally:
        server.close()


def _save(number: str, starred: bool) -> Callable[[Phone], None]:
    def change(phone: Phone) -> None:
        phone.contacts.add("Sender", number, starred=starred)
    return change


def test_with_a_judge_the_official_combinations_hold() -> None:
    with _scripted(1.0) as (judge, server):
        # the judge alone: a commute plan, with the official rubric filled with the role's destination
        task = _build("LateNightCommuteTask@developer", judge)
        result = task.score_end(end_of(task, "Take a taxi."), [])
        assert (result.score, result.judge.kind if result.judge else None) == (1.0, "llm")
        prompt = server.requests[-1]["messages"][1]["content"]
        address = task.user_doc["locations"]["home"]["address"]
        assert f"Does the route go from the origin to {address}?" in prompt
        assert task.persona in prompt and task.instruction in prompt

        # highlight: min(base, 0.4 base + 0.6 judge): the contact saved without the star caps at 0.5
        task = _build("HighlightImportantSmsSenderPreferenceAskUserTask@developer", judge)
        sender = str(task.values["sender_phone"])
        assert task.score_end(end_of(task, change=_save(sender, False)), []).score == pytest.approx(0.5)
        assert task.score_end(end_of(task, change=_save(sender, True)), []).score == pytest.approx(1.0)
        # ... and highlighting a non-important sender scores 0 without asking the judge
        task = _build("HighlightImportantSmsSenderPreferenceAskUserTask@student", judge)
        result = task.score_end(end_of(task, change=_save(str(task.values["sender_phone"]), True)), [])
        assert result.score == 0.0 and result.judge is None

        # sort files: a wrong sort caps the judge at 0.5; asking earns 0.2 of the base (officially even next to a
        # wrong sort; by default the bonus and the judge only next to the wanted sort or its opposite: issue 28)
        task = _build("SortFilesByHabitPreferenceAskUserTask@grandma", judge)
        asked = [{"action_type": "ask_user", "text": "How do you sort?"}]

        def sort(order: str) -> Callable[[Phone], None]:
            return lambda phone: phone.files.sort_order.__setitem__("Download", order)

        expected = task.rubric.oracle[-1].order  # type: ignore[union-attr]
        end = end_of(task, change=sort("size_desc"))
        end.chat.append({"role": "user", "content": "How do you sort?"})
        result = task.score_end(end, asked)
        assert result.base == 0.0 and result.score == 0.0  # default: neither the ask bonus nor the judge alone
        task.protocol = "paper"
        result = task.score_end(end, asked)
        assert result.base == pytest.approx(0.2) and result.score == pytest.approx(0.4 * 0.2 + 0.6 * 0.5)
        task.protocol = None
        assert task.score_end(end_of(task, change=sort(expected)), []).score == pytest.approx(0.4 * 0.8 + 0.6)

        # the Mastodon photo: the image part is 0.6; a toot without the photo keeps only 0.4 * judge
        task = _build("MastodonSharePhotosPreferenceAskUserTask@student", judge)
        photo = task.values["own_photos"][0]

        def toot(with_photo: bool) -> Callable[[Phone], None]:
            def change(phone: Phone) -> None:
                pid = next(p.pid for p in phone.gallery.photos if p.name == photo)
                phone.mastodon.add("Me", phone.mastodon.account, "Sharing this!", task.start,
                                   media=[pid] if with_photo else [])
            return change

        assert task.score_end(end_of(task, change=toot(True)), []).score == pytest.approx(1.0)
        assert server.requests[-1]["messages"][1]["content"][1]["type"] == "image_url"  # the photo is sent
        assert task.score_end(end_of(task, change=toot(False)), []).score == pytest.approx(0.4)

        # photo mail: a wrong recipient keeps the attachment's 0.2 and the judge part
        task = _build("ShareFavoritePhotosPreferenceAskUserTask@user", judge)

        def mail(to: str) -> Callable[[Phone], None]:
            def change(phone: Phone) -> None:
                pid = next(p.pid for p in phone.gallery.photos if p.name == task.values["own_photos"][0])
                phone.mail.add("me@example.com", "A photo", "For you", task.start, to=[to], folder="sent",
                               attachments=[f"photo:{pid}"])
            return change

        assert task.score_end(end_of(task, change=mail("someone@example.com")), []).score == pytest.approx(0.2 + 0.6)

        # late with notice: no Mattermost post keeps only 0.7 * judge
        task = _build("LateUrgentRouteWithNoticeTask@user", judge)
        assert task.score_end(end_of(task, "Taxi now."), []).score == pytest.approx(0.7)

        # lunch: 0.5 + 0.5 * judge
        task = _build("OrderLunchPreferenceTask@developer", judge)
        goal = task.rubric.oracle[0]

        def lunch(phone: Phone) -> None:
            food = phone.food(goal.app)  # type: ignore[union-attr]
            shop = next(r for r in food.restaurants if any(d.did == goal.item for d in r.dishes))  # type: ignore[union-attr]
            food.orders.append(FoodOrder("F1", shop.sid, [BasketItem(shop.sid, goal.item)], "", "",  # type: ignore[union-attr]
                                         "Home", "", "alipay", 20.0, task.start))

        assert task.score_end(end_of(task, change=lunch), []).score == pytest.approx(1.0)


#: Apps the official setup seeds per role (the SMS sender, Mom, the user's own photo).
PER_ROLE_APPS = {"HighlightImportantSmsSenderPreferenceAskUserTask": {"messages", "contacts"},
                 "MessagesAskMomForMoneyTask": {"contacts", "messages"},
                 "ShareFavoritePhotosPreferenceAskUserTask": {"gallery"},
                 "MastodonSharePhotosPreferenceAskUserTask": {"gallery"}}


def test_the_world_does_not_depend_on_the_hidden_profile() -> None:
    worlds: dict[str, dict[str, Any]] = {}
    for variant in variant_names("preference"):
        name, _ = variant.split("@")
        task = _build(variant)
        shared = {app: value for app, value in task.world.items() if app not in PER_ROLE_APPS.get(name, set())}
        shared["start"] = task.start
        if name in worlds:
            assert shared == worlds[name], variant  # same apps, contents and start for every role
        worlds[name] = shared
    # the official per-role seeding: the important-SMS sender differs by role, as in the official scenarios
    senders = {_build(f"HighlightImportantSmsSenderPreferenceAskUserTask@{r}").world["messages"]["threads"][0]["number"]
               for r in ("developer", "student", "user", "grandma")}
    assert len(senders) == 4
