"""Where the official PersonalWAB release is published, for ``personal-envs data fetch personalwab``.

The data ships inside the benchmark's GitHub repository (HongruCai/PersonalWAB, folder
``PersonalWAB/envs/pwab/data/``, CC BY-NC 4.0); the project page (hongrucai.github.io/PersonalWAB/download) also
links Google Drive copies, which cannot be fetched without a browser and are not listed. No HuggingFace copy is
known. Every file is fetched from the pinned commit 23ff65c and verified against the Git blob id that commit's tree
gives for it (``git ls-tree -l``), so even files whose content no one here could download (the large JSON files and
``pwab.pth``) are pinned; ``user_profiles.json`` and the smaller files also carry a SHA-256.

Besides the data, the fetch gets the official source files whose texts are read at run time (the user's and the
agents' prompts, the system prompts, the tool descriptions, the memory templates) and the official SASRec
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

REPOSITORY_BASE = f"https://raw.githubusercontent.com/{REPOSITORY}/{COMMIT}"

#: Official source files whose texts are read at run time (prompts, tool descriptions, memory templates; never
#: executed, never shipped): release path, where it is stored under the data directory, SHA-256, Git blob id.
_TEXT_SOURCES: tuple[tuple[str, str, str, str], ...] = (
    ("PersonalWAB/envs/user.py", "official/user.py",
     "c8efb24f85909ec141823c8eff739d0aaab94efb53c350b240ce53ea39864bd2", "b817b4b19875be0a1d57b2ab75caf60de319fc5c"),
    ("PersonalWAB/envs/pwab/__init__.py", "official/envs/pwab/__init__.py",
     "d32f913523dfd4dc2bb89f4d3db9f49bb9d7d5f28e57012020910a7b915454e4", "4fd667aee231666152e5b110f7301b26c01d444f"),
    ("PersonalWAB/envs/pwab/functions/search_product_by_query.py", "official/functions/search_product_by_query.py",
     "dc5bcfaab095f7f06b9ccbd6324e8046522ca67d51358ae4a36b75a09a2514e6", "70b69faf92e341f6e3e3163464cd15e8c742c113"),
    ("PersonalWAB/envs/pwab/functions/get_recommendations_by_history.py",
     "official/functions/get_recommendations_by_history.py",
     "6006894e72be4ae39f0050d93bab13249f9f74c2f6adfdfcc027a21801d2f502", "bf87453bfa00ada7886e305830a9bb70ada5b734"),
    ("PersonalWAB/envs/pwab/functions/add_product_review.py", "official/functions/add_product_review.py",
     "61a215bbd1e015d6cccca46e67523497b60aac9e10d1700404ff63991435ec4b", "ac563c43c9a37bd6277bf6d2027bff312dd687c1"),
    ("PersonalWAB/envs/pwab/functions/get_product_details_by_asin.py",
     "official/functions/get_product_details_by_asin.py",
     "dc77db923354928b66b6c42e9a89e3cadff9ba89f083e09e68fe0f3476d8df16", "bfcf54a3da3b11dbe0b8f29099d84b38cc511b64"),
    ("PersonalWAB/envs/pwab/functions/stop.py", "official/functions/stop.py",
     "2cf2dd1d457cfe0b87a3ac8d6b0f46cf7385d661d6290480d84f0da55b107fe7", "891ec8d2c92c88d8f15678910b711af2ce918c4f"),
    ("PersonalWAB/agents/utils.py", "official/agents/utils.py",
     "cfe511ae6ca81ff7ebd917a7167dc38fcda8508bef316ab08dc7c42b5dda6c28", "8a53dc7d2917479e9501ec5bd236553abf99bed3"),
    ("PersonalWAB/agents/gpt_function_calling_agent.py", "official/agents/gpt_function_calling_agent.py",
     "3bc80898e00c23de786499ad6393b7963fcbcdf760330a9130f42ad194cf1191", "a11a95efd8b31c265e516ae95cb08ed49b802fe3"),
    ("PersonalWAB/agents/chat_react_agent.py", "official/agents/chat_react_agent.py",
     "8c6ad31a668509626d94e1522d6b08a4321ef2ffef25f32e2a79c9750f5937de", "5e1f51ae9be5dd0bfa83e4e75e6614a2714de8e1"),
    ("PersonalWAB/agents/puma_agent.py", "official/agents/puma_agent.py",
     "022af4b0a35f85ac81cebc63716c5d98849e2af82ac879a23a0cd92eac944a9b", "149f53a64226f1d5d3cd90ab5015c723ffb3b61a"),
    ("PUMA/utils.py", "official/PUMA/utils.py",
     "e644ccf007cbc03349bc0899d3d5852c6fb7493cff896ddfe1a2d1dfb8da6377", "b5d76415627c5464683341cb5a23365a2cc11249"),
    ("scripts/tools/init_interecagent_memory.py", "official/tools/init_interecagent_memory.py",
     "70462845df49d80487d6d8f8157a1e88925a1ea96eaf9f8776ee49430c8c946c", "73cde8ee530ee608ef5330b4d2649fe782a0b75f"),
)
TEXT_FILES: list[RemoteFile] = [RemoteFile(f"{REPOSITORY_BASE}/{path}", local, sha, blob)
                                for path, local, sha, blob in _TEXT_SOURCES]

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
