"""Contacts of a convex part against a triangle mesh, compiled.

The BVH gives the triangles whose boxes overlap the part's box (grown by the margin); those
whose plane the part is farther from than the margin are skipped. Triangles are two-sided: each
counts from the side the part's centre is on (its face normal and that side's edge flags), as
Blender's own Mesh shape does, so an open bowl or terrain works whichever way its normals
point. Each triangle within reach is collided as a flat convex part (convex_contacts; a sphere
by its exact closest point), and contacts whose normal comes from an inactive edge or vertex
(mesh_edges) are replaced by those with the triangle's face as the reference face. Points found
twice (a corner above a shared vertex) are kept once, and the pair's points are reduced to
MAX_MANIFOLD. Everything is computed in the mesh's frame, so the triangles are never moved;
results are in world coordinates.
"""

import math

import numpy as np
from numba import njit

from .bvh import query
from .convex_manifold import convex_contacts, face_contacts, tangents
from .gjk import farther_than
from .manifold import MAX_MANIFOLD, reduce_manifold
from .mesh_edges import FACE, closest_point, region_active
from .shapes import BOX, CAPSULE, HULL, SPHERE, TRIANGLE

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
    local_c, local_R, local_I = np.empty(3), np.empty((3, 3)), np.eye(3)
    for i in range(3):
        local_c[i] = (Rm[0, i] * (c[0] - cm[0]) + Rm[1, i] * (c[1] - cm[1])
                      + Rm[2, i] * (c[2] - cm[2]))
        for j in range(3):
            local_R[i, j] = Rm[0, i] * R[0, j] + Rm[1, i] * R[1, j] + Rm[2, i] * R[2, j]
    half = _half_extents(kind, size)
    lo, hi, axis = np.empty(3), np.empty(3), np.zeros(3)
    for i in range(3):
        axis[i] = 1.0
        hi[i] = local_c[i] + _reach(kind, half, local_R, hull_vertices, axis) + margin
        axis[i] = -1.0
        lo[i] = local_c[i] - _reach(kind, half, local_R, hull_vertices, axis) - margin
        axis[i] = 0.0
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
    scratch, face, down, corners = np.empty(3), np.empty(3), np.empty(3), np.empty((3, 3))
    tolerance = SAME_POINT * max(half[0], max(half[1], half[2]))
    held = np.int64(0)
    for m in range(found):
        t = near[m]
        v0 = triangles[t, 0]
        # the side of the triangle the part's centre is on: its face normal and edge flags
        plane, height = 0.0, 0.0
        for i in range(3):
            plane += normals[t, i] * vertices[v0, i]
            height += normals[t, i] * local_c[i]
        side = 1.0 if height >= plane else -1.0
        flags = edges[t] & 7 if side > 0.0 else edges[t] >> 3
        for i in range(3):
            face[i] = side * normals[t, i]
            down[i] = -face[i]
        if side * (height - plane) - _reach(kind, half, local_R, hull_vertices, down) > margin:
            continue  # the whole part is farther from the triangle's plane than the margin
        if kind != SPHERE and _beyond_faces(vertices, triangles, t, kind, half, local_c,
                                            local_R, hull_planes, margin, corners):
            continue  # the triangle lies farther than the margin beyond one of the part's faces
        if kind == SPHERE:
            count = _sphere_triangle(vertices, triangles, t, face, flags, local_c, size[0],
                                     margin, tp, tn, td, tf, scratch)
        else:
            count = _convex_triangle(vertices, triangles, t, face, flags, kind, size,
                                     local_c, local_R, hull_vertices, hull_planes, face_start,
                                     face_vertices, margin, tp, tn, td, tf, local_I, scratch)
        for q in range(count):
            held = _hold(cp, cn, cd, cf, held, tp[q], tn[q], td[q],
                         (np.int64(t) << TRIANGLE_SHIFT) | (tf[q] & LOCAL_MASK), tolerance)
    keep = np.ones(held, np.bool_)
    if held > MAX_MANIFOLD:
        reduce_points(cp[:held], cn[:held], cd[:held], keep, tolerance)
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
def _half_extents(kind, size):
    """Half-extents of the part's box in its own frame (a sphere's: its radius)."""
    half = np.empty(3)
    for i in range(3):
        half[i] = size[i]
    if kind == SPHERE:
        half[1], half[2] = size[0], size[0]
    elif kind != BOX and kind != HULL:  # capsule, cylinder, cone: radius across, half-height along
        half[1] = size[0]
        half[2] = size[1] + (size[0] if kind == CAPSULE else 0.0)
    return half


