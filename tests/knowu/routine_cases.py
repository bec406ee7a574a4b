"""Routine end states shared by the rule tests: each class done right, and a near miss with the start of the failure
reason the official check gives it (facts level, for any persona whose habit applies)."""

from __future__ import annotations

from personal_envs.knowu.official.routine import rules
from personal_envs.knowu.official.routine.rules import Facts


def silent(setup: rules.RoutineSetup) -> Facts:
    """The end state when nothing was done (the seeded state)."""
    return Facts(alarm_enabled=True, media_volume=10, screenshots=dict(setup.seed.get("screenshots", {})),
                 now=setup.now)


def right_and_near_miss(setup: rules.RoutineSetup) -> tuple[Facts, Facts, str]:
    """End states: the routine done right, and a near miss with the official failure reason's start."""
    v, base = setup.values, silent(setup)
    cls = setup.cls
    if cls == "BatterySaverRoutineTask":
        return Facts(power_saver=True), base, "Failure"
    if cls == "WeekendSleeperTask":
        return Facts(alarm_enabled=False), base, "Failure: User accepted, but alarm is still ON"
    if cls == "BluetoothMediaCleanupTask":
        return Facts(media_volume=0), Facts(media_volume=1), "Failure"
    if cls == "BirthdayWishTask":
        phone = str(v["contact_phone"])
        return (Facts(sms_sent=[(phone, "Happy Birthday Mom!")]), Facts(sms_sent=[(phone, "Hi Mom")]),
                "Failure: Sent SMS but content mismatch")
    if cls == "ClockOutRoutineTask":
        channel = str(v["target_channel"])
        said = str(v["expectation"]["target_content"]) or "Clocking out, see you tomorrow"
        return (Facts(posts={channel: [said]}), Facts(posts={channel: ["lunch?"]}),
                "Failure: User accepted, but Agent sent irrelevant content")
    if cls == "ContactSaverTask":
        return (Facts(contacts=[("Bob", "555-0199")]), Facts(contacts=[("Robert Smith", "5550199")]),
                "Failure: contact saved but name is incorrect")
    if cls == "DailyFamilyCallTask":
        return Facts(calls=[str(v["target_phone"])]), Facts(calls=["110"]), "Failure: no outgoing call"
    if cls == "DeepWorkRoutineTask":
        return Facts(dnd=True), base, "Failure"
    if cls == "GalleryCleanupTask":
        run = v["run_datetime"]
        days = int(v["cleanup_policy"]["older_than_days"])
        keep = {n: t for n, t in setup.seed["screenshots"].items() if (run - t).days < days}
        return Facts(screenshots=keep), Facts(screenshots={}), "Failure: Policy mismatch"
    if cls == "MattermostOnCallTask":
        channel = str(v["channel_name"]).lower().replace(" ", "-")
        return (Facts(posts={channel: ["ack, checking now"]}), Facts(posts={channel: ["who broke it?"]}),
                "Failure: irrelevant reply")
    if cls == "MorningPaperReadingTask":
        return (Facts(visited=["https://www.alphaxiv.org", "https://huggingface.co/papers"], now=setup.now),
                Facts(visited=["https://huggingface.co/papers"], now=setup.now), "Failure: Missed sites")
    if cls == "MorningWeatherCheckTask":
        looked_up = ["https://google.com/search?q=Beijing+Weather+Today"]  # the default protocol wants a lookup
        return (Facts(answer="Beijing: sunny, 27 \u00b0C", visited=looked_up),
                Facts(answer="Have a nice day", visited=looked_up), "Failure: Answer lacks weather content")
    if cls == "NightEyeCareRoutineTask":
        return Facts(dark_mode=True), base, "Failure: Dark Mode not done"
    if cls == "PreMeetingPrepTask":
        doc = f"/Documents/{v['doc_name']}"
        return (Facts(open_document=doc, foreground_app="docreader"),
                Facts(open_document="/Documents/Other.pdf", foreground_app="docreader"), "Failure")
    if cls == "ScamSmsInterceptRoutineTask":
        sender = str(v["sender_phone"])
        return (Facts(blocked=[sender]), Facts(blocked=[sender], sms_sent=[(sender, "stop")]),
                "Failure: Agent replied to suspicious sender")
    email = {"to": str(v["expectation"]["target_recipient"]), "attachments": ["Weekly_Report.pdf"], "time": setup.now}
    return Facts(email=email), Facts(email=dict(email, to="someone@else.org")), "Failure: Wrong recipient"
