"""The official-release loader: real profiles, official-schema files written here, ``load`` and the download list."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from personal_envs.core.download import git_blob_sha1_of, sha256_of
from personal_envs.personalwab import download
from personal_envs.personalwab.data import (
    DataError,
    PersonalWABData,
    generate,
    load,
    load_official,
    load_profiles,
    missing_official_files,
    schema_errors,
)
from personal_envs.personalwab.vocab import PROFILE_FIELDS

REAL_LEVELS = {"Low", "Medium", "High"}


def _write(path: Path, payload: Any) -> None:
    path.write_text(json.dumps(payload), encoding="utf-8")


def _product(asin: str, title: str, store: str, category: str) -> dict[str, Any]:
    return {
        "main_category": category,
        "title": title,
        "average_rating": 4.2,
        "rating_number": 120,
        "features": [f"{title} feature one", "Second feature line"],
        "description": [f"About the {title}."],
        "price": "19.99",
        "store": store,
        "categories": [category.replace("_", " "), "Sub Category"],
        "details": {"Brand": store},
        "parent_asin": asin,
    }


def _entry(product: dict[str, Any], timestamp: int, split: str, rating: float = 5.0) -> dict[str, Any]:
    review = {
        "rating": rating,
        "title": "Nice",
        "text": f"Liked the {product['title']}",
        "parent_asin": product["parent_asin"],
        "timestamp": timestamp,
    }
    return {"product_info": product, "review": review, "split": split}


def _profile(**overrides: str) -> dict[str, str]:
    profile = {name: "Medium" for name in PROFILE_FIELDS}
    profile.update({"Gender": "Female", "Age": "25-34", "Occupation": "Writer", "Tone and Style": "Positive"})
    profile.update(overrides)
    return profile


def _official_payloads() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A tiny release in the official layouts: profiles, history (unsorted on purpose), instructions, products."""
    kettle = _product("B0KETTLE01", "Steel Kettle", "Brewco", "Home_and_Kitchen")
    mugs = _product("B0MUGSET02", "Ceramic Mug Set", "Brewco", "Home_and_Kitchen")
    cable = _product("B0CABLE003", "Braided USB Cable", "Wirely", "Electronics")
    tea = _product("B0GREENTEA", "Sencha Green Tea", "Leafline", "Grocery_and_Gourmet_Food")
    products = {p["parent_asin"]: p for p in (kettle, mugs, cable, tea)}
    profiles = {
        "AUSERONE000000000000000000AA": {"user_profile": _profile()},
        "AUSERTWO000000000000000000BB": {"user_profile": _profile(Gender="Male", Age="35-44")},
    }
    history = {
        "AUSERONE000000000000000000AA": [
            _entry(mugs, 1_600_000_000_000, "test"),
            _entry(kettle, 1_500_000_000_000, "history"),
            _entry(tea, 1_550_000_000_000, "train", rating=3.0),
        ],
        "AUSERTWO000000000000000000BB": [
            _entry(cable, 1_450_000_000_000, "history"),
            _entry(tea, 1_460_000_000_000, "test"),
        ],
    }
    instructions = {
        "train": [
            {
                "user_id": "AUSERONE000000000000000000AA",
                "task": "Find me some green tea.",
                "target": {
                    "product_info": tea,
                    "review": history["AUSERONE000000000000000000AA"][2]["review"],
                },
                "timestamp": 1_550_000_000_000,
                "type": "search",
            }
        ],
        "test": [
            {
                "user_id": "AUSERONE000000000000000000AA",
                "task": "What goes with my kettle?",
                "target": {
                    "product_info": mugs,
                    "review": history["AUSERONE000000000000000000AA"][0]["review"],
                },
                "timestamp": 1_600_000_000_000,
                "type": "recommend",
            },
            {
                "user_id": "AUSERTWO000000000000000000BB",
                "task": "Write a review of this tea.",
                "target": {
                    "product_info": tea,
                    "review": history["AUSERTWO000000000000000000BB"][1]["review"],
                },
                "timestamp": 1_460_000_000_000,
                "type": "review",
            },
        ],
    }
    return profiles, history, instructions, products


def _write_release(directory: Path, *, multipart: bool = True) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    profiles, history, instructions, products = _official_payloads()
    _write(directory / "user_profiles.json", profiles)
    _write(directory / "user_instructions.json", instructions)
    if multipart:
        uids = list(history)
        _write(directory / "user_history_part_1.json", {uids[0]: history[uids[0]]})
        _write(directory / "user_history_part_2.json", {uids[1]: history[uids[1]]})
        _write(directory / "user_history_part_3.json", {})
        asins = list(products)
        _write(directory / "all_products_part_1.json", {a: products[a] for a in asins[:2]})
        _write(directory / "all_products_part_2.json", {a: products[a] for a in asins[2:]})
    else:
        _write(directory / "user_history.json", history)
        _write(directory / "all_products.json", products)


