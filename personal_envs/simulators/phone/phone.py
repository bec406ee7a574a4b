"""The simulated phone: device state, installed apps, the back stack, overlays, event handling and rendering.

:class:`Phone` is pure Python and the source of truth every verifier reads.  The page in Chromium only shows what
:meth:`Phone.render` returns and reports what the user did; :meth:`Phone.handle_events` applies those reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar, cast

from personal_envs.simulators.phone import ui
from personal_envs.simulators.phone.apps import App, AppError, Route, app_classes
from personal_envs.simulators.phone.device import DeviceState, Notification

if TYPE_CHECKING:
    from personal_envs.simulators.phone.apps.calendar import CalendarApp
    from personal_envs.simulators.phone.apps.chrome import ChromeApp
    from personal_envs.simulators.phone.apps.clock import ClockApp
    from personal_envs.simulators.phone.apps.contacts import ContactsApp
    from personal_envs.simulators.phone.apps.docreader import DocreaderApp
    from personal_envs.simulators.phone.apps.files import FilesApp
    from personal_envs.simulators.phone.apps.food import FoodApp
    from personal_envs.simulators.phone.apps.gallery import GalleryApp
    from personal_envs.simulators.phone.apps.mail import MailApp
    from personal_envs.simulators.phone.apps.maps import MapsApp
    from personal_envs.simulators.phone.apps.mastodon import MastodonApp
    from personal_envs.simulators.phone.apps.mattermost import MattermostApp
    from personal_envs.simulators.phone.apps.messages import MessagesApp
    from personal_envs.simulators.phone.apps.settings import SettingsApp
    from personal_envs.simulators.phone.apps.shop import ShopApp

A = TypeVar("A", bound=App)

HOME_PACKAGE = "com.google.android.apps.nexuslauncher"
SYSTEM_PACKAGE = "com.android.systemui"
#: Quick-settings tiles of the notification shade: (key, label, the :class:`DeviceState` flag the tile flips).
QUICK_SETTINGS: tuple[tuple[str, str, str], ...] = (
    ("wifi", "Internet", "wifi"), ("bluetooth", "Bluetooth", "bluetooth"), ("dnd", "Do Not Disturb", "do_not_disturb"),
    ("dark", "Dark theme", "dark_mode"), ("saver", "Battery Saver", "battery_saver"),
    ("airplane", "Airplane mode", "airplane_mode"),
)


class UnknownAppError(LookupError):
    """``open_app`` named an app that is not installed."""


@dataclass
class Dialog:
    """A modal dialog; each button is ``(label, action, arg)`` handled by ``app``."""

    app: str
    title: str
    message: str
    buttons: list[tuple[str, str, str]] = field(default_factory=list)


class Phone:
    """All state of one simulated phone.

    Args:
        now: The simulated date and time (also settable later through :attr:`device`).
    """

    def __init__(self, now: datetime | None = None) -> None:
        self.device = DeviceState()
        if now is not None:
            self.device.now = now
        self.apps: dict[str, App] = {}
        for cls in app_classes():
            self.apps[cls.key] = cls(self)
        self.stack: list[Route] = []
        self.shade_open = False
        self.dialog: Dialog | None = None
        self.toast = ""
        self.launched: list[str] = []
        self.history: list[str] = []

    # --------------------------------------------------------------------------------------- typed accessors
    def app(self, key: str, kind: type[A]) -> A:
        """The installed app ``key`` as ``kind``."""
        return cast(A, self.apps[key])

    @property
    def messages(self) -> MessagesApp:
        from personal_envs.simulators.phone.apps.messages import MessagesApp

        return self.app("messages", MessagesApp)

    @property
    def contacts(self) -> ContactsApp:
        from personal_envs.simulators.phone.apps.contacts import ContactsApp

        return self.app("contacts", ContactsApp)

    @property
    def calendar(self) -> CalendarApp:
        from personal_envs.simulators.phone.apps.calendar import CalendarApp

        return self.app("calendar", CalendarApp)

    @property
    def clock(self) -> ClockApp:
        from personal_envs.simulators.phone.apps.clock import ClockApp

        return self.app("clock", ClockApp)

    @property
    def settings(self) -> SettingsApp:
        from personal_envs.simulators.phone.apps.settings import SettingsApp

        return self.app("settings", SettingsApp)

    @property
    def mail(self) -> MailApp:
        from personal_envs.simulators.phone.apps.mail import MailApp

        return self.app("mail", MailApp)

    @property
    def gallery(self) -> GalleryApp:
        from personal_envs.simulators.phone.apps.gallery import GalleryApp

        return self.app("gallery", GalleryApp)

    @property
    def files(self) -> FilesApp:
        from personal_envs.simulators.phone.apps.files import FilesApp

        return self.app("files", FilesApp)

    @property
    def docreader(self) -> DocreaderApp:
        from personal_envs.simulators.phone.apps.docreader import DocreaderApp

        return self.app("docreader", DocreaderApp)

    @property
    def maps(self) -> MapsApp:
        from personal_envs.simulators.phone.apps.maps import MapsApp

        return self.app("maps", MapsApp)

    @property
    def chrome(self) -> ChromeApp:
        from personal_envs.simulators.phone.apps.chrome import ChromeApp

        return self.app("chrome", ChromeApp)

    @property
    def mastodon(self) -> MastodonApp:
        from personal_envs.simulators.phone.apps.mastodon import MastodonApp

        return self.app("mastodon", MastodonApp)

    @property
    def mattermost(self) -> MattermostApp:
        from personal_envs.simulators.phone.apps.mattermost import MattermostApp

        return self.app("mattermost", MattermostApp)

    def shop(self, key: str) -> ShopApp:
        """A shopping app: ``"taodian"`` or ``"jingdian"``."""
        from personal_envs.simulators.phone.apps.shop import ShopApp

        return self.app(key, ShopApp)

    def food(self, key: str) -> FoodApp:
        """A food-delivery app: ``"chilemei"`` or ``"tuantuan"``."""
        from personal_envs.simulators.phone.apps.food import FoodApp

        return self.app(key, FoodApp)

    # ------------------------------------------------------------------------------------------ navigation
    @property
    def route(self) -> Route | None:
        """The screen on top of the back stack (``None`` on the home screen)."""
        return self.stack[-1] if self.stack else None

    def app_names(self) -> list[str]:
        """Labels of the installed apps."""
        return [app.label for app in self.apps.values()]

    def resolve_app(self, name: str) -> App | None:
        """The app called ``name`` (label, key or alias; case and spaces ignored)."""
        wanted = "".join(name.lower().split())
        for app in self.apps.values():
            names = (app.key, app.label, *app.aliases)
            if any("".join(n.lower().split()) == wanted for n in names):
                return app
        return None

    def open_app(self, name: str) -> App:
        """Launch an app at its main screen (raises :class:`UnknownAppError`)."""
        app = self.resolve_app(name)
        if app is None:
            raise UnknownAppError(f"no app called {name!r} is installed; installed apps: {', '.join(self.app_names())}")
        self.shade_open = False
        self.dialog = None
        self.stack = [Route(app.key)]
        self.launched.append(app.key)
        app.on_open()
        return app

    def home(self) -> None:
        """Go to the home screen."""
        self.stack = []
        self.shade_open = False
        self.dialog = None

    def back(self) -> None:
        """Close an overlay or pop one screen."""
        if self.dialog is not None:
            self.dialog = None
        elif self.shade_open:
            self.shade_open = False
        elif self.stack:
            self.stack.pop()

    def push(self, screen: str, **params: str) -> Route:
        """Open ``screen`` of the current app on top of the stack."""
        current = self.route
        if current is None:
            raise RuntimeError("push() needs an app on screen")
        route = Route(current.app, screen, dict(params))
        self.stack.append(route)
        return route

    def push_app(self, app_key: str, screen: str, **params: str) -> Route:
        """Open ``screen`` of another app on top of the stack (sharing, opening a file)."""
        route = Route(app_key, screen, dict(params))
        self.stack.append(route)
        if app_key not in self.launched[-1:]:
            self.launched.append(app_key)
        return route

    def pop(self) -> None:
        """Close the current screen."""
        if self.stack:
            self.stack.pop()

    def show_dialog(self, title: str, message: str, buttons: list[tuple[str, str, str]]) -> None:
        """Open a modal dialog whose buttons the current app handles."""
        current = self.route
        self.dialog = Dialog(current.app if current else "", title, message, buttons)

    def log(self, entry: str) -> None:
        """Record a state change (for debugging and verifiers that check what happened, not only the end state)."""
        self.history.append(f"{self.device.now:%H:%M} {entry}")

    # --------------------------------------------------------------------------------------------- device
    def notify(self, app: str, title: str, text: str, screen: str = "main", **params: str) -> None:
        """Post a notification to the shade; ``app`` is an installed app's key (``"calendar"``, not its label)."""
        if app not in self.apps:
            raise KeyError(f"notify: no installed app {app!r}; installed: {', '.join(sorted(self.apps))}")
        self.device.notifications.insert(0, Notification(app, title, text, self.device.now, screen, dict(params)))

    def receive_sms(self, sender: str, text: str, when: datetime | None = None, *, notify: bool = True) -> None:
        """An incoming SMS: stored in Messages and announced in the shade."""
        self.messages.receive(sender, text, when or self.device.now)
        if notify:
            name = self.contacts.name_for(sender) or sender
            self.notify("messages", name, text, "thread", number=sender)

    # --------------------------------------------------------------------------------------------- events
    def handle_events(self, events: list[dict[str, Any]]) -> None:
        """Apply the user events the page reported, in order."""
        if events:
            self.toast = ""
        for event in events:
            kind = event.get("t")
            try:
                if kind == "tap" or kind == "long":
                    self.tap(str(event.get("act", "")), str(event.get("arg", "")))
                elif kind == "input":
                    route = self.route
                    if route is not None:
                        route.fields[str(event.get("field", ""))] = str(event.get("value", ""))
                elif kind == "enter":
                    route = self.route
                    if route is not None and self.dialog is None:
                        self.apps[route.app].on_enter(str(event.get("field", "")), route)
                elif kind == "shade":
                    self.shade_open = bool(event.get("open"))
                    self.dialog = None if self.shade_open else self.dialog
            except AppError as exc:
                self.toast = str(exc)

    def tap(self, act: str, arg: str) -> None:
        """Apply a tap on an element with ``data-act=act``."""
        if act.startswith("sys:"):
            self._system_tap(act[4:], arg)
            return
        if self.dialog is not None:
            owner = self.apps.get(self.dialog.app)
            self.dialog = None
            route = self.route
            if owner is not None and route is not None:
                owner.handle(act, arg, route)
            return
        route = self.route
        if route is not None:
            self.apps[route.app].handle(act, arg, route)

    def _system_tap(self, act: str, arg: str) -> None:
        device = self.device
        if act == "back":
            self.back()
        elif act == "home":
            self.home()
        elif act == "open":
            self.open_app(arg)
        elif act == "scrim":
            self.dialog = None
            self.shade_open = False
        elif act == "clear":
            if self.route is not None:
                self.route.fields[arg] = ""
        elif act == "qs":
            tile = next((t for t in QUICK_SETTINGS if t[0] == arg), None)
            if tile is not None:
                setattr(device, tile[2], not getattr(device, tile[2]))
            self.log(f"quick settings {arg}")
        elif act == "notif":
            index = int(arg) if arg.isdigit() else -1
            if 0 <= index < len(device.notifications):
                note = device.notifications.pop(index)
                self.open_app(note.app)
                if note.screen != "main":
                    self.push(note.screen, **note.params)
        elif act == "clear_notifs":
            device.notifications.clear()

    # --------------------------------------------------------------------------------------------- render
    def render(self) -> tuple[str, str]:
        """HTML of the whole screen and a key naming the current screen (for scroll memory)."""
        route = self.route
        overlay = self.dialog is not None or self.shade_open
        hidden = ' aria-hidden="true"' if overlay else ""
        if route is None:
            package, body, key = HOME_PACKAGE, self._home(), "home"
        else:
            app = self.apps[route.app]
            package, key = app.package, f"{route.app}/{route.screen}/{route.uid}"
            body = app.render(route)
        classes = "phone" + (" dark" if self.device.dark_mode else "") + (" home" if route is None else "")
        parts = [
            f'<div class="{classes}" data-pkg="{package}" {ui.attrs(cls="android.widget.FrameLayout")}>',
            '<div class="home-bg"></div>' if route is None else "",
            self._status_bar(),
            f'<div class="app" data-pkg="{ui.e(package)}"{hidden}>{body}</div>',
            self._nav_bar(),
        ]
        if overlay:
            parts.append(f'<div class="scrim" {ui.attrs("sys:scrim", desc="Dismiss")}></div>')
        if self.shade_open:
            parts.append(self._shade())
        if self.dialog is not None:
            parts.append(self._dialog(self.dialog))
        if self.toast:
            parts.append(f'<div class="toast" data-pkg="{SYSTEM_PACKAGE}" {ui.attrs(rid="toast")}>{ui.e(self.toast)}</div>')
        parts.append("</div>")
        return "".join(parts), key

    def _status_bar(self) -> str:
        device = self.device
        icons = []
        if device.do_not_disturb:
            icons.append('<span aria-label="Do not disturb">&#x2296;</span>')
        if device.bluetooth:
            icons.append('<span aria-label="Bluetooth on">BT</span>')
        if device.wifi:
            icons.append('<span aria-label="Wi-Fi on">&#x25BC;</span>')
        saver = " &#x26A1;" if device.battery_saver else ""
        icons.append(f'<span aria-label="Battery {device.battery_level} percent">{device.battery_level}%{saver}</span>')
        return (
            f'<div class="statusbar" data-pkg="{SYSTEM_PACKAGE}" {ui.attrs(rid="status_bar", cls="android.widget.FrameLayout")}>'
            f'<div {ui.attrs(rid="clock", cls="android.widget.TextView")}>{device.now:%H:%M}</div>'
            f'<div class="sicons">{"".join(icons)}</div></div>'
        )

    def _nav_bar(self) -> str:
        return (
            f'<div class="navbar" data-pkg="{SYSTEM_PACKAGE}">'
            f'<div class="nb" {ui.attrs("sys:back", rid="back", cls="android.widget.ImageView", desc="Back")}>&#x25C1;</div>'
            f'<div class="nb" {ui.attrs("sys:home", rid="home", cls="android.widget.ImageView", desc="Home")}>&#x25CB;</div>'
            f'<div class="nb" aria-hidden="true">&#x25A1;</div></div>'
        )

    def _home(self) -> str:
        now = self.device.now
        icons = "".join(
            f'<div class="appicon" {ui.attrs("sys:open", app.key, cls="android.widget.TextView", desc=app.label)}>'
            f'<div class="ic" style="background:{app.color}" aria-hidden="true">{ui.e(app.glyph)}</div>{ui.e(app.label)}</div>'
            for app in self.apps.values()
        )
        return (
            f'<div class="home-clock"><div class="hc-time" {ui.attrs(rid="home_clock", cls="android.widget.TextView")}>{now:%H:%M}</div>'
            f'<div class="hc-date" {ui.attrs(rid="home_date", cls="android.widget.TextView")}>{now:%A, %B} {now.day}</div></div>'
            f'<div class="appgrid" {ui.attrs(rid="workspace", cls="android.view.ViewGroup")}>{icons}</div>'
        )

    def _shade(self) -> str:
        device = self.device
        tile_html = "".join(
            f'<div class="tile{" on" if on else ""}" {ui.attrs("sys:qs", key, f"qs_{key}", "android.widget.Switch", label, checked=on)}>'
            f"{ui.e(label)}</div>"
            for key, label, attribute in QUICK_SETTINGS
            for on in [bool(getattr(device, attribute))]
        )
        notes = "".join(
            f'<div class="notif" {ui.attrs("sys:notif", str(i), "notification", "android.widget.FrameLayout")}>'
            f'<div class="nt" {ui.attrs(cls="android.widget.TextView")}>{ui.e(self.apps[n.app].label)} · {ui.e(n.title)}</div>'
            f'<div {ui.attrs(cls="android.widget.TextView")}>{ui.e(n.text)}</div></div>'
            for i, n in enumerate(device.notifications)
        ) or ui.empty("No notifications")
        clear = (
            f'<div class="nclear" {ui.attrs("sys:clear_notifs", rid="clear_all", cls="android.widget.Button")}>Clear all</div>'
            if device.notifications
            else ""
        )
        return (
            f'<div id="shade" data-pkg="{SYSTEM_PACKAGE}" {ui.attrs(rid="notification_shade", cls="android.widget.FrameLayout")}>'
            f'<div class="qs">{tile_html}</div>{notes}{clear}</div>'
        )

    def _dialog(self, dialog: Dialog) -> str:
        package = self.apps[dialog.app].package if dialog.app in self.apps else SYSTEM_PACKAGE
        buttons = "".join(
            f'<div class="dbtn" {ui.attrs(act, arg, "dialog_" + label.lower().replace(" ", "_"), "android.widget.Button")}>'
            f"{ui.e(label)}</div>"
            for label, act, arg in dialog.buttons
        )
        cancel = f'<div class="dbtn" {ui.attrs("sys:scrim", None, "dialog_cancel", "android.widget.Button")}>Cancel</div>'
        return (
            f'<div class="dialog" data-pkg="{package}" {ui.attrs(rid="dialog", cls="android.widget.FrameLayout")}>'
            f'<div class="dt" {ui.attrs(rid="alertTitle", cls="android.widget.TextView")}>{ui.e(dialog.title)}</div>'
            f'<div {ui.attrs(rid="message", cls="android.widget.TextView")}>{ui.e(dialog.message)}</div>'
            f'<div class="dbtns">{cancel}{buttons}</div></div>'
        )
