"""The KnowU persona generator: ``personal-envs knowu generate --personas N --seed S --out DIR``.

:func:`generate_release` writes a folder in the official layout (``DIR/src/knowu_bench/``): ``user_profile/<id>.yaml``
(:mod:`.persona`), ``user_logs/<id>.json`` and ``<id>_noise_25pct.json`` (:mod:`.logs`) and the user's own photo in
``cache/users/<slug>/{email_share,mastodon_share}/``, plus ``DIR/GENERATED.yaml``: the generator's settings and, per
persona, the applying habits with their strength and evidence count (an answer key: never read into an
observation).  Each of the 16 routine habits applies to ``round(habit_rate * N)`` personas drawn without replacement
(at least one when N > 1), so every habit is seen applying and not applying.  Deterministic: the same arguments
give the same bytes.  The folder is written beside its destination and renamed when complete.
"""

from __future__ import annotations

import argparse
import functools
import io
import json
import random
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from personal_envs.knowu.generate.logs import STRENGTHS, clean_logs, noisy_logs
from personal_envs.knowu.generate.persona import HABITS, make_persona
from personal_envs.knowu.personas import PACKAGE, user_slug

VERSION = 3
POOLS_FILE = Path(__file__).resolve().parents[1] / "data" / "generator.yaml"
MANIFEST = "GENERATED.yaml"


@functools.cache
def pools() -> dict[str, Any]:
    """The word pools (``data/generator.yaml``)."""
    data = yaml.safe_load(POOLS_FILE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def persona_id(seed: int, index: int, count: int) -> str:
    """``g<seed>-<index>``, the index zero-padded to the width of ``count``."""
    return f"g{seed}-{index:0{len(str(max(count - 1, 1)))}d}"


def assign_habits(count: int, seed: int, habit_rate: float) -> list[set[str]]:
    """Which habits apply to each of ``count`` personas: each habit to ``round(habit_rate * count)`` of them."""
    rng = random.Random(f"habits:{seed}")
    applying: list[set[str]] = [set() for _ in range(count)]
    for habit in HABITS:
        share = round(habit_rate * count)
        chosen = rng.sample(range(count), min(count, max(1, share) if count > 1 else share))
        if count == 1 and rng.random() < habit_rate:
            chosen = [0]
        for index in chosen:
            applying[index].add(habit)
    return applying


def photo_png(subject: str, color: str) -> bytes:
    """A labelled colour card standing for a photo of ``subject`` (deterministic PNG bytes)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (320, 240), color)
    ImageDraw.Draw(image).text((16, 108), subject, fill="white")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _dump(data: Any) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=120)


def generate_release(count: int, seed: int, out: str | Path, *, habit_rate: float = 0.4,
                     strengths: Sequence[str] = ("weak", "medium", "strong"), days: int = 31,
                     decoy_rate: float = 0.2) -> Path:
    """Write ``count`` generated personas to ``out`` (see the module docstring); returns ``out``."""
    if count < 1:
        raise ValueError(f"the number of personas must be at least 1, got {count}")
    unknown = [s for s in strengths if s not in STRENGTHS]
    if unknown or not strengths:
        raise ValueError(f"strengths must be among {sorted(STRENGTHS)}, got {list(strengths)}")
    target = Path(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        home = work / PACKAGE
        for sub in ("user_profile", "user_logs"):
            (home / sub).mkdir(parents=True)
        manifest: dict[str, Any] = {"generator": VERSION, "seed": seed, "personas": count, "habit_rate": habit_rate,
                                    "strengths": list(strengths), "days": days, "decoy_rate": decoy_rate,
                                    "variants": {}}
        for index, applying in enumerate(assign_habits(count, seed, habit_rate)):
            pid = persona_id(seed, index, count)
            rng = random.Random(f"persona:{seed}:{index}")
            made = make_persona(rng, pools(), applying)
            document = {"user_profile": made["user_profile"]}
            habit_strength = {key: rng.choice(list(strengths)) for key in HABITS if key in applying}
            decoys = [key for key in HABITS if key not in applying and rng.random() < decoy_rate]
            (home / "user_profile" / f"{pid}.yaml").write_text(_dump(document), encoding="utf-8")
            counts = write_logs(home, pid, document, rng, habit_strength, decoys, days)
            file = write_photo(home, document, made["share_photo"])
            manifest["variants"][pid] = {
                "name": document["user_profile"]["identity"]["full_name"],
                "habits": {key: {"strength": habit_strength[key], "evidence": counts[key]} for key in habit_strength},
                "decoys": decoys, "photo": file}
        (work / MANIFEST).write_text(_dump(manifest), encoding="utf-8")
        if target.exists():
            shutil.rmtree(target)
        work.rename(target)
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return target


def write_logs(home: Path, pid: str, document: dict[str, Any], rng: random.Random, strengths: dict[str, str],
               decoys: list[str], days: int = 31) -> dict[str, int]:
    """Write the clean and noisy logs of ``document`` under ``home/user_logs``; the evidence count per habit."""
    clean, counts = clean_logs(rng, document, pools(), strengths, decoys, days)
    noisy = noisy_logs(rng, clean, document, pools(), days)
    for name, entries in ((f"{pid}.json", clean), (f"{pid}_noise_25pct.json", noisy)):
        (home / "user_logs" / name).write_text(json.dumps(entries, ensure_ascii=False, indent=1) + "\n",
                                               encoding="utf-8")
    return counts


def write_photo(home: Path, document: dict[str, Any], photo: dict[str, str]) -> str:
    """Write the user's own photo (and its description) to both share folders; the file name."""
    file = f"{photo['subject'].replace(' ', '_')}.png"
    for share in ("email_share", "mastodon_share"):
        folder = home / "cache" / "users" / user_slug(document) / share
        folder.mkdir(parents=True, exist_ok=True)
        (folder / file).write_bytes(photo_png(photo["subject"], photo["color"]))
        (folder / "description.txt").write_text(f"A photo of {photo['subject']}.\n", encoding="utf-8")
    return file


def read_manifest(folder: str | Path) -> dict[str, Any]:
    """The ``GENERATED.yaml`` of a generated folder."""
    data = yaml.safe_load((Path(folder) / MANIFEST).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def main(argv: Sequence[str] | None = None) -> int:
    """``personal-envs knowu generate``."""
    parser = argparse.ArgumentParser(prog="personal-envs knowu generate", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--personas", type=int, required=True, help="how many personas")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True, help="the folder to write (replaced if it exists)")
    parser.add_argument("--habit-rate", type=float, default=0.4, help="share of personas each routine habit applies to")
    parser.add_argument("--strength", default="weak:medium:strong",
                        help="evidence strengths to draw from, ':'-separated (weak, medium, strong)")
    parser.add_argument("--days", type=int, default=31, help="days of logs from 2026-01-01")
    parser.add_argument("--decoy-rate", type=float, default=0.2, help="chance of a near-miss entry per absent habit")


def run(args: argparse.Namespace) -> int:
    folder = generate_release(args.personas, args.seed, args.out, habit_rate=args.habit_rate,
                              strengths=args.strength.split(":"), days=args.days, decoy_rate=args.decoy_rate)
    manifest = read_manifest(folder)
    applying = sum(len(v["habits"]) for v in manifest["variants"].values())
    print(f"wrote {args.personas} personas to {folder} ({applying} applying habits of {16 * args.personas}); "
          f"use it with gym.make('KnowU-Proactive-v0', personas={str(folder)!r})")
    return 0
