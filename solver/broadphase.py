"""Broad phase: axis-aligned bounding boxes and sweep and prune, vectorised over all bodies.

The AABB test is the cheap first level of the Vietnamese thesis: only pairs whose AABBs overlap
go on to the 15-axis separating axis test. Sweep and prune sorts the boxes along an axis so the
candidate pairs come out of a binary search instead of an all-pairs comparison.
"""

import numpy as np

from .shapes import SPHERE

# Candidate pairs generated per batch; bounds memory when a scene is clustered along the sweep axis.
_BATCH_PAIRS = 1 << 22


def aabbs(
    centers: np.ndarray, rotations: np.ndarray, half_extents: np.ndarray, shape: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi), each (N, 3): the tightest world AABB of each oriented box or sphere.

    A box's world half-width on axis i is sum_j |R_ij| h_j (its support along that axis); a
    sphere's is its radius whatever the rotation, so spheres are not inflated by their frame.
    """
    centers = np.asarray(centers, dtype=float).reshape(-1, 3)
    rotations = np.asarray(rotations, dtype=float).reshape(-1, 3, 3)
    half_extents = np.asarray(half_extents, dtype=float).reshape(-1, 3)
    spheres = np.asarray(shape).reshape(-1) == SPHERE
    reach = np.einsum("nij,nj->ni", np.abs(rotations), half_extents)
    reach[spheres] = half_extents[spheres, :1]
    return centers - reach, centers + reach


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
    lo = np.asarray(lo, dtype=float).reshape(-1, 3)
    hi = np.asarray(hi, dtype=float).reshape(-1, 3)
    movable = np.asarray(movable, dtype=bool).reshape(-1)
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
    counts = np.maximum(end - np.arange(1, len(body) + 1), 0)
    low, high = np.ascontiguousarray(lo.T), np.ascontiguousarray(hi.T)  # one row per axis
    pieces = []
    for first, second in _candidate_batches(counts):
        a, b, home = body[first], body[second], slab[first]
        for axis in (3 - sweep - across, across):
            keep = (low[axis][a] <= high[axis][b]) & (low[axis][b] <= high[axis][a])
            a, b, home = a[keep], b[keep], home[keep]
        keep = np.floor(np.maximum(low[across][a], low[across][b]) / width) == home
        keep &= movable[a] | movable[b]
        pieces.append(np.stack([a[keep], b[keep]], axis=1))
    pairs = np.sort(np.concatenate(pieces), axis=1).astype(np.int64)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


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


def _candidate_batches(counts: np.ndarray):
    """Yield (first, second) sorted-entry indices: entry k with each of the counts[k] after it.

    Entries are grouped so each batch holds about _BATCH_PAIRS candidates; the loop runs over
    batches, not bodies.
    """
    n = len(counts)
    total_before = np.concatenate([[0], np.cumsum(counts)])
    start = 0
    while start < n:
        stop = int(np.searchsorted(total_before, total_before[start] + _BATCH_PAIRS, side="right"))
        stop = min(max(stop - 1, start + 1), n)
        batch = counts[start:stop]
        first = np.repeat(np.arange(start, stop), batch)
        local_start = total_before[start:stop] - total_before[start]
        offsets = np.arange(len(first)) - np.repeat(local_start, batch)
        yield first, first + 1 + offsets
        start = stop
