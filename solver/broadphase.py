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
    slab that start before its high end (a binary search), and those candidates are filtered
    exactly on the other axes. Slabs keep the candidates few in dense scenes, where a single
    sorted list would pair every box with all boxes in a wide band. A pair sharing several
    slabs is kept only in the slab where its overlap begins, so it is reported once. Pairs of
    two non-movable (static) bodies are dropped: they can never need a contact.
    """
    lo = np.ascontiguousarray(lo, dtype=np.float64).reshape(-1, 3)
    hi = np.ascontiguousarray(hi, dtype=np.float64).reshape(-1, 3)
    movable = np.ascontiguousarray(movable, dtype=np.bool_).reshape(-1)
    if len(lo) < 2:
        return np.empty((0, 2), dtype=np.int64)
    return overlapping_pairs(lo, hi, movable, _BATCH_PAIRS)


@njit(cache=True)
def overlapping_pairs(lo, hi, movable, batch):
    """The compiled sweep_and_prune (N >= 2), with room for `batch` pairs at first."""
    spread = np.empty(3)
    for k in range(3):
        spread[k] = np.max(lo[:, k] + hi[:, k]) - np.min(lo[:, k] + hi[:, k])
    axes = np.argsort(spread)
    across, sweep = axes[1], axes[2]
    width = _slab_width(lo[:, across], hi[:, across])
    body, slab = _slab_entries(lo[:, across], hi[:, across], width)
    # By slab, then low end (exact comparisons): a stable sort by slab of the entries sorted by
    # low end. (A counting sort over the slab indices would need room for every slab between
    # the first and the last: 10^9 of them for points spread 40 m apart.)
    order = np.argsort(lo[body, sweep])
    order = order[np.argsort(slab[order], kind="mergesort")]
    body, slab = body[order], slab[order]
    start = lo[body, sweep]
    end = np.empty(len(body), dtype=np.int64)
    candidates = 0
    for k in range(len(body)):
        end[k] = _after(slab, start, slab[k], hi[body[k], sweep])
        candidates += max(end[k] - k - 1, 0)
    pairs = np.empty((min(candidates, batch), 2), dtype=np.int64)
    count = _sweep(lo, hi, movable, body, slab, end, sweep, across, width, pairs)
    if count > len(pairs):  # more than the first allowance: again, with room for all
        pairs = np.empty((count, 2), dtype=np.int64)
        _sweep(lo, hi, movable, body, slab, end, sweep, across, width, pairs)
    keys = np.empty(count, dtype=np.int64)
    for p in range(count):
        i, j = min(pairs[p, 0], pairs[p, 1]), max(pairs[p, 0], pairs[p, 1])
        pairs[p, 0], pairs[p, 1] = i, j
        keys[p] = i * len(lo) + j
    return pairs[np.argsort(keys)]


@njit(cache=True)
def _after(slab, start, key_slab, key_start) -> int:
    """The first entry (sorted by slab, then start) that comes after (key_slab, key_start)."""
    low, high = 0, len(slab)
    while low < high:
        middle = (low + high) // 2
        if slab[middle] < key_slab or (slab[middle] == key_slab and start[middle] <= key_start):
            low = middle + 1
        else:
            high = middle
    return low


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


@njit(cache=True)
def _slab_width(lo, hi) -> float:
    """About one typical box wide, widened until boxes touch at most 4 slabs each on average.

    Without that limit a few big boxes (a ground plane) would be copied into very many slabs.
    """
    extent = np.max(hi) - np.min(lo)
    sizes = np.sort(hi - lo)
    middle = len(sizes) // 2
    median = sizes[middle] if len(sizes) % 2 else 0.5 * (sizes[middle - 1] + sizes[middle])
    width = max(median, 1e-9 * extent)
    if not width > 0.0:
        return 1.0
    while np.sum(np.floor(hi / width) - np.floor(lo / width) + 1.0) > 4.0 * len(lo):
        width *= 2.0
    return width


@njit(cache=True)
def _slab_entries(lo, hi, width):
    """(body, slab) for every slab each box touches; slab indices are floats holding integers."""
    first = np.floor(lo / width)
    span = (np.floor(hi / width) - first).astype(np.int64) + 1
    body = np.empty(np.sum(span), dtype=np.int64)
    slab = np.empty(len(body))
    k = 0
    for n in range(len(lo)):
        for s in range(span[n]):
            body[k], slab[k] = n, first[n] + s
            k += 1
    return body, slab
