"""Contacts of a convex part against a triangle mesh, compiled.

The BVH gives the triangles whose boxes overlap the part's box (grown by the margin); each is
collided as a flat convex part, its contacts with normals from an inactive edge or vertex get
the triangle's face normal (mesh_edges), points found twice (a corner above a shared vertex)
are kept once, and the pair's points are reduced to MAX_MANIFOLD. Everything is computed in the
mesh's frame, so the triangles are never moved; results are written in world coordinates.
"""

import math

import numpy as np
from numba import njit

from .bvh import query
from .manifold import MAX_MANIFOLD
from .mesh_edges import FACE, closest_point, region_active
from .shapes import BOX, CAPSULE, HULL, SPHERE

# Feature ids: (triangle << TRIANGLE_SHIFT) | local id of the triangle's contact (SHAPES.md).
TRIANGLE_SHIFT = 24
LOCAL_MASK = (1 << TRIANGLE_SHIFT) - 1
MAX_TRIANGLES = 1 << 20
# A contact normal within this of the face normal (1 - cos, about 0.08°) is the face's own.
FACE_MATCH = 1e-6
# Two points closer than this fraction of the part's size with the same normal are one point.
SAME_POINT = 1e-6
# Triangles looked at per query before the buffer grows.
_FIRST_ROOM = 64


@njit(cache=True)
def mesh_contacts(vertices, triangles, normals, edges, bounds, links, cm, Rm,
                  kind, size, c, R, hull_vertices, hull_planes, face_start, face_vertices,
                  margin, point, normal, depth, feature, k):
    """Contacts of the part (kind, size, c, R and its hull tables, as convex_contacts takes them)
    with the mesh (its prepared arrays, mesh.Mesh) posed at centre cm (3,), rotation Rm (3, 3):
    up to MAX_MANIFOLD rows from k of point, normal (unit, from the mesh to the part), depth
    (> 0 penetration, >= -margin) and feature ((triangle << 24) | local); returns the count."""
    local_c, local_R = np.empty(3), np.empty((3, 3))
    for i in range(3):
        local_c[i] = (Rm[0, i] * (c[0] - cm[0]) + Rm[1, i] * (c[1] - cm[1])
                      + Rm[2, i] * (c[2] - cm[2]))
        for j in range(3):
            local_R[i, j] = Rm[0, i] * R[0, j] + Rm[1, i] * R[1, j] + Rm[2, i] * R[2, j]
    extent = _extent(kind, size)
    lo, hi = np.empty(3), np.empty(3)
    for i in range(3):
        reach = extent[0] if kind == SPHERE else 0.0
        if kind != SPHERE:
            for j in range(3):
                reach += abs(local_R[i, j]) * extent[j]
        lo[i] = local_c[i] - reach - margin
        hi[i] = local_c[i] + reach + margin
    near = np.empty(_FIRST_ROOM, np.int64)
    found = query(bounds, links, vertices, triangles, lo, hi, near)
    if found > len(near):
        near = np.empty(found, np.int64)
        query(bounds, links, vertices, triangles, lo, hi, near)
    if found == 0:
        return 0

    room = MAX_MANIFOLD * found
    cp, cn = np.empty((room, 3)), np.empty((room, 3))
    cd, cf = np.empty(room), np.empty(room, np.int64)
    tp, tn = np.empty((MAX_MANIFOLD, 3)), np.empty((MAX_MANIFOLD, 3))
    td, tf = np.empty(MAX_MANIFOLD), np.empty(MAX_MANIFOLD, np.int64)
    corner = np.empty((3, 3))
    scratch = np.empty(3)
    tolerance = SAME_POINT * max(extent[0], max(extent[1], extent[2]))
    held = 0
    for m in range(found):
        t = near[m]
        v0 = triangles[t, 0]
        height = 0.0
        for i in range(3):
            height += normals[t, i] * (local_c[i] - vertices[v0, i])
        if height < 0.0:  # the part's centre is behind this one-sided triangle
            continue
        if kind == SPHERE:
            count = _sphere_triangle(vertices, triangles, normals, edges, t, local_c, size[0],
                                     margin, tp, tn, td, tf, scratch)
        else:
            for v in range(3):
                for i in range(3):
                    corner[v, i] = vertices[triangles[t, v], i]
            count = _convex_triangle(corner, kind, size, local_c, local_R, hull_vertices,
                                     hull_planes, face_start, face_vertices, margin,
                                     tp, tn, td, tf)
            count = _face_normals(vertices, triangles, normals, edges, t, margin, count,
                                  tp, tn, td, tf, scratch)
        for q in range(count):
            held = _hold(cp, cn, cd, cf, held, tp[q], tn[q], td[q],
                         (np.int64(t) << TRIANGLE_SHIFT) | (tf[q] & LOCAL_MASK), tolerance)
    keep = np.ones(held, np.bool_)
    if held > MAX_MANIFOLD:
        _reduce(cp, cd, keep)
    written = 0
    for q in range(held):
        if not keep[q]:
            continue
        row = k + written
        for i in range(3):
            point[row, i] = cm[i] + Rm[i, 0] * cp[q, 0] + Rm[i, 1] * cp[q, 1] + Rm[i, 2] * cp[q, 2]
            normal[row, i] = Rm[i, 0] * cn[q, 0] + Rm[i, 1] * cn[q, 1] + Rm[i, 2] * cn[q, 2]
        depth[row] = cd[q]
        feature[row] = cf[q]
        written += 1
    return written


