"""The embedded worlds KnowU tasks start from, written for this project (the official ones live in the official app
images, outside the release).

* :func:`seed_world`: the general tasks' world (the owner's contacts, places, chats, photos, files, shops and
  restaurants); each task adds its own state on top.
* :func:`preference_world` and :func:`seed_state`: the preference classes' worlds, from ``data/world.yaml``: app
  fixtures that are the same for every persona (catalogs, carts, menus, timeline, channels...), as app-state dicts::

    messages {"threads": [{"contact", "number", "messages": [{"direction": "in"|"out", "text", "time"}]}]}
    contacts {"contacts": [{"name", "phone", "email", "note", "highlighted"}]}    calendar {"events": [...]}
    clock {"alarms": [{"id", "time", "label", "enabled", "days", "ringtone"}], "ringtones": [...]}
    mail {"sent": [...]}   gallery {"albums": [{"name", "photos": [{"id", "name", "date", "tags"}]}]}
    files {"folders": {"Download": [{"name", "modified", "size_kb", "type"}]}, "view": {"folder", "sort"}}
    mastodon {"timeline": [{"id", "author", "text", "tags"}]}   mattermost {"team", "channels": [...]}
    taodian / jingdian {"catalog": [{"id", "title", "category", "brand", "price", "color", "tags", "sizes"}],
                        "cart": [...]}
    chilemei / tuantuan {"restaurants": [{"id", "name", "dishes": [{"id", "name", "price", "cuisine",
                                                                    "contains", "traits"}]}]}
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from personal_envs.simulators.phone.apps.food import Dish
from personal_envs.simulators.phone.apps.messages import Sms
from personal_envs.simulators.phone.apps.shop import CartItem
from personal_envs.simulators.phone.phone import Phone

#: The run date of every embedded world (official setups that use "now" read the host clock; runs here are
#: reproducible).  A Friday.
RUN_DATE = datetime(2026, 5, 22, 9, 0)
WORLD_FILE = Path(__file__).with_name("data") / "world.yaml"
State = dict[str, Any]

WORK_ADDRESS = "Zheda Science Park, 478 Wensan Road, Xihu District, Hangzhou"

#: name -> (phone, email)
CONTACTS: dict[str, tuple[str, str]] = {
    "Mom": ("13900001111", ""),
    "Dad": ("13900002222", ""),
    "Li Na": ("13711112222", "lina@example.com"),
    "Chen Jie": ("13622223333", "chenjie@example.com"),
    "Wang Fang": ("13533334444", "wangfang@example.com"),
    "Zhao Lei": ("13444445555", "zhaolei@example.com"),
    "Sun Yu": ("13355556666", ""),
}


def number_of(name: str) -> str:
    """Phone number of a default contact."""
    return CONTACTS[name][0]


def seed_world(phone: Phone) -> None:
    """Fill every app with the default world (relative to the phone's current date)."""
    now = phone.device.now
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    for name, (number, email) in CONTACTS.items():
        phone.contacts.add(name, number, email, starred=name == "Mom")
    phone.messages.receive(number_of("Dad"), "Remember to call grandma this weekend.", day - timedelta(days=2, hours=-19))
    phone.messages.send(number_of("Dad"), "Will do!")
    phone.messages.sms[-1].time = day - timedelta(days=2, hours=-20)
    phone.messages.receive("10086", "Your monthly data plan has 2.1 GB left.", day - timedelta(days=1, hours=-10))
    for message in phone.messages.sms:
        message.read = True
    phone.mail.add("HR Team <hr@example.com>", "Holiday schedule", "The office closes on Feb 16-18 for the holiday.",
                   day - timedelta(days=3, hours=-11), read=True)
    phone.mail.add("chenjie@example.com", "Q1 goals", "Please review the Q1 goals before Friday.", day - timedelta(days=1, hours=-9))
    phone.calendar.add("Team stand-up", day + timedelta(days=1, hours=9, minutes=30), day + timedelta(days=1, hours=9, minutes=45))
    phone.calendar.add("Gym", day + timedelta(days=2, hours=19), day + timedelta(days=2, hours=20))
    phone.clock.add_alarm(7, 0, days=["Mon", "Tue", "Wed", "Thu", "Fri"], label="Work")
    phone.clock.add_alarm(22, 30, enabled=False, label="Sleep")
    maps = phone.maps
    maps.add_place("Zijingang Campus", "Zhejiang University Zijingang Campus, 866 Yuhangtang Road", 30.3036, 120.0861,
                   ["Zijingang", "Zhejiang University Zijingang Campus", "浙大紫金港校区"])
    maps.add_place("Zheda Science Park", WORK_ADDRESS, 30.2795, 120.1235,
                   ["478 Wensan Road", "Wensan Road 478", "浙大科技园", "Science Park"])
    maps.add_place("West Lake", "West Lake Scenic Area, Hangzhou", 30.2425, 120.1487, ["西湖"])
    maps.add_place("Hangzhou East Railway Station", "1 Tiancheng Road, Hangzhou", 30.2906, 120.2127, ["Hangzhou East"])
    maps.add_place("Xixi Wetland", "518 Tianmushan Road, Hangzhou", 30.2700, 120.0637, ["Xixi"])
    chrome = phone.chrome
    chrome.add_page("https://www.alphaxiv.org", "alphaXiv – discuss arXiv papers",
                    [("p", "Trending papers this week, with comments from the community.")])
    chrome.add_page("https://huggingface.co/papers", "Daily Papers – Hugging Face",
                    [("p", "Papers picked by the community today.")])
    chrome.add_page("https://weather.example.com/hangzhou", "Hangzhou weather today",
                    [("p", f"{now:%A, %B} {now.day}: light rain, 8°C to 13°C, humidity 85%, wind NE 3."),
                     ("p", "Tomorrow: cloudy, 7°C to 12°C.")])
    chrome.add_page("https://tech.example.com", "Tech Daily – today's headlines",
                    [("h", "Top story"), ("a", "Hangzhou opens its first fully driverless bus line", "https://tech.example.com/driverless-bus"),
                     ("h", "More news"), ("a", "Chip makers report a strong quarter", "https://tech.example.com/chips"),
                     ("a", "A new battery chemistry doubles phone life", "https://tech.example.com/battery")])
    chrome.add_page("https://tech.example.com/driverless-bus", "Hangzhou opens its first fully driverless bus line",
                    [("p", "The 12 km line links the science park with the railway station and runs every 10 minutes.")])
    chrome.add_page("https://news.example.com", "City News", [("p", "Lantern festival preparations begin at West Lake.")])
    mm = phone.mattermost
    mm.post("town-square", "lina", "Morning all! Coffee machine on floor 3 is fixed.", now - timedelta(hours=2))
    mm.post("team-chat", "zhaolei", "Pushed the new build to staging.", now - timedelta(hours=1))
    mm.post("off-topic", "sunyu", "Anyone up for badminton on Thursday?", now - timedelta(hours=5))
    ma = phone.mastodon
    ma.add("Chef Lin", "@cheflin", "Tried a new dumpling recipe today, the secret is ginger water.", now - timedelta(hours=3))
    ma.add("Travel Notes", "@travelnotes", "Sunrise at Huangshan is worth the 4 a.m. start.", now - timedelta(hours=6))
    ma.add("Football Daily", "@footballdaily", "What a comeback in the derby last night!", now - timedelta(hours=8))
    gallery = phone.gallery
    gallery.add("IMG_0398.jpg", "Camera", day - timedelta(days=20, hours=-15), "A bowl of noodles", "#b5651d")
    gallery.add("IMG_0401.jpg", "Camera", day - timedelta(days=12, hours=-10), "A cat on a sofa", "#8d6e63")
    files = phone.files
    files.add("/Download/boarding_pass.pdf", 220, day - timedelta(days=6, hours=-8))
    files.add("/Download/invoice_2026_01.pdf", 95, day - timedelta(days=1, hours=-14))
    files.add("/Download/app_manual.pdf", 1800, day - timedelta(days=30, hours=-9))
    files.add("/Download/photo_backup.zip", 5400, day - timedelta(days=3, hours=-21))
    files.add("/Documents/Notes.txt", 4, day - timedelta(days=2), "Buy milk. Call the plumber.")
    _seed_shops(phone)
    _seed_food(phone)


def _seed_shops(phone: Phone) -> None:
    for key in ("taodian", "jingdian"):
        shop = phone.shop(key)
        add = shop.add_product
        add("cola_zero_24", "Zero Sugar Cola 330ml × 24 cans", 59, "drinks", description="One case, canned, zero sugar")
        add("cola_classic_24", "Classic Cola 330ml × 24 cans", 55, "drinks", description="One case, canned")
        add("cola_zero_2l", "Zero Sugar Cola 2L bottle", 9.9, "drinks", description="Single bottle")
        add("mbp14_m3", "MacBook Pro 14-inch M3 8GB/512GB", 14999, "computers", description="Apple laptop")
        add("mbp14_m3pro", "MacBook Pro 14-inch M3 Pro 18GB/512GB", 16999, "computers", description="Apple laptop")
        add("mbp16_m3max", "MacBook Pro 16-inch M3 Max", 25999, "computers", description="Apple laptop")
        add("mba13_m2", "MacBook Air 13-inch M2", 7999, "computers", description="Apple laptop")
        add("sofa_fabric_3", "Three-seat fabric sofa, grey", 2499, "furniture", description="Living-room sofa, 210 cm")
        add("armchair_leather", "Leather armchair", 1299, "furniture", description="Single seat")
        add("sneakers_white", "Classic white canvas sneakers", 189, "shoes", "casual",
            {"size": ["39", "40", "41", "42", "43", "44"]}, "White everyday sneakers for commuting")
        add("shoes_black_run", "Black running shoes", 329, "shoes", "sport", {"size": ["40", "41", "42", "43"]},
            "Lightweight running shoes")
        add("hightops_white", "White basketball high-tops", 459, "shoes", "sport", {"size": ["41", "42", "43"]},
            "Basketball shoes")
        add("jacket_run", "Men's running jacket", 199, "clothing", "sport")
        add("shorts_basket", "Basketball shorts", 89, "clothing", "sport")
        add("leggings_yoga", "Yoga leggings", 129, "clothing", "sport")
        add("coat_wool", "Wool overcoat", 699, "clothing", "formal")
        add("shirt_linen", "Linen shirt", 159, "clothing", "casual")
        add("sweater_cashmere", "Cashmere sweater", 299, "clothing", "casual")
        add("jacket_denim", "Denim jacket", 189, "clothing", "casual")
        add("tshirt_cotton", "Cotton T-shirt", 59, "clothing", "casual")
        add("chinos", "Chino trousers", 139, "clothing", "casual")
        add("sneakers_leather", "Leather sneakers", 399, "shoes", "casual")
        add("earbuds_bt", "Bluetooth earbuds", 249, "electronics")
        add("charger_65w", "USB-C charger 65W", 129, "electronics")
        add("case_silicone", "Silicone phone case", 39, "electronics", description="Phone accessory")
        add("bottle_steel", "Stainless steel water bottle", 79, "home")
        add("notebook_set", "Notebook set (3 pcs)", 25, "stationery")
        add("green_tea", "Longjing green tea 250g", 168, "food")


def _seed_food(phone: Phone) -> None:
    chilemei = phone.food("chilemei")
    chilemei.add_restaurant("cm_sichuan", "Sichuan Kitchen", 4.7, 3, [
        Dish("yuxiang_rice", "Yu-Shiang shredded pork rice bowl", 22, ["sweet and sour", "mildly spicy"]),
        Dish("kungpao_rice", "Kung Pao chicken rice bowl", 24, ["spicy", "peanuts"], ["No peanuts", "Less spicy", "Extra rice"]),
        Dish("mapo_rice", "Mapo tofu rice bowl", 19, ["spicy"]),
        Dish("crayfish", "Spicy crayfish (1 kg)", 98, ["spicy"]),
    ])
    chilemei.add_restaurant("cm_light", "Green Bowl", 4.6, 3, [
        Dish("fish_tofu", "Steamed fish with tofu rice bowl", 24, ["light", "steamed"]),
        Dish("veg_congee", "Vegetable congee set", 16, ["light", "vegetarian"]),
        Dish("chicken_salad", "Grilled chicken salad", 32, ["light", "salad"]),
    ])
    chilemei.add_restaurant("cm_burger", "Burger Barn", 4.3, 5, [
        Dish("burger_double", "Double cheeseburger meal", 35, ["fried"]),
        Dish("fries", "Large fries", 12, ["fried"]),
    ])
    tuantuan = phone.food("tuantuan")
    tuantuan.add_restaurant("tt_noodle", "Noodle House", 4.5, 4, [
        Dish("beef_noodle", "Braised beef noodles", 26, ["savory"]),
        Dish("veg_noodle", "Clear broth vegetable noodles", 18, ["light", "vegetarian"]),
    ])
    tuantuan.add_restaurant("tt_sichuan", "Spicy Corner", 4.4, 4, [
        Dish("kungpao_rice", "Kung Pao chicken rice bowl", 23, ["spicy", "peanuts"], ["No peanuts", "Less spicy", "Extra rice"]),
        Dish("yuxiang_rice", "Yu-Shiang shredded pork rice bowl", 21, ["sweet and sour"]),
    ])


def at(phone: Phone, days: int = 0, hour: int = 0, minute: int = 0) -> datetime:
    """A time relative to the start of today on the phone."""
    day = phone.device.now.replace(hour=0, minute=0, second=0, microsecond=0)
    return day + timedelta(days=days, hours=hour, minutes=minute)


# ============================================================================================ preference worlds
@functools.cache
def world_data() -> dict[str, Any]:
    """``data/world.yaml``: the fixtures and the per-class world of the preference classes."""
    data = yaml.safe_load(WORLD_FILE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def preference_world(name: str, channels: Sequence[str] = ()) -> tuple[datetime, State]:
    """The start time and app state of preference class ``name`` (the same for every persona); ``channels``: the
    Mattermost channels the persona set's profiles name, added to the world's own."""
    data = world_data()
    spec = data["classes"][name]
    hour, minute = (int(x) for x in str(spec["time"]).split(":"))
    state: State = {}
    for fixture in spec["apps"]:
        if fixture == "shops":
            cart = data["carts"].get(spec.get("cart", ""), [])
            for shop in ("taodian", "jingdian"):
                state[shop] = {"catalog": copy.deepcopy(data["catalog"]), "cart": copy.deepcopy(cart)}
        elif fixture in ("food", "food_all"):
            every = [r for app in ("chilemei", "tuantuan") for r in data["restaurants"][app]]
            for app in ("chilemei", "tuantuan"):
                state[app] = {"restaurants": copy.deepcopy(every if fixture == "food_all" else data["restaurants"][app])}
        elif fixture == "invite":
            invite = data["invite"]
            state["messages"] = {"threads": [{"contact": invite["contact"], "number": "", "messages": [
                {"direction": "in", "time": invite["time"], "text": invite["text"]}]}]}
        elif fixture == "mattermost":
            names = list(dict.fromkeys([*data["channels"], *channels]))
            state["mattermost"] = {"team": "Team", "channels": names}
        elif fixture == "mastodon":
            state["mastodon"] = {"timeline": copy.deepcopy(data["timeline"])}
        elif fixture == "gallery":
            state["gallery"] = {"albums": [{"name": "Camera", "photos": copy.deepcopy(data["photos"])}]}
        elif fixture == "clock":
            state["clock"] = {"alarms": copy.deepcopy(data["alarms"]), "ringtones": list(data["ringtones"])}
        elif fixture == "files":
            state["files"] = {"folders": {"Download": copy.deepcopy(data["download"])},
                              "view": {"folder": "Download", "sort": "modified_asc"}}
        else:
            state.setdefault(fixture, {})
    return RUN_DATE.replace(hour=hour, minute=minute), state


def _at(text: Any, default: datetime) -> datetime:
    """``YYYY-MM-DD HH:MM``, ``YYYY-MM-DD`` or ``HH:MM`` (on ``default``'s day)."""
    value = str(text or "").strip()
    for pattern in ("%Y-%m-%d %H:%M", "%Y-%m-%d"):
        try:
            return datetime.strptime(value, pattern)
        except ValueError:
            pass
    found = re.fullmatch(r"(\d{1,2}):(\d{2})", value)
    return default.replace(hour=int(found.group(1)), minute=int(found.group(2)), second=0) if found else default


def _product(item: Mapping[str, Any]) -> dict[str, Any]:
    sizes = [str(s) for s in item.get("sizes", []) or []]
    details = [str(item.get("brand", "")), str(item.get("color", "")), ", ".join(map(str, item.get("tags", []) or []))]
    return {"pid": str(item["id"]), "title": str(item.get("title", item["id"])), "price": float(item.get("price", 0)),
            "category": str(item.get("category", "")), "style": str(item.get("color", "") or ""),
            "options": {"size": sizes} if sizes else {}, "description": " · ".join(d for d in details if d)}


def seed_state(phone: Phone, state: Mapping[str, Any], start: datetime) -> None:
    """Put a preference world (app-state dicts, see the module docstring) on ``phone`` at ``start``."""
    device = phone.device
    device.now, device.location, device.battery_level, device.media_volume = start, "", 76, 5
    for item in state.get("contacts", {}).get("contacts", []):
        contact = phone.contacts.add(str(item["name"]), str(item.get("phone", "")), str(item.get("email", "")),
                                     bool(item.get("highlighted", False)))
        contact.note = str(item.get("note", "") or "")
    for thread in state.get("messages", {}).get("threads", []):
        number, name = str(thread.get("number", "")), str(thread.get("contact", "") or "")
        if name and number and phone.contacts.find(number) is None:
            phone.contacts.add(name, number)
        for message in thread.get("messages", []):
            outgoing = message.get("direction") == "out"
            phone.messages.sms.append(Sms(number, str(message["text"]), _at(message.get("time"), start), outgoing,
                                          read=outgoing))
    clock = state.get("clock", {})
    if clock.get("ringtones"):
        phone.clock.ringtones = list(dict.fromkeys(["Default", *map(str, clock["ringtones"])]))
    for item in clock.get("alarms", []):
        hour, minute = (int(x) for x in str(item["time"]).split(":"))
        phone.clock.add_alarm(hour, minute, enabled=bool(item.get("enabled", True)), days=list(item.get("days", [])),
                              label=str(item.get("label", "")), ringtone=str(item.get("ringtone", "Default")))
    for album in state.get("gallery", {}).get("albums", []):
        for item in album.get("photos", []):
            subject = str(item.get("description", "") or ", ".join(map(str, item.get("tags", []) or [])))
            phone.gallery.add(str(item["name"]), str(album.get("name", "Camera")),
                              _at(item.get("date"), start).replace(hour=12), subject)
    files = state.get("files", {})
    for folder, items in files.get("folders", {}).items():
        if folder not in phone.files.folders:
            phone.files.folders.append(folder)
        for item in items:
            name = str(item["name"])
            content = f"{name.rsplit('.', 1)[0].replace('_', ' ')}\n\nLast edited {item.get('modified', '')}." \
                if name.rsplit(".", 1)[-1] in ("pdf", "txt", "docx", "md") else ""
            phone.files.add(f"/{folder}/{name}", int(item.get("size_kb", 1) or 1), _at(item.get("modified"), start),
                            content)
    if files.get("view"):
        phone.files.view_folder = str(files["view"]["folder"])
        phone.files.sort_order[phone.files.view_folder] = str(files["view"]["sort"])
    mastodon = phone.mastodon
    mastodon.account, mastodon.display_name, mastodon.default_visibility = "@me", "Me", "public"
    for offset, item in enumerate(state.get("mastodon", {}).get("timeline", [])):
        handle = str(item.get("author", "@someone"))
        mastodon.add(handle.lstrip("@").replace("_", " ").title(), handle, str(item.get("text", "")),
                     start - timedelta(hours=offset + 1))
    if "mattermost" in state:
        mm = phone.mattermost
        mm.username, mm.team = "me", str(state["mattermost"]["team"])
        mm.channels = {str(c): str(c) for c in state["mattermost"]["channels"]}
    for key in ("taodian", "jingdian"):
        shop = phone.shop(key)
        for item in state.get(key, {}).get("catalog", []):
            shop.add_product(**_product(item))
        for item in state.get(key, {}).get("cart", []):
            if shop.product(str(item["id"])) is None:
                shop.add_product(**_product(item))
            shop.cart.append(CartItem(str(item["id"]), int(item.get("qty", 1) or 1)))
        shop.account_on_file = True
    for key in ("chilemei", "tuantuan"):
        food = phone.food(key)
        for restaurant in state.get(key, {}).get("restaurants", []):
            dishes = [Dish(str(d["id"]), str(d["name"]), float(d.get("price", 0)),
                           [*map(str, d.get("cuisine", []) or []), *map(str, d.get("traits", []) or []),
                            *(f"contains {c}" for c in d.get("contains", []) or [])])
                      for d in restaurant.get("dishes", [])]
            food.add_restaurant(str(restaurant["id"]), str(restaurant["name"]), 4.6, 0.0, dishes)
        food.account_on_file = True
    phone.chrome.show_shortcuts = False
    for url, title, text in world_data()["pages"]:
        phone.chrome.add_page(url, title, [("p", text)])
    phone.mail.address = "me@example.com"
