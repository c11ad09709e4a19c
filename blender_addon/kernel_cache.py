"""Where numba caches the solver's kernels, so that a cache compiled elsewhere loads here.

numba's own locators file a kernel under a hash of its source folder's absolute path and stamp
it with the source file's modification time and size: both differ on every install (Blender's
zip extraction does not keep times), so kernels compiled by build.py would never load. This
locator, put first by jit_cache (NUMBA_CACHE_LOCATOR_CLASSES), files the kernels of the
extension's solver folder under NUMBA_CACHE_DIR/solver and stamps them with their module's name
and their source file's size and sha256: the same sources under the same module name (the
kernels' environments import it when loaded) find the same cache wherever they are installed.
Functions of any other folder are left to numba's locators, listed after it. No bpy: numba
imports this module itself.
"""

import functools
import hashlib
import os
from pathlib import Path

from numba.core import config  # type: ignore[import-untyped]  # numba has no type hints
from numba.core.caching import _CacheLocator  # type: ignore[import-untyped]

SOLVER = Path(__file__).resolve().parent.parent / "solver"
FOLDER = "solver"  # in NUMBA_CACHE_DIR
# Cache folders found writable: numba's check writes a temporary file, once per folder is enough
# (a session defines some 170 kernels). Saving a kernel checks again.
_WRITABLE: set[str] = set()


@functools.cache
def _in_solver(py_file: str) -> bool:
    """Whether a source file is in the solver folder (resolved once per file, not per kernel)."""
    return Path(py_file).resolve().parent == SOLVER


@functools.cache
def _content(py_file: str) -> tuple[int, str]:
    data = Path(py_file).read_bytes()
    return len(data), hashlib.sha256(data).hexdigest()


class SolverLocator(_CacheLocator):
    """numba's cache locator for the functions of the extension's solver/ folder."""

    def __init__(self, py_func, py_file: str):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._stamp = (py_func.__module__, *_content(py_file))
        self._cache_path = os.path.join(config.CACHE_DIR, FOLDER)

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> tuple[str, int, str]:
        return self._stamp

    def get_disambiguator(self) -> str:
        return str(self._lineno)  # as numba's own: functions of one name in one file

    @classmethod
    def from_function(cls, py_func, py_file: str):
        """The locator of a solver function when NUMBA_CACHE_DIR is set, else None (the next
        locator is asked)."""
        if not config.CACHE_DIR or not _in_solver(py_file):
            return None
        locator = cls(py_func, py_file)
        if locator._cache_path not in _WRITABLE:
            try:
                locator.ensure_cache_path()
            except OSError:
                return None  # a folder we may not write: numba's next locator, as numba does
            _WRITABLE.add(locator._cache_path)
        return locator
