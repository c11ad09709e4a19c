"""Warnings that explain a bake: what went wrong, between which bodies, and what to change.

The solver's statistics say only how deep the deepest contact was. These checks look at the
baked trajectory (row 0 is the start frame) with the solver's own narrow phase on the World's
own shapes (hulls, meshes and compounds included) and name the bodies: a pair that overlaps
before anything moved, a heavy body resting on one so much lighter that the settings cannot
hold it up, and a pair that sank into each other by more than 5 % of a body's size.
"""

from collections.abc import Callable

import numpy as np

from ... import solver
from ...solver import quaternion
from ..reading.bridge import BodyLink

START_OVERLAP = 0.01  # an overlap at the start worth a warning: of the thinner body's thickness
DEEP = 0.05  # penetration worth a warning after the bake: of the thinner dynamic body's thickness
SCANNED_FRAMES = 48  # frames looked at, at most, per check (evenly spread, or the deepest)
RESTING_COSINE = 0.7  # a contact normal this close to gravity means one body rests on the other
MAX_NAMED = 3  # pairs named per kind of warning


def heavy_ratio_held(substeps: int, iterations: int) -> float:
    """The largest mass ratio of a body resting on a lighter one that the settings hold.

    Measured with benchmarks/heavy_on_light.py (a 1 m box of mass r on one of 1 kg on the
    ground): the sink stays under 5 % of the light box up to a ratio between (held, not held)
    1-3 at 1 substep and 1 iteration, 10-30 at (1, 10), 30-100 at (10, 1) and (5, 5), 100-300
    at (10, 10) and 1000-3000 at (20, 20). 2 s^1.3 i^0.7 lies in or below each of those ranges.
    """
    return 2.0 * substeps**1.3 * iterations**0.7


def bake_warnings(trajectory, links: list[BodyLink], world, frame_start: int,
                  length: Callable[[float], str]) -> list[str]:
    """Warnings of the start-overlap, heavy-on-light and deep-penetration checks, in that order.

    links are in solver order; world gives gravity, substeps and iterations; `length` formats
    metres for the user.
    """
    scan = _Scanner(trajectory, links, world, frame_start)
    return [
        *_start_overlaps(scan, length),
        *_heavy_on_light(scan, np.asarray(world.gravity, dtype=float), world.substeps,
                         world.iterations),
        *_deep_penetrations(scan, world.substeps, length),
    ]


class _Scanner:
    """Contacts (pair, deepest depth, normal) among the bodies at any row of the trajectory."""

    def __init__(self, trajectory, links: list[BodyLink], world, frame_start: int):
        self.trajectory = trajectory
        self.frame_start = frame_start
        self.bodies = links
        state = world.bodies
        self.shape = np.asarray(state.shape, dtype=np.int64)
        self.half = np.asarray(state.half_extents, dtype=float).reshape(-1, 3)
        self.tables = world.geometry.tables()
        self.mass = np.array([b.mass for b in links], dtype=float)
        self.dynamic = self.mass > 0.0
        self.thickness = 2.0 * np.asarray(state.thickness, dtype=float)  # a mesh's is infinite

    def contacts(self, row: int, wanted=None):
        """(pairs (P, 2), depth (P,), normal (P, 3) from a to b) of pairs that touch at `row`;
        wanted(pairs) -> mask keeps the narrow phase to the pairs a check asks about."""
        centres = self.trajectory.positions[row]
        rotations = quaternion.to_matrix(self.trajectory.orientations[row])
        lo, hi = solver.aabbs(centres, rotations, self.half, self.shape)
        pairs = solver.sweep_and_prune(lo, hi, self.dynamic)
        if wanted is not None:
            pairs = pairs[wanted(pairs)]
        found = solver.find_contacts(self.shape, centres, rotations, self.half, pairs,
                                     tables=self.tables)
        if len(found) == 0:
            return np.empty((0, 2), np.int64), np.empty(0), np.empty((0, 3))
        keys = found.a * len(self.bodies) + found.b
        unique, first, group = np.unique(keys, return_index=True, return_inverse=True)
        depth = np.full(len(unique), -np.inf)
        np.maximum.at(depth, group, found.depth)
        pairs = np.stack([found.a[first], found.b[first]], axis=1)
        return pairs, depth, found.normal[first]

    def names(self, pair) -> tuple[str, str]:
        return self.bodies[pair[0]].name, self.bodies[pair[1]].name


