"""Collision detection on the scenes of issue #9: piles, CCD cliffs, and the first-use compile;
and (issue #11) the convex narrow phase per kind pair.

For the pile of N boxes (benchmarks/pile.py's grid, dropped and simulated for a few frames so the
boxes touch) it times, on the pile's candidate pairs: the broad phase (AABBs + sweep and prune),
the narrow phase (`find_contacts`) and CCD (`time_of_impact_batch` over one 240 Hz substep, with
every box given a 20 rad/s tumble and 5 m/s of extra speed so the advancement has work to do).
Cliffs: one box resting on the ground spinning at 80 rad/s about the vertical, and 500 boxes
starting at one point (every pair overlapping). Compile: the narrow phase's and CCD's first
call in a fresh process with an empty numba cache, then with that cache present. Kind pairs:
convex_contacts over 2,000 random poses of each pair of part kinds (box, sphere, capsule,
cylinder, cone, a 64-face hull), centres 0.4-1.6 m apart so most pairs touch or come within the
5 cm margin, in one compiled loop; and each kind resting on a box floor, a hull floor and a
triangle. CPU seconds, best of several runs; others' load on the machine makes them noisy.
Numbers, not a test:

    .venv/bin/python benchmarks/narrow_phase.py [--piles 8 1000] [--frames 40] [--kinds-only]
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

import scenes  # noqa: E402
from numba import njit  # noqa: E402

from solver import (  # noqa: E402
    BOX,
    World,
    aabbs,
    find_contacts,
    quaternion,
    sweep_and_prune,
    time_of_impact_batch,
)
from solver.convex_manifold import convex_contacts  # noqa: E402
from solver.hull import convex_hull  # noqa: E402
from solver.shapes import CAPSULE, CONE, CYLINDER, HULL, SPHERE, TRIANGLE  # noqa: E402
from solver.support import (  # noqa: E402
    NO_FACE_START,
    NO_FACE_VERTICES,
    NO_PLANES,
    NO_VERTICES,
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
    for body in scenes.pile(n).bodies:
        world.add_body(size=body.half, position=body.position,
                       kind="static" if body.static else "dynamic")
    world.simulate(frames)
    b = world.bodies
    rng = np.random.default_rng(0)
    spin = b.angular_velocity + rng.normal(scale=20.0, size=(len(b), 3)) * b.dynamic[:, None]
    velocity = b.velocity + rng.normal(scale=5.0, size=(len(b), 3)) * b.dynamic[:, None]
    centres = b.shape_centers(quaternion.to_matrix(b.orientation))
    _time_scene(f"pile of {n} after {frames} frames", b.shape, centres, b.orientation,
                b.half_extents, velocity, spin, b.dynamic)


def cliffs() -> None:
    half = 0.5  # the piles' 1 m boxes
    ground = (np.array([0.0, 0.0, -0.5]), np.array([50.0, 50.0, 0.5]))
    shape = np.full(2, BOX)
    _time_scene("box spinning at 80 rad/s on ground", shape,
                np.array([ground[0], [0.0, 0.0, half - 1e-4]]), quaternion.identity(2),
                np.array([ground[1], [half] * 3]), np.zeros((2, 3)),
                np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 80.0]]), np.array([False, True]))
    n = 500
    rng = np.random.default_rng(1)
    _time_scene(f"{n} boxes starting at one point", np.full(n, BOX), np.zeros((n, 3)),
                quaternion.normalize(rng.normal(size=(n, 4))), np.full((n, 3), half),
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


KIND_NAMES = {BOX: "box", SPHERE: "sphere", CAPSULE: "capsule", CYLINDER: "cylinder",
              CONE: "cone", HULL: "hull"}
NO_TABLES = (NO_VERTICES, NO_PLANES, NO_FACE_START, NO_FACE_VERTICES)


@njit(cache=True)
def _contacts_loop(kind_a, size_a, ca, Ra, va, pa, fsa, fva, kind_b, size_b, cb, Rb, vb, pb,
                   fsb, fvb, margin, point, normal, depth, feature):
    """convex_contacts of part a against b at every pose (ca[p], Ra[p], cb[p], Rb[p])."""
    total = np.int64(0)
    row = np.int64(0)
    for p in range(len(ca)):
        total += convex_contacts(kind_a, size_a, ca[p], Ra[p], va, pa, fsa, fva, kind_b, size_b,
                                 cb[p], Rb[p], vb, pb, fsb, fvb, margin, point, normal, depth,
                                 feature, row)
    return total


def _kind_part(kind, hull_tables):
    """(kind, size, tables) of the benchmark's part of each kind, about 0.5 m across."""
    if kind == HULL:
        return HULL, np.full(3, 0.5), hull_tables
    size = {BOX: (0.3, 0.25, 0.2), SPHERE: (0.3, 0.3, 0.3)}.get(kind, (0.25, 0.3, 0.0))
    return kind, np.array(size, float), NO_TABLES


