"""An official routine variant on the simulated phone: the official world, goal, user and score.

:class:`OfficialRoutineTask` seeds the phone as the official ``initialize_task_hook`` seeds the device (see
:func:`seed_phone`), shows the official goal (logs + system status + instruction, rendered from the release), starts
the official routine user, and scores the end state with the official rules
(:mod:`personal_envs.knowu.official.routine.rules`): pure rules, lambda = 1.  Which exchanges decide follows
the env's ``protocol`` (:mod:`personal_envs.knowu.official.routine.decision`): every exchange under ``"paper"``, as
officially; by default only those in which the user decided.

What the seeding does not do on purpose: no page or app content depends on whether the habit applies beyond what
the official setup itself derives from the profile (the official setup seeds the birthday contact and event, the
on-call alert, the meeting and its document, the scam SMS and the screenshot ages from the profile's habit).  The
Chrome pages and Mattermost channels are the same for every role.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from personal_envs.core.task import Check, EpisodeTrace, Evaluation
from personal_envs.knowu import oracle
from personal_envs.knowu.official.paper_metrics import trajectory_from_trace
from personal_envs.knowu.official.routine.decision import PAPER, decision_history
from personal_envs.knowu.official.routine.rules import (
    MATTERMOST_TEAM,
    RoutineSetup,
    facts_of,
    metric_should_act,
    score_routine,
)
from personal_envs.knowu.official.routine.user import OfficialRoutineLLMUser, OfficialRoutineUser
from personal_envs.knowu.oracle import Fill, Step, Tap, answer, finish, open_app
from personal_envs.knowu.state import read_state
from personal_envs.knowu.task import PhoneTask
from personal_envs.simulators.phone.phone import Phone
from personal_envs.simulators.users.base import SimulatedUser

#: Web pages every routine variant's Chrome serves (the same for every role; offline stand-ins for the web).
PUBLIC_PAGES: tuple[tuple[str, str, str], ...] = (
    ("https://www.alphaxiv.org", "alphaXiv - Explore", "Trending research papers with discussions."),
    ("https://huggingface.co/papers", "Daily Papers - Hugging Face", "Papers picked by the community today."),
    ("https://weather.example.com/beijing", "Beijing Weather Today",
     "Beijing weather today: partly cloudy, high 27 \u00b0C, low 18 \u00b0C, light wind."),
    ("https://weather.example.com/shanghai", "Shanghai Weather Today",
     "Shanghai weather today: light rain, high 24 \u00b0C, low 19 \u00b0C, humid."),
    ("https://weather.example.com/guangzhou", "Guangzhou Weather Today",
     "Guangzhou weather today: thunderstorms, high 31 \u00b0C, low 25 \u00b0C."),
    ("https://weather.example.com/chengdu", "Chengdu Weather Today",
     "Chengdu weather today: overcast, high 25 \u00b0C, low 17 \u00b0C."),
    ("https://weather.example.com/wuhan", "Wuhan Weather Today",
     "Wuhan weather today: sunny, high 30 \u00b0C, low 21 \u00b0C."),
    ("https://weather.example.com/nanjing", "Nanjing Weather Today",
     "Nanjing weather today: showers, high 26 \u00b0C, low 20 \u00b0C."),
    ("https://news.example.com/", "City News", "Local headlines: metro line extension opens next month."),
)
#: Mattermost channels of every routine variant (the team is the official server's, ``rules.MATTERMOST_TEAM``).
MATTERMOST_CHANNELS: tuple[str, ...] = ("town-square", "off-topic", "devops", "ai-research")
ME = "me"
SCREENSHOTS_ALBUM = "Screenshots"


def _channel_key(name: str) -> str:
    return name.strip().lower().replace(" ", "-")


def seed_phone(phone: Phone, setup: RoutineSetup) -> None:
    """Put the official initial state of ``setup`` on ``phone``."""
    device, seed, cls = phone.device, setup.seed, setup.cls
    device.now = setup.now
    device.location = ""
    device.notifications.clear()
    for url, title, text in PUBLIC_PAGES:
        phone.chrome.add_page(url, title, [("p", text)])
    phone.chrome.show_shortcuts = False
    mm = phone.mattermost
    mm.username, mm.team = ME, MATTERMOST_TEAM
    mm.channels = {c: c for c in MATTERMOST_CHANNELS}
    if cls == "BatterySaverRoutineTask":
        device.battery_level, device.charging, device.battery_saver = 15, False, False
    elif cls == "WeekendSleeperTask":
        phone.clock.add_alarm(7, 30, enabled=True, days=["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
                              label="Work")
    elif cls == "BluetoothMediaCleanupTask":
        device.media_volume, device.bluetooth_devices = 4, []  # 10 of the music stream's 25 steps
    elif cls in ("BirthdayWishTask", "DailyFamilyCallTask") and seed.get("contact"):
        name, number = seed["contact"]
        phone.contacts.add(str(name), str(number))
    if cls in ("BirthdayWishTask", "PreMeetingPrepTask"):
        event = seed["event"]
        start = datetime.strptime(event["start"], "%Y-%m-%d %H:%M:%S")
        end = datetime.strptime(event["end"], "%Y-%m-%d %H:%M:%S")
        phone.calendar.add(event["title"], start, end, event.get("location", ""), event.get("description", ""))
        phone.notify("calendar", "Calendar", f"{event['title']} - {start:%H:%M}")
    if cls == "PreMeetingPrepTask":
        name, _source = seed["document"]
        phone.files.add(f"/Documents/{name}", 1200, setup.now.replace(hour=8, minute=0), name.rsplit(".", 1)[0])
    elif cls == "WeeklyReportRoutineTask":
        phone.files.add("/Documents/Weekly_Report.pdf", 0, setup.now, "")
    elif cls == "ContactSaverTask":
        number, text = "5550199", "Hi, this is Bob, my new number is 555-0199."
        phone.messages.receive(number, text, setup.now)
        phone.notify("messages", number, text)
    elif cls == "ScamSmsInterceptRoutineTask":
        number, text = seed["incoming_sms"]
        phone.messages.receive(number, text, setup.now)
        phone.notify("messages", number, text)
    elif cls == "GalleryCleanupTask":
        for name, taken in seed["screenshots"].items():
            phone.gallery.add(name, SCREENSHOTS_ALBUM, taken, "screenshot")
    elif cls == "DeepWorkRoutineTask":
        device.do_not_disturb, device.ring_volume = False, 6
    elif cls == "NightEyeCareRoutineTask":
        device.dark_mode = False
    elif cls == "MattermostOnCallTask":
        channel = _channel_key(seed["channel"])
        mm.channels.setdefault(channel, channel)
        mm.post(channel, "sam", seed["alert"], setup.now)
        phone.notify("mattermost", f"#{channel}", seed["alert"])


def chat_history(trace: EpisodeTrace, protocol: str | None = None) -> list[dict[str, Any]]:
    """The ``user_agent_chat_history`` the official rules read: each question (``user``) and the raw reply
    (``assistant``); under the default protocol only the exchanges in which the user decided (see
    :func:`~personal_envs.knowu.official.routine.decision.decision_history`)."""
    return decision_history([(t.message, t.reply, t.decision) for t in trace.dialogue], protocol)


class OfficialRoutineTask(PhoneTask):
    """One official routine variant (``"WeekendSleeperTask@student"``).

    Args:
        variant: The official variant name.
        setup: The routine's setup for the role's profile.
        goal: The official goal text (rendered from the release).
        profile: The role's ``user_profile`` mapping (hidden: the simulated user only).
        user_prompt: The official user simulator's system prompt.
        difficulty: ``"easy"`` / ``"hard"`` from the class's tags.
        apps: The class's ``app_names``.
        task_set: The release label.
        user_kind: ``"profile"`` (deterministic official-policy user) or ``"llm"`` (the official LLM user).
        hidden: Strings the agent must never observe (the profile's distinctive values).
    """

    split = "proactive"

    def __init__(self, variant: str, setup: RoutineSetup, goal: str, profile: Mapping[str, Any], user_prompt: str,
                 difficulty: str = "easy", apps: Sequence[str] = (), task_set: str = "",
                 user_kind: str = "profile", hidden: Sequence[str] = ()) -> None:
        self.task_id = variant
        self.setup_ = setup
        self.instruction = goal
        self.profile = dict(profile)
        self.user_prompt = user_prompt
        self.difficulty = difficulty
        self.apps = tuple(apps)
        self.start = setup.now
        self.routine_applies = setup.should_act
        self.task_set = task_set or str(getattr(type(self), "task_set", ""))
        self.user_kind = user_kind
        self._hidden = tuple(hidden)
        #: Memory settings of the goal's logs (``memory``, ``log_source``, ``top_k``), reported in the metrics.
        self.settings: dict[str, Any] = {}

    @property
    def official_class(self) -> str:
        return self.setup_.cls

    def seed(self, phone: Phone) -> None:
        seed_phone(phone, self.setup_)

    def verify(self, phone: Phone, trace: EpisodeTrace) -> Evaluation:
        facts = facts_of(read_state(phone, trace))
        actions = [s.action for s in trace.steps if s.action is not None]
        score, reason = score_routine(self.setup_, facts, actions, chat_history(trace, self.protocol), self.protocol)
        role = self.task_id.split("@", 1)[1] if "@" in self.task_id else None
        episode = {"task_name": self.task_id, "split": "proactive", "score": score,
                   "traj": trajectory_from_trace(trace), "difficulty": self.difficulty,
                   "habit_should_act": metric_should_act(self.setup_.cls, self.profile)}
        metrics = {"official_episode": episode, "official_class": self.setup_.cls, "template": self.setup_.cls,
                   "role": role,
                   "rule_weight": 1.0, "s_rule": score, "judge": "none (pure rules)",
                   "decisions_read": "every exchange (official)" if self.protocol == PAPER else "decided exchanges",
                   **self.settings}
        return Evaluation(score, metrics, [Check("official_rule", score >= 1.0, reason)], reason)

    def make_user(self) -> SimulatedUser:
        return self.user_of_kind(self.user_kind)

    def user_of_kind(self, kind: str) -> SimulatedUser:
        """``"profile"``: the deterministic official-policy user; ``"llm"``: the official LLM user protocol."""
        if kind == "llm":
            return OfficialRoutineLLMUser(self.user_prompt, fallback=None)
        if kind in ("profile", "deterministic", "default"):
            return OfficialRoutineUser(self.setup_.should_act, self.profile)
        raise ValueError(f"unknown simulated user kind {kind!r}; use 'profile' or 'llm'")

    def user_profile(self) -> dict[str, Any]:
        return dict(self.profile)

    def user_facts(self) -> dict[str, Any]:
        return {"instruction": self.instruction, "routine": {"applies": self.setup_.should_act}}

    def situation(self, phone: Phone) -> dict[str, Any]:
        return {"context": phone.device.context_text()}

    def reset_info(self) -> dict[str, Any]:
        info = super().reset_info()
        info.update(task_set=self.task_set, official_class=self.setup_.cls)
        return info

    def hidden_strings(self, world: Any) -> Sequence[str]:
        return self._hidden

    # ------------------------------------------------------------------------------- reference policies
    def action_plan(self) -> list[Step]:
        """Perform the routine's action without asking (``always_act``)."""
        return action_steps(self.setup_)

    def oracle_plan(self) -> list[Step]:
        """Act when the task's habit applies, else finish at once (the official rules' upper bound)."""
        return action_steps(self.setup_) if self.setup_.should_act else [finish()]

    def proposal(self) -> str:
        """A neutral consent question (``always_ask``); the user decides by the habit, not by these words."""
        return "I noticed something I could take care of for you right now. Shall I go ahead?"


def action_steps(setup: RoutineSetup) -> list[Step]:
    """UI steps that perform the routine's action on the simulated phone (what a user with the habit wants),
    located by what the agent sees in ``ui_xml``; the last step is ``finished`` (or the weather ``answer``)."""
    cls, v = setup.cls, setup.values
    steps: list[Step]
    if cls == "BatterySaverRoutineTask":
        steps = [open_app("Settings"), Tap(rid="settings_battery"), Tap(rid="battery_saver")]
    elif cls == "WeekendSleeperTask":
        steps = [open_app("Clock"), Tap(rid="alarm_switch", near="07:30")]
    elif cls == "BluetoothMediaCleanupTask":
        steps = [open_app("Settings"), Tap(rid="settings_sound"), *[Tap(rid="media_volume_down")] * 4]
    elif cls == "BirthdayWishTask":
        text = str(v.get("message_content") or "Happy Birthday!")
        steps = (oracle.sms_plan(str(v["contact_phone"]), text) if v.get("contact_phone")
                 else [open_app("Messages")])
    elif cls == "ClockOutRoutineTask":
        content = str(v["expectation"].get("target_content") or "Clocking out, see you tomorrow")
        steps = oracle.chat_plan(str(v["target_channel"]), content)
    elif cls == "ContactSaverTask":
        return oracle.plan([oracle.Contact("Bob", "5550199")])
    elif cls == "DailyFamilyCallTask":
        steps = [open_app("Contacts"), Tap(text=str(v["target_name"])), Tap(rid="call_button")]
    elif cls == "DeepWorkRoutineTask":
        steps = [open_app("Settings"), Tap(rid="settings_notifications"), Tap(rid="do_not_disturb")]
    elif cls == "GalleryCleanupTask":
        policy, run = v["cleanup_policy"], v["run_datetime"]
        names = [n for n, t in setup.seed["screenshots"].items() if policy["mode"] != "delete_older_than"
                 or (run - t).total_seconds() / 86400 > int(policy["older_than_days"])]
        steps = [open_app("Gallery"), Tap(rid=f"tab_{SCREENSHOTS_ALBUM}"), Tap(rid="select_mode"),
                 *[Tap(contains=n) for n in names], Tap(rid="delete_selected"), Tap(rid="dialog_delete")]
    elif cls == "MattermostOnCallTask":
        reply = f"{v['expected_reply_keywords'][0]} - on it"
        steps = oracle.chat_plan(_channel_key(str(v["channel_name"])), reply)
    elif cls == "MorningPaperReadingTask":
        steps = [open_app("Chrome")]
        for url in v["TARGET_URLS"]:
            steps += [Fill("url_bar", url), Tap(rid="go_button")]
    elif cls == "MorningWeatherCheckTask":
        text = next((t for u, _title, t in PUBLIC_PAGES if str(v["city"]).lower() in u),
                    f"{v['city']} weather today: see the forecast.")
        return [open_app("Chrome"), Fill("url_bar", str(v["search_query"])), Tap(rid="go_button"), answer(text)]
    elif cls == "NightEyeCareRoutineTask":
        steps = [open_app("Settings"), Tap(rid="settings_display"), Tap(rid="dark_theme")]
    elif cls == "PreMeetingPrepTask":
        steps = [open_app("Docreader"), Tap(text=str(v["doc_name"]))]
    elif cls == "ScamSmsInterceptRoutineTask":
        steps = [open_app("Messages"), Tap(contains=str(v["sender_phone"])[-6:]), Tap(rid="block_button"),
                 Tap(rid="dialog_block")]
    elif cls == "WeeklyReportRoutineTask":
        recipient = str(v["expectation"].get("target_recipient") or "manager@example.com")
        steps = oracle.mail_plan(recipient, "Weekly Report", "Please find the weekly report attached.",
                                 ("Weekly_Report.pdf",))
    else:
        steps = []
    return [*steps, finish()]