def _start_overlaps(scan: _Scanner, length) -> list[str]:
    pairs, depth, _normal = scan.contacts(0)
    if not len(pairs):
        return []
    deep = np.flatnonzero(depth > START_OVERLAP * scan.thickness[pairs].min(axis=1))
    deep = deep[np.argsort(-depth[deep])]
    out = []
    for k in deep[:MAX_NAMED]:
        a, b = scan.names(pairs[k])
        out.append(f"'{a}' and '{b}' overlap by {length(float(depth[k]))} at the start frame: "
                   "they will be pushed apart; move them apart for a calm start")
    return out + _more(len(deep), "overlapping pairs")


def _heavy_on_light(scan: _Scanner, gravity: np.ndarray, substeps: int,
                    iterations: int) -> list[str]:
    g = float(np.linalg.norm(gravity))
    held = heavy_ratio_held(substeps, iterations)
    masses = scan.mass[scan.dynamic]
    if g == 0.0 or len(masses) < 2 or masses.max() <= held * masses.min():
        return []  # no pair of bodies is that unequal: nothing to look for

    def unequal(pairs):
        a, b = scan.mass[pairs[:, 0]], scan.mass[pairs[:, 1]]
        return (a > 0.0) & (b > 0.0) & (np.maximum(a, b) > held * np.minimum(a, b))

    down = gravity / g
    worst: dict[tuple[int, int], float] = {}
    for row in _evenly(scan.trajectory.frames + 1):
        pairs, depth, normal = scan.contacts(row, unequal)
        along = normal @ down
        for k in np.flatnonzero((depth >= 0.0) & (np.abs(along) > RESTING_COSINE)):
            # Normal from a to b along gravity: b is below a.
            upper, lower = pairs[k] if along[k] > 0.0 else pairs[k][::-1]
            ratio = scan.mass[upper] / scan.mass[lower]
            if ratio > held:
                worst[(int(upper), int(lower))] = ratio
    ranked = sorted(worst.items(), key=lambda item: -item[1])
    out = []
    for (upper, lower), ratio in ranked[:MAX_NAMED]:
        heavy, light = scan.bodies[upper].name, scan.bodies[lower].name
        out.append(
            f"'{heavy}' rests on '{light}', which is {ratio:.0f} times lighter: Substeps "
            f"{substeps} and Iterations {iterations} hold about {held:.0f} times; raise Substeps "
            f"(World panel) or '{heavy}' sinks in"
        )
    return out + _more(len(ranked), "heavy-on-light pairs")


def _deep_penetrations(scan: _Scanner, substeps: int, length) -> list[str]:
    trajectory = scan.trajectory
    if not np.any(scan.dynamic):
        return []
    floor = DEEP * scan.thickness[scan.dynamic].min()
    rows = np.flatnonzero(trajectory.max_penetration > floor)
    rows = rows[np.argsort(-trajectory.max_penetration[rows], kind="stable")][:SCANNED_FRAMES]
    worst: dict[tuple[int, int], tuple[float, int]] = {}
    for row in sorted(rows.tolist()):
        pairs, depth, _normal = scan.contacts(row)
        if not len(pairs):
            continue
        thickness = np.where(scan.dynamic[pairs], scan.thickness[pairs], np.inf).min(axis=1)
        for k in np.flatnonzero(depth > DEEP * thickness):
            key = (int(pairs[k, 0]), int(pairs[k, 1]))
            if depth[k] > worst.get(key, (0.0, 0))[0]:
                worst[key] = (float(depth[k]), row)
    ranked = sorted(worst.items(), key=lambda item: -item[1][0])
    out = []
    for pair, (depth, row) in ranked[:MAX_NAMED]:
        a, b = scan.names(pair)
        out.append(
            f"'{a}' and '{b}' sink {length(depth)} into each other at frame "
            f"{scan.frame_start + row} "
            f"(more than {DEEP:.0%} of the thinner one's thickness): raise Substeps in the World "
            f"panel (now {substeps})"
        )
    return out + _more(len(ranked), "deeply penetrating pairs")


def _evenly(rows: int) -> list[int]:
    """Up to SCANNED_FRAMES rows spread evenly over 0 .. rows - 1, both ends included."""
    return sorted(set(np.linspace(0, rows - 1, min(rows, SCANNED_FRAMES)).round().astype(int)))


def _more(count: int, what: str) -> list[str]:
    return [f"... and {count - MAX_NAMED} more {what}"] if count > MAX_NAMED else []