# --- the real profiles -------------------------------------------------------------------------------------------


def test_real_profiles_load_with_all_eleven_fields(anchors_dir: Path) -> None:
    profiles = load_profiles(anchors_dir / "personalwab" / "user_profiles.json")
    assert len(profiles) == 1000
    assert all(list(fields) == list(PROFILE_FIELDS) for fields in profiles.values())
    assert all(len(uid) == 28 and uid.startswith("A") for uid in profiles)
    for level_field in ("Price Sensitivity", "Diversity Preference", "Interaction Complexity"):
        assert {fields[level_field] for fields in profiles.values()} == REAL_LEVELS
    assert profiles["AGMQSZEQFFKH33FJQZLN7MF5QX2Q"]["Age"] == "35-44"


def test_profiles_file_without_wrapper_and_broken_profiles(tmp_path: Path) -> None:
    _write(tmp_path / "flat.json", {"AFLAT": _profile()})
    assert load_profiles(tmp_path / "flat.json")["AFLAT"]["Gender"] == "Female"
    broken = _profile()
    del broken["Focus Aspect"]
    _write(tmp_path / "broken.json", {"ABROKEN": {"user_profile": broken}})
    with pytest.raises(DataError, match="Focus Aspect"):
        load_profiles(tmp_path / "broken.json")
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(DataError, match="not valid JSON"):
        load_profiles(tmp_path / "bad.json")


# --- the official layout ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("multipart", [True, False])
def test_official_layout_loads(tmp_path: Path, multipart: bool) -> None:
    _write_release(tmp_path, multipart=multipart)
    data = load_official(tmp_path)
    assert data.source == f"official:{tmp_path}"
    assert set(data.profiles) == {"AUSERONE000000000000000000AA", "AUSERTWO000000000000000000BB"}
    assert data.profiles["AUSERTWO000000000000000000BB"]["Age"] == "35-44"
    assert len(data.products) == 4
    history = data.histories["AUSERONE000000000000000000AA"]
    assert [entry["review"]["timestamp"] for entry in history] == sorted(
        e["review"]["timestamp"] for e in history
    )
    assert [entry["split"] for entry in history] == ["history", "train", "test"]
    assert [task["type"] for task in data.tasks("test")] == ["recommend", "review"]
    assert [task["type"] for task in data.tasks("test", "review")] == ["review"]
    assert data.tasks("train", "recommend") == []
    assert schema_errors(data) == []


def test_history_before_is_strictly_older(tmp_path: Path) -> None:
    _write_release(tmp_path)
    data = load_official(tmp_path)
    task = data.tasks("test", "recommend")[0]
    visible = data.history_before(task["user_id"], task["timestamp"])
    assert [entry["product_info"]["parent_asin"] for entry in visible] == ["B0KETTLE01", "B0GREENTEA"]
    assert all(entry["review"]["timestamp"] < task["timestamp"] for entry in visible)
    assert data.history_before(task["user_id"], 1_500_000_000_000) == []
    assert data.history_before("ANOBODY", 2_000_000_000_000) == []


def test_text_of_joins_searchable_fields(tmp_path: Path) -> None:
    _write_release(tmp_path)
    data = load_official(tmp_path)
    text = data.text_of("B0KETTLE01")
    for piece in (
        "Steel Kettle",
        "Brewco",
        "Home and Kitchen",
        "Sub Category",
        "Second feature line",
        "About the Steel Kettle.",
    ):
        assert piece in text
    assert "19.99" not in text and "B0KETTLE01" not in text
    with pytest.raises(KeyError):
        data.text_of("B0MISSING0")


def test_tasks_rejects_unknown_split_and_type(tmp_path: Path) -> None:
    _write_release(tmp_path)
    data = load_official(tmp_path)
    with pytest.raises(ValueError, match="split"):
        data.tasks("validation")
    with pytest.raises(ValueError, match="task type"):
        data.tasks("test", "shopping")


def test_missing_part_warns_and_loads_the_rest(tmp_path: Path) -> None:
    _write_release(tmp_path)
    (tmp_path / "user_history_part_2.json").unlink()
    with pytest.warns(UserWarning, match="user_history_part_2.json"):
        data = load_official(tmp_path)
    assert "AUSERTWO000000000000000000BB" not in data.histories
    assert "AUSERONE000000000000000000AA" in data.histories


