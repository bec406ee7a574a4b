"""Contacts with a dialer: list, details, add / edit, favourites, calls and the call log."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from personal_envs.simulators.phone import ui
from personal_envs.simulators.phone.apps.base import App, AppError, Route
from personal_envs.simulators.phone.apps.messages import normalize_number

if TYPE_CHECKING:
    from personal_envs.simulators.phone.phone import Phone


@dataclass
class Contact:
    """An address-book entry."""

    cid: str
    name: str
    phone: str
    email: str = ""
    starred: bool = False
    note: str = ""


@dataclass
class Call:
    """One entry of the call log."""

    number: str
    time: datetime
    outgoing: bool = True


class ContactsApp(App):
    """Contacts and phone calls; state: :attr:`contacts`, :attr:`calls`."""

    key = "contacts"
    label = "Contacts"
    package = "com.google.android.contacts"
    glyph = "\u263a"
    color = "#188038"
    aliases = ("Phone", "Dialer", "联系人", "电话")

    def __init__(self, phone: Phone) -> None:
        super().__init__(phone)
        self.contacts: list[Contact] = []
        self.calls: list[Call] = []
        #: The number of the call in progress (placed and not ended; going home does not end it), else "".
        self.ongoing = ""

    # ------------------------------------------------------------------------------------------- state API
    def add(self, name: str, number: str, email: str = "", starred: bool = False) -> Contact:
        """Add a contact and return it."""
        contact = Contact(self._new_id("c"), name, number, email, starred)
        self.contacts.append(contact)
        return contact

    def get(self, cid: str) -> Contact | None:
        return next((c for c in self.contacts if c.cid == cid), None)

    def find(self, name_or_number: str) -> Contact | None:
        """The contact whose name (case-insensitive) or number matches."""
        wanted = name_or_number.strip().lower()
        number = normalize_number(name_or_number)
        for contact in self.contacts:
            if contact.name.lower() == wanted or (number and normalize_number(contact.phone) == number):
                return contact
        return None

    def name_for(self, number: str) -> str:
        """The contact name of a number, or an empty string."""
        wanted = normalize_number(number)
        contact = next((c for c in self.contacts if normalize_number(c.phone) == wanted), None)
        return contact.name if contact else ""

    def call(self, number: str) -> None:
        """Place a call (recorded in the call log) and show the in-call screen."""
        self.calls.append(Call(number, self.phone.device.now))
        self.ongoing = number
        self.phone.log(f"call {number}")
        self.phone.push_app("contacts", "incall", number=number)

    # ------------------------------------------------------------------------------------------- screens
    def render(self, route: Route) -> str:
        screen = route.screen
        if screen == "detail":
            return self._render_detail(route)
        if screen == "edit":
            title = "Edit contact" if route.params.get("cid") else "Create contact"
            body = ui.field("name", route.fields.get("name", ""), "Name", rid="contact_name", label="Name")
            body += ui.field("phone", route.fields.get("phone", ""), "Phone", rid="contact_phone", label="Phone")
            body += ui.field("email", route.fields.get("email", ""), "Email", rid="contact_email", label="Email")
            body += ui.field("note", route.fields.get("note", ""), "Note", rid="contact_note", label="Note",
                             multiline=True)
            return ui.header(title, actions=[ui.button("Save", "save", rid="save_contact")]) + ui.scroll(body)
        if screen == "incall":
            number = route.params.get("number", "")
            body = ui.text(self.name_for(number) or number, "big", rid="caller_name")
            body += ui.text(number, "muted", rid="caller_number") + ui.text("Calling…", rid="call_state")
            body += ui.button("End call", "hangup", rid="end_call", kind="danger")
            return ui.header("Phone", back=False) + ui.scroll(body)
        if screen == "keypad":
            body = ui.field("number", route.fields.get("number", ""), "Phone number", rid="digits", label="Number")
            body += ui.button("Call", "dial", rid="dial_button")
            return ui.header("Keypad") + ui.scroll(body)
        tab = route.params.get("tab", "contacts")
        tabs = ui.tabs([("contacts", "Contacts"), ("recents", "Recents")], tab, "tab")
        if tab == "recents":
            rows = "".join(
                ui.row(self.name_for(c.number) or c.number, f"{'Outgoing' if c.outgoing else 'Incoming'} · {c.time:%b %d %H:%M}",
                       act="call", arg=c.number, rid="call_log_entry")
                for c in reversed(self.calls)
            ) or ui.empty("No recent calls")
        else:
            ordered = sorted(self.contacts, key=lambda c: (not c.starred, c.name.lower()))
            rows = "".join(
                ui.row(c.name, c.phone, act="open", arg=c.cid, rid="contact_row", avatar=c.name[:1].upper(),
                       right="\u2605" if c.starred else "")
                for c in ordered
            ) or ui.empty("No contacts")
        actions = [ui.icon_button("\u260f", "Keypad", "keypad", rid="keypad_button")]
        return (
            ui.header("Contacts", back=False, actions=actions) + tabs + ui.scroll(rows)
            + ui.fab("Create contact", "create", "create_contact_fab")
        )

    def _render_detail(self, route: Route) -> str:
        contact = self.get(route.params.get("cid", ""))
        if contact is None:
            return ui.not_found("Contact", "Contact")
        star = ui.icon_button("\u2605" if contact.starred else "\u2606",
                              "Remove from favourites" if contact.starred else "Add to favourites", "star", contact.cid,
                              "favorite_button")
        edit = ui.icon_button("\u270e", "Edit", "edit", contact.cid, "edit_button")
        body = ui.text(contact.name, "big", rid="contact_title") + ui.row(contact.phone, "Mobile", rid="phone_number")
        if contact.email:
            body += ui.row(contact.email, "Email", rid="email_address")
        if contact.note:
            body += ui.row(contact.note, "Note", rid="contact_note_text")
        body += (
            '<div class="btns">' + ui.button("Call", "call", contact.phone, rid="call_button")
            + ui.button("Message", "message", contact.phone, rid="message_button", kind="secondary") + "</div>"
        )
        return ui.header("", actions=[star, edit]) + ui.scroll(body)

    def handle(self, action: str, arg: str, route: Route) -> None:
        phone = self.phone
        if action == "tab":
            route.params["tab"] = arg
        elif action == "open":
            phone.push("detail", cid=arg)
        elif action == "create":
            phone.push("edit")
        elif action == "keypad":
            phone.push("keypad")
        elif action == "edit":
            contact = self.get(arg)
            if contact is not None:
                edit = phone.push("edit", cid=contact.cid)
                edit.fields.update(name=contact.name, phone=contact.phone, email=contact.email, note=contact.note)
        elif action == "star":
            contact = self.get(arg)
            if contact is not None:
                contact.starred = not contact.starred
                phone.log(f"contact {contact.name} starred={contact.starred}")
        elif action == "save":
            self._save(route)
        elif action in ("call", "dial"):
            number = arg or route.field("number")
            if not normalize_number(number):
                raise AppError("Enter a phone number")
            self.call(number)
        elif action == "hangup":
            self.ongoing = ""
            phone.pop()
        elif action == "message":
            phone.push_app("messages", "thread", number=arg)

    def _save(self, route: Route) -> None:
        name, number, email = route.field("name"), route.field("phone"), route.field("email")
        if not name or not normalize_number(number):
            raise AppError("A contact needs a name and a phone number")
        contact = self.get(route.params.get("cid", ""))
        if contact is None:
            contact = self.add(name, number, email)
            contact.note = route.field("note")
            self.phone.log(f"contact added {name} {number}")
        else:
            contact.name, contact.phone, contact.email = name, number, email
            contact.note = route.field("note")
            self.phone.log(f"contact edited {name} {number}")
        self.phone.pop()
        if route.params.get("cid") is None:
            self.phone.push("detail", cid=contact.cid)