def _time_poses(a, b, ca, Ra, cb, Rb):
    rows = 8
    out = (np.empty((rows, 3)), np.empty((rows, 3)), np.empty(rows), np.empty(rows, np.int64))
    args = (a[0], a[1], ca, Ra, *a[2], b[0], b[1], cb, Rb, *b[2], MARGIN, *out)
    seconds, found = _best(lambda: _contacts_loop(*args))
    return seconds * 1e6 / len(ca), found / len(ca)


def kind_pairs(count: int = 2000) -> None:
    rng = np.random.default_rng(2)
    made = convex_hull(rng.normal(size=(400, 3)) * [0.5, 0.4, 0.3])  # a 64-face blob
    tables = (made.vertices, made.planes, made.face_start, made.face_vertices)
    rotations = quaternion.to_matrix(quaternion.normalize(rng.normal(size=(2 * count, 4))))
    direction = rng.normal(size=(count, 3))
    direction /= np.linalg.norm(direction, axis=1)[:, None]
    ca = np.zeros((count, 3))
    cb = direction * rng.uniform(0.4, 1.6, (count, 1))
    kinds = list(KIND_NAMES)
    print(f"convex_contacts, {count} random poses per pair, margin {MARGIN} m: us per pair "
          f"(contacts per pair)")
    print(" " * 10 + "".join(f"{KIND_NAMES[k]:>15}" for k in kinds))
    for i, kind_a in enumerate(kinds):
        cells = []
        for kind_b in kinds:
            if kinds.index(kind_b) < i:
                cells.append(" " * 15)
                continue
            us, per = _time_poses(_kind_part(kind_a, tables), _kind_part(kind_b, tables), ca,
                                  rotations[:count], cb, rotations[count:])
            cells.append(f"{us:9.2f} ({per:.1f})")
        print(f"{KIND_NAMES[kind_a]:>10}" + "".join(cells))
    triangle = np.array([[-3.0, -3.0, 0.0], [3.0, -3.0, 0.0], [0.0, 3.0, 0.0]])
    floors = {"box floor": (BOX, np.array([5.0, 5.0, 0.5]), NO_TABLES, -0.5),
              "hull floor": (HULL, np.array([5.0, 5.0, 0.5]), _slab_tables(), 0.0),
              "triangle": (TRIANGLE, np.zeros(3), (triangle, *NO_TABLES[1:]), 0.0)}
    lying = quaternion.to_matrix(np.array([[np.sqrt(0.5), 0.0, np.sqrt(0.5), 0.0]]))[0]
    resting = {"box": (BOX, np.eye(3), 0.2), "sphere": (SPHERE, np.eye(3), 0.3),
               "capsule lying": (CAPSULE, lying, 0.25), "cylinder standing": (CYLINDER,
                                                                            np.eye(3), 0.3),
               "cylinder lying": (CYLINDER, lying, 0.25), "hull": (HULL, np.eye(3), None)}
    print(f"resting 1 mm deep, us per pair (contacts): {', '.join(floors)}")
    for name, (kind, rotation, height) in resting.items():
        cells = []
        part = _kind_part(kind, tables)
        if height is None:
            height = -made.vertices[:, 2].min()
        for floor_kind, floor_size, floor_tables, top in floors.values():
            poses = 200
            ca = np.tile([0.0, 0.0, top], (poses, 1))
            cb = np.tile([0.1, 0.2, height - 0.001], (poses, 1))
            us, per = _time_poses((floor_kind, floor_size, floor_tables), part, ca,
                                  np.tile(np.eye(3), (poses, 1, 1)), cb,
                                  np.tile(rotation, (poses, 1, 1)))
            cells.append(f"{us:8.2f} ({per:.0f})")
        print(f"  {name:<18}" + "".join(f"{c:>15}" for c in cells))


def _slab_tables():
    """A 10 x 10 x 1 m slab as a hull (top face at z = 0), merged faces."""
    corners = np.array([[x, y, z] for x in (-5, 5) for y in (-5, 5) for z in (-1, 0)], float)
    made = convex_hull(corners)
    return made.vertices, made.planes, made.face_start, made.face_vertices


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--piles", type=int, nargs="+", default=[8, 1000])
    parser.add_argument("--frames", type=int, default=40)
    parser.add_argument("--kinds-only", action="store_true",
                        help="only the convex kind-pair table")
    args = parser.parse_args()
    kind_pairs()
    if args.kinds_only:
        return
    compile_time()
    for n in args.piles:
        pile(n, args.frames)
    cliffs()


if __name__ == "__main__":
    main()
