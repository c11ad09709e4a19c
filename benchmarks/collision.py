"""Collision detection speed: broad phase and narrow phase (SAT + contact manifolds).

Broad phase: N random boxes (0.2 - 1 m) scattered at pile density (a few neighbours each),
AABBs + sweep and prune, best of several runs. Narrow phase: P box pairs with overlapping
bounding spheres (what the broad phase hands over), `find_contacts` on all at once versus one
pair per call. The one-pair rate does not depend on P, so by default it is timed on the first
5,000 pairs (`--full` times every pair). Numbers, not a test:

    .venv/bin/python benchmarks/collision.py [--bodies 1000 10000] [--pairs 1000 100000] [--full]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solver import BOX, aabbs, find_contacts, sweep_and_prune
from solver import quaternion as quat

SAMPLE = 5_000


def _boxes(rng, n, spread):
    centres = rng.uniform(-spread, spread, (n, 3))
    rotations = quat.to_matrix(quat.normalize(rng.normal(size=(n, 4))))
    half = rng.uniform(0.1, 0.5, (n, 3))
    return centres, rotations, half


def _best(function, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def broad_phase(n: int) -> None:
    rng = np.random.default_rng(0)
    spread = 0.5 * n ** (1 / 3)  # about one body per cubic metre
    centres, rotations, half = _boxes(rng, n, spread)
    shape = np.full(n, BOX, np.int8)
    movable = rng.random(n) < 0.9

    def run():
        lo, hi = aabbs(centres, rotations, half, shape)
        return sweep_and_prune(lo, hi, movable)

    seconds, pairs = _best(run, 5)
    print(f"broad phase  {n:>7,} bodies: {seconds * 1e3:8.2f} ms  ({len(pairs):,} pairs)")


def narrow_phase(p: int, full: bool) -> None:
    rng = np.random.default_rng(1)
    centres, rotations, half = _boxes(rng, 2 * p, 1.0)
    # move each pair's second box next to the first so their bounding spheres overlap
    reach = np.linalg.norm(half[:p], axis=1) + np.linalg.norm(half[p:], axis=1)
    direction = rng.normal(size=(p, 3))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    centres[p:] = centres[:p] + direction * (rng.uniform(0.3, 1.0, p) * reach)[:, None]
    shape = np.full(2 * p, BOX, np.int8)
    pairs = np.column_stack([np.arange(p), np.arange(p, 2 * p)])

    batched, contacts = _best(lambda: find_contacts(shape, centres, rotations, half, pairs), 3)
    touching = len(np.unique(contacts.a))
    timed = pairs if full else pairs[:SAMPLE]
    start = time.perf_counter()
    for pair in timed:
        find_contacts(shape, centres, rotations, half, pair[None])
    single = (time.perf_counter() - start) / len(timed) * p
    print(
        f"narrow phase {p:>7,} pairs:  batched {p / batched:>12,.0f} pairs/s"
        f"  one at a time {p / single:>9,.0f} pairs/s  (x{single / batched:.0f};"
        f" {touching:,} pairs touching, {len(contacts):,} contacts)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bodies", type=int, nargs="+", default=[1_000, 10_000])
    parser.add_argument("--pairs", type=int, nargs="+", default=[1_000, 100_000])
    parser.add_argument("--full", action="store_true", help="time every pair one at a time")
    args = parser.parse_args()
    for n in args.bodies:
        broad_phase(n)
    for p in args.pairs:
        narrow_phase(p, args.full)


if __name__ == "__main__":
    main()