@njit(cache=True)
def _reach(kind, half, R, hull_vertices, d):
    """How far the part reaches from its centre along the unit direction d (mesh frame, R its
    rotation there): exact for a sphere, a box and a hull (over its vertices), else its box's."""
    if kind == SPHERE:
        return half[0]
    if kind == HULL and len(hull_vertices) > 0:
        best = -np.inf
        for v in range(len(hull_vertices)):
            along = 0.0
            for i in range(3):
                along += d[i] * (R[i, 0] * hull_vertices[v, 0] + R[i, 1] * hull_vertices[v, 1]
                                 + R[i, 2] * hull_vertices[v, 2])
            best = max(best, along)
        return best
    reach = 0.0
    for j in range(3):
        reach += half[j] * abs(d[0] * R[0, j] + d[1] * R[1, j] + d[2] * R[2, j])
    return reach


@njit(cache=True)
def _beyond_faces(vertices, triangles, t, kind, half, c, R, hull_planes, margin, corners):
    """Whether triangle t (mesh frame) lies wholly farther than the margin outside one face
    plane of the part (centre c, rotation R in the mesh frame): a hull's own planes, else its
    box's. That face normal separates them, and the gap along it is a lower bound of their
    distance, so the triangle would give no contact: skipping it saves its GJK (most triangles
    under a hull's box pass the triangle's own plane test). corners (3, 3) is scratch."""
    for v in range(3):
        for i in range(3):  # the triangle's corners in the part's frame
            corners[v, i] = (R[0, i] * (vertices[triangles[t, v], 0] - c[0])
                             + R[1, i] * (vertices[triangles[t, v], 1] - c[1])
                             + R[2, i] * (vertices[triangles[t, v], 2] - c[2]))
    if kind == HULL:
        for f in range(len(hull_planes)):
            nearest = np.inf
            for v in range(3):
                nearest = min(nearest, hull_planes[f, 0] * corners[v, 0]
                              + hull_planes[f, 1] * corners[v, 1]
                              + hull_planes[f, 2] * corners[v, 2] - hull_planes[f, 3])
            if nearest > margin:
                return True
        return False
    for i in range(3):  # the box's faces: +axis i and -axis i
        low, high = np.inf, -np.inf
        for v in range(3):
            low, high = min(low, corners[v, i]), max(high, corners[v, i])
        if low - half[i] > margin or -high - half[i] > margin:
            return True
    return False


@njit(cache=True)
def _sphere_triangle(vertices, triangles, t, face, flags, center, radius, margin,
                     tp, tn, td, tf, nearest):
    """At most one contact of a sphere with triangle t (mesh frame), written to row 0: along
    the line from the triangle's nearest point to the centre if that is on an active edge or
    vertex (flags: of the side facing the sphere), else along the face normal of that side
    (face, unit), where the sphere meets the plane, if the centre is over the triangle."""
    region = closest_point(vertices, triangles, t, center, nearest)
    dist = 0.0
    for i in range(3):
        dist += (center[i] - nearest[i]) ** 2
    dist = math.sqrt(dist)
    if not dist <= radius + margin:
        return 0
    if region != FACE and region_active(flags, region) and dist > 0.0:
        for i in range(3):
            tn[0, i] = (center[i] - nearest[i]) / dist
    else:
        dist = 0.0
        v0 = triangles[t, 0]
        for i in range(3):
            dist += face[i] * (center[i] - vertices[v0, i])
            tn[0, i] = face[i]
        # the face normal is this triangle's to give only if the centre is over it; past an
        # inactive edge the neighbour (the one under the centre) gives the contact
        for i in range(3):
            tp[0, i] = center[i] - dist * face[i]
        closest_point(vertices, triangles, t, tp[0], nearest)
        off = 0.0
        for i in range(3):
            off += (nearest[i] - tp[0, i]) ** 2
        if off > (SAME_POINT * radius) ** 2:
            return 0
        region = FACE
    td[0] = radius - dist
    if not td[0] >= -margin:
        return 0
    for i in range(3):
        tp[0, i] = center[i] - tn[0, i] * 0.5 * (dist + radius)
    tf[0] = region
    return 1