def test_missing_required_files_are_all_listed(tmp_path: Path) -> None:
    _write_release(tmp_path)
    for name in ("user_instructions.json", "all_products_part_1.json", "all_products_part_2.json"):
        (tmp_path / name).unlink()
    assert len(missing_official_files(tmp_path)) == 2
    with pytest.raises(DataError) as raised:
        load_official(tmp_path)
    message = str(raised.value)
    assert "user_instructions.json" in message and "all_products_part_1.json" in message
    assert "user_history" not in message
    with pytest.raises(DataError, match="user_profiles.json"):
        load_official(tmp_path / "empty")


def test_malformed_instruction_is_reported(tmp_path: Path) -> None:
    _write_release(tmp_path)
    instructions = json.loads((tmp_path / "user_instructions.json").read_text())
    instructions["test"][1]["type"] = "compare"
    _write(tmp_path / "user_instructions.json", instructions)
    with pytest.raises(DataError, match=r"test\[1\].*compare"):
        load_official(tmp_path)


def test_generated_data_round_trips_through_the_official_layout(tmp_path: Path) -> None:
    data = generate(seed=5, n_users=6, n_products=120)
    _write(tmp_path / "user_profiles.json", {uid: {"user_profile": p} for uid, p in data.profiles.items()})
    _write(tmp_path / "user_instructions.json", data.instructions)
    uids = list(data.histories)
    for part, chunk in enumerate((uids[:2], uids[2:4], uids[4:]), start=1):
        _write(tmp_path / f"user_history_part_{part}.json", {uid: data.histories[uid] for uid in chunk})
    asins = list(data.products)
    _write(tmp_path / "all_products_part_1.json", {a: data.products[a] for a in asins[:60]})
    _write(tmp_path / "all_products_part_2.json", {a: data.products[a] for a in asins[60:]})
    loaded = load_official(tmp_path)
    assert loaded.profiles == data.profiles
    assert loaded.products == data.products
    assert loaded.histories == data.histories
    assert loaded.instructions == data.instructions


# --- load() and the download list ------------------------------------------------------------------------------


def test_load_prefers_official_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write_release(tmp_path / "explicit")
    assert load(tmp_path / "explicit").source.startswith("official:")
    with pytest.raises(DataError):
        load(tmp_path / "nowhere")

    monkeypatch.setenv("PERSONAL_ENVS_DATA", str(tmp_path / "cache"))
    generated = load(seed=2, n_users=4, n_products=80)
    assert generated.source == "generated(seed=2, users=4, products=80)"
    assert isinstance(generated, PersonalWABData) and len(generated.profiles) == 4

    _write_release(tmp_path / "cache" / "personalwab", multipart=False)
    assert load().source == f"official:{tmp_path / 'cache' / 'personalwab'}"


def test_download_list_matches_the_loader(tmp_path: Path, anchors_dir: Path) -> None:
    relpaths = [remote.relpath for remote in download.DATA_FILES]
    assert len(set(relpaths)) == len(relpaths) == 7
    assert all(
        remote.url.startswith("https://") and remote.url.endswith(remote.relpath) for remote in download.DATA_FILES
    )
    extras = {remote.relpath: remote for remote in download.FILES if remote not in download.DATA_FILES}
    texts = {remote.relpath for remote in download.TEXT_FILES}
    assert "official/user.py" in texts and "official/agents/utils.py" in texts and len(texts) == 13
    assert set(extras) == texts | {"recommender/1000_ids.json", "recommender/pwab.pth"}
    assert all(remote.sha256 for remote in download.TEXT_FILES)
    assert all(download.COMMIT in remote.url and remote.url.endswith(remote.relpath.split("/")[-1])
               for remote in extras.values())
    assert extras["recommender/1000_ids.json"].sha256 and extras["official/user.py"].sha256
    # every file, the checkpoint included, is pinned to the commit and to the Git blob id its tree gives
    assert all(download.COMMIT in remote.url for remote in download.FILES)
    assert all(remote.git_blob and len(remote.git_blob) == 40 for remote in download.FILES)
    assert len({remote.git_blob for remote in download.FILES}) == len(download.FILES)
    profiles_entry = next(remote for remote in download.FILES if remote.relpath == "user_profiles.json")
    assert profiles_entry.sha256 == sha256_of(anchors_dir / "personalwab" / "user_profiles.json")
    assert profiles_entry.git_blob == git_blob_sha1_of(anchors_dir / "personalwab" / "user_profiles.json")
    _write_release(tmp_path)  # the loader reads exactly the files the list fetches
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(relpaths)
    assert missing_official_files(tmp_path) == []
