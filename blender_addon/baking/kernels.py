"""The solver's compiled kernels, made ready once per Blender session and timed apart from a bake.

The first bake after installing compiles them (many seconds, which the progress announces as
FIRST_USE) unless the zip shipped them compiled (linux-x64, see jit_cache); later sessions load
them from the JIT cache in the extension's user folder, which takes a moment. Scenes of boxes
and spheres need about a third of the compile (solver.warm_up), so the rest are compiled by the
first bake of another shape. Loading saves less that way: numba loads only the kernels Python
calls (about 25, each holding the code of its callees), and the first load also sets numba's
compiler up (its typing and lowering registries), which takes about as long again. A bake
leaves the loading to each kernel's first call (make_ready(load=False)): only the kernels it
calls load, and warm_up's tiny worlds do not run; `timed` still counts it as compiling.
"""

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from numba.core import event  # type: ignore[import-untyped]  # numba has no type hints

from ... import solver

FIRST_USE = "Compiling the solver, first use only"
# Files in the JIT cache saying warm_up compiled there, from these sources (solver.fresh_cache
# clears the kernels themselves when the sources change).
_MARKERS = {False: "warm-boxes-and-spheres", True: "warm-every-shape"}


@dataclass
class _Session:
    other_shapes: bool | None = None  # None: nothing ready; else warm_up's argument so far
    compiled: bool = False  # the last make_ready that did work compiled (rather than loaded)


_SESSION = _Session()


def ready(other_shapes: bool = True) -> bool:
    """True once this session has compiled or loaded the kernels of a world whose
    World.other_shapes is `other_shapes`."""
    return _SESSION.other_shapes is not None and (_SESSION.other_shapes or not other_shapes)


def _marker(other_shapes: bool) -> Path | None:
    folder = os.environ.get("NUMBA_CACHE_DIR", "")
    if not folder:
        return None
    return Path(folder) / f"{_MARKERS[other_shapes]}-{solver.source_digest()[:16]}"


def first_use(other_shapes: bool = True) -> bool:
    """True while the JIT cache lacks those kernels (no warm_up has compiled them there)."""
    covering = (True,) if other_shapes else (False, True)
    markers = [_marker(kind) for kind in covering]
    return not any(marker is not None and marker.exists() for marker in markers)


def make_ready(announce: Callable[[str], None] | None = None, other_shapes: bool = True,
               load: bool = True) -> float:
    """Compile or load the kernels a world needs (World.other_shapes) unless this session did
    already (after boxes and spheres, only the other shapes' part); return the seconds spent.
    `announce` gets FIRST_USE before compiling and the time it took after (not when loading).
    With load False, kernels the cache has are left to load on their first calls."""
    if ready(other_shapes):
        return 0.0
    compiling = first_use(other_shapes)
    if not compiling and not load:
        _SESSION.other_shapes, _SESSION.compiled = other_shapes, False
        return 0.0
    if compiling and announce is not None:
        announce(FIRST_USE)
    started = time.perf_counter()
    solver.warm_up(other_shapes, boxes_and_spheres=_SESSION.other_shapes is None)
    seconds = time.perf_counter() - started
    _SESSION.other_shapes, _SESSION.compiled = other_shapes, compiling
    marker = _marker(other_shapes)
    if compiling and marker is not None:
        marker.touch()
    if compiling and announce is not None:
        announce(f"Compiled the solver in {seconds:.1f} s")
    return seconds


@contextmanager
def timed(timings: dict[str, float], phase: str) -> Iterator[None]:
    """Add the block's seconds to timings[phase], but those numba spent loading or compiling
    kernels meanwhile (under its compiler lock, on their first calls) to timings["compile"]."""
    lock = event.TimingListener()
    started = time.perf_counter()
    with event.install_listener("numba:compiler_lock", lock):
        yield
    seconds = time.perf_counter() - started
    loading = lock.duration if lock.done else 0.0
    timings["compile"] += loading
    timings[phase] += seconds - loading


def summary(seconds: float) -> str:
    """A bake's `seconds` making kernels ready, for its report line: compiling if the session's
    last make_ready that did work compiled, else loading."""
    done = "compiling the solver (first use only)" if _SESSION.compiled else "loading the solver"
    return f"{done} took {seconds:.1f} s"
