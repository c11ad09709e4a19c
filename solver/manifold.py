"""Contact points of one pair, compiled: box-box manifolds, sphere-box, sphere-sphere.

Each kernel writes its contacts into preallocated rows point (K, 3), normal (K, 3), depth (K,)
and feature (K,) int64 starting at row k, and returns how many it wrote (box-box: up to
MAX_MANIFOLD, the others: at most one). Normals point from the first body of the pair to the
second; depth > 0 is penetration, depth < 0 a gap (kept down to -margin, for speculative
contacts); points lie midway between the surfaces.

Feature ids name the touching features so the dynamics can match a contact from one substep to
the next (warm starting); they are unique within a pair and per pair type.
"""

import math

import numpy as np
from numba import njit

from .sat import FACE_PREFERENCE_ABSOLUTE, sat_pair

MAX_POLYGON = 8  # a quad clipped by four half-planes gains at most one vertex per plane
MAX_MANIFOLD = 4
# A vertex within this fraction of the half-extent beyond a side plane counts as on it (inside):
# face-on-face boxes of equal size put incident corners exactly on the reference face's rim, and
# rounding noise would otherwise swap such a corner for crossing points with other feature ids
# from substep to substep, which drops its warm-started impulse and its caught arrival speed.
ON_PLANE = 1e-9
# An overlapping edge whose direction is within this of a face's plane (1 - cos: 2.6°) counts
# as lying on it (_edge_on_face): a box spun at 8 rad/s turns 1.9° in a substep at 240 Hz, so
# the far end of an edge tilted less than that can come into the face within the substep.
FLAT_EDGE = 1e-3

# Face contact ids: ((reference face * 6 + incident face) * 64 + clipped-vertex id) < 4608;
# edge-edge ids follow above that.
_POINT_IDS = 64
_EDGE_BASE = 12 * 6 * _POINT_IDS

# Corners of the incident face in cyclic order, as signs along its two in-plane axes.
_QUAD = np.array([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])
_TINY = np.finfo(np.float64).tiny


@njit(cache=True)
def sphere_sphere(ca, ra, cb, rb, margin, point, normal, depth, feature, k):
    """One contact on the line of centres (coincident centres: +z, by convention)."""
    dist = math.sqrt((cb[0] - ca[0]) ** 2 + (cb[1] - ca[1]) ** 2 + (cb[2] - ca[2]) ** 2)
    overlap = ra + rb - dist
    if not overlap >= -margin:
        return 0
    for i in range(3):
        normal[k, i] = (cb[i] - ca[i]) / dist if dist > 0.0 else (1.0 if i == 2 else 0.0)
        point[k, i] = ca[i] + normal[k, i] * (ra - 0.5 * overlap)
    depth[k] = overlap
    feature[k] = 0
    return 1


@njit(cache=True)
def box_sphere(cbox, Rbox, hbox, csphere, r, margin, point, normal, depth, feature, k):
    """One contact, normal from the box to the sphere.

    Outside the box the normal runs from the closest box point to the centre; with the centre
    inside, it is the normal of the nearest face. The feature id is the Voronoi region of the
    box (which of 27 face/edge/vertex zones the centre is in), stable while the sphere rolls on
    one face.
    """
    local = np.empty(3)  # the centre in the box frame
    surface = np.empty(3)  # the box point nearest the centre (on the nearest face if inside)
    n = np.empty(3)  # the normal in the box frame
    zone = np.empty(3, np.int64)
    dist = 0.0
    for i in range(3):
        local[i] = (Rbox[0, i] * (csphere[0] - cbox[0]) + Rbox[1, i] * (csphere[1] - cbox[1])
                    + Rbox[2, i] * (csphere[2] - cbox[2]))
        surface[i] = min(max(local[i], -hbox[i]), hbox[i])
        zone[i] = 2 if local[i] > hbox[i] else (0 if local[i] < -hbox[i] else 1)
        dist += (local[i] - surface[i]) ** 2
    dist = math.sqrt(dist)
    if dist > 0.0:
        for i in range(3):
            n[i] = (local[i] - surface[i]) / dist
        overlap = r - dist
    else:
        face, face_gap = 0, -math.inf
        for i in range(3):
            if abs(local[i]) - hbox[i] > face_gap:
                face, face_gap = i, abs(local[i]) - hbox[i]
        side = 1.0 if local[face] >= 0.0 else -1.0
        for i in range(3):
            n[i] = side if i == face else 0.0
            zone[i] = 1 + int(n[i])
        surface[face] = side * hbox[face]
        overlap = r - face_gap
    if not overlap >= -margin:
        return 0
    for i in range(3):
        local[i] = 0.5 * (surface[i] + local[i] - n[i] * r)  # now the contact point
    _to_world(cbox, Rbox, local, point[k])
    _to_world(np.zeros(3), Rbox, n, normal[k])
    depth[k] = overlap
    feature[k] = zone[0] + 3 * zone[1] + 9 * zone[2]
    return 1


