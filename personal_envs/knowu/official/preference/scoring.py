"""The official preference checks, per official class: the rule base, the judge part and how they combine.

Each official ``is_successful`` is reimplemented as a function of the episode's
:class:`~personal_envs.knowu.state.EndState` and a
:class:`Context` (the role's profile, the official per-class values, and a judge call that renders the class's
official rubric and asks the official judge).  The combinations are the official ones:

* most templates: the action happened (order, cart deletion, mail, alarm, SMS reply...) gives ``base = 1``, else 0
  and no judge call; ``S = 0.4 * base + 0.6 * judge``;
* lunch orders: ``0.5 + 0.5 * judge``; Mattermost / Mastodon / SMS tasks: a fixed part (0.3 or 0.4) once the
  post / toot / SMS exists, plus ``0.7`` or ``0.6 * judge``; the late notice adds 0.3 only when the post says it is
  late, and the judge is asked anyway; the group meeting: 0.2 per event / post, 0 when both are missing;
* the commute templates: the judge alone, 0 without a travel plan (an ``answer``);
* the important-SMS template: unsafe actions give 0, then ``min(base, 0.4 * base + 0.6 * judge)`` with the judge
  skipped when ``base`` is 0;
* sort-files: ``base = 0.8 * sort_match + 0.2`` if the agent asked the user, the judge capped at 0.5 when the
  detected sort differs from the expected one, ``S = 0.4 * base + 0.6 * judge``;
* photo mail: 0.2 for an attachment and 0.2 for the right recipient, plus ``0.6 * judge`` (with the photos as
  images) unless both are missing; the Mastodon photo: ``0.6`` when the toot has the photo, plus ``0.4 * judge``.

:data:`LAMBDAS` lists the judge weight of every class; :data:`SCORERS` maps class names to functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from personal_envs.knowu.official.preference.judge import JudgeVerdict
from personal_envs.knowu.state import FOODS as FOOD_KEYS
from personal_envs.knowu.state import SHOPS as SHOP_KEYS
from personal_envs.knowu.state import EndState

#: The phone's visibility names -> the official ones.
VISIBILITY_NAMES = {"private": "followers-only"}

JudgeCall = Callable[[Mapping[str, Any], Mapping[str, Any], Sequence[str | Path]], JudgeVerdict]
APP_LABEL = {"taodian": "Taodian", "jingdian": "jingdian", "chilemei": "chilemei", "tuantuan": "tuantuan"}


@dataclass
class Context:
    """What an official check needs besides the end state.

    Attributes:
        name: The official class.
        role: The profile id (``"student"``...).
        profile: The ``user_profile`` of the role.
        values: Official per-class values (class attributes, module constants, the role's scenario).
        judge: ``judge(eval_data, rubric_slots, images)``: renders the class's official rubric with the slots,
            asks the official judge and returns its verdict.
        protocol: The env's protocol: ``"paper"`` scores exactly as officially; otherwise the checks close the
            shortcuts the audit found (the sort-files ask bonus needs a sort).
    """

    name: str
    role: str
    profile: Mapping[str, Any]
    values: Mapping[str, Any]
    judge: JudgeCall
    images: Sequence[str | Path] = field(default_factory=tuple)
    protocol: str | None = None

    def prefs(self, key: str) -> Any:
        return (self.profile.get("preferences", {}) or {}).get(key, {}) or {}

    @property
    def occupation(self) -> str:
        return str((self.profile.get("identity", {}) or {}).get("occupation", "unknown"))


@dataclass(frozen=True)
class OfficialScore:
    """One episode scored the official way.

    Attributes:
        score: The official final score.
        base: The official rule part (``base_score``; 0 when the action did not happen).
        judge: The judge verdict (``None`` when the official code does not ask the judge).
        reason: What happened.
        combination: The official formula applied.
    """

    score: float
    base: float
    judge: JudgeVerdict | None
    reason: str
    combination: str


def _combine(base: float, verdict: JudgeVerdict, fixed: float, weight: float, reason: str,
             formula: str) -> OfficialScore:
    return OfficialScore(fixed + weight * verdict.score, base, verdict, reason, formula)


def _last_order(end: EndState, keys: Sequence[str]) -> tuple[dict[str, Any] | None, str]:
    for key in keys:
        orders = [o for o in end.new(list(end.orders.get(key, []))) if o.get("items")]
        if orders:
            return dict(orders[-1]), key
    return None, ""


def _order_data(order: Mapping[str, Any], app_key: str) -> dict[str, Any]:
    items = [i for i in order.get("items", []) if isinstance(i, Mapping)]
    return {"app_used": APP_LABEL.get(app_key, app_key),
            "product_info": [{"prodName": i.get("title") or i.get("id"), "skuName": " ".join(
                map(str, (i.get("options") or {}).values())) if isinstance(i.get("options"), Mapping) else "",
                              "num": i.get("qty", 1)} for i in items],
            "recipient": order.get("name"), **{k: order.get(k) for k in ("phone", "address", "payment", "note")}}


# --------------------------------------------------------------------------------------- shop orders
def shop_order(end: EndState, ctx: Context) -> OfficialScore:
    """Buy cola / computer / sofa / sneakers: an order on Taodian or jingdian, then 0.4 + 0.6 * judge."""
    order, key = _last_order(end, SHOP_KEYS)
    if order is None:
        return OfficialScore(0.0, 0.0, None, "no order on Taodian or jingdian", "0")
    data = _order_data(order, key)
    if ctx.name in ("NoteTheCourierForDeliveryPreferenceAskUserTask", "DeleteItemOverBudgetPreferenceAskUserTask"):
        data["user_agent_chat_history_tail"] = end.chat[-10:]
    verdict = ctx.judge(data, {}, ())
    return _combine(1.0, verdict, 0.4, 0.6, f"order placed via {APP_LABEL[key]}", "0.4*base + 0.6*judge")


def cart_delete(end: EndState, ctx: Context) -> OfficialScore:
    """Cart clean-ups: items deleted from a Taodian or jingdian cart, then 0.4 + 0.6 * judge."""
    for key in SHOP_KEYS:
        removed = end.cart_removed.get(key, [])
        if removed:
            data: dict[str, Any] = {"app_used": APP_LABEL[key], "items_to_delete": [
                {"prodName": i.get("title"), "price": i.get("price"), "category": i.get("category")} for i in removed]}
            if ctx.name == "DeleteItemOverBudgetPreferenceAskUserTask":
                data = {"app_used": data["app_used"], "user_agent_chat_history_tail": end.chat[-10:],
                        "items_to_delete": data["items_to_delete"]}
            verdict = ctx.judge(data, {}, ())
            return _combine(1.0, verdict, 0.4, 0.6, f"{len(removed)} cart item(s) deleted on {APP_LABEL[key]}",
                            "0.4*base + 0.6*judge")
    return OfficialScore(0.0, 0.0, None, "no cart deletion on Taodian or jingdian", "0")


def lunch_order(end: EndState, ctx: Context) -> OfficialScore:
    """Lunch orders: an order on chilemei or tuantuan gives 0.5, plus 0.5 * judge."""
    order, key = _last_order(end, FOOD_KEYS)
    if order is None:
        return OfficialScore(0.0, 0.0, None, "no delivery order on chilemei or tuantuan", "0")
    verdict = ctx.judge(_food_data(order, key), {}, ())
    return _combine(0.5, verdict, 0.5, 0.5, f"order placed via {key}", "0.5 + 0.5*judge")


def _food_data(order: Mapping[str, Any], key: str) -> dict[str, Any]:
    return {"app_used": key, "foods": [{"name": i.get("title") or i.get("id"),
                                        "num": i.get("qty", 1)} for i in order.get("items", [])
                                       if isinstance(i, Mapping)],
            "remarks": order.get("note", ""), "address": order.get("address", "")}


def takeout_remark(end: EndState, ctx: Context) -> OfficialScore:
    """Dinner with a remark: a non-empty delivery order, then 0.4 + 0.6 * judge."""
    order, key = _last_order(end, FOOD_KEYS)
    if order is None:
        return OfficialScore(0.0, 0.0, None, "no delivery order on chilemei or tuantuan", "0")
    data = _food_data(order, key)
    data["user_agent_chat_history_tail"] = end.chat[-10:]
    verdict = ctx.judge(data, {}, ())
    return _combine(1.0, verdict, 0.4, 0.6, f"order placed via {key}", "0.4*base + 0.6*judge")


# ------------------------------------------------------------------------------------------ commutes
def _locations(ctx: Context) -> tuple[dict[str, Any], dict[str, Any]]:
    cfg = ctx.values.get("destination", {})
    locations = ctx.profile.get("locations", {}) or {}
    start = locations.get(cfg.get("start_key", "home"), {}) or {}
    dest = locations.get(cfg.get("dest_key", "work"), {}) or {}
    return dict(start), dict(dest)


def commute(end: EndState, ctx: Context) -> OfficialScore:
    """Route advice (late night, rain, sunny): the judge alone on the agent's answer; 0 without one."""
    plan = end.answer.strip()
    if not plan:
        return OfficialScore(0.0, 0.0, None, "no travel plan (no answer)", "0")
    start, dest = _locations(ctx)
    travel = ctx.prefs("travel")
    weather = {"CommuteRoutingSunnyTask": "sunny", "CommuteRoutingBadWeatherTask": "raining"}.get(ctx.name)
    data: dict[str, Any] = {"gui_agent_travel_plan": plan}
    if weather:
        data["weather"] = weather
    else:
        data.update(time_context="23:30 (11:30 PM), late night after overtime",
                    public_transit_status="likely stopped or about to stop")
    data.update(occupation=ctx.occupation, travel_prefs=travel, origin=start, destination=dest)
    slots = {"occupation": ctx.occupation, "travel": travel, "dest_addr": dest.get("address", "destination")}
    verdict = ctx.judge(data, slots, ())
    return OfficialScore(verdict.score, 0.0, verdict, "travel plan judged", "judge")


LATE_WORDS = ("late", "on my way", "omw", "coming", "delayed")


def late_notice(end: EndState, ctx: Context) -> OfficialScore:
    """Late with notice: 0.3 when a Mattermost post says it is late, plus 0.7 * judge (asked in every case)."""
    posts = end.my_posts()
    post = posts[-1]["text"] if posts else None
    fixed = 0.3 if post and any(w in post.lower() for w in ctx.values.get("late_words", LATE_WORDS)) else 0.0
    start, dest = _locations(ctx)
    data = {"gui_agent_travel_plan": end.answer.strip(), "occupation": ctx.occupation, "mattermost_message": post,
            "travel_prefs": ctx.prefs("travel"), "social_prefs": ctx.prefs("social"), "origin": start,
            "destination": dest}
    verdict = ctx.judge(data, {"dest_addr": dest.get("address", "destination")}, ())
    return _combine(fixed, verdict, fixed, 0.7, "late notice posted" if fixed else "no late notice post",
                    "0.3*[late post] + 0.7*judge")


# ------------------------------------------------------------------------------------ calendar, chat
def group_meeting(end: EndState, ctx: Context) -> OfficialScore:
    """Group meeting: 0.2 for a meeting event, 0.2 for a Mattermost post, 0 when both are missing, + 0.6 * judge."""
    words = tuple(ctx.values.get("meeting_words", ("meeting", "sync", "discussion", "会议", "讨论")))
    events = [e for e in end.new(end.events) if any(w in str(e.get("title", "")).lower() for w in words)]
    posts = end.my_posts()
    post = posts[-1] if posts else None
    if not events and not post:
        return OfficialScore(0.0, 0.0, None, "no meeting event and no Mattermost post", "0")
    fixed = (0.2 if events else 0.0) + (0.2 if post else 0.0)
    event = events[0] if events else None
    data = {"calendar_event": {k: event.get(k) for k in ("title", "start", "end", "location", "notes")} if event
            else None, "mattermost_post": post["text"] if post else None,
            "mattermost_channel_name": _channel_name(post) if post else None,
            "mattermost_channel_display_name": post["display"] if post else None}
    verdict = ctx.judge(data, {"current_date": end.start.date().isoformat()}, ())
    return _combine(fixed, verdict, fixed, 0.6, f"event: {bool(events)}, post: {bool(post)}",
                    "0.2*[event] + 0.2*[post] + 0.6*judge")


def invite_conflict(end: EndState, ctx: Context) -> OfficialScore:
    """Invite conflict: an SMS reply to the inviter, then 0.4 + 0.6 * judge."""
    inviter = _digits(ctx.values.get("INVITER_PHONE", ""))
    replies = [s for s in end.sent_sms(new_only=True) if inviter and _digits(s.get("number")).endswith(
        inviter[-11:])]
    if not replies:
        return OfficialScore(0.0, 0.0, None, "no SMS reply to the inviter", "0")
    values = ctx.values
    start_hm, end_hm = values.get("INVITE_START_HM", (0, 0)), values.get("INVITE_END_HM", (0, 0))
    data = {"app_used": ["Messages", "Calendar"],
            "invite_fact": {"inviter_name": values.get("INVITER_NAME", ""), "inviter_phone": values.get("INVITER_PHONE"),
                            "invite_title": values.get("INVITE_TITLE", ""), "invite_date": values.get("INVITE_DATE", ""),
                            "invite_start": f"{start_hm[0]:02d}:{start_hm[1]:02d}",
                            "invite_end": f"{end_hm[0]:02d}:{end_hm[1]:02d}"},
            "actual_reply_text": replies[-1]["text"], "user_persona": values.get("persona", ""),
            "formatted_events": [{k: e.get(k) for k in ("title", "start", "end")} for e in end.new(end.events)],
            "user_agent_chat_history_tail": end.chat[-10:]}
    verdict = ctx.judge(data, {}, ())
    return _combine(1.0, verdict, 0.4, 0.6, "replied to the inviter", "0.4*base + 0.6*judge")


def leave_notice(end: EndState, ctx: Context) -> OfficialScore:
    """Sick-day notice: a Mattermost post gives 0.4, plus 0.6 * judge."""
    posts = end.my_posts()
    if not posts:
        return OfficialScore(0.0, 0.0, None, "no Mattermost post", "0")
    post = posts[-1]
    data = {"mattermost_message": post["text"], "sent_to_channel": f"#{_channel_name(post)} ({post['display']})",
            "occupation": ctx.occupation, "social_preferences": ctx.prefs("social")}
    verdict = ctx.judge(data, {"channel_name": _channel_name(post), "channel_display": post["display"]}, ())
    return _combine(1.0, verdict, 0.4, 0.6, "leave notice posted", "0.4 + 0.6*judge")


def interest_boost(end: EndState, ctx: Context) -> OfficialScore:
    """Forward a Mastodon post: a Mattermost post gives 0.3, plus 0.7 * judge."""
    posts = end.my_posts()
    if not posts:
        return OfficialScore(0.0, 0.0, None, "no Mattermost post", "0")
    post = posts[-1]
    social = ctx.prefs("social")
    graph = ctx.profile.get("social_graph", {}) or {}
    content = str(ctx.values.get("resolve_toot", lambda message: "")(post["text"]) or "")
    data = {"forwarded_message": post["text"], "mastodon_post_content": content or "(could not resolve)",
            "mattermost_channel": f"#{_channel_name(post)} ({post['display']})",
            "occupation": ctx.occupation, "social_preferences": social, "social_graph": graph}
    slots = {"occupation": ctx.occupation, "social_pref": social, "social_graph": graph,
             "channel_name": _channel_name(post), "channel_display": post["display"],
             "mastodon_content": content}
    verdict = ctx.judge(data, slots, ())
    return _combine(1.0, verdict, 0.3, 0.7, "post forwarded to Mattermost", "0.3 + 0.7*judge")


def _channel_name(post: Mapping[str, Any]) -> str:
    return str(post["channel"]).lower().replace(" ", "-")


def _clean_toot(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text or "")).strip()