@njit(cache=True)
def _extent(kind, size):
    """Half-extents of the part's box in its own frame (a sphere's: its radius)."""
    extent = np.empty(3)
    for i in range(3):
        extent[i] = size[i]
    if kind == SPHERE:
        extent[1], extent[2] = size[0], size[0]
    elif kind != BOX and kind != HULL:  # capsule, cylinder, cone: radius across, half-height along
        extent[1] = size[0]
        extent[2] = size[1] + (size[0] if kind == CAPSULE else 0.0)
    return extent


@njit(cache=True)
def _sphere_triangle(vertices, triangles, normals, edges, t, center, radius, margin,
                     tp, tn, td, tf, nearest):
    """At most one contact of a sphere with triangle t (mesh frame), written to row 0: along
    the line from the triangle's nearest point to the centre if that is on an active edge or
    vertex, else along the face normal (the sphere meets the plane)."""
    region = closest_point(vertices, triangles, t, center, nearest)
    dist = 0.0
    for i in range(3):
        dist += (center[i] - nearest[i]) ** 2
    dist = math.sqrt(dist)
    if not dist <= radius + margin:
        return 0
    if region != FACE and region_active(edges[t], region) and dist > 0.0:
        for i in range(3):
            tn[0, i] = (center[i] - nearest[i]) / dist
    else:
        dist = 0.0
        v0 = triangles[t, 0]
        for i in range(3):
            dist += normals[t, i] * (center[i] - vertices[v0, i])
            tn[0, i] = normals[t, i]
        region = FACE
    td[0] = radius - dist
    if not td[0] >= -margin:
        return 0
    for i in range(3):
        tp[0, i] = center[i] - tn[0, i] * 0.5 * (dist + radius)
    tf[0] = region
    return 1


@njit(cache=True)
def _convex_triangle(corner, kind, size, c, R, hull_vertices, hull_planes, face_start,
                     face_vertices, margin, tp, tn, td, tf):
    """Contacts of the triangle with corners (3, 3) and the part, normal from the triangle."""
    return 0


