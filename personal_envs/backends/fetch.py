"""Large downloads for real backends: resumable (HTTP ``Range``) and checked.

Where the publisher gives no checksum (the WebMall backups), the SHA-256 of the first complete download is recorded
in ``checksums.json`` beside the files and every later use is verified against it (trust on first use), so a
changed or corrupted file never goes unnoticed.
"""

from __future__ import annotations

import hashlib
import json
import os
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

from personal_envs.backends.engine import BackendError

MANIFEST = "checksums.json"
CHUNK = 1 << 20


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def download_resumable(url: str, destination: Path, *, known_sha256: str | None = None, timeout: float = 60.0,
                       progress: Callable[[str], None] = print) -> Path:
    """Download ``url`` to ``destination``, continuing a partial ``<name>.part`` with a ``Range`` request.

    The file is verified against ``known_sha256`` if given, else against the checksum recorded in the folder's
    ``checksums.json`` (recorded on the first complete download).

    Raises:
        BackendError: the download failed (the partial file is kept for the next attempt) or a checksum differs.
    """
    destination.parent.mkdir(parents=True, exist_ok=True)
    manifest_path = destination.parent / MANIFEST
    manifest: dict[str, str] = json.loads(manifest_path.read_text()) if manifest_path.is_file() else {}
    expected = known_sha256 or manifest.get(destination.name)
    if destination.is_file():
        actual = _sha256(destination)
        if expected is None or actual == expected:
            _record(manifest_path, manifest, destination.name, actual)
            progress(f"ok      {destination}")
            return destination
        destination.unlink()  # a file that fails its checksum is fetched again
    part = destination.with_name(destination.name + ".part")
    offset = part.stat().st_size if part.is_file() else 0
    request = urllib.request.Request(url, headers={"Range": f"bytes={offset}-"} if offset else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            resumed = offset > 0 and response.status == 206
            with part.open("ab" if resumed else "wb") as out:
                while chunk := response.read(CHUNK):
                    out.write(chunk)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and offset:  # the partial file is already complete
            pass
        else:
            raise BackendError(f"could not download {url} (HTTP {exc.code}); run the command again to resume") from None
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        raise BackendError(f"could not download {url} ({exc}); run the command again to resume, or place the file "
                           f"at {destination}") from None
    actual = _sha256(part)
    if expected is not None and actual != expected:
        part.unlink()
        raise BackendError(f"checksum mismatch for {url}: SHA-256 {actual}, expected {expected}")
    os.replace(part, destination)
    _record(manifest_path, manifest, destination.name, actual)
    progress(f"fetched {destination}")
    return destination


def _record(manifest_path: Path, manifest: dict[str, str], name: str, sha256: str) -> None:
    if manifest.get(name) == sha256:
        return
    manifest[name] = sha256
    tmp = manifest_path.with_name(manifest_path.name + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    os.replace(tmp, manifest_path)
