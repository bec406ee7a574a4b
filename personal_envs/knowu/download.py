"""The official KnowU-Bench files for ``personal-envs data fetch knowu``: the files the project reads, at the pinned
commit (:data:`personal_envs.knowu.official.release.PINNED_COMMIT`), with their SHA-256.

They land in ``data_home()/knowu`` with their repository paths, where
:func:`personal_envs.knowu.official.release.find_release` finds them.
"""

from __future__ import annotations

from personal_envs.core.download import RemoteFile
from personal_envs.knowu.official.release import FILES as RELEASE_FILES
from personal_envs.knowu.official.release import file_url

FILES: list[RemoteFile] = [RemoteFile(file_url(rel), rel, sha) for rel, sha in RELEASE_FILES]