def privacy_default(end: EndState, ctx: Context) -> OfficialScore:
    """Post with the default visibility: a new toot with text gives 0.4, plus 0.6 * judge."""
    toots = end.new(end.toots)
    if not toots:
        return OfficialScore(0.0, 0.0, None, "no new toot", "0")
    toot = toots[-1]
    text = _clean_toot(str(toot.get("text", "")))
    if not text:
        return OfficialScore(0.0, 0.0, None, "the toot has no text", "0")
    vis = VISIBILITY_NAMES.get(str(toot.get("visibility", "public")), str(toot.get("visibility", "public")))
    raw = {"public": 0, "unlisted": 1, "followers-only": 2, "private": 2, "direct": 3}.get(vis, -1)
    social = ctx.prefs("social")
    topic, expected = ctx.values.get("topic", ""), ctx.values.get("expected_visibility", "")
    data = {"toot_text": text, "requested_topic": topic, "visibility": vis, "visibility_raw": raw,
            "expected_visibility": expected, "user_social_preferences": social}
    slots = {"_topic": topic, "toot_text": text, "vis_name": vis, "visibility": raw, "_expected_vis": expected,
             "social": social}
    verdict = ctx.judge(data, slots, ())
    return _combine(1.0, verdict, 0.4, 0.6, f"toot posted ({vis})", "0.4 + 0.6*judge")


