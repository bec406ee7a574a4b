"""Where the official PersonalWAB release is published, for ``personal-envs data fetch personalwab``.

The data ships inside the benchmark's GitHub repository (HongruCai/PersonalWAB, folder
``PersonalWAB/envs/pwab/data/``, CC BY-NC 4.0); the project page (hongrucai.github.io/PersonalWAB/download) also
links Google Drive copies, which cannot be fetched without a browser and are not listed. No HuggingFace copy is
known. Every file is fetched from the pinned commit 23ff65c and verified against the Git blob id that commit's tree
gives for it (``git ls-tree -l``), so even files whose content no one here could download (the large JSON files and
``pwab.pth``) are pinned; ``user_profiles.json`` and the smaller files also carry a SHA-256.

Besides the data, the fetch gets the official user module (its prompts, read at run time) and the official SASRec
recommender (``1000_ids.json`` item map and ``pwab.pth`` checkpoint), used whenever they are present.
"""

from __future__ import annotations

from personal_envs.core.download import RemoteFile

REPOSITORY = "HongruCai/PersonalWAB"
#: The commit every file is fetched from (so the checksums below cannot drift).
COMMIT = "23ff65c4c2288198b4b3d00d835760da2c2ff8e8"
PINNED_BASE = f"https://raw.githubusercontent.com/{REPOSITORY}/{COMMIT}/PersonalWAB"
DATA_BASE = f"{PINNED_BASE}/envs/pwab/data"

USER_PROFILES_SHA256 = "05392a4376beb8877b4b47d2f3e4b1f2504f217139085607b34c35c2934f0b53"

#: Git blob ids of the data files in the tree of ``COMMIT`` (``git ls-tree -r -l``).
DATA_FILES: list[RemoteFile] = [
    RemoteFile(f"{DATA_BASE}/user_profiles.json", "user_profiles.json", USER_PROFILES_SHA256,
               "adee4183db62ddd8adb095d59b74056ed353f2c8"),
    RemoteFile(f"{DATA_BASE}/user_instructions.json", "user_instructions.json", None,
               "8053848b6df63fbb865caaeb3828f5d1c825376a"),
    RemoteFile(f"{DATA_BASE}/user_history_part_1.json", "user_history_part_1.json", None,
               "9d145cc919fe8f80142b4755c97a46138ee7764c"),
    RemoteFile(f"{DATA_BASE}/user_history_part_2.json", "user_history_part_2.json", None,
               "535087ecacaad0d5f6e4b8c9265f25599c5e7dfb"),
    RemoteFile(f"{DATA_BASE}/user_history_part_3.json", "user_history_part_3.json", None,
               "5e763a4a6db3eed2d4497c1ea6680dfa3c327950"),
    RemoteFile(f"{DATA_BASE}/all_products_part_1.json", "all_products_part_1.json", None,
               "c305fe1464c350b93a00504e4bbf0cd696ced4b9"),
    RemoteFile(f"{DATA_BASE}/all_products_part_2.json", "all_products_part_2.json", None,
               "d603173cb1981a42b726246bbe9ab1826efe841c"),
]

#: The official LLM user's module: its prompts are read at run time (never executed, never shipped).
TEXT_FILES: list[RemoteFile] = [
    RemoteFile(f"{PINNED_BASE}/envs/user.py", "official/user.py",
               "c8efb24f85909ec141823c8eff739d0aaab94efb53c350b240ce53ea39864bd2",
               "b817b4b19875be0a1d57b2ab75caf60de319fc5c"),
]

#: The official SASRec recommender: its item-id map and checkpoint.  The checkpoint's content is not available here
#: (the repository snapshot lacks the blob), so only its Git blob id pins it; its SHA-256 is unknown.
#: :func:`personal_envs.personalwab.official_recommender.load` also verifies its state-dict layout.
RECOMMENDER_FILES: list[RemoteFile] = [
    RemoteFile(f"{PINNED_BASE}/envs/pwab/functions/recommender/data/1000_ids.json", "recommender/1000_ids.json",
               "c17e6ecfe8f85970dba6b10c209427af55a0318e620879174706f37ca32e7bf0",
               "45910ffd9200ee0c44e1b88f67b5791ce9a1ce62"),
    RemoteFile(f"{PINNED_BASE}/envs/pwab/functions/recommender/checkpoint/pwab.pth", "recommender/pwab.pth", None,
               "ae521978d03b8c072b55bbf95002143d6a0e0f62"),
]

#: Everything ``personal-envs data fetch personalwab`` gets.
FILES = [*DATA_FILES, *TEXT_FILES, *RECOMMENDER_FILES]
