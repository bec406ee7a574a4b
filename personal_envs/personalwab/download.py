"""Where the official PersonalWAB release is published, for ``personal-envs data fetch personalwab``.

The data ships inside the benchmark's GitHub repository (HongruCai/PersonalWAB, folder
``PersonalWAB/envs/pwab/data/``, CC BY-NC 4.0); the project page (hongrucai.github.io/PersonalWAB/download) also
links Google Drive copies, which cannot be fetched without a browser and are not listed. No HuggingFace copy is
known. Only ``user_profiles.json`` has a checksum (computed from the copy at commit 23ff65c); the others are
verified by :func:`personal_envs.personalwab.data.load_official` when loaded.

Besides the data, the fetch gets the official user module (its prompts, read at run time) and the official SASRec
recommender (``1000_ids.json`` item map and ``pwab.pth`` checkpoint), used whenever they are present.
"""

from __future__ import annotations

from personal_envs.core.download import RemoteFile

REPOSITORY = "HongruCai/PersonalWAB"
BRANCH = "main"
RAW_BASE = f"https://raw.githubusercontent.com/{REPOSITORY}/{BRANCH}/PersonalWAB/envs/pwab"
DATA_BASE = f"{RAW_BASE}/data"

USER_PROFILES_SHA256 = "05392a4376beb8877b4b47d2f3e4b1f2504f217139085607b34c35c2934f0b53"

DATA_FILES: list[RemoteFile] = [
    RemoteFile(f"{DATA_BASE}/user_profiles.json", "user_profiles.json", USER_PROFILES_SHA256),
    RemoteFile(f"{DATA_BASE}/user_instructions.json", "user_instructions.json", None),
    RemoteFile(f"{DATA_BASE}/user_history_part_1.json", "user_history_part_1.json", None),
    RemoteFile(f"{DATA_BASE}/user_history_part_2.json", "user_history_part_2.json", None),
    RemoteFile(f"{DATA_BASE}/user_history_part_3.json", "user_history_part_3.json", None),
    RemoteFile(f"{DATA_BASE}/all_products_part_1.json", "all_products_part_1.json", None),
    RemoteFile(f"{DATA_BASE}/all_products_part_2.json", "all_products_part_2.json", None),
]

#: The commit the checksums below were computed from (files fetched from it, so they cannot drift).
COMMIT = "23ff65c4c2288198b4b3d00d835760da2c2ff8e8"
PINNED_BASE = f"https://raw.githubusercontent.com/{REPOSITORY}/{COMMIT}/PersonalWAB"

#: The official LLM user's module: its prompts are read at run time (never executed, never shipped).
TEXT_FILES: list[RemoteFile] = [
    RemoteFile(f"{PINNED_BASE}/envs/user.py", "official/user.py",
               "c8efb24f85909ec141823c8eff739d0aaab94efb53c350b240ce53ea39864bd2"),
]

#: The official SASRec recommender: its item-id map (checksummed) and checkpoint (no checksum is known: the
#: repository snapshot available here lacks the blob; :func:`personal_envs.personalwab.official_recommender.load`
#: verifies its state-dict layout instead).
RECOMMENDER_FILES: list[RemoteFile] = [
    RemoteFile(f"{PINNED_BASE}/envs/pwab/functions/recommender/data/1000_ids.json", "recommender/1000_ids.json",
               "c17e6ecfe8f85970dba6b10c209427af55a0318e620879174706f37ca32e7bf0"),
    RemoteFile(f"{PINNED_BASE}/envs/pwab/functions/recommender/checkpoint/pwab.pth", "recommender/pwab.pth", None),
]

#: Everything ``personal-envs data fetch personalwab`` gets.
FILES = [*DATA_FILES, *TEXT_FILES, *RECOMMENDER_FILES]