def share_photos_mastodon(end: EndState, ctx: Context) -> OfficialScore:
    """Mastodon photo: 0.6 when the new toot carries the photo, plus 0.4 * judge with the posted images."""
    toots = end.new(end.toots)
    if not toots:
        return OfficialScore(0.0, 0.0, None, "no new toot", "0")
    toot = toots[-1]
    media = [str(m) for m in toot.get("media", []) or []]
    image_ok = bool(media)
    images = [p for p in ctx.images if Path(p).name in media or Path(p).stem in media] or list(ctx.images)[:len(media)]
    verdict = ctx.judge({"caption": _clean_toot(str(toot.get("text", ""))), "app_context": "Mastodon"}, {},
                        images if image_ok else ())
    base = 0.6 if image_ok else 0.0
    return _combine(base, verdict, base, 0.4, f"images: {'ok' if image_ok else 'none'}", "0.6*[image] + 0.4*judge")


def share_photos_mail(end: EndState, ctx: Context) -> OfficialScore:
    """Photo mail: 0.2 attachment + 0.2 recipient; unless both miss, + 0.6 * judge with the photos as images."""
    mails = end.new(end.mails)
    if not mails:
        return OfficialScore(0.0, 0.0, None, "no mail sent", "0")
    mail = mails[-1]
    to = mail.get("to", "")
    to_text = ", ".join(map(str, to)) if isinstance(to, list) else str(to)
    attachments = [str(a) for a in mail.get("attachments", []) or []]
    recipient_ok = str(ctx.values.get("EMAIL_ADDRESS", "")).lower() in to_text.lower()
    rule = (0.2 if attachments else 0.0) + (0.2 if recipient_ok else 0.0)
    if not attachments and not recipient_ok:
        return OfficialScore(rule, rule, None, "no attachment and wrong recipient", "0.2*[att] + 0.2*[to]")
    images = [p for p in ctx.images if Path(p).name in attachments]
    verdict = ctx.judge({"email_body": str(mail.get("body", "")), "email_to": to_text,
                         "sent_attachments": attachments, "app_context": "Mail"}, {}, images)
    return _combine(rule, verdict, rule, 0.6, f"attachment: {bool(attachments)}, recipient ok: {recipient_ok}",
                    "0.2*[att] + 0.2*[to] + 0.6*judge")


