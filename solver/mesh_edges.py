"""Which triangle edges may give a contact normal of their own ("active edges").

A box sliding over a floor made of many coplanar triangles crosses their shared edges. Collided
triangle by triangle, an edge can look like the nearest feature and give a normal tilted
towards the neighbour triangle: the box would catch on a seam the floor does not have. An edge
whose two triangles are coplanar, fold concavely, or fold convexly by less than ACTIVE_ANGLE is
*inactive*: the neighbour's face already gives the right normal there, so a contact whose
normal comes from that edge (or from a vertex whose two edges in that triangle are inactive)
takes the triangle's face normal instead. Boundary edges and edges shared by more than two
triangles stay active.

Triangles collide on both sides, and a fold convex seen from the front is concave seen from the
back, so each side has its own flags. Edge e of a triangle runs from its vertex e to vertex
(e + 1) % 3; bit e of the triangle's flags is set when that edge is active seen from the front
(the side its normal points to, counter-clockwise), bit 3 + e when seen from the back.
"""

import math

import numpy as np
from numba import njit

# A convex fold sharper than this (the angle between the two face normals) is a real edge.
ACTIVE_ANGLE = math.radians(5.0)

# Regions of a triangle's closest point, as `closest_point` returns them.
FACE = 0
EDGE = 1  # EDGE + e: on edge e (vertices e, e + 1)
VERTEX = 4  # VERTEX + i: at vertex i


def active_edges(vertices: np.ndarray, triangles: np.ndarray, normals: np.ndarray,
                 angle: float = ACTIVE_ANGLE) -> np.ndarray:
    """(T,) int64 flags, bit e (front) and bit 3 + e (back) set when edge e of that triangle is
    active (see above).

    vertices (V, 3), triangles (T, 3) int, normals (T, 3) unit face normals (counter-clockwise
    seen from the front). A neighbour wound the other way is compared by its flipped normal;
    whether a fold is convex from the front is decided by the neighbour's opposite vertex lying
    behind this triangle's plane.
    """
    count = len(triangles)
    start = triangles.reshape(-1)  # half-edge h = 3 t + e runs start[h] -> end[h]
    end = triangles[:, [1, 2, 0]].reshape(-1)
    key = np.minimum(start, end) * len(vertices) + np.maximum(start, end)
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    run_start = np.flatnonzero(np.r_[True, sorted_key[1:] != sorted_key[:-1]])
    run_length = np.diff(np.r_[run_start, len(key)])
    front = np.zeros(3 * count, bool)
    front[order[np.repeat(run_length != 2, run_length)]] = True  # boundary or non-manifold
    back = front.copy()
    first = order[run_start[run_length == 2]]
    second = order[run_start[run_length == 2] + 1]
    for this, other in ((first, second), (second, first)):
        t, u = this // 3, other // 3
        opposite = vertices[triangles[u, (other % 3 + 2) % 3]]
        height = np.einsum("ij,ij->i", normals[t], opposite - vertices[start[this]])
        same_winding = start[this] != start[other]
        bend = np.einsum("ij,ij->i", normals[t], normals[u]) * np.where(same_winding, 1.0, -1.0)
        sharp = bend < math.cos(angle)
        front[this] = sharp & (height < 0.0)
        back[this] = sharp & (height > 0.0)
    bits = np.c_[front.reshape(count, 3), back.reshape(count, 3)] << np.arange(6)
    return bits.sum(axis=1).astype(np.int64)


@njit(cache=True)
def closest_point(vertices, triangles, t, p, out):
    """Write the point of triangle t nearest p (3,) into out (3,); returns its region (FACE,
    EDGE + e or VERTEX + i), by the barycentric Voronoi regions of the triangle."""
    a, b, c = triangles[t, 0], triangles[t, 1], triangles[t, 2]
    ab, ac, ap = np.empty(3), np.empty(3), np.empty(3)
    for i in range(3):
        ab[i] = vertices[b, i] - vertices[a, i]
        ac[i] = vertices[c, i] - vertices[a, i]
        ap[i] = p[i] - vertices[a, i]
    d1, d2 = _dot(ab, ap), _dot(ac, ap)
    if d1 <= 0.0 and d2 <= 0.0:
        return _at(vertices, a, out, np.int64(VERTEX))
    d3, d4 = d1 - _dot(ab, ab), d2 - _dot(ac, ab)  # (b - a)·(p - b), (c - a)·(p - b)
    if d3 >= 0.0 and d4 <= d3:
        return _at(vertices, b, out, VERTEX + 1)
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        s = d1 / (d1 - d3)
        for i in range(3):
            out[i] = vertices[a, i] + s * ab[i]
        return EDGE
    d5, d6 = d1 - _dot(ab, ac), d2 - _dot(ac, ac)  # (b - a)·(p - c), (c - a)·(p - c)
    if d6 >= 0.0 and d5 <= d6:
        return _at(vertices, c, out, VERTEX + 2)
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        s = d2 / (d2 - d6)
        for i in range(3):
            out[i] = vertices[a, i] + s * ac[i]
        return EDGE + 2
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and d4 - d3 >= 0.0 and d5 - d6 >= 0.0:
        s = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        for i in range(3):
            out[i] = vertices[b, i] + s * (vertices[c, i] - vertices[b, i])
        return EDGE + 1
    scale = 1.0 / (va + vb + vc)
    v, w = vb * scale, vc * scale
    for i in range(3):
        out[i] = vertices[a, i] + v * ab[i] + w * ac[i]
    return FACE


@njit(cache=True)
def region_active(flags, region):
    """May a contact in this region of a triangle keep its own normal, given the flags of the
    side it is on (3 bits, bit e = edge e)? The face always; an edge if it is active; a vertex
    if either of its two edges is."""
    if region == FACE:
        return True
    if region < VERTEX:
        return (flags >> (region - EDGE)) & 1 == 1
    i = region - VERTEX
    return ((flags >> i) & 1 == 1) or ((flags >> ((i + 2) % 3)) & 1 == 1)


@njit(cache=True)
def _at(vertices, v, out, region):
    for i in range(3):
        out[i] = vertices[v, i]
    return region


@njit(cache=True)
def _dot(u, v):
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]
