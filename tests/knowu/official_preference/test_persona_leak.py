"""No project persona reaches an official variant (issue 33): before the KnowU restructuring, 83 of 86 official
preference variants showed "Institute" (a location label of the project's researcher persona) and its date; and
asked "Where do you work?", the user gave a home address.  Checked on every variant through the env: the screens of
the apps that show places and dates, the context line, and the user's answer, which names the role's own work
location from its profile."""

from __future__ import annotations

from contextlib import closing

from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.personas import user_profile_of
from tests.knowu.official_preference.release import NEEDS_RELEASE, RELEASE

pytestmark = NEEDS_RELEASE


def test_no_variant_shows_the_project_persona_and_the_user_names_its_own_workplace() -> None:
    leaks, wrong = [], []
    with closing(KnowUEnv(family="personalized", data_dir=str(RELEASE), render="text")) as env:
        assert len(env.tasks) == 86
        for index, task in enumerate(env.tasks):
            obs, _ = env.reset(seed=0, options={"task_index": index})
            seen = [obs["instruction"], obs["ui_xml"], obs["context"], obs["logs"]]
            for app in ("Maps", "Calendar", "Contacts", "Settings", "Clock"):
                shown = env.step({"action_type": "open_app", "app_name": app})[0]
                seen += [shown["ui_xml"], shown["context"]]
            profile = user_profile_of(task.user_profile())
            if "Institute" in "\n".join(seen) and "Institute" not in str(profile):
                leaks.append(task.task_id)
            reply = env.step({"action_type": "ask_user", "text": "Where do you work?"})[0]["user_reply"]
            places = profile.get("locations") or {}
            work, home = (str((places.get(k) or {}).get("address", "")) for k in ("work", "home"))
            if work and (work not in reply or (home and home in reply)):
                wrong.append((task.task_id, reply[:80]))
    assert leaks == [] and wrong == []
