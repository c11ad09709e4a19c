"""Cached kernels that are never stale.

numba checks a cached kernel against its own source file only: a kernel calling one in another
file that changed since would load from the cache with the old callee compiled in (change
linalg.norm and constraints.py's callers keep the old one). So the solver keeps a digest of all
its sources beside its cached kernels and clears them when it differs, before any is loaded.
"""

import hashlib
from pathlib import Path

from .linalg import norm  # a cached kernel of this folder: its cache folder is theirs too

STAMP = "solver-sources.sha256"


def source_digest() -> str:
    """sha256 of every solver source file (names and contents, in name order)."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def clear_if_stale() -> None:
    """Delete the solver's cached kernels (numba's *.nbi index and *.nbc code files in the
    folder numba chose for them) unless they were compiled from the current sources."""
    folder = Path(norm._cache._cache_path)
    stamp = folder / STAMP
    digest = source_digest()
    try:
        if stamp.read_text() == digest:
            return
    except OSError:
        pass  # no stamp yet: a new cache, or one written before the stamp existed
    try:
        for pattern in ("*.nbi", "*.nbc"):
            for path in folder.glob(pattern):
                path.unlink(missing_ok=True)
        folder.mkdir(parents=True, exist_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass  # a folder we may not write: numba does not cache there either


clear_if_stale()  # on import (solver/__init__.py): kernels load from the cache on first call
