"""Broad phase: axis-aligned bounding boxes and sweep and prune, compiled loops over bodies.

The AABB test is the cheap first level of the Vietnamese thesis: only pairs whose AABBs overlap
go on to the 15-axis separating axis test. Sweep and prune sorts the boxes along an axis so the
candidate pairs come out of a binary search instead of an all-pairs comparison.
"""

import numpy as np
from numba import njit

from .shapes import CAPSULE, CONE, CYLINDER, SPHERE

# Room for at most this many pairs at first (64 MB): enough for every candidate in most scenes; a
# sweep that finds more pairs runs once more with room for all of them.
_BATCH_PAIRS = 1 << 22


def aabbs(
    centers: np.ndarray, rotations: np.ndarray, half_extents: np.ndarray, shape: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi), each (N, 3): the world AABB of each body from its shape code and half-extents
    row (solver.bodies: its box about the shape origin).

    A box's world half-width on axis i is sum_j |R_ij| h_j (its support along that axis); a
    sphere's is its radius whatever the rotation, so spheres are not inflated by their frame;
    a capsule's |R_i2| h + r, a cylinder's |R_i2| h + r sqrt(1 - R_i2²) (its rim discs; a cone
    lies within that too). Hulls, meshes and compounds get their box's.
    """
    centers = np.ascontiguousarray(centers, dtype=np.float64).reshape(-1, 3)
    lo, hi = np.empty_like(centers), np.empty_like(centers)
    aabbs_into(centers, np.ascontiguousarray(rotations, dtype=np.float64).reshape(-1, 3, 3),
               np.ascontiguousarray(half_extents, dtype=np.float64).reshape(-1, 3),
               np.ascontiguousarray(shape, dtype=np.int64).reshape(-1), lo, hi)
    return lo, hi


@njit(cache=True)
def aabbs_into(centers, rotations, half_extents, shape, lo, hi):
    """The compiled `aabbs`, writing into lo, hi (N, 3)."""
    for n in range(len(centers)):
        kind = shape[n]
        r = half_extents[n, 0]
        for i in range(3):
            axial = abs(rotations[n, i, 2])
            if kind == SPHERE:
                reach = r
            elif kind == CAPSULE:
                reach = axial * (half_extents[n, 2] - r) + r
            elif kind in (CYLINDER, CONE):
                reach = axial * half_extents[n, 2] + r * np.sqrt(max(0.0, 1.0 - axial * axial))
            else:
                reach = 0.0
                for j in range(3):
                    reach += abs(rotations[n, i, j]) * half_extents[n, j]
            lo[n, i] = centers[n, i] - reach
            hi[n, i] = centers[n, i] + reach


def sweep_and_prune(lo: np.ndarray, hi: np.ndarray, movable: np.ndarray) -> np.ndarray:
    """(P, 2) int64 pairs i < j, sorted, whose AABBs overlap (touching counts), one body movable.

    Boxes are cut into slabs across the second-widest axis and, within each slab, sorted by
    their low end along the widest axis: each box then pairs with the run of later boxes in its
    slab that start before its high end (one searchsorted for all slabs), and those candidates
    are filtered exactly on the other axes. Slabs keep the candidates few in dense scenes, where a
    single sorted list would pair every box with all boxes in a wide band. A pair sharing several
    slabs is kept only in the slab where its overlap begins, so it is reported once. Pairs of two
    non-movable (static) bodies are dropped: they can never need a contact.
    """
    lo = np.ascontiguousarray(lo, dtype=np.float64).reshape(-1, 3)
    hi = np.ascontiguousarray(hi, dtype=np.float64).reshape(-1, 3)
    movable = np.ascontiguousarray(movable, dtype=np.bool_).reshape(-1)
    n = len(lo)
    if n < 2:
        return np.empty((0, 2), dtype=np.int64)
    across, sweep = np.argsort(np.ptp(lo + hi, axis=0))[1:]
    width = _slab_width(lo[:, across], hi[:, across])
    body, slab = _slab_entries(lo[:, across], hi[:, across], width)
    # Complex keys sort by slab (real part), then by low end (imaginary part): exact comparisons.
    key = slab + 1j * lo[body, sweep]
    order = np.argsort(key, kind="stable")
    key, body, slab = key[order], body[order], slab[order]
    end = np.searchsorted(key, slab + 1j * hi[body, sweep], side="right")
    candidates = int(np.maximum(end - np.arange(1, len(body) + 1), 0).sum())
    pairs = np.empty((min(candidates, _BATCH_PAIRS), 2), np.int64)
    count = _sweep(lo, hi, movable, body, slab, end, int(sweep), int(across), width, pairs)
    if count > len(pairs):  # more than the first allowance: again, with room for all
        pairs = np.empty((count, 2), np.int64)
        _sweep(lo, hi, movable, body, slab, end, int(sweep), int(across), width, pairs)
    pairs = np.sort(pairs[:count], axis=1)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


@njit(cache=True)
def _sweep(lo, hi, movable, body, slab, end, sweep, across, width, pairs):
    """Write the overlapping pairs into `pairs` and return how many there are (all of them are
    counted even when `pairs` is too short, so the caller can sweep again with enough room).

    Entry k (in sorted order) meets the entries after it up to end[k], those of its slab that
    start before it ends along the sweep axis; each is then tested on the two other axes.
    """
    other = 3 - sweep - across
    count = 0
    for first in range(len(body)):
        a = body[first]
        for second in range(first + 1, end[first]):
            b = body[second]
            if not movable[a] and not movable[b]:
                continue
            if lo[a, other] > hi[b, other] or lo[b, other] > hi[a, other]:
                continue
            if lo[a, across] > hi[b, across] or lo[b, across] > hi[a, across]:
                continue
            # a pair sharing several slabs counts in the one where its overlap begins
            if np.floor(max(lo[a, across], lo[b, across]) / width) != slab[first]:
                continue
            if count < len(pairs):
                pairs[count, 0], pairs[count, 1] = a, b
            count += 1
    return count


def _slab_width(lo: np.ndarray, hi: np.ndarray) -> float:
    """About one typical box wide, widened until boxes touch at most 4 slabs each on average.

    Without that limit a few big boxes (a ground plane) would be copied into very many slabs.
    """
    extent = float(np.max(hi) - np.min(lo))
    width = max(float(np.median(hi - lo)), 1e-9 * extent)
    if not width > 0.0:
        return 1.0
    while np.sum(np.floor(hi / width) - np.floor(lo / width) + 1) > 4 * len(lo):
        width *= 2.0
    return width


def _slab_entries(lo: np.ndarray, hi: np.ndarray, width: float) -> tuple[np.ndarray, np.ndarray]:
    """(body, slab) for every slab each box touches; slab indices are floats holding integers."""
    first = np.floor(lo / width)
    span = (np.floor(hi / width) - first).astype(np.int64) + 1
    body = np.repeat(np.arange(len(lo)), span)
    start = np.cumsum(span) - span
    return body, np.repeat(first, span) + (np.arange(len(body)) - np.repeat(start, span))