@njit(cache=True, inline="always")  # one caller: not compiled again on its own (contacts.py)
def _convex_triangle(vertices, triangles, t, face, flags, kind, size, c, R, hull_vertices,
                     hull_planes, face_start, face_vertices, margin, tp, tn, td, tf, identity,
                     scratch):
    """Contacts of the part with triangle t (mesh frame), normal from the triangle, written
    from row 0; returns the count. face (3,) is the unit face normal of the side facing the
    part and flags that side's edge flags.

    convex_contacts collides the triangle as a part (centred on its centroid, where its
    coordinates are smallest). Its normal stands if it is the face normal or if the triangle's
    point of each contact lies on an active edge or vertex; otherwise (a seam of a flat floor,
    where a lone triangle's edge axis would tilt the normal) the triangle's face is made the
    reference face and the part's facing feature is clipped against it instead.
    """
    centre, local, no_size = np.empty(3), np.empty((3, 3)), np.zeros(3)
    # The triangle's kind and empty hull tables as run-time values of the parts' own types:
    # a literal kind or read-only global tables would compile the convex narrow phase twice.
    triangle = np.int64(TRIANGLE)
    no_planes, no_start = np.zeros((0, 4)), np.zeros(1, np.int64)
    no_vertices = np.zeros(0, np.int64)
    for i in range(3):
        centre[i] = (vertices[triangles[t, 0], i] + vertices[triangles[t, 1], i]
                     + vertices[triangles[t, 2], i]) / 3.0
    for v in range(3):
        for i in range(3):
            local[v, i] = vertices[triangles[t, v], i] - centre[i]
    # With no active edge every normal but the face's would be replaced: go straight there,
    # once GJK has shown the part within the margin of the triangle (the face's clipping alone
    # would give a part that passes under the triangle's edge, beside it, the depth it reaches
    # below the triangle's plane).
    own = flags != 0
    if not own and farther_than((triangle, no_size, centre, identity, local),
                                (kind, size, c, R, hull_vertices), margin):
        return 0
    count = 0
    if own:
        count = convex_contacts(triangle, no_size, centre, identity, local, no_planes,
                                no_start, no_vertices, kind, size, c, R,
                                hull_vertices, hull_planes, face_start, face_vertices, margin,
                                tp, tn, td, tf, np.int64(0))
    for q in range(count):
        if tn[q, 0] * face[0] + tn[q, 1] * face[1] + tn[q, 2] * face[2] >= 1.0 - FACE_MATCH:
            continue
        for i in range(3):
            scratch[i] = tp[q, i] + 0.5 * td[q] * tn[q, i]  # the triangle's point
        region = closest_point(vertices, triangles, t, scratch, scratch)
        if region == FACE or not region_active(flags, region):
            own = False
    if own:
        return count
    return face_contacts((triangle, no_size, centre, identity, local), no_planes,
                         no_start, no_vertices, (kind, size, c, R, hull_vertices),
                         hull_planes, face_start, face_vertices, face, np.bool_(False), margin,
                         tp, tn, td, tf, np.int64(0))


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
def reduce_points(points, normals, depths, keep, tolerance):
    """Narrow keep (all True, one per candidate row of points (n, 3), normals (n, 3), depths)
    in place to MAX_MANIFOLD points by manifold.reduce_manifold (deepest, then largest area),
    the points seen in the plane across the deepest one's normal.

    Depths equal to within tolerance count as equal, and among the deepest the point farthest
    from the candidates' centroid goes first: a box flat on a tessellated floor then keeps its
    four corners, not a vertex of the floor under its middle.
    """
    held = len(keep)
    deepest = 0
    centroid = np.zeros(3)
    for q in range(held):
        if depths[q] > depths[deepest]:
            deepest = q
        for i in range(3):
            centroid[i] += points[q, i] / held
    rank = depths.copy()
    for q in range(held):
        if depths[q] >= depths[deepest] - tolerance:
            spread = 0.0
            for i in range(3):
                spread += (points[q, i] - centroid[i]) ** 2
            rank[q] = depths[deepest] + tolerance * math.sqrt(spread)
    t1, t2 = np.empty(3), np.empty(3)
    tangents(normals[deepest], t1, t2)
    flat = np.zeros((held, 3))
    for q in range(held):
        for i in range(3):
            flat[q, 0] += points[q, i] * t1[i]
            flat[q, 1] += points[q, i] * t2[i]
    reduce_manifold(flat, rank, keep, 0.0)