@njit(cache=True)
def sphere_on_face(feature):
    """Whether a box-sphere feature id (box_sphere's zone) is a face's: the sphere's centre is
    beyond one face only (or inside the box), so the normal is that face's, turning with the
    box."""
    off = 0
    for _ in range(3):
        off += 1 if feature % 3 != 1 else 0
        feature //= 3
    return off == 1


@njit(cache=True)
def box_feature(feature):
    """What a box-box feature id names: (0 or 1, -1, -1) for a face of the pair's first or
    second box; (-1, ei, ej) for crossing edges along axis ei of the first and ej of the
    second."""
    if feature >= _EDGE_BASE:
        code = (feature - _EDGE_BASE) // 8
        return -1, (code // 3) // 8, code % 3
    return (1 if feature // (6 * _POINT_IDS) >= 6 else 0), -1, -1


@njit(cache=True)
def box_box(ca, Ra, ha, cb, Rb, hb, margin, point, normal, depth, feature, k):
    """Contacts of a box pair whose SAT gap is within the margin: face clipping (up to 4
    points) or the closest points of two crossing edges (1)."""
    n = np.empty(3)
    separation, axis, axis_separation = sat_pair(ca, Ra, ha, cb, Rb, hb, n, 1.0)
    if not separation <= margin:
        return 0
    if axis < 6:
        return _face_contacts(ca, Ra, ha, cb, Rb, hb, axis, n, margin,
                              point, normal, depth, feature, k)
    written = _edge_on_face(ca, Ra, ha, cb, Rb, hb, n, separation, margin,
                            point, normal, depth, feature, k)
    if written > 0:
        return written
    return _edge_contacts(ca, Ra, ha, cb, Rb, hb, axis, axis_separation, n, margin,
                          point, normal, depth, feature, k)


@njit(cache=True)
def _edge_on_face(ca, Ra, ha, cb, Rb, hb, n, separation, margin, point, normal, depth, feature,
                  k):
    """Face contacts of a pair along crossing edges whose nearest point lies over the face the
    edge normal n is closest to (an edge almost flat on that face): that face's clipped points
    include the nearest one and both ends of the edge, where the edges' single closest point
    leaves the far end out (a box turned by a hit swung it 1 mm into its neighbour's face
    within one substep, and the push-out moved the angular momentum). 0 when the face's points
    miss the nearest gap, to FACE_PREFERENCE_ABSOLUTE of the smaller box.

    Apart, the face's nearest gap is never below the edges' (the largest of the axes' gaps),
    so meeting it means the edge lies on the face. Overlapping (beyond that tolerance: edges
    touching by rounding are taken as apart), the face's deepest point must match the edges'
    depth from both sides, and the edge must lie within FLAT_EDGE of the face's plane: a
    deeper point there is a crossing of edges the face's normal does not part (the 2 cm plate
    of benchmarks/third_box.py, against a box's edge, flipped between the face and the edges
    and sank)."""
    axis, facing = np.int64(0), 0.0  # not the literal 0: a second variant of _face_contacts
    for i in range(6):
        along = _column_dot(Ra, i, n) if i < 3 else _column_dot(Rb, i - 3, n)
        if abs(along) > abs(facing):
            axis, facing = i, along
    face_normal = np.empty(3)
    for i in range(3):
        face_normal[i] = (Ra[i, axis] if axis < 3 else Rb[i, axis - 3]) * math.copysign(1.0, facing)
    written = _face_contacts(ca, Ra, ha, cb, Rb, hb, axis, face_normal, margin,
                             point, normal, depth, feature, k)
    nearest = -math.inf
    for q in range(k, k + written):
        nearest = max(nearest, depth[q])
    tolerance = FACE_PREFERENCE_ABSOLUTE * min(ha[0], ha[1], ha[2], hb[0], hb[1], hb[2])
    if written < 2 or -nearest > separation + tolerance:
        return 0
    if separation > -tolerance:
        return written
    return written if abs(facing) >= 1.0 - FLAT_EDGE and -nearest >= separation - tolerance else 0


@njit(cache=True)
def _edge_contacts(ca, Ra, ha, cb, Rb, hb, axis, separation, n, margin,
                   point, normal, depth, feature, k):
    """One point midway between the closest points of the two crossing edges."""
    if not -separation >= -margin:
        return 0
    ei, ej = (axis - 6) // 3, (axis - 6) % 3
    # Each edge is the one of its box furthest along the normal towards the other box; pa, pb
    # are the edges' midpoints (offsets along the other two axes), da, db their directions.
    signs_a, signs_b = np.empty(3), np.empty(3)
    bits_a, bits_b = 0, 0
    for m in range(3):
        signs_a[m], signs_b[m] = 0.0, 0.0
        if m != ei:
            signs_a[m] = ha[m] if _column_dot(Ra, m, n) >= 0.0 else -ha[m]
            bits_a += (1 << m) if signs_a[m] > 0.0 else 0
        if m != ej:
            signs_b[m] = -hb[m] if _column_dot(Rb, m, n) > 0.0 else hb[m]
            bits_b += (1 << m) if signs_b[m] > 0.0 else 0
    pa, pb = np.empty(3), np.empty(3)
    _to_world(ca, Ra, signs_a, pa)
    _to_world(cb, Rb, signs_b, pb)
    cos, c, f = 0.0, 0.0, 0.0
    for m in range(3):
        cos += Ra[m, ei] * Rb[m, ej]
        c += Ra[m, ei] * (pb[m] - pa[m])
        f += Rb[m, ej] * (pb[m] - pa[m])
    # closest points pa + s da, pb + t db of the two lines, clamped to the edges
    s = (c - cos * f) / max(1.0 - cos * cos, _TINY)
    t = cos * s - f
    s = min(max(s, -ha[ei]), ha[ei])
    t = min(max(t, -hb[ej]), hb[ej])
    for m in range(3):
        point[k, m] = 0.5 * (pa[m] + s * Ra[m, ei] + pb[m] + t * Rb[m, ej])
        normal[k, m] = n[m]
    depth[k] = -separation
    feature[k] = _EDGE_BASE + ((ei * 8 + bits_a) * 3 + ej) * 8 + bits_b
    return 1


@njit(cache=True)
def _face_contacts(ca, Ra, ha, cb, Rb, hb, axis, n, margin, point, normal, depth, feature, k):
    """Clip the incident face against the reference face's side planes; keep up to 4 points.

    Work happens in the reference box's frame with its axes ordered (u, v, n), n the reference
    face's axis, so clipping always runs against the same coordinates.
    """
    ref_is_b = axis >= 3
    c_ref, R_ref, h_ref = (cb, Rb, hb) if ref_is_b else (ca, Ra, ha)
    c_inc, R_inc, h_inc = (ca, Ra, ha) if ref_is_b else (cb, Rb, hb)
    ref_axis = axis % 3
    outward = np.empty(3)  # reference face normal, out of its box
    frame = np.empty((3, 3))  # columns u, v, n
    extent = np.empty(3)
    for i in range(3):
        outward[i] = -n[i] if ref_is_b else n[i]
        m = (ref_axis + 1 + i) % 3
        extent[i] = h_ref[m]
        for row in range(3):
            frame[row, i] = R_ref[row, m]
    s_ref = 1.0 if _column_dot(frame, np.int64(2), outward) >= 0.0 else -1.0

    # The incident face is the face of the other box most opposed to the reference normal.
    m, facing = 0, 0.0
    for i in range(3):
        if abs(_column_dot(R_inc, i, outward)) > abs(facing):
            m, facing = i, _column_dot(R_inc, i, outward)
    s_inc = -1.0 if facing > 0.0 else 1.0
    m1, m2 = (m + 1) % 3, (m + 2) % 3
    corners = np.empty((4, 3))  # the incident face in the reference frame
    offset = np.empty(3)
    for q in range(4):
        for i in range(3):
            offset[i] = (c_inc[i] - c_ref[i] + s_inc * h_inc[m] * R_inc[i, m]
                         + _QUAD[q, 0] * h_inc[m1] * R_inc[i, m1]
                         + _QUAD[q, 1] * h_inc[m2] * R_inc[i, m2])
        for i in range(3):
            corners[q, i] = _column_dot(frame, i, offset)

    poly = np.empty((MAX_POLYGON, 3))
    scratch = np.empty((MAX_POLYGON, 3))
    scratch_ids = np.empty((MAX_POLYGON, 2), np.int64)
    ids = np.empty(MAX_POLYGON, np.int64)
    labels = np.empty(MAX_POLYGON, np.int64)  # the line each polygon edge (i -> i+1) lies on
    for q in range(4):
        for i in range(3):
            poly[q, i] = corners[q, i]
        ids[q] = q
        labels[q] = q
    count = np.int64(4)  # not the literal 4, which numba would compile a second _clip for
    for plane in range(4):
        count = _clip(poly, ids, labels, count, plane, extent[plane // 2], scratch, scratch_ids)

    face = s_ref * extent[2]
    depths = np.empty(MAX_POLYGON)
    keep = np.empty(MAX_POLYGON, np.bool_)
    n_valid = 0
    for q in range(MAX_POLYGON):
        depths[q] = s_ref * (face - poly[q, 2]) if q < count else -math.inf
        keep[q] = depths[q] >= -margin
        n_valid += keep[q]
    if n_valid > MAX_MANIFOLD:
        reduce_manifold(poly, depths, keep, 0.0)

    # A pair within the margin whose nearest incident corner lies beyond the reference face's
    # rim can clip to nothing within reach; it still gets one speculative contact at that corner
    # with the gap along the normal (a lower bound of the distance, so the solver stays safe).
    if n_valid == 0:
        nearest = 0
        for q in range(4):
            depths[q] = s_ref * (face - corners[q, 2])
            if depths[q] > depths[nearest]:
                nearest = q
        for i in range(3):
            poly[0, i] = corners[nearest, i]
        depths[0] = depths[nearest]
        ids[0] = nearest
        keep[0] = depths[0] >= -margin

    ref_face = ((3 if ref_is_b else 0) + ref_axis) * 2 + (1 if s_ref > 0.0 else 0)
    inc_face = m * 2 + (1 if s_inc > 0.0 else 0)
    written = 0
    for q in range(MAX_POLYGON):
        if not keep[q]:
            continue
        poly[q, 2] = 0.5 * (poly[q, 2] + face)  # midway between the surfaces
        _to_world(c_ref, frame, poly[q], point[k + written])
        for i in range(3):
            normal[k + written, i] = n[i]
        depth[k + written] = depths[q]
        feature[k + written] = (ref_face * 6 + inc_face) * _POINT_IDS + ids[q]
        written += 1
    return written


@njit(cache=True)
def _clip(poly, ids, labels, count, plane, limit, scratch, scratch_ids):
    """One Sutherland-Hodgman pass against ±x[plane // 2] <= limit, in place; the new count.

    Each polygon edge emits its start vertex if inside (to ON_PLANE) and its crossing point if it
    crosses. A crossing point's id records the edge line and the plane that made it, so the same
    geometric corner keeps its id. scratch (MAX_POLYGON, 3) and scratch_ids (MAX_POLYGON, 2)
    hold the input polygon meanwhile.
    """
    side, sign = plane // 2, 1.0 - 2.0 * (plane % 2)
    tolerance = ON_PLANE * limit
    old_ids, old_labels = scratch_ids[:, 0], scratch_ids[:, 1]
    for i in range(count):
        for c in range(3):
            scratch[i, c] = poly[i, c]
        old_ids[i], old_labels[i] = ids[i], labels[i]
    out = 0
    for i in range(count):
        following = (i + 1) % count
        d0 = sign * scratch[i, side] - limit
        d1 = sign * scratch[following, side] - limit
        inside = d0 <= tolerance
        if inside and out < MAX_POLYGON:
            for c in range(3):
                poly[out, c] = scratch[i, c]
            ids[out] = old_ids[i]
            labels[out] = old_labels[i]
            out += 1
        if inside != (d1 <= tolerance) and out < MAX_POLYGON:
            t = d0 / (d0 - d1)
            for c in range(3):
                poly[out, c] = scratch[i, c] + t * (scratch[following, c] - scratch[i, c])
            poly[out, side] = sign * limit
            ids[out] = 4 + old_labels[i] * 4 + plane
            # leaving the half-plane, the next polygon edge runs along the plane itself
            labels[out] = 4 + plane if inside else old_labels[i]
            out += 1
    return out


@njit(cache=True)
def _column_dot(R, column, v):
    """Column `column` of R dotted with v (a box axis against a vector)."""
    return R[0, column] * v[0] + R[1, column] * v[1] + R[2, column] * v[2]


@njit(cache=True)
def _to_world(origin, R, local, out):
    """out = origin + R local (a point given in the frame with axes R)."""
    for i in range(3):
        out[i] = origin[i] + R[i, 0] * local[0] + R[i, 1] * local[1] + R[i, 2] * local[2]


@njit(cache=True)
def _area(poly, a, b, p):
    """Signed area (twice) of the triangle of vertices a, b, p in the reference face plane."""
    return ((poly[b, 0] - poly[a, 0]) * (poly[p, 1] - poly[a, 1])
            - (poly[b, 1] - poly[a, 1]) * (poly[p, 0] - poly[a, 0]))


@njit(cache=True)
def reduce_manifold(poly, depths, keep, tie):
    """Narrow the valid clipped points (`keep`, in place) to 4: the deepest, the one farthest
    from it, the one making the largest triangle with those two, and the one adding the most
    area to that triangle. A later candidate replaces the best so far only when it is better
    by more than `tie` (a length; areas by tie times the first two points' distance), so
    near-equal points (a disc's rim standing level) keep the same choice under rounding noise;
    box-box passes 0."""
    first = np.int64(-1)
    for q in range(len(keep)):
        if keep[q] and (first < 0 or depths[q] > depths[first] + tie):
            first = q
    second, far = first, -1.0
    for q in range(len(keep)):
        distance = ((poly[q, 0] - poly[first, 0]) ** 2 + (poly[q, 1] - poly[first, 1]) ** 2
                    + (poly[q, 2] - poly[first, 2]) ** 2)
        # distance - far > tie (sqrt(distance) + sqrt(far)) is sqrt(distance) > sqrt(far) + tie
        if keep[q] and (far < 0.0 or distance - far > tie * (math.sqrt(distance)
                                                            + math.sqrt(far))):
            second, far = q, distance
    area_tie = tie * math.sqrt(far)
    third, largest = first, -1.0
    for q in range(len(keep)):
        area = abs(_area(poly, first, second, q))
        if keep[q] and (largest < 0.0 or area > largest + area_tie):
            third, largest = q, area
    orient = 1.0 if _area(poly, first, second, third) >= 0.0 else -1.0
    fourth, most = first, -1.0
    for q in range(len(keep)):
        gain = (max(-orient * _area(poly, first, second, q), 0.0)
                + max(-orient * _area(poly, second, third, q), 0.0)
                + max(-orient * _area(poly, third, first, q), 0.0))
        if keep[q] and (most < 0.0 or gain > most + area_tie):
            fourth, most = q, gain
    for q in range(len(keep)):
        keep[q] = q in (first, second, third, fourth)
