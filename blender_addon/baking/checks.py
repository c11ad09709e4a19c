"""Warnings that explain a bake: what went wrong, between which bodies, and what to change.

The solver's statistics say only how deep the deepest contact was. These checks look at the
baked trajectory (row 0 is the start frame) with the solver's own narrow phase on the World's
own shapes (hulls, meshes and compounds included) and name the bodies: a pair that overlaps
before anything moved, and a pair that sank into each other by more than 5 % of a body's size.
(A heavy body on a much lighter one needs no warning: the solver holds any mass ratio up to
1:10,000 at any settings, see solver/polish.py.)
"""

from collections.abc import Callable

import numpy as np

from ... import solver
from ...solver import quaternion
from ..reading.bridge import BodyLink

START_OVERLAP = 0.01  # an overlap at the start worth a warning: of the thinner body's thickness
DEEP = 0.05  # penetration worth a warning after the bake: of the thinner dynamic body's thickness
SCANNED_FRAMES = 48  # frames looked at, at most, per check (evenly spread, or the deepest)
MAX_NAMED = 3  # pairs named per kind of warning


def bake_warnings(trajectory, links: list[BodyLink], world, frame_start: int,
                  length: Callable[[float], str]) -> list[str]:
    """Warnings of the start-overlap and deep-penetration checks, in that order.

    links are in solver order; world gives gravity, substeps and iterations; `length` formats
    metres for the user.
    """
    scan = _Scanner(trajectory, links, world, frame_start)
    return [
        *_start_overlaps(scan, length),
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
