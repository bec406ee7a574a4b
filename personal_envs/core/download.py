"""Downloading official benchmark files into a local cache, with checksums.

Each benchmark's ``download`` module lists its files as :class:`RemoteFile` in ``FILES``;
``personal-envs data fetch NAME`` calls :func:`fetch_files`.  Files land in ``data_home()/NAME/`` (default
``~/.cache/personal-envs``, or ``$PERSONAL_ENVS_DATA``) and are verified against their SHA-256 when one is known.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RemoteFile:
    """A file of an official release: where it comes from, where it goes, and its checksums where known.

    ``git_blob`` is Git's object id of the file at the pinned commit (SHA-1 of ``"blob <size>\\0" + content``):
    a repository's tree names it for every file, even when the blob itself cannot be downloaded, so it pins files
    whose SHA-256 nobody here could compute.
    """

    url: str
    relpath: str
    sha256: str | None = None
    git_blob: str | None = None


class DownloadError(RuntimeError):
    """A download failed or its checksum did not match."""


def data_home() -> Path:
    """Root of the data cache: ``$PERSONAL_ENVS_DATA`` or ``~/.cache/personal-envs``."""
    return Path(os.environ.get("PERSONAL_ENVS_DATA", Path.home() / ".cache" / "personal-envs"))


def sha256_of(path: Path) -> str:
    """Hex SHA-256 of a file."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def git_blob_sha1_of(path: Path) -> str:
    """Git's object id of a file's content (what ``git hash-object`` prints)."""
    digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def checksum_problem(remote: RemoteFile, path: Path) -> str | None:
    """Which known checksum of ``remote`` the file at ``path`` fails, or ``None`` if it passes all of them."""
    if remote.sha256 is not None and sha256_of(path) != remote.sha256:
        return f"SHA-256 is not {remote.sha256}"
    if remote.git_blob is not None and git_blob_sha1_of(path) != remote.git_blob:
        return f"Git blob id is not {remote.git_blob}"
    return None


def fetch_files(
    files: Sequence[RemoteFile],
    target_dir: Path,
    *,
    timeout: float = 60.0,
    progress: Callable[[str], None] = print,
) -> list[Path]:
    """Download every file not already present with the right checksum; return the local paths.

    Raises:
        DownloadError: naming the URL and what to do (no network, checksum mismatch).
    """
    target_dir.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    for remote in files:
        destination = target_dir / remote.relpath
        if destination.exists() and checksum_problem(remote, destination) is None:
            progress(f"ok      {destination}")
            paths.append(destination)
            continue
        destination.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=destination.parent, prefix=f".{destination.name}.")
        tmp = Path(tmp_name)
        try:
            with os.fdopen(fd, "wb") as out, urllib.request.urlopen(remote.url, timeout=timeout) as response:
                shutil.copyfileobj(response, out)
            problem = checksum_problem(remote, tmp)
            if problem is not None:
                raise DownloadError(
                    f"checksum mismatch for {remote.url} ({problem}); the upstream file changed or is corrupt"
                )
            os.replace(tmp, destination)
        except (urllib.error.URLError, OSError, TimeoutError) as exc:
            tmp.unlink(missing_ok=True)
            raise DownloadError(
                f"could not download {remote.url} ({exc}). Check the network, or download the file yourself "
                f"and place it at {destination}."
            ) from exc
        except DownloadError:
            tmp.unlink(missing_ok=True)
            raise
        progress(f"fetched {destination}")
        paths.append(destination)
    return paths