@njit(cache=True)
def _face_normals(vertices, triangles, normals, edges, t, margin, count, tp, tn, td, tf,
                  scratch):
    """Give the contacts of triangle t whose normal is not its face's and whose triangle point
    lies on an inactive edge or vertex the face normal, with the part's point kept and the depth
    measured along the face normal; drop those then beyond the margin. Returns the new count."""
    v0 = triangles[t, 0]
    kept = 0
    for q in range(count):
        along = 0.0
        for i in range(3):
            along += tn[q, i] * normals[t, i]
        if along < 1.0 - FACE_MATCH:
            for i in range(3):
                scratch[i] = tp[q, i] + 0.5 * td[q] * tn[q, i]  # the triangle's point
            if not region_active(edges[t], closest_point(vertices, triangles, t, scratch,
                                                          scratch)):
                gap = 0.0
                for i in range(3):
                    tp[q, i] -= 0.5 * td[q] * tn[q, i]  # now the part's point
                    gap += normals[t, i] * (tp[q, i] - vertices[v0, i])
                for i in range(3):
                    tn[q, i] = normals[t, i]
                    tp[q, i] -= 0.5 * gap * normals[t, i]
                td[q] = -gap
        if td[q] >= -margin:
            for i in range(3):
                tp[kept, i], tn[kept, i] = tp[q, i], tn[q, i]
            td[kept], tf[kept] = td[q], tf[q]
            kept += 1
    return kept


@njit(cache=True)
def _hold(cp, cn, cd, cf, held, p, n, d, f, tolerance):
    """Add a candidate unless an equal one (same point within tolerance, same normal) is held
    already, in which case the deeper of the two stays; returns the new count."""
    for q in range(held):
        apart = 0.0
        along = 0.0
        for i in range(3):
            apart += (cp[q, i] - p[i]) ** 2
            along += cn[q, i] * n[i]
        if apart <= tolerance * tolerance and along >= 1.0 - FACE_MATCH:
            if d > cd[q]:
                for i in range(3):
                    cp[q, i], cn[q, i] = p[i], n[i]
                cd[q], cf[q] = d, f
            return held
    for i in range(3):
        cp[held, i], cn[held, i] = p[i], n[i]
    cd[held], cf[held] = d, f
    return held + 1


@njit(cache=True)
def _reduce(points, depths, keep):
    """Narrow keep (all True, len = candidates) to MAX_MANIFOLD points: the deepest, the one
    farthest from it, the one spanning the largest triangle with those two, and the one adding
    the most area to that triangle (areas in 3D, about the triangle's own normal)."""
    held = len(keep)
    first = 0
    for q in range(held):
        if depths[q] > depths[first]:
            first = q
    second, far = first, -1.0
    for q in range(held):
        distance = 0.0
        for i in range(3):
            distance += (points[q, i] - points[first, i]) ** 2
        if distance > far:
            second, far = q, distance
    axis = np.empty(3)
    third, largest = first, -1.0
    for q in range(held):
        _cross(points, first, second, q, axis)
        area = axis[0] ** 2 + axis[1] ** 2 + axis[2] ** 2
        if area > largest:
            third, largest = q, area
    plane = np.empty(3)
    _cross(points, first, second, third, plane)
    fourth, most = first, -1.0
    for q in range(held):
        gain = 0.0
        for a, b in ((first, second), (second, third), (third, first)):
            _cross(points, a, b, q, axis)
            gain += max(-(axis[0] * plane[0] + axis[1] * plane[1] + axis[2] * plane[2]), 0.0)
        if gain > most:
            fourth, most = q, gain
    for q in range(held):
        keep[q] = q in (first, second, third, fourth)


@njit(cache=True)
def _cross(points, a, b, q, out):
    """out = (points[b] - points[a]) × (points[q] - points[a])."""
    ux, uy, uz = points[b, 0] - points[a, 0], points[b, 1] - points[a, 1], points[b, 2]
    vx, vy, vz = points[q, 0] - points[a, 0], points[q, 1] - points[a, 1], points[q, 2]
    uz -= points[a, 2]
    vz -= points[a, 2]
    out[0] = uy * vz - uz * vy
    out[1] = uz * vx - ux * vz
    out[2] = ux * vy - uy * vx
