"""Support mappings and contact features of the convex part kinds, compiled.

GJK and EPA see a shape only through its support mapping: the point of the shape furthest along
a direction. Spheres and capsules are handled as a core (a point, a segment) swept by a ball of
their radius, so GJK on the cores gives their exact distance and a smooth normal, and the radius
is added afterwards; every other kind has core radius 0.

The manifold builder sees a shape through its features: the face, segment or point of the shape
that faces a direction, as a list of world points with ids that name them on the part (stable
while the same feature touches, for warm starting). Discs (cylinder caps, the cone's base) are
regular DISC-gons with their vertices on the rim.

Every function takes a part as (kind, size, c, R, vertices, face_start, face_vertices): size the
part's 3 numbers (shapes.py), c (3,) its world centre, R (3, 3) its world rotation (columns = part
axes), vertices (V, 3) part-local hull vertices and the face tables of solver.hull (empty for the
other kinds; a TRIANGLE is its 3 vertices and needs no face tables).
"""

import math

import numpy as np
from numba import njit

from .shapes import BOX, CAPSULE, CONE, CYLINDER, HULL, SPHERE, TRIANGLE

DISC = 8  # vertices of the polygon standing for a disc (all on the rim)
MAX_FEATURE = 64  # vertices a feature may have (hull faces with more are cut, see face_feature)
ID_MASK = 511  # feature vertex ids are 9 bits (hull: position in face_vertices)

# Empty hull tables for the kinds that have none (the kernels' argument types stay fixed).
NO_VERTICES = np.zeros((0, 3))
NO_PLANES = np.zeros((0, 4))
NO_FACE_START = np.zeros(1, np.int64)
NO_FACE_VERTICES = np.zeros(0, np.int64)


@njit(cache=True)
def core_radius(kind, size):
    """The radius of the ball swept over the core (sphere, capsule), else 0."""
    return size[0] if kind in (SPHERE, CAPSULE) else 0.0


@njit(cache=True)
def _local_core_support(kind, size, vertices, d, out):
    """out = the point of the part's core furthest along the local direction d; returns an id of
    that point on the part (box corner, hull vertex, cylinder cap, cone apex or rim)."""
    out[0], out[1], out[2] = 0.0, 0.0, 0.0
    if kind == BOX:
        corner = 0
        for i in range(3):
            out[i] = size[i] if d[i] >= 0.0 else -size[i]
            corner += (1 << i) if d[i] >= 0.0 else 0
        return corner
    if kind == CAPSULE:
        out[2] = size[1] if d[2] >= 0.0 else -size[1]
        return 1 if d[2] >= 0.0 else 0
    if kind in (CYLINDER, CONE):
        rho = math.sqrt(d[0] * d[0] + d[1] * d[1])
        apex = kind == CONE and d[2] * size[1] >= size[0] * rho - d[2] * size[1]
        if rho > 0.0 and not apex:  # the rim point facing d
            out[0], out[1] = size[0] * d[0] / rho, size[0] * d[1] / rho
        top = d[2] >= 0.0 if kind == CYLINDER else apex
        out[2] = size[1] if top else -size[1]
        return 1 if top else 0
    if kind in (HULL, TRIANGLE):
        best, best_value = 0, -math.inf
        for v in range(len(vertices)):
            value = vertices[v, 0] * d[0] + vertices[v, 1] * d[1] + vertices[v, 2] * d[2]
            if value > best_value:
                best, best_value = v, value
        for i in range(3):
            out[i] = vertices[best, i]
        return best
    return 0


@njit(cache=True)
def support(kind, size, c, R, vertices, d, full, local, out):
    """out = the world point of the part furthest along the world direction d: of the core, or
    (full) of the whole shape, the core's point moved by the radius along d; returns the point's
    id (see _local_core_support). local (3,) is scratch."""
    direction = np.empty(3)
    for i in range(3):
        direction[i] = R[0, i] * d[0] + R[1, i] * d[1] + R[2, i] * d[2]
    point_id = _local_core_support(kind, size, vertices, direction, local)
    to_world(c, R, local, out)
    radius = core_radius(kind, size) if full else 0.0
    if radius > 0.0:
        length = math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
        if length > 0.0:
            for i in range(3):
                out[i] += radius * d[i] / length
    return point_id


@njit(cache=True)
def extent(kind, size, c, R, vertices, d):
    """max over the whole shape of d·x (d unit): the support function."""
    local, point = np.empty(3), np.empty(3)
    support(kind, size, c, R, vertices, d, np.bool_(True), local, point)
    return d[0] * point[0] + d[1] * point[1] + d[2] * point[2]