# ------------------------------------------------------------------------------------ messages, mail
def _digits(value: Any) -> str:
    return "".join(ch for ch in str(value or "") if ch.isdigit())


def ask_mom(end: EndState, ctx: Context) -> OfficialScore:
    """Ask Mom for money: an SMS to Mom's number gives 0.4, plus 0.6 * judge."""
    phone = str(ctx.values.get("mom_phone", ""))
    target = _digits(phone.replace("+86", ""))
    sent = [s for s in end.sent_sms(new_only=True) if target and _digits(s.get("number")).endswith(target)]
    if not sent:
        return OfficialScore(0.0, 0.0, None, f"no SMS to Mom ({phone})", "0")
    social = ctx.prefs("social")
    data = {"action": "sms_sent", "recipient": ctx.values.get("mom_name", "Mom"), "phone": phone,
            "sms_body": sent[-1]["text"] or "(unable to retrieve message text)", "social_prefs": social}
    verdict = ctx.judge(data, {"social": social}, ())
    return _combine(1.0, verdict, 0.4, 0.6, "SMS sent to Mom", "0.4 + 0.6*judge")


def search_top_info(end: EndState, ctx: Context) -> OfficialScore:
    """Search and mail: a sent mail with a recipient and a subject or body, then 0.4 + 0.6 * judge."""
    mails = end.new(end.mails)
    if not mails:
        return OfficialScore(0.0, 0.0, None, "no mail sent", "0")
    mail = mails[-1]
    to = mail.get("to", "")
    to_text = ", ".join(map(str, to)) if isinstance(to, list) else str(to)
    if not to_text.strip():
        return OfficialScore(0.0, 0.0, None, "the mail has no recipient", "0")
    if not str(mail.get("subject", "")).strip() and not str(mail.get("body", "")).strip():
        return OfficialScore(0.0, 0.0, None, "the mail has no subject and no body", "0")
    hobby = (ctx.profile.get("preferences") or {}).get("hobby") or {}
    field = hobby.get("field_of_interest") if isinstance(hobby, Mapping) else None
    policy = ctx.values.get("judge_literals", {}).get("workflow_evidence_policy")
    data = {"app_used": "Mail", "expected_workflow_apps": list(ctx.values.get("NEWS_WORKFLOW_APPS", ())),
            "required_recipient": ctx.values.get("KEVIN_EMAIL", ""),
            "interest_field_hint": field.strip() if isinstance(field, str) and field.strip() else "unknown",
            "user_agent_chat_history_tail": end.chat[-10:], **({"workflow_evidence_policy": policy} if policy else {}),
            "to": to_text, "subject": mail.get("subject", ""), "body": mail.get("body", "")}
    verdict = ctx.judge(data, {"KEVIN_EMAIL": ctx.values.get("KEVIN_EMAIL", "")}, ())
    return _combine(1.0, verdict, 0.4, 0.6, "mail sent", "0.4*base + 0.6*judge")


