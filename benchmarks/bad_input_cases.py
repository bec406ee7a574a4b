"""The cases of the bad-input harness (:mod:`benchmarks.bad_input`): malformed data folders, arguments, results
files, trajectories, databases and hostile API calls, each with what a user must see.

A case runs in a subprocess with its own folder ``W`` (``{w}`` in its command) and ``$PERSONAL_ENVS_DATA`` pointing
at an empty folder, so nothing on the machine changes its outcome.  ``expect`` says what the project promises:

* ``"error"``: exit status 2 and one ``error: ...`` line on stderr that contains ``marker`` (the file, field or
  argument at fault);
* ``"warning"``: a documented recovery: exit status 0 and a ``warning: ...`` line on stderr containing ``marker``;
* ``"ok"``: a control case on valid input (exit 0, no ``error:`` line): proves the fixtures are sound, so the
  other cases fail because of their one defect.

API cases are Python snippets; a project exception that escapes them is printed as ``error: <message>`` with exit
status 2, the way the CLI prints it, so they are judged by the same rules.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
ANCHORS = Path(os.environ.get("PERSONAL_ENVS_ANCHORS", REPO_ROOT.parent / "shared" / "anchors"))
KNOWU_RELEASE = ANCHORS / "knowu" / "official"

Setup = Callable[[Path], None]


@dataclass(frozen=True)
class Case:
    """One bad input and the outcome the project promises for it."""

    name: str
    group: str
    what: str
    expect: str  # "error" | "warning" | "ok"
    marker: str = ""
    argv: tuple[str, ...] = ()
    code: str = ""
    shell: str = ""
    setup: Setup | None = None
    timeout_s: float = 90.0
    needs: tuple[str, ...] = field(default_factory=tuple)  # "knowu_release"


# ---------------------------------------------------------------------------------------------- fixtures
def write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")


def truncate(path: Path, keep: float = 0.5) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: max(1, int(len(data) * keep))])


def insert_bad_utf8(path: Path) -> None:
    data = path.read_bytes()
    at = data.find(b'"', len(data) // 3) + 1
    path.write_bytes(data[:at] + b"\xff\xfe\xfa" + data[at:])


def pwab_release(work: Path) -> Path:
    """A small PersonalWAB release in the official file layout (generated data, single-file variant)."""
    from personal_envs.personalwab.data import generate

    target = work / "pwab"
    data = generate(seed=0, n_users=4, n_products=80, tasks_per_user=2)
    write_json(target / "user_profiles.json", {uid: {"user_profile": p} for uid, p in data.profiles.items()})
    write_json(target / "user_instructions.json", data.instructions)
    write_json(target / "user_history.json", data.histories)
    write_json(target / "all_products.json", data.products)
    return target


def edit_json(path: Path, change: Callable[[Any], Any]) -> None:
    """Change the parsed JSON of ``path`` in place (``change``'s return value is ignored) and write it back."""
    value = json.loads(path.read_text(encoding="utf-8"))
    change(value)
    write_json(path, value)


def webmall_release(work: Path) -> Path:
    """A WebMall data folder: the project's catalog as WooCommerce CSVs and a one-task ``task_sets.json`` whose
    answer is an offer of that catalog, in the official file format."""
    from personal_envs.webmall.shipped_catalog import write_csvs

    target = work / "wm"
    target.mkdir(parents=True, exist_ok=True)
    write_csvs(target)
    with (target / "webmall_1.csv").open(encoding="utf-8", newline="") as handle:
        first = next(csv.DictReader(handle))
    from personal_envs.webmall.slugs import wordpress_slug

    slug = wordpress_slug(first["Name"])
    task = {
        "id": "Webmall_Find_Specific_Product_Task1", "category": "Specific_Product",
        "instruction": "<instructions>Shops: {{URL_1}} {{URL_2}} {{URL_3}} {{URL_4}}; solution page {{URL_5}}"
                       "</instructions>",
        "task": f"<task>Find the offer of {first['Name']}.</task>",
        "correct_answer": {"type": "urls", "answers": [f"{{{{URL_1}}}}/product/{slug}"]},
    }
    write_json(target / "task_sets.json", [{"id": "WEBMALL_FIND_SPECIFIC_PRODUCT_V1", "tasks": [task]}])
    return target


def edit_csv(path: Path, change: Callable[[list[dict[str, str]]], list[str] | None]) -> None:
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
        columns = list(reader.fieldnames or [])
    dropped = change(rows) or []
    columns = [c for c in columns if c not in dropped]
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def knowu_data(work: Path) -> Path:
    """A KnowU persona folder (``personas=``, the official layout): the default ``engineer`` persona's
    ``user_profile/engineer.yaml`` and clean / noisy ``user_logs``."""
    from personal_envs.knowu.personas import DEFAULT_DIR

    target = work / "ku"
    (target / "user_profile").mkdir(parents=True, exist_ok=True)
    (target / "user_logs").mkdir(parents=True, exist_ok=True)
    shutil.copy(DEFAULT_DIR / "user_profile" / "engineer.yaml", target / "user_profile" / "engineer.yaml")
    for log in ("engineer.json", "engineer_noise_25pct.json"):
        shutil.copy(DEFAULT_DIR / "user_logs" / log, target / "user_logs" / log)
    return target


def knowu_release(work: Path) -> Path:
    """A copy of the official KnowU release of the anchors."""
    target = work / "rel"
    shutil.copytree(KNOWU_RELEASE, target, symlinks=True)
    return target


def results_file(work: Path, records: list[Any], *, raw_lines: tuple[str, ...] = ()) -> Path:
    """``W/r.jsonl`` with ``records`` (JSON) then ``raw_lines`` (as written)."""
    path = work / "r.jsonl"
    lines = [json.dumps(r) for r in records] + list(raw_lines)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def record(number: int, **changes: Any) -> dict[str, Any]:
    """A well-formed results record of ``PersonalWAB-SingleTurn-v0 / heuristic`` (episode ``number``)."""
    base: dict[str, Any] = {
        "env_id": "PersonalWAB-SingleTurn-v0", "episode": number, "task_index": number,
        "task_id": f"test-{number}", "seed": number, "policy": "heuristic", "reward": 1.0, "score": 1.0,
        "steps": 1, "metrics": {"function_accuracy": 1.0, "result_accuracy": 1.0, "task_type": "search"},
        "runtime_s": 0.1, "error": "", "task_info": {"task_type": "search"},
    }
    base.update(changes)
    return base


def knowu_record(number: int, **changes: Any) -> dict[str, Any]:
    """A well-formed results record of a KnowU run (episode ``number``)."""
    base = record(number, env_id="KnowU-General-v0", policy="random", task_id="BatterySaverGeneralTask",
                  metrics={"success": False, "score": 0.0, "steps": 3, "split": "general"},
                  task_info={"split": "general", "task_set": "KnowU-Bench 0dd7989"})
    base.update(changes)
    return base


DEEP_LINE = "[" * 200_000 + "]" * 200_000


def with_trajectory(work: Path, *, corrupt: str = "") -> None:
    """A results file with one episode and its trajectory folder as ``eval`` writes them, then optionally a
    corrupted trajectory file (``"trajectory"``: truncated ``trajectory.json``; ``"size"``: ``size.json`` is a
    list; ``"summary"``: ``summary.json`` is truncated)."""
    from personal_envs.trajectories.recorder import episode_dirname, run_dirname

    results_file(work, [record(0)])
    run = work / "r.trajectories" / run_dirname("PersonalWAB-SingleTurn-v0", "heuristic")
    episode = run / episode_dirname(0)
    trajectory = {"env_id": "PersonalWAB-SingleTurn-v0", "policy": "heuristic", "episode": 0, "task_id": "test-0",
                  "initial_observation": {"instruction": "find shoes"}, "steps": [
                      {"step": 1, "action": {"action_type": "stop"}, "reward": 1.0, "terminated": True,
                       "truncated": False, "observation": {"result": "done"}, "info": {}}],
                  "record": {"score": 1.0}}
    write_json(episode / "trajectory.json", trajectory)
    write_json(episode / "summary.json", {"steps": 1, "action_errors": 0, "user_turns": 0})
    write_json(run / "size.json", {"episodes": 1, "images": 0, "bytes": 1000, "bytes_per_episode": 1000})
    if corrupt == "trajectory":
        truncate(episode / "trajectory.json")
    elif corrupt == "size":
        write_json(run / "size.json", [1, 2, 3])
    elif corrupt == "summary":
        truncate(episode / "summary.json")


# ------------------------------------------------------------------------------------------ command parts
EVAL = ("eval", "--no-progress", "--out", "{w}/out.jsonl", "--episodes", "1")


def pwab_eval(env_kwargs: dict[str, Any], *extra: str, policy: str = "heuristic") -> tuple[str, ...]:
    kwargs = {"task_type": "search", **env_kwargs}
    return (*EVAL, "--env", "PersonalWAB-SingleTurn-v0", "--policy", policy, "--env-kwargs", json.dumps(kwargs),
            *extra)


def webmall_eval(env_kwargs: dict[str, Any], policy: str = "oracle") -> tuple[str, ...]:
    return (*EVAL, "--env", "WebMall-v0", "--policy", policy, "--env-kwargs", json.dumps(env_kwargs))


def knowu_eval(env_kwargs: dict[str, Any], env: str = "KnowU-Personalized-v0", policy: str = "oracle"
               ) -> tuple[str, ...]:
    return (*EVAL, "--env", env, "--policy", policy, "--env-kwargs", json.dumps(env_kwargs))


PWAB_DIR = {"data_dir": "{w}/pwab"}
WM_DIR = {"data_dir": "{w}/wm"}
KU_PERSONAS = {"personas": "{w}/ku", "task": "BuyColaPreferenceTask@engineer", "render": "text"}
KU_RELEASE = {"data_dir": "{w}/rel", "task": "BatterySaverRoutineTask@student"}

ALIAS_BOMB = "\n".join(
    ["a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]"]
    + [f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]" for i in range(8)]
    + ["user_profile:", "  identity: {full_name: *i}", "  habits: {h: {trigger: *i, action: *i}}"]
) + "\n"


def _pwab(change: Callable[[Path], None]) -> Setup:
    def setup(work: Path) -> None:
        change(pwab_release(work))
    return setup


def _wm(change: Callable[[Path], None]) -> Setup:
    def setup(work: Path) -> None:
        change(webmall_release(work))
    return setup


def _ku(change: Callable[[Path], None]) -> Setup:
    def setup(work: Path) -> None:
        change(knowu_data(work))
    return setup


def _rel(change: Callable[[Path], None]) -> Setup:
    def setup(work: Path) -> None:
        change(knowu_release(work))
    return setup


def _first_test_instruction(change: Callable[[dict[str, Any]], None]) -> Callable[[Any], None]:
    def edit(value: Any) -> None:
        change(value["test"][0])
    return edit


def _first_history_entry(change: Callable[[dict[str, Any]], None]) -> Callable[[Any], None]:
    def edit(value: Any) -> None:
        change(next(iter(value.values()))[0])
    return edit


def _yaml_edit(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    import yaml

    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(document)
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")


def _set(mapping: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    node = mapping
    for part in parents:
        node = node[part]
    node[last] = value


def _alias_bomb_with_log(work: Path) -> None:
    """A persona folder whose one profile, ``user_profile/bomb.yaml``, is an alias bomb (with a valid log)."""
    from personal_envs.knowu.personas import DEFAULT_DIR

    for folder in ("user_profile", "user_logs"):
        (work / "bombs" / folder).mkdir(parents=True, exist_ok=True)
    (work / "bombs" / "user_profile" / "bomb.yaml").write_text(ALIAS_BOMB, encoding="utf-8")
    shutil.copy(DEFAULT_DIR / "user_logs" / "engineer.json", work / "bombs" / "user_logs" / "bomb.json")


def _with_sidecar(text: str) -> Setup:
    """A results file with one record and ``text`` as its configuration sidecar."""
    def setup(work: Path) -> None:
        results_file(work, [record(0)])
        (work / "r.jsonl.config.json").write_text(text, encoding="utf-8")
    return setup


def _busy_port_setup(work: Path) -> None:
    """Nothing on disk: the harness binds the port (see :func:`benchmarks.bad_input.run_case`)."""
    results_file(work, [record(0)])


def _sqlite_with_bad_json(work: Path) -> None:
    from personal_envs.browserarena.arena.store import ArenaStore, BattleRecord

    store = ArenaStore(work / "arena.sqlite")
    battle = store.add_battle(BattleRecord("", "BrowserArena-Open-v0", "t1", "task", "m1", "m2"))
    store.record_vote(battle, "model_a", "alice")
    import sqlite3

    db = sqlite3.connect(work / "arena.sqlite")
    with db:
        db.execute("UPDATE battles SET extra = '{\"truncated'")
    db.close()


def _foreign_sqlite(work: Path) -> None:
    import sqlite3

    db = sqlite3.connect(work / "arena.sqlite")
    with db:
        db.execute("CREATE TABLE battles (battle_id TEXT PRIMARY KEY, winner TEXT)")
        db.execute("INSERT INTO battles VALUES ('b1', 'model_a')")
    db.close()


# ----------------------------------------------------------------------------------------------- snippets
LEAK_CHECK = """
import threading, time
import gymnasium as gym, personal_envs
from benchmarks._measure import process_tree
env = gym.make({env_id!r}, disable_env_checker=True, **{kwargs!r})
env.reset(seed=0)
env.close()
time.sleep(1.0)
procs, threads = len(process_tree()), threading.active_count()
refused = None
try:
    env.unwrapped.{call}
except Exception as exc:
    refused = exc
time.sleep(1.0)
leaked = len(process_tree()) - procs, threading.active_count() - threads
if leaked[0] > 0 or leaked[1] > 0:
    print("leak:", leaked[0], "processes and", leaked[1], "threads after a call on a closed env", file=sys.stderr)
    sys.exit(0)
if refused is not None:
    raise refused
"""

ENDLESS_MAPPING = """
import os, threading, time
from collections.abc import Mapping
import gymnasium as gym, personal_envs
from benchmarks._measure import peak_rss_mb

class Endless(Mapping):
    def __getitem__(self, key):
        return "x"
    def __iter__(self):
        n = 0
        while True:
            n += 1
            yield f"k{{n}}"
    def __len__(self):
        return 3

env = gym.make("PersonalWAB-SingleTurn-v0", disable_env_checker=True, task_type="search")
env.reset(seed=0)
start = peak_rss_mb()

def watch():
    while True:
        time.sleep(0.2)
        grown = peak_rss_mb() - start
        if grown > 400:
            print(f"hang: memory grew by {{grown:.0f}} MB on one action", file=sys.stderr, flush=True)
            os._exit(124)

threading.Thread(target=watch, daemon=True).start()
action = {action}
obs, reward, terminated, truncated, info = env.step(action)
error = obs["last_action_error"]
if not error:
    sys.exit(0)
print(f"error: {{error.splitlines()[0]}}", file=sys.stderr)
sys.exit(2)
"""


def _api(body: str) -> str:
    return body


# ------------------------------------------------------------------------------------------------- cases
def build_cases() -> list[Case]:
    """Every case, in table order."""
    cases: list[Case] = []

    def add(*args: Any, **kwargs: Any) -> None:
        cases.append(Case(*args, **kwargs))

    # --- controls: the fixtures are valid ----------------------------------------------------------------
    add("control-pwab", "control", "valid PersonalWAB release folder", "ok", argv=pwab_eval(PWAB_DIR),
        setup=_pwab(lambda d: None))
    add("control-webmall", "control", "valid WebMall data folder", "ok", argv=webmall_eval(WM_DIR),
        setup=_wm(lambda d: None), timeout_s=150)
    add("control-knowu", "control", "valid KnowU persona folder (personas=)", "ok", argv=knowu_eval(KU_PERSONAS),
        setup=_ku(lambda d: None), timeout_s=150)
    add("control-view", "control", "view --export of a valid run", "ok",
        argv=("view", "{w}/r.jsonl", "--export", "{w}/site"), setup=lambda w: with_trajectory(w))

    # --- PersonalWAB data folders ------------------------------------------------------------------------
    add("pwab-no-dir", "data", "PersonalWAB data_dir does not exist", "error", "nope",
        argv=pwab_eval({"data_dir": "{w}/nope"}))
    add("pwab-empty-dir", "data", "PersonalWAB data_dir without the files", "error", "user_profiles.json",
        argv=pwab_eval({"data_dir": "{w}"}))
    add("pwab-truncated", "data", "PersonalWAB user_instructions.json truncated", "error", "user_instructions.json",
        argv=pwab_eval(PWAB_DIR), setup=_pwab(lambda d: truncate(d / "user_instructions.json")))
    add("pwab-bad-utf8", "data", "PersonalWAB user_profiles.json with bytes that are not UTF-8", "error",
        "user_profiles.json", argv=pwab_eval(PWAB_DIR), setup=_pwab(lambda d: insert_bad_utf8(d / "user_profiles.json")))
    add("pwab-top-list", "data", "PersonalWAB user_profiles.json is a list", "error", "user_profiles.json",
        argv=pwab_eval(PWAB_DIR), setup=_pwab(lambda d: write_json(d / "user_profiles.json", [])))
    add("pwab-history-top-list", "data", "PersonalWAB user_history.json is a list", "error", "user_history.json",
        argv=pwab_eval(PWAB_DIR), setup=_pwab(lambda d: write_json(d / "user_history.json", [1])))
    add("pwab-instruction-timestamp", "data", "PersonalWAB instruction with a text timestamp", "error", "timestamp",
        argv=pwab_eval(PWAB_DIR), setup=_pwab(lambda d: edit_json(
            d / "user_instructions.json", _first_test_instruction(lambda i: i.update(timestamp="soon")))))
    add("pwab-instruction-type", "data", "PersonalWAB instruction of an unknown type", "error", "type",
        argv=pwab_eval(PWAB_DIR), setup=_pwab(lambda d: edit_json(
            d / "user_instructions.json", _first_test_instruction(lambda i: i.update(type="buy")))))
    add("pwab-history-timestamp", "data", "PersonalWAB history review with a text timestamp", "error", "timestamp",
        argv=pwab_eval(PWAB_DIR), setup=_pwab(lambda d: edit_json(
            d / "user_history.json", _first_history_entry(lambda e: e["review"].update(timestamp="x")))))
    add("pwab-product-list", "data", "PersonalWAB product that is a list", "error", "all_products.json",
        argv=pwab_eval(PWAB_DIR), setup=_pwab(lambda d: edit_json(
            d / "all_products.json", lambda v: v.update({next(iter(v)): [1, 2]}))))
    add("pwab-profile-field", "data", "PersonalWAB profile field that is a list", "error", "Age",
        argv=pwab_eval(PWAB_DIR), setup=_pwab(lambda d: edit_json(
            d / "user_profiles.json", lambda v: next(iter(v.values()))["user_profile"].update(Age=["x"]))))

    # --- WebMall data folders ----------------------------------------------------------------------------
    add("wm-no-dir", "data", "WebMall data_dir does not exist", "error", "nope", argv=webmall_eval(
        {"data_dir": "{w}/nope"}))
    add("wm-empty-dir", "data", "WebMall data_dir without the files", "error", "webmall_1.csv",
        argv=webmall_eval({"data_dir": "{w}"}))
    add("wm-truncated", "data", "WebMall task_sets.json truncated", "error", "task_sets.json",
        argv=webmall_eval(WM_DIR), setup=_wm(lambda d: truncate(d / "task_sets.json")))
    add("wm-top-object", "data", "WebMall task_sets.json is an object", "error", "task_sets.json",
        argv=webmall_eval(WM_DIR), setup=_wm(lambda d: write_json(d / "task_sets.json", {"tasks": []})))
    add("wm-task-no-id", "data", "WebMall task without an id", "error", "id", argv=webmall_eval(WM_DIR),
        setup=_wm(lambda d: edit_json(d / "task_sets.json", lambda v: v[0]["tasks"][0].pop("id"))))
    add("wm-set-not-object", "data", "WebMall task set that is a string", "error", "task_sets.json",
        argv=webmall_eval(WM_DIR), setup=_wm(lambda d: write_json(d / "task_sets.json", ["tasks"])))
    add("wm-answers-string", "data", "WebMall answers given as one string, not a list", "error", "answers",
        argv=webmall_eval(WM_DIR), setup=_wm(lambda d: edit_json(
            d / "task_sets.json", lambda v: v[0]["tasks"][0]["correct_answer"].update(answers="{{URL_1}}/product/x"))))
    add("wm-bad-utf8", "data", "WebMall webmall_2.csv with bytes that are not UTF-8", "error", "webmall_2.csv",
        argv=webmall_eval(WM_DIR), setup=_wm(lambda d: insert_bad_utf8(d / "webmall_2.csv")))
    add("wm-no-name-column", "data", "WebMall webmall_3.csv without its Name column", "error", "Name",
        argv=webmall_eval(WM_DIR), setup=_wm(lambda d: edit_csv(d / "webmall_3.csv", lambda rows: ["Name"])))
    add("wm-bad-price", "data", "WebMall offer whose price is not a number", "error", "Regular price",
        argv=webmall_eval(WM_DIR), setup=_wm(lambda d: edit_csv(
            d / "webmall_4.csv", lambda rows: rows[0].update({"Regular price": "cheap", "Sale price": ""}))))

    # --- KnowU persona folders (personas=) and the official release ------------------------------------
    add("ku-no-dir", "data", "KnowU personas folder does not exist", "error", "nope",
        argv=knowu_eval({**KU_PERSONAS, "personas": "{w}/nope"}))
    add("ku-bad-yaml", "data", "KnowU profile that is not valid YAML", "error", "engineer.yaml",
        argv=knowu_eval(KU_PERSONAS), setup=_ku(lambda d: (d / "user_profile" / "engineer.yaml").write_text(
            "user_profile:\n  identity: {full_name: [unclosed\n", encoding="utf-8")))
    add("ku-top-list", "data", "KnowU profile that is a YAML list", "error", "engineer.yaml",
        argv=knowu_eval(KU_PERSONAS), setup=_ku(lambda d: (d / "user_profile" / "engineer.yaml").write_text(
            "- a\n- b\n", encoding="utf-8")))
    add("ku-bad-utf8", "data", "KnowU profile with bytes that are not UTF-8", "error", "engineer.yaml",
        argv=knowu_eval(KU_PERSONAS), setup=_ku(lambda d: insert_bad_utf8(d / "user_profile" / "engineer.yaml")))
    add("ku-wrong-types", "data", "KnowU profile whose home address is a number", "error", "address",
        argv=knowu_eval(KU_PERSONAS), setup=_ku(lambda d: _yaml_edit(
            d / "user_profile" / "engineer.yaml", lambda y: _set(y, "user_profile.locations.home.address", 5))))
    add("ku-social-graph-type", "data", "KnowU profile whose social graph person is a number", "error",
        "social_graph", argv=knowu_eval(KU_PERSONAS), setup=_ku(lambda d: _yaml_edit(
            d / "user_profile" / "engineer.yaml", lambda y: _set(y, "user_profile.social_graph", {"family": [5]}))))
    add("ku-alias-bomb", "data", "KnowU profile: a 1 KB YAML alias bomb", "error", "engineer.yaml",
        argv=knowu_eval({k: v for k, v in KU_PERSONAS.items() if k != "task"}), setup=_ku(lambda d: (d / "user_profile" / "engineer.yaml").write_text(
            ALIAS_BOMB, encoding="utf-8")), timeout_s=60)
    add("ku-logs-truncated", "data", "KnowU log JSON truncated", "error", "engineer.json",
        argv=knowu_eval(KU_PERSONAS), setup=_ku(lambda d: truncate(d / "user_logs" / "engineer.json")))
    add("ku-logs-object", "data", "KnowU log JSON is an object", "error", "engineer.json",
        argv=knowu_eval(KU_PERSONAS), setup=_ku(lambda d: write_json(d / "user_logs" / "engineer.json", {"a": 1})))
    add("ku-logs-entry-type", "data", "KnowU log entry whose time is a number", "error", "time",
        argv=knowu_eval(KU_PERSONAS), setup=_ku(lambda d: edit_json(
            d / "user_logs" / "engineer.json", lambda v: v[0].update(time=5))))
    add("rel-bad-yaml", "data", "official release: profile that is not valid YAML", "error", "student.yaml",
        argv=knowu_eval(KU_RELEASE, env="KnowU-Proactive-v0"), needs=("knowu_release",), timeout_s=150,
        setup=_rel(lambda d: (d / "src/knowu_bench/user_profile/student.yaml").write_text(
            "user_profile: [\n", encoding="utf-8")))
    add("rel-top-list", "data", "official release: profile that is a YAML list", "error", "student.yaml",
        argv=knowu_eval(KU_RELEASE, env="KnowU-Proactive-v0"), needs=("knowu_release",), timeout_s=150,
        setup=_rel(lambda d: (d / "src/knowu_bench/user_profile/student.yaml").write_text("- 1\n",
                                                                                          encoding="utf-8")))
    add("rel-logs-truncated", "data", "official release: log JSON truncated", "error", "student.json",
        argv=knowu_eval(KU_RELEASE, env="KnowU-Proactive-v0"), needs=("knowu_release",), timeout_s=150,
        setup=_rel(lambda d: truncate(d / "src/knowu_bench/user_logs/student.json")))
    add("rel-logs-utf8", "data", "official release: log JSON with bytes that are not UTF-8", "error",
        "student.json", argv=knowu_eval(KU_RELEASE, env="KnowU-Proactive-v0"), needs=("knowu_release",),
        timeout_s=150, setup=_rel(lambda d: insert_bad_utf8(d / "src/knowu_bench/user_logs/student.json")))
    add("rel-definition-syntax", "data", "official release: a task definition file cut in half", "error",
        "battery_saver", argv=knowu_eval(KU_RELEASE, env="KnowU-Proactive-v0"), needs=("knowu_release",),
        timeout_s=150, setup=_rel(lambda d: truncate(next(
            (d / "src/knowu_bench/tasks/definitions/routine").glob("battery_saver*.py")), 0.4)))

    # --- arguments ---------------------------------------------------------------------------------------
    add("arg-env-keyword", "args", "unknown env keyword (PersonalWAB)", "error", "bogus",
        argv=pwab_eval({"bogus": 1}))
    add("arg-env-keyword-workers", "args", "unknown env keyword with --workers 2", "error", "bogus",
        argv=pwab_eval({"bogus": 1}, "--workers", "2", "--episodes", "2"))
    add("arg-env-keyword-knowu", "args", "unknown env keyword (KnowU)", "error", "bogus",
        argv=knowu_eval({"bogus": 1}, env="KnowU-General-v0", policy="random"))
    add("arg-observation-mode", "args", "bad observation_mode (WebMall)", "error", "observation_mode",
        argv=webmall_eval({"observation_mode": "pixels"}))
    add("arg-task-set", "args", "bad task_set (WebMall)", "error", "task_set",
        argv=webmall_eval({"task_set": "hard"}))
    add("arg-task-type", "args", "bad task_type (PersonalWAB)", "error", "task_type",
        argv=pwab_eval({"task_type": "buy"}))
    add("arg-knowu-task", "args", "unknown KnowU task", "error", "NoSuchTask",
        argv=knowu_eval({"task": "NoSuchTask"}, env="KnowU-General-v0", policy="random"))
    add("arg-knowu-data-type", "args", "KnowU data_dir that is a number", "error", "data_dir",
        argv=knowu_eval({"data_dir": 5}, env="KnowU-General-v0", policy="random"))
    add("arg-env-kwarg-type", "args", "env keyword of the wrong type (max_steps \"ten\")", "error", "max_steps",
        argv=pwab_eval({"max_steps": "ten"}))
    add("arg-arena-tasks", "args", "BrowserArena open task without its text", "error", "text",
        argv=(*EVAL, "--env", "BrowserArena-Open-v0", "--policy", "random", "--env-kwargs",
              json.dumps({"tasks": [{"txt": "find the weather"}]})))
    add("arg-env-kwargs-json", "args", "--env-kwargs that is not JSON", "error", "--env-kwargs",
        argv=(*EVAL, "--env", "PersonalWAB-SingleTurn-v0", "--env-kwargs", "{task_type: search"))
    add("arg-episodes-negative", "args", "--episodes -3", "error", "--episodes",
        argv=("eval", "--no-progress", "--out", "{w}/out.jsonl", "--env", "PersonalWAB-SingleTurn-v0",
              "--episodes", "-3"))
    add("arg-episodes-zero", "args", "--episodes 0", "error", "--episodes",
        argv=("eval", "--no-progress", "--out", "{w}/out.jsonl", "--env", "PersonalWAB-SingleTurn-v0",
              "--episodes", "0"))
    add("arg-workers", "args", "--workers 0", "error", "--workers",
        argv=(*EVAL, "--env", "PersonalWAB-SingleTurn-v0", "--workers", "0"))
    add("arg-policy-kwargs", "args", "unknown --policy-kwargs (random policy)", "error", "bogus",
        argv=pwab_eval({}, "--policy-kwargs", '{"bogus": 1}', policy="random"))
    add("arg-policy-kwargs-ignored", "args", "unknown --policy-kwargs (heuristic, which takes none)", "error",
        "bogus", argv=pwab_eval({}, "--policy-kwargs", '{"bogus": 1}'))
    add("arg-policy", "args", "unknown policy", "error", "nosuch", argv=pwab_eval({}, policy="nosuch"))
    add("arg-env-id", "args", "unknown env id", "error", "Nope-v0",
        argv=(*EVAL, "--env", "Nope-v0"))
    add("arg-audit-env-id", "args", "audit shortcuts: unknown env id", "error", "Nope-v0",
        argv=("audit", "shortcuts", "--env", "Nope-v0"))
    add("arg-audit-budget", "args", "audit shortcuts --budget 0", "error", "--budget",
        argv=("audit", "shortcuts", "--env", "PersonalWAB-SingleTurn-v0", "--budget", "0"))
    add("arg-audit-env-keyword", "args", "audit shortcuts: unknown env keyword", "error", "bogus",
        argv=("audit", "shortcuts", "--env", "PersonalWAB-SingleTurn-v0", "--budget", "1", "--programs", "0",
              "--env-kwargs", '{"bogus": 1}'))
    add("arg-out-proc", "args", "--out /proc/version", "error", "/proc/version",
        argv=("eval", "--no-progress", "--env", "PersonalWAB-SingleTurn-v0", "--episodes", "1", "--out",
              "/proc/version"))
    add("arg-out-dir", "args", "--out is a folder", "error", "out.jsonl",
        argv=(*EVAL, "--env", "PersonalWAB-SingleTurn-v0"),
        setup=lambda w: (w / "out.jsonl").mkdir())
    add("arg-tasks-data-dir", "args", "tasks --data-dir /nonexistent", "error", "/nonexistent",
        argv=("tasks", "KnowU-General-v0", "--data-dir", "/nonexistent"))
    add("arg-tasks-env", "args", "tasks of a non-KnowU id", "error", "WebMall-v0", argv=("tasks", "WebMall-v0"))
    add("arg-view-port", "args", "view --port on a port in use", "error", "port",
        argv=("view", "{w}/r.jsonl", "--port", "{busy_port}"), setup=_busy_port_setup, timeout_s=30)
    add("arg-view-port-range", "args", "view --port 70000", "error", "--port",
        argv=("view", "{w}/r.jsonl", "--port", "70000"), setup=_busy_port_setup)
    add("arg-view-export-file", "args", "view --export onto a file", "error", "export",
        argv=("view", "{w}/r.jsonl", "--export", "{w}/r.jsonl"), setup=lambda w: with_trajectory(w))
    add("arg-view-missing", "args", "view of a file that does not exist", "error", "nope.jsonl",
        argv=("view", "{w}/nope.jsonl", "--export", "{w}/site"))
    add("arg-arena-not-db", "args", "arena leaderboard --db on a text file", "error", "arena.sqlite",
        argv=("arena", "leaderboard", "--db", "{w}/arena.sqlite"),
        setup=lambda w: (w / "arena.sqlite").write_text("not a database\n" * 100, encoding="utf-8"))
    add("arg-arena-no-db", "args", "arena leaderboard --db on a file that does not exist", "error", "none.sqlite",
        argv=("arena", "leaderboard", "--db", "{w}/none.sqlite"))
    add("arg-arena-foreign-db", "args", "arena leaderboard --db on another program's SQLite file", "error",
        "arena.sqlite", argv=("arena", "leaderboard", "--db", "{w}/arena.sqlite"), setup=_foreign_sqlite)
    add("arg-arena-bad-row", "args", "arena leaderboard: a battle row with corrupt JSON", "error", "extra",
        argv=("arena", "leaderboard", "--db", "{w}/arena.sqlite"), setup=_sqlite_with_bad_json)
    add("arg-broken-pipe", "args", "tasks piped into a reader that exits at once", "ok",
        shell="{python} -m personal_envs tasks | true")
    add("arg-knowu-table-missing", "args", "knowu table of a file that does not exist", "error", "nope.jsonl",
        argv=("knowu", "table", "{w}/nope.jsonl"))
    add("arg-plot-curves", "args", "plot --curves of a CSV without the curve columns", "error", "curve.csv",
        argv=("plot", "--curves", "{w}/curve.csv", "--out", "{w}/plots"),
        setup=lambda w: (w / "curve.csv").write_text("a,b\nx,y\n", encoding="utf-8"))

    # --- results files, sidecars, trajectories -----------------------------------------------------------
    corrupt_deep = lambda w: results_file(w, [record(0), record(1)], raw_lines=(DEEP_LINE,))  # noqa: E731
    add("res-view-deep", "results", "view: results line nested 200,000 deep", "warning", "line 3",
        argv=("view", "{w}/r.jsonl", "--export", "{w}/site"), setup=corrupt_deep)
    add("res-table-deep", "results", "knowu table: results line nested 200,000 deep", "warning", "line 3",
        argv=("knowu", "table", "{w}/r.jsonl"),
        setup=lambda w: results_file(w, [knowu_record(0), knowu_record(1)], raw_lines=(DEEP_LINE,)))
    add("res-plot-deep", "results", "plot: results line nested 200,000 deep", "warning", "line 3",
        argv=("plot", "{w}/r.jsonl", "--out", "{w}/plots"), setup=corrupt_deep)
    add("res-metrics-list", "results", "view: a record whose metrics is a list", "warning", "metrics",
        argv=("view", "{w}/r.jsonl", "--export", "{w}/site"),
        setup=lambda w: results_file(w, [record(0), record(1, metrics=[1, 2])]))
    add("res-table-metrics-list", "results", "knowu table: a record whose metrics is a list", "warning", "metrics",
        argv=("knowu", "table", "{w}/r.jsonl"),
        setup=lambda w: results_file(w, [knowu_record(0), knowu_record(1, metrics=[1, 2])]))
    add("res-score-text", "results", "view: a record whose score is \"abc\"", "warning", "score",
        argv=("view", "{w}/r.jsonl", "--export", "{w}/site"),
        setup=lambda w: results_file(w, [record(0), record(1, score="abc")]))
    add("res-resume-bad-record", "results", "eval resume: a finished-looking record with score \"abc\", "
        "steps \"x\"", "warning", "score", argv=pwab_eval({}, "--episodes", "2", "--out", "{w}/r.jsonl"),
        setup=lambda w: results_file(w, [record(0, score="abc", steps="x"), record(1)]))
    add("res-bad-utf8-line", "results", "view: a results line with bytes that are not UTF-8", "warning", "line 2",
        argv=("view", "{w}/r.jsonl", "--export", "{w}/site"),
        setup=lambda w: (w / "r.jsonl").write_bytes(json.dumps(record(0)).encode() + b"\n"
                                                      + json.dumps(record(1)).encode()[:-2] + b'\xff"}\n'))
    add("res-episode-text", "results", "view: a record whose episode is \"x\"", "warning", "episode",
        argv=("view", "{w}/r.jsonl", "--export", "{w}/site"),
        setup=lambda w: results_file(w, [record(0), record(1, episode="x")]))
    add("res-not-jsonl", "results", "view of a file that holds no JSON lines", "error", "r.jsonl",
        argv=("view", "{w}/r.jsonl", "--export", "{w}/site"),
        setup=lambda w: (w / "r.jsonl").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256))))
    add("res-sidecar-list", "results", "config sidecar that is []", "error", "config.json",
        argv=pwab_eval({}, "--out", "{w}/r.jsonl"), setup=_with_sidecar("[]"))
    add("res-sidecar-truncated", "results", "config sidecar truncated", "error", "config.json",
        argv=pwab_eval({}, "--out", "{w}/r.jsonl"), setup=_with_sidecar('{"PersonalWAB'))
    add("res-sidecar-entry", "results", "config sidecar whose entry is a string", "error", "config.json",
        argv=pwab_eval({}, "--out", "{w}/r.jsonl"),
        setup=_with_sidecar(json.dumps({"PersonalWAB-SingleTurn-v0 | heuristic": "x"})))
    add("res-trajectory-truncated", "results", "view --export with a truncated trajectory.json", "warning",
        "trajectory.json", argv=("view", "{w}/r.jsonl", "--export", "{w}/site"),
        setup=lambda w: with_trajectory(w, corrupt="trajectory"))
    add("res-size-list", "results", "view --export with a size.json that is a list", "warning", "size.json",
        argv=("view", "{w}/r.jsonl", "--export", "{w}/site"), setup=lambda w: with_trajectory(w, corrupt="size"))
    add("res-summary-truncated", "results", "view --export with a truncated summary.json", "warning",
        "summary.json", argv=("view", "{w}/r.jsonl", "--export", "{w}/site"),
        setup=lambda w: with_trajectory(w, corrupt="summary"))

    # --- the Python API ----------------------------------------------------------------------------------
    add("api-webmall-step-closed", "api", "WebMall step() after close()", "error", "closed",
        code=LEAK_CHECK.format(env_id="WebMall-v0", kwargs={}, call='step({"action_type": "noop"})'),
        timeout_s=120)
    add("api-webmall-reset-closed", "api", "WebMall reset() after close()", "error", "closed",
        code=LEAK_CHECK.format(env_id="WebMall-v0", kwargs={}, call="reset(seed=1)"), timeout_s=120)
    add("api-knowu-step-closed", "api", "KnowU step() after close()", "error", "closed",
        code=LEAK_CHECK.format(env_id="KnowU-General-v0", kwargs={"task": "BatterySaverGeneralTask"},
                               call='step({"action_type": "wait"})'), timeout_s=120)
    add("api-endless-mapping", "api", "an action that is an endless Mapping", "error", "action",
        code=ENDLESS_MAPPING.format(action="Endless()"), timeout_s=60)
    add("api-endless-arguments", "api", "an action whose arguments are an endless Mapping", "error", "action",
        code=ENDLESS_MAPPING.format(action='{"name": "search_product_by_query", "arguments": Endless()}'),
        timeout_s=60)
    add("api-make-keyword", "api", "gym.make with an unknown keyword", "error", "bogus",
        code="import gymnasium as gym, personal_envs\ngym.make('PersonalWAB-SingleTurn-v0', bogus=1)")
    add("api-make-knowu-task", "api", "gym.make of an unknown KnowU task", "error", "NoSuchTask",
        code="import gymnasium as gym, personal_envs\ngym.make('KnowU-General-v0', task='NoSuchTask')")
    add("api-make-observation-mode", "api", "gym.make of WebMall with a bad observation_mode", "error",
        "observation_mode", code="import gymnasium as gym, personal_envs\n"
                                 "gym.make('WebMall-v0', observation_mode='pixels')")
    add("api-make-pwab-truncated", "api", "gym.make of PersonalWAB on a truncated file", "error",
        "user_instructions.json", setup=_pwab(lambda d: truncate(d / "user_instructions.json")),
        code="import gymnasium as gym, personal_envs\ngym.make('PersonalWAB-SingleTurn-v0', data_dir='{w}/pwab')")
    add("api-knowu-alias-bomb", "api", "KnowU personas= a folder whose profile is an alias-bomb YAML", "error",
        "bomb.yaml", timeout_s=60, setup=_alias_bomb_with_log,
        code="import gymnasium as gym, personal_envs\n"
             "gym.make('KnowU-Proactive-v0', personas='{w}/bombs').reset()")
    return cases


def busy_port() -> socket.socket:
    """A listening loopback socket (the port a ``view --port`` case must find taken)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)
    return sock
