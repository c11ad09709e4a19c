"""Bounding-volume hierarchy over a triangle mesh's triangles, in the mesh's own frame.

A body touching a terrain of 100,000 triangles must collide with the handful under it, not all
of them. The tree is built once per mesh (the mesh frame moves with a kinematic body, the tree
does not change): triangle centroids are sorted by Morton code (their order along a Z-curve),
and each node's range of that order is split where the codes' highest differing bit changes, so
a node holds one octant-like cell of space. One sort makes the build O(T log T).

Flat arrays, so compiled kernels read them directly:
- bounds (N, 6) float64: each node's box, lo (x, y, z) then hi (x, y, z);
- links (N, 2) int64: (first, count); count > 0: a leaf over triangles order[first:first+count]
  (a mesh stores its triangles already in that order, see mesh_edges.prepare_mesh); count == 0:
  an inner node whose children are nodes first and first + 1. Node 0 is the root.
"""

import numpy as np
from numba import njit

# Triangles per leaf at most: small leaves test few triangles that do not overlap the query box,
# big ones make fewer nodes; 4 is the usual balance.
LEAF_SIZE = 4
# Bits of each coordinate in a Morton code (3 x 21 = 63 bits, a non-negative int64).
_BITS = 21
# A query walks the tree depth-first keeping at most one sibling per level on its stack: the
# depth is at most 63 bit splits plus log2(T) halvings of ranges of equal codes.
STACK = 128


def build_bvh(vertices: np.ndarray, triangles: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                     np.ndarray]:
    """(bounds, links, order) of the tree over triangles (T, 3) of vertices (V, 3), as described
    above; order (T,) lists the triangle indices leaf by leaf. T >= 1; indices must be valid."""
    vertices = np.ascontiguousarray(vertices, dtype=np.float64).reshape(-1, 3)
    triangles = np.ascontiguousarray(triangles, dtype=np.int64).reshape(-1, 3)
    corners = vertices[triangles]  # (T, 3, 3)
    centroids = corners.sum(axis=1) / 3.0
    low, high = centroids.min(axis=0), centroids.max(axis=0)
    # one scale for all axes: cubic cells, so a flat terrain's small height range does not
    # split space as finely as its width (which would pair far-apart triangles in leaves)
    scale = ((1 << _BITS) - 1) / max(float(np.max(high - low)), 1e-300)
    cells = np.minimum(((centroids - low) * scale).astype(np.int64), (1 << _BITS) - 1)
    codes = _morton(cells)
    order = np.argsort(codes, kind="stable")
    bounds = np.empty((max(2 * len(triangles) - 1, 1), 6))
    links = np.empty((len(bounds), 2), np.int64)
    nodes = _build(codes[order], vertices, triangles[order], bounds, links)
    return bounds[:nodes].copy(), links[:nodes].copy(), order


@njit(cache=True)
def _spread(x):
    """The 21 low bits of x moved to every third bit (bit i -> bit 3i)."""
    x &= 0x1FFFFF
    x = (x | (x << 32)) & 0x1F00000000FFFF
    x = (x | (x << 16)) & 0x1F0000FF0000FF
    x = (x | (x << 8)) & 0x100F00F00F00F00F
    x = (x | (x << 4)) & 0x10C30C30C30C30C3
    return (x | (x << 2)) & 0x1249249249249249


@njit(cache=True)
def _morton(cells):
    """Morton codes (T,) of integer cells (T, 3), x in the lowest bit of each triple."""
    codes = np.empty(len(cells), np.int64)
    for t in range(len(cells)):
        codes[t] = _spread(cells[t, 0]) | (_spread(cells[t, 1]) << 1) | (_spread(cells[t, 2]) << 2)
    return codes


@njit(cache=True)
def _split(codes, start, end):
    """Where to cut the sorted range [start, end): at the first code with the highest bit in
    which the range's codes differ set, or in the middle if all codes are equal."""
    diff = codes[start] ^ codes[end - 1]
    if diff == 0:
        return (start + end) // 2
    bit = 62
    while not (diff >> bit) & 1:
        bit -= 1
    lo, hi = start + 1, end - 1  # codes[lo - 1] has the bit clear, codes[hi] has it set
    while lo < hi:
        mid = (lo + hi) // 2
        if (codes[mid] >> bit) & 1:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True)
def _build(codes, vertices, triangles, bounds, links):
    """Fill nodes top-down (children always after their parent), then their boxes bottom-up;
    returns the node count. triangles are already in Morton order."""
    ranges = np.empty((len(bounds), 2), np.int64)
    ranges[0, 0], ranges[0, 1] = 0, len(triangles)
    nodes = 1
    for node in range(len(bounds)):
        if node >= nodes:
            break
        start, end = ranges[node, 0], ranges[node, 1]
        if end - start <= LEAF_SIZE:
            links[node, 0], links[node, 1] = start, end - start
            continue
        cut = _split(codes, start, end)
        links[node, 0], links[node, 1] = nodes, 0
        ranges[nodes, 0], ranges[nodes, 1] = start, cut
        ranges[nodes + 1, 0], ranges[nodes + 1, 1] = cut, end
        nodes += 2
    for node in range(nodes - 1, -1, -1):
        first, count = links[node, 0], links[node, 1]
        for i in range(3):
            bounds[node, i], bounds[node, 3 + i] = np.inf, -np.inf
        if count > 0:
            for t in range(first, first + count):
                for c in range(3):
                    for i in range(3):
                        value = vertices[triangles[t, c], i]
                        bounds[node, i] = min(bounds[node, i], value)
                        bounds[node, 3 + i] = max(bounds[node, 3 + i], value)
        else:
            for child in range(first, first + 2):
                for i in range(3):
                    bounds[node, i] = min(bounds[node, i], bounds[child, i])
                    bounds[node, 3 + i] = max(bounds[node, 3 + i], bounds[child, 3 + i])
    return nodes


@njit(cache=True)
def query(bounds, links, vertices, triangles, lo, hi, out):
    """Indices of the triangles whose own boxes overlap the box [lo, hi] (3,) (touching counts),
    written into out; returns how many there are, all counted even when out is too short (the
    caller then asks again with room for all). triangles are in the tree's order."""
    found = 0
    if len(links) == 0:
        return found
    stack = np.empty(STACK, np.int64)
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        node = stack[top]
        apart = False
        for i in range(3):
            if bounds[node, i] > hi[i] or bounds[node, 3 + i] < lo[i]:
                apart = True
        if apart:
            continue
        first, count = links[node, 0], links[node, 1]
        if count == 0:
            stack[top], stack[top + 1] = first + 1, first
            top += 2
            continue
        for t in range(first, first + count):
            if _triangle_overlaps(vertices, triangles, t, lo, hi):
                if found < len(out):
                    out[found] = t
                found += 1
    return found


@njit(cache=True)
def _triangle_overlaps(vertices, triangles, t, lo, hi):
    """Does triangle t's box overlap [lo, hi]?"""
    for i in range(3):
        a = vertices[triangles[t, 0], i]
        b = vertices[triangles[t, 1], i]
        c = vertices[triangles[t, 2], i]
        if min(a, min(b, c)) > hi[i] or max(a, max(b, c)) < lo[i]:
            return False
    return True