WEEKEND = ("Sat", "Sun")


def weekend_alarm(end: EndState, ctx: Context) -> OfficialScore:
    """Weekend alarm: an enabled alarm repeating on Saturday and Sunday, then 0.4 + 0.6 * judge."""
    for alarm in reversed(end.alarms):  # every alarm at the end, newest first
        days = {str(d)[:3].title() for d in alarm.get("days", []) or []}
        if alarm.get("enabled") and set(WEEKEND) <= days:
            data = {"app_used": "Clock", "selected_alarm": dict(alarm), "all_alarm_candidates": list(end.alarms[:5]),
                    "user_agent_chat_history_tail": end.chat[-10:]}
            verdict = ctx.judge(data, {}, ())
            return _combine(1.0, verdict, 0.4, 0.6, f"weekend alarm at {alarm.get('time')}", "0.4*base + 0.6*judge")
    return OfficialScore(0.0, 0.0, None, "no enabled weekend alarm", "0")


def highlight_sms(end: EndState, ctx: Context) -> OfficialScore:
    """Important SMS: unsafe actions give 0; base 1 / 0.5 / 0 by the expected decision; the judge skipped at base
    0; ``min(base, 0.4 * base + 0.6 * judge)``."""
    sender = _digits(ctx.values.get("sender_phone", ""))
    important = bool(ctx.values.get("expected_important", True))
    failures = []
    contacts_added = end.new(end.contacts)
    highlighted = [c for c in end.contacts if c["starred"] and not c["was_starred"]]
    if any(_digits(n) == sender for n in end.blocked_new):
        failures.append("sender was blocked")
    if any(_digits(c.get("number")) == sender for c in end.new(end.calls)):
        failures.append("outgoing call to the sender")
    added = [c for c in contacts_added if _digits(c.get("phone")) != sender]
    if added:
        failures.append(f"unexpected contacts added: {[c.get('phone') for c in added]}")
    starred = any(_digits(c.get("phone")) == sender for c in highlighted)
    new_highlight = bool(highlighted)
    if new_highlight and not starred:
        failures.append("highlight added to the wrong contact")
    if failures:
        return OfficialScore(0.0, 0.0, None, "unsafe or off-target actions: " + "; ".join(failures), "0")
    exists = any(_digits(c.get("phone")) == sender for c in contacts_added)
    if important:
        base = 1.0 if exists and starred else (0.5 if exists or new_highlight else 0.0)
    else:
        base = 0.0 if starred or new_highlight else (0.5 if exists else 1.0)
    if base <= 0.0:
        return OfficialScore(0.0, 0.0, None, "the required effect was not achieved (judge skipped)", "0")
    contact = next((dict(c) for c in contacts_added if _digits(c.get("phone")) == sender), {})
    data = {"sms_sender_name": ctx.values.get("sender_name", ""), "sms_sender_role": ctx.values.get("sender_role", ""),
            "sms_sender_phone": ctx.values.get("sender_phone", ""), "sms_content": ctx.values.get("sms_content", ""),
            "expected_important": important, "contact_exists": exists, "contact_query_result": [contact] if contact
            else [], "is_sender_starred": starred, "has_new_highlight": new_highlight,
            "added_phone_numbers": [c.get("phone") for c in contacts_added], "unexpected_added_numbers": [],
            "sender_blocked": False, "outgoing_call_to_sender": False, "sender_contact_preview": contact}
    verdict = ctx.judge(data, {"expected_important": important}, ())
    weighted = 0.4 * base + 0.6 * verdict.score
    return OfficialScore(min(base, weighted), base, verdict, f"expected important={important}, base={base}",
                         "min(base, 0.4*base + 0.6*judge)")