@njit(cache=True)
def to_world(origin, R, local, out):
    """out = origin + R local."""
    for i in range(3):
        out[i] = origin[i] + R[i, 0] * local[0] + R[i, 1] * local[1] + R[i, 2] * local[2]


@njit(cache=True)
def best_face(kind, size, R, vertices, planes, d, normal):
    """The flat face whose outward normal is most aligned with the world direction d: writes
    that normal (world) and returns its alignment (-inf for kinds without faces)."""
    local = np.empty(3)
    for i in range(3):
        local[i] = R[0, i] * d[0] + R[1, i] * d[1] + R[2, i] * d[2]
    n = np.zeros(3)
    best = -math.inf
    if kind == BOX:
        axis = 0
        for i in range(3):
            if abs(local[i]) > abs(local[axis]):
                axis = i
        n[axis] = 1.0 if local[axis] >= 0.0 else -1.0
        best = abs(local[axis])
    elif kind == HULL:
        for f in range(len(planes)):
            value = planes[f, 0] * local[0] + planes[f, 1] * local[1] + planes[f, 2] * local[2]
            if value > best:
                best = value
                n[0], n[1], n[2] = planes[f, 0], planes[f, 1], planes[f, 2]
    elif kind == TRIANGLE:
        _triangle_normal(vertices, n)
        best = n[0] * local[0] + n[1] * local[1] + n[2] * local[2]
        if best < 0.0:
            best = -best
            for i in range(3):
                n[i] = -n[i]
    elif kind == CYLINDER:
        n[2] = 1.0 if local[2] >= 0.0 else -1.0
        best = abs(local[2])
    elif kind == CONE:
        n[2] = -1.0
        best = -local[2]
    for i in range(3):
        normal[i] = R[i, 0] * n[0] + R[i, 1] * n[1] + R[i, 2] * n[2]
    return best


@njit(cache=True)
def _triangle_normal(vertices, n):
    """n = the unit normal (v1 - v0) × (v2 - v0) of a triangle's 3 vertices."""
    e1, e2 = np.empty(3), np.empty(3)
    for i in range(3):
        e1[i] = vertices[1, i] - vertices[0, i]
        e2[i] = vertices[2, i] - vertices[0, i]
    n[0] = e1[1] * e2[2] - e1[2] * e2[1]
    n[1] = e1[2] * e2[0] - e1[0] * e2[2]
    n[2] = e1[0] * e2[1] - e1[1] * e2[0]
    length = math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2])
    for i in range(3):
        n[i] = n[i] / length if length > 0.0 else (1.0 if i == 2 else 0.0)


