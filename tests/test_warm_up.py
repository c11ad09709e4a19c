"""solver.warm_up: it compiles (or loads) every kernel a world of its kind uses, so a bake's
first-use compile is all done, and timed, before the first frame; and for boxes and spheres
alone it leaves the part-by-part narrow phase (most of the compile) alone.

Each check runs in a new process, where no kernel is loaded yet; numba's cache is shared, so
only the first run anywhere compiles.
"""

import os
import subprocess
import sys
from pathlib import Path

from tests.installed_extension import EXTENSION_NUMBA

ROOT = Path(__file__).resolve().parent.parent

# Counts each solver kernel's compiled variants after warm_up, runs a world of the given kind
# (boxes and spheres over both methods, sleeping, CCD, a bounce in flight and a start overlap;
# or every other shape as well, made ready at once or after boxes and spheres), and prints which
# kernels gained variants, then which kernels' part-by-part variants were loaded at all.
PROBE = """
import importlib, pkgutil, sys
import numpy as np
from numba.core.registry import CPUDispatcher
import solver

def variants():
    found = {}
    for info in pkgutil.iter_modules(solver.__path__):
        module = importlib.import_module("solver." + info.name)
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__:
                found[f"{info.name}.{name}"] = len(value.signatures)
    return found

other_shapes = sys.argv[1] != "boxes"
if sys.argv[1] == "upgrade":  # as a session baking boxes, then another shape
    solver.warm_up(False)
    solver.warm_up(True, boxes_and_spheres=False)
else:
    solver.warm_up(other_shapes)
before = variants()
for method in ("impulse", "penalty"):
    world = solver.World(method=method)
    world.add_body(shape="box", size=(5, 5, 0.5), position=(0, 0, -0.5), kind="static")
    for k in range(3):
        world.add_body(position=(0.1 * k, 0, 0.5 + k))
    world.add_body(shape="sphere", size=0.2, position=(2, 0, 3), linear_velocity=(0, 0, -40))
    world.add_body(size=(0.3, 0.3, 0.3), position=(-2, 0, 0.25))
    if other_shapes:
        world.add_body(shape="cylinder", size=(0.3, 0.4), position=(2, 2, 1),
                       linear_velocity=(0, 0, -30))
        world.add_body(shape="hull", points=np.random.default_rng(1).normal(size=(20, 3)),
                       position=(-2, -2, 2))
        world.add_body(shape="mesh", vertices=[(-9, -9, 0), (-5, -9, 0), (-5, -5, 0)],
                       triangles=[(0, 1, 2)], position=(0, 0, 0.01), kind="static")
        world.add_body(shape="compound", position=(-7, -8, 1), parts=[
            dict(shape="capsule", size=(0.1, 0.3)),
            dict(shape="cone", size=(0.2, 0.2), position=(0, 0, 0.5))])
    world.simulate(12)
free = solver.World(gravity=(0, 0, 0))
free.add_body(size=(0.1, 0.1, 0.1), linear_velocity=(15, 0, 0), angular_velocity=(0, 30, 0))
free.add_body(shape="sphere", size=0.1, position=(0.8, 0.05, 0))
free.simulate(4)
after = variants()
print("GAINED", sorted(name for name in after if after[name] != before[name]))
# The part-by-part narrow phase and time of impact are compiled into the variants of their
# callers that take the part tables (the others take None): which of those were loaded.
def with_tables(name):
    module, kernel = name.split(".")
    dispatcher = getattr(importlib.import_module("solver." + module), kernel)
    return any("Tables(" in str(signature) for signature in dispatcher.signatures)
print("PARTS", sorted(name for name in ("contact_rows.collide_rows", "toi._all_times")
                     if with_tables(name)))
"""


def _probe(kind: str) -> tuple[str, str]:
    # The in-tree cache: a worker that enabled the extension set NUMBA_CACHE_DIR to the
    # extension's, where these kernels would compile again.
    env = {k: v for k, v in os.environ.items() if k not in EXTENSION_NUMBA}
    done = subprocess.run([sys.executable, "-c", PROBE, kind], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)
    return lines["GAINED"], lines["PARTS"]


def test_box_and_sphere_warm_up_is_all_their_worlds_compile_and_no_shape_kernel():
    gained, parts = _probe("boxes")
    assert gained == "[]", f"compiled after warm_up(False): {gained}"
    assert parts == "[]", f"a box-and-sphere world loaded shape kernels: {parts}"


def test_full_warm_up_is_all_a_world_of_every_shape_compiles():
    gained, parts = _probe("all")
    assert gained == "[]", f"compiled after warm_up(True): {gained}"
    assert parts != "[]"


def test_the_other_shapes_part_after_boxes_and_spheres_is_all_every_shape_compiles():
    """kernels.make_ready's path when a session bakes boxes, then another shape: warm_up(False),
    then warm_up(True, boxes_and_spheres=False), which skips what the first made ready."""
    gained, parts = _probe("upgrade")
    assert gained == "[]", f"compiled after warm_up(False) and the other shapes' part: {gained}"
    assert parts != "[]"