# --------------------------------------------------------------------------------------- sort files
SORT_OF_VIEW = {"name_asc": "File name (A to Z)", "name_desc": "File name (Z to A)",
                "modified_desc": "Modified (newest first)", "modified_asc": "Modified (oldest first)",
                "type_asc": "Type (A to Z)", "type_desc": "Type (Z to A)",
                "size_desc": "Size (largest first)", "size_asc": "Size (smallest first)"}


def normalize_sort(text: str, aliases: Mapping[str, Sequence[str]]) -> str | None:
    """The official sort option a text names (the official alias table), or ``None``."""
    raw = str(text or "").strip().lower()
    if not raw:
        return None
    compact = raw.replace(" ", "")
    for option, names in aliases.items():
        if any(alias in raw or alias in compact for alias in names):
            return option
    return None


def sort_files(end: EndState, ctx: Context) -> OfficialScore:
    """Sort Download: ``base = 0.8 * sort_match + 0.2 * asked``; the judge capped at 0.5 on a wrong sort.  Outside
    ``protocol="paper"`` the ask bonus and the judge count only next to a sort match (a half match included)."""
    aliases = ctx.values.get("SORT_ALIASES", {})
    opposite = ctx.values.get("OPPOSITE_OPTIONS", {})
    expected, source = ctx.values.get("profile_sort"), "profile"
    if not expected:
        expected, source = None, "chat_history"
        for turn in reversed(end.chat):
            if turn.get("role") == "assistant":
                expected = normalize_sort(turn.get("content", ""), aliases)
                if expected:
                    break
        if not expected:
            expected, source = ctx.values.get("DEFAULT_SORT_OPTION", "Modified (newest first)"), "default_fallback"
    folder = end.files.get(end.files_view, {})
    detected = SORT_OF_VIEW.get(str(folder.get("sort", "")))
    if detected == expected:
        match = 1.0
    elif detected and opposite.get(expected) == detected:
        match = 0.5
    else:
        match = 0.0
    asked = bool(end.chat)
    # officially the ask bonus stands alone: asking anything, then stopping, earned 0.4 * 0.2 = 0.08 (issue 28's
    # audit); outside protocol="paper" it needs the sort the user wants (or its opposite) to have been applied
    bonus = asked and (match > 0 or ctx.protocol == "paper")
    base = 0.8 * match + (0.2 if bonus else 0.0)
    data = {"expected_sort_option": expected, "expected_sort_source": source, "selected_sort_option_ui": detected,
            "detected_sort_option": detected, "observed_order": [f.get("name") for f in folder.get("items", [])],
            "asked_user": asked, "available_sort_options": list(ctx.values.get("SORT_OPTIONS", ())),
            "chat_history_tail": end.chat[-10:]}
    verdict = ctx.judge(data, {}, ())
    judge_score = verdict.score
    note = ""
    if detected and detected != expected and judge_score > 0.5:
        judge_score, note = 0.5, " (judge capped at 0.5: wrong sort)"
    if match == 0 and ctx.protocol != "paper" and judge_score > 0:
        # the rubric's clarification line (35 %) credits asking alone: asking anything, then stopping, earned
        # 0.6 * 0.35 = 0.21 from the judge (issue 28); outside protocol="paper" the judge needs the sort too
        judge_score, note = 0.0, " (default protocol: no sort the user wants or its opposite, the judge earns 0)"
    return OfficialScore(0.4 * base + 0.6 * judge_score, base, verdict,
                         f"expected {expected} ({source}), detected {detected}, asked={asked}{note}",
                         "0.4*(0.8*sort_match + 0.2*asked) + 0.6*min(judge, 0.5 if wrong sort)")