@njit(cache=True)
def face_feature(kind, size, c, R, vertices, planes, face_start, face_vertices, d, points, ids):
    """The feature of the part that faces the world direction d, on its surface: a polygon
    (counter-clockwise seen from outside), a segment or a point. Writes world points and their
    ids (< ID_MASK + 1) and returns the count (3+, 2 or 1).

    Box and hull: the face whose normal is most aligned with d (always a face, as box-box
    clipping does: a tilted face gives points at different depths, which the caller keeps or
    drops by the margin). Triangle: its front or back. Cylinder: the cap when d is within 45° of
    the axis, else the side line facing d. Cone: the base or the side line (apex to the rim
    point facing d), whichever faces d more. Capsule: its segment moved out by the radius along
    d; sphere: its point along d.
    """
    local = np.empty((MAX_FEATURE, 3))
    dl = np.empty(3)
    for i in range(3):
        dl[i] = R[0, i] * d[0] + R[1, i] * d[1] + R[2, i] * d[2]
    length = math.sqrt(dl[0] * dl[0] + dl[1] * dl[1] + dl[2] * dl[2])
    for i in range(3):
        dl[i] /= length
    rho = math.sqrt(dl[0] * dl[0] + dl[1] * dl[1])
    # unit radial direction of d in the xy plane (x when d is along the axis)
    ux, uy = (dl[0] / rho, dl[1] / rho) if rho > 0.0 else (1.0, 0.0)
    count = 0
    if kind == BOX:
        axis = 0
        for i in range(3):
            if abs(dl[i]) > abs(dl[axis]):
                axis = i
        s = 1.0 if dl[axis] >= 0.0 else -1.0
        # in-plane axes u, v with u × v = the face normal, so the corners run counter-clockwise
        u, v = ((axis + 1) % 3, (axis + 2) % 3) if s > 0.0 else ((axis + 2) % 3, (axis + 1) % 3)
        for q in range(4):
            su = 1.0 if q == 0 or q == 3 else -1.0
            sv = 1.0 if q < 2 else -1.0
            local[q, axis] = s * size[axis]
            local[q, u] = su * size[u]
            local[q, v] = sv * size[v]
            ids[q] = (axis * 2 + (1 if s > 0.0 else 0)) * 4 + q
        count = 4
    elif kind == HULL:
        # the face through the support vertex along d most aligned with d (the face most aligned
        # overall can miss that vertex on an irregular hull, and with it the deepest point)
        top = _local_core_support(kind, size, vertices, dl, local[0])
        face, best = 0, -math.inf
        for f in range(len(planes)):
            value = planes[f, 0] * dl[0] + planes[f, 1] * dl[1] + planes[f, 2] * dl[2]
            if value <= best:
                continue
            for q in range(face_start[f], face_start[f + 1]):
                if face_vertices[q] == top:
                    face, best = f, value
                    break
        start = face_start[face]
        count = min(face_start[face + 1] - start, MAX_FEATURE)
        for q in range(count):
            for i in range(3):
                local[q, i] = vertices[face_vertices[start + q], i]
            ids[q] = (start + q) & ID_MASK
    elif kind == TRIANGLE:
        n = np.empty(3)
        _triangle_normal(vertices, n)
        front = n[0] * dl[0] + n[1] * dl[1] + n[2] * dl[2] >= 0.0
        for q in range(3):
            source = q if front else 2 - q
            for i in range(3):
                local[q, i] = vertices[source, i]
            ids[q] = q if front else 3 + q
        count = 3
    elif kind == CYLINDER and abs(dl[2]) >= rho:
        count = _disc(size[0], size[1] if dl[2] >= 0.0 else -size[1], dl[2] >= 0.0,
                      0 if dl[2] >= 0.0 else DISC, local, ids)
    elif kind == CYLINDER:
        for q in range(2):
            local[q, 0], local[q, 1] = size[0] * ux, size[0] * uy
            local[q, 2] = size[1] if q == 1 else -size[1]
            ids[q] = 2 * DISC + q
        count = 2
    elif kind == CONE:
        slant = math.sqrt(4.0 * size[1] * size[1] + size[0] * size[0])
        if -dl[2] >= (2.0 * size[1] * rho + size[0] * dl[2]) / slant:
            count = _disc(size[0], -size[1], np.bool_(False), np.int64(0), local, ids)
        else:
            local[0, 0], local[0, 1], local[0, 2] = size[0] * ux, size[0] * uy, -size[1]
            local[1, 0], local[1, 1], local[1, 2] = 0.0, 0.0, size[1]
            ids[0], ids[1] = DISC, DISC + 1
            count = 2
    else:  # capsule, sphere: the core's points moved out by the radius
        r = size[0]
        count = 2 if kind == CAPSULE else 1
        for q in range(count):
            local[q, 0], local[q, 1], local[q, 2] = r * dl[0], r * dl[1], r * dl[2]
            if kind == CAPSULE:
                local[q, 2] += size[1] if q == 1 else -size[1]
            ids[q] = q
    for q in range(count):
        to_world(c, R, local[q], points[q])
    return count


@njit(cache=True)
def _disc(r, z, up, first_id, local, ids):
    """A disc of radius r at height z as a DISC-gon, counter-clockwise seen from outside (from
    +z when up, else from -z)."""
    for q in range(DISC):
        angle = 2.0 * math.pi * q / DISC * (1.0 if up else -1.0)
        local[q, 0], local[q, 1], local[q, 2] = r * math.cos(angle), r * math.sin(angle), z
        ids[q] = first_id + q
    return DISC


@njit(cache=True)
def gap_along(a, b, n):
    """The gap of the parts along the unit direction n (a -> b): min over B of n·x minus max
    over A, a lower bound of their distance (minus the overlap along n when negative)."""
    m = np.empty(3)
    for i in range(3):
        m[i] = -n[i]
    return -extent(b[0], b[1], b[2], b[3], b[4], m) - extent(a[0], a[1], a[2], a[3], a[4], n)


@njit(cache=True)
def face_gaps(a, pa, b, pb, n, face_a, face_b):
    """(gap along face_a, gap along -face_b): face_a the outward normal of A's face most
    aligned with n, face_b that of B's face most aligned with -n (-inf without faces)."""
    m = np.empty(3)
    gap_a, gap_b = -math.inf, -math.inf
    if best_face(a[0], a[1], a[3], a[4], pa, n, face_a) > -math.inf:
        gap_a = gap_along(a, b, face_a)
    for i in range(3):
        m[i] = -n[i]
    if best_face(b[0], b[1], b[3], b[4], pb, m, face_b) > -math.inf:
        for i in range(3):
            m[i] = -face_b[i]
        gap_b = gap_along(a, b, m)
    return gap_a, gap_b
