"""Collision detection on the scenes of issue #9: piles, CCD cliffs, and the first-use compile.

For the pile of N boxes (benchmarks/pile.py's grid, dropped and simulated for a few frames so the
boxes touch) it times, on the pile's candidate pairs: the broad phase (AABBs + sweep and prune),
the narrow phase (`find_contacts`) and CCD (`time_of_impact_batch` over one 240 Hz substep, with
every box given a 20 rad/s tumble and 5 m/s of extra speed so the advancement has work to do).
Cliffs: one box resting on the ground spinning at 80 rad/s about the vertical, and 500 boxes
starting at one point (every pair overlapping). Compile: the narrow phase's and CCD's first
call in a fresh process with an empty numba cache, then with that cache present. CPU seconds,
best of several runs; others' load on the machine makes them noisy. Numbers, not a test:

    .venv/bin/python benchmarks/narrow_phase.py [--piles 8 1000] [--frames 40]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from pile import HALF, grid  # noqa: E402

from solver import (  # noqa: E402
    BOX,
    World,
    aabbs,
    find_contacts,
    quaternion,
    sweep_and_prune,
    time_of_impact_batch,
)

MARGIN = 0.05  # speculative reach added to the AABBs and the narrow phase, m
SUBSTEP = 1.0 / 240.0
SLOP = 0.005


def _best(function, repeats=5):
    times = []
    for _ in range(repeats):
        start = time.process_time()
        result = function()
        times.append(time.process_time() - start)
    return min(times), result


def _time_scene(label, shape, centres, orientations, half, velocity, spin, movable):
    rotations = quaternion.to_matrix(orientations)

    def broad():
        lo, hi = aabbs(centres, rotations, half, shape)
        return sweep_and_prune(lo - MARGIN, hi + MARGIN, movable)

    t_broad, pairs = _best(broad)
    t_narrow, found = _best(lambda: find_contacts(shape, centres, rotations, half, pairs, MARGIN))
    t_toi, toi = _best(lambda: time_of_impact_batch(shape, centres, orientations, half, velocity,
                                                    spin, pairs, SUBSTEP, -SLOP), 3)
    per_pair = 1e6 / max(len(pairs), 1)
    print(f"{label:<34} {len(pairs):>7,} pairs {len(found):>7,} contacts | broad "
          f"{t_broad * 1e3:8.3f} ms | narrow {t_narrow * 1e3:8.3f} ms ({t_narrow * per_pair:6.2f}"
          f" us/pair) | CCD {t_toi * 1e3:8.3f} ms ({t_toi * per_pair:6.2f} us/pair,"
          f" {np.isfinite(toi).sum():,} hits)")


def pile(n: int, frames: int) -> None:
    world = World(fps=24.0, sleeping=False)
    world.add_body(size=(50.0, 50.0, 0.5), position=(0.0, 0.0, -0.5), kind="static")
    for centre in grid(n):
        world.add_body(size=(HALF, HALF, HALF), position=centre)
    world.simulate(frames)
    b = world.bodies
    rng = np.random.default_rng(0)
    spin = b.angular_velocity + rng.normal(scale=20.0, size=(len(b), 3)) * b.dynamic[:, None]
    velocity = b.velocity + rng.normal(scale=5.0, size=(len(b), 3)) * b.dynamic[:, None]
    centres = b.shape_centers(quaternion.to_matrix(b.orientation))
    _time_scene(f"pile of {n} after {frames} frames", b.shape, centres, b.orientation,
                b.half_extents, velocity, spin, b.dynamic)


def cliffs() -> None:
    ground = (np.array([0.0, 0.0, -0.5]), np.array([50.0, 50.0, 0.5]))
    shape = np.full(2, BOX)
    _time_scene("box spinning at 80 rad/s on ground", shape,
                np.array([ground[0], [0.0, 0.0, HALF - 1e-4]]), quaternion.identity(2),
                np.array([ground[1], [HALF] * 3]), np.zeros((2, 3)),
                np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 80.0]]), np.array([False, True]))
    n = 500
    rng = np.random.default_rng(1)
    _time_scene(f"{n} boxes starting at one point", np.full(n, BOX), np.zeros((n, 3)),
                quaternion.normalize(rng.normal(size=(n, 4))), np.full((n, 3), HALF),
                rng.normal(size=(n, 3)), rng.normal(scale=5.0, size=(n, 3)), np.ones(n, bool))


_FIRST_CALL = """
import sys, time
sys.path.insert(0, {root!r})
import numpy as np
from solver import BOX, SPHERE, find_contacts, time_of_impact_batch, aabbs, sweep_and_prune
shape = np.array([BOX, BOX, SPHERE]); c = np.array([[0, 0, 0], [0, 0, 1.9], [0, 1.9, 0.0]])
q = np.tile([1.0, 0, 0, 0], (3, 1)); R = np.tile(np.eye(3), (3, 1, 1)); h = np.ones((3, 3))
pairs = np.array([[0, 1], [0, 2], [1, 2]])
start = time.process_time()
lo, hi = aabbs(c, R, h, shape); sweep_and_prune(lo, hi, np.ones(3, bool))
find_contacts(shape, c, R, h, pairs, 0.1)
time_of_impact_batch(shape, c, q, h, np.ones((3, 3)), np.ones((3, 3)), pairs, 1.0)
print(time.process_time() - start)
"""


def compile_time() -> None:
    with tempfile.TemporaryDirectory() as cache:
        seconds = []
        for _ in range(2):
            run = subprocess.run([sys.executable, "-c", _FIRST_CALL.format(root=str(ROOT))],
                                 env=dict(os.environ, NUMBA_CACHE_DIR=cache),
                                 capture_output=True, text=True, check=True)
            seconds.append(float(run.stdout.split()[-1]))
    print(f"first call of broad + narrow phase + CCD: {seconds[0]:.2f} s CPU with an empty numba"
          f" cache (compiling), {seconds[1]:.2f} s with the cache present")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--piles", type=int, nargs="+", default=[8, 1000])
    parser.add_argument("--frames", type=int, default=40)
    args = parser.parse_args()
    compile_time()
    for n in args.piles:
        pile(n, args.frames)
    cliffs()


if __name__ == "__main__":
    main()