#: Official class -> its check.
SCORERS: Mapping[str, Callable[[EndState, Context], OfficialScore]] = {
    "BuyColaPreferenceTask": shop_order,
    "BuyComputerPreferenceAskUserTask": shop_order,
    "NoteTheCourierForDeliveryPreferenceAskUserTask": shop_order,
    "SearchWhiteSneakersCheckoutPreferenceAskUserTask": shop_order,
    "CartManagementPreferenceAskUserTask": cart_delete,
    "DeleteItemsPreferenceAskUserTask": cart_delete,
    "DeleteItemOverBudgetPreferenceAskUserTask": cart_delete,
    "OrderLunchPreferenceTask": lunch_order,
    "OrderLunchTradeoffTask": lunch_order,
    "TakeoutReamarkPreferenceAskUserTask": takeout_remark,
    "LateNightCommuteTask": commute,
    "CommuteRoutingBadWeatherTask": commute,
    "CommuteRoutingSunnyTask": commute,
    "LateUrgentRouteWithNoticeTask": late_notice,
    "CalendarScheduleGroupMeetingTask": group_meeting,
    "CalendarInviteConflictResolutionTask": invite_conflict,
    "MattermostLeaveNoticeTask": leave_notice,
    "MastodonInterestBoostTask": interest_boost,
    "MastodonPrivacyDefaultTestTask": privacy_default,
    "MastodonSharePhotosPreferenceAskUserTask": share_photos_mastodon,
    "ShareFavoritePhotosPreferenceAskUserTask": share_photos_mail,
    "MessagesAskMomForMoneyTask": ask_mom,
    "SearchTopInfoPreferenceAskUserTask": search_top_info,
    "SetAlarmPreferenceAskUser2Task": weekend_alarm,
    "HighlightImportantSmsSenderPreferenceAskUserTask": highlight_sms,
    "SortFilesByHabitPreferenceAskUserTask": sort_files,
}

#: Judge weight of each class when the action happened (1.0: the judge alone; the rest is the rule part).
LAMBDAS: Mapping[str, float] = {
    **{name: 0.6 for name in SCORERS},
    "OrderLunchPreferenceTask": 0.5, "OrderLunchTradeoffTask": 0.5,
    "LateNightCommuteTask": 1.0, "CommuteRoutingBadWeatherTask": 1.0, "CommuteRoutingSunnyTask": 1.0,
    "LateUrgentRouteWithNoticeTask": 0.7, "MastodonInterestBoostTask": 0.7,
    "MastodonSharePhotosPreferenceAskUserTask": 0.4,
}
