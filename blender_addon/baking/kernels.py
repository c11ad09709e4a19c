"""The solver's compiled kernels, made ready once per Blender session and timed apart from a bake.

The first bake after installing compiles them (many seconds, which the progress announces as
FIRST_USE); later sessions load them from the JIT cache in the extension's user folder (see
jit_cache), which takes a moment.
"""

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ... import solver

FIRST_USE = "Compiling the solver, first use only"


@dataclass
class _Session:
    seconds: float | None = None  # what making the kernels ready took, once done
    compiled: bool = False  # compiled (the cache was empty) rather than loaded from the cache


_SESSION = _Session()


def ready() -> bool:
    """True once this session has compiled or loaded every kernel."""
    return _SESSION.seconds is not None


def first_use() -> bool:
    """True while the JIT cache holds no compiled kernel (numba's index files, *.nbi)."""
    folder = os.environ.get("NUMBA_CACHE_DIR", "")
    return not folder or not any(Path(folder).rglob("*.nbi"))


def make_ready(announce: Callable[[str], None] | None = None) -> float:
    """Compile or load every kernel unless this session did already; return the seconds spent.
    `announce` gets FIRST_USE before compiling and the time it took after (not when loading)."""
    if _SESSION.seconds is not None:
        return 0.0
    compiling = first_use()
    if compiling and announce is not None:
        announce(FIRST_USE)
    started = time.perf_counter()
    solver.warm_up()
    _SESSION.seconds, _SESSION.compiled = time.perf_counter() - started, compiling
    if compiling and announce is not None:
        announce(f"Compiled the solver in {_SESSION.seconds:.1f} s")
    return _SESSION.seconds


def summary() -> str:
    """How this session's kernels were made ready, for a report line ("" before that)."""
    if _SESSION.seconds is None:
        return ""
    done = "compiling the solver (first use only)" if _SESSION.compiled else "loading the solver"
    return f"{done} took {_SESSION.seconds:.1f} s"
