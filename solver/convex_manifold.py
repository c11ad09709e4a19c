"""Contacts of any two convex parts, compiled: GJK/EPA for the normal, features for the manifold.

`convex_contacts` is the narrow phase for box, sphere, capsule, cylinder, cone, hull and
TRIANGLE parts (the contract in notes/SHAPES.md). Box-box, box-sphere and sphere-sphere keep
their exact kernels (manifold.py); every other pair goes through:

1. gjk.separation: the signed distance and its normal n (a -> b) with the closest or deepest
   points. Exact for apart pairs, and for spheres and capsules (GJK on their cores).
2. Face preference: the face of A most aligned with n and the face of B most aligned with -n
   (box and hull faces, the triangle, cylinder caps, the cone's base) are tried as the normal;
   the gap along a face normal is exact (two support calls) and never above the true
   separation, so a face within a small tolerance of it is the contact normal. Resting contact
   then has the exact face normal every substep (no EPA noise), A's face is preferred to B's
   and faces to edges as in sat.py, so the manifold does not flip between near-equal axes.
3. Manifold: with a reference face, the other part's feature facing it (support.face_feature:
   a face, a cylinder's or cone's side line, a capsule's segment, a sphere's point) is clipped
   against the reference face's side planes (Sutherland-Hodgman for polygons, the parametric
   form for segments) and each clipped point gets its own depth below the face; more than
   MAX_MANIFOLD are reduced to the deepest plus the largest area (manifold.reduce_manifold).
   Without a reference face (edges, rims, curved sides) it is one point midway between the
   closest points, or two when two segment features (capsules, cylinder or cone sides) lie
   parallel, as for two barrels side by side.

Feature ids (< 2**22): bits 19-21 hold (tag * 2 + reference-is-b); tag 0 = a vertex of the
incident feature, 1 = the crossing of an incident edge with a reference side plane (both named
by the 9-bit vertex ids of support.face_feature), 2 = a single closest point (the support
vertex ids of both parts), 3 = an end of a parallel segment pair.
"""

import math

import numpy as np
from numba import njit

from . import manifold
from .gjk import part_scale, separation
from .sat import FACE_PREFERENCE_ABSOLUTE, FACE_PREFERENCE_RELATIVE, sat_pair
from .shapes import BOX, SPHERE
from .support import ID_MASK, MAX_FEATURE, face_feature, face_gaps, gap_along, support

MAX_MANIFOLD = manifold.MAX_MANIFOLD
# Apart pairs take a face normal only when its gap equals GJK's distance to this (relative and
# times the parts' size): there the largest gap is the distance and points at what will touch.
APART_SLACK = 1e-7
# Two segment features within this sine of parallel touch along a line (two points).
PARALLEL_SINE = 0.02
# Reduction to 4 points keeps its choice among points equal to this fraction of the reference
# face's size (a standing cylinder's rim is 8 equally deep points: rounding noise must not pick
# another 4 of them, with other ids, every substep).
REDUCE_TIE = 1e-4
_ID_BITS = 9
_TAG_SHIFT = 19


@njit(cache=True)
def convex_contacts(kind_a, size_a, ca, Ra, va, pa, fsa, fva, kind_b, size_b, cb, Rb, vb, pb,
                    fsb, fvb, margin, point, normal, depth, feature, k):
    """Contacts of parts a and b written from row k (point midway between the surfaces, unit
    normal a -> b, depth > 0 penetration or >= -margin a gap, feature id); returns the count
    (at most MAX_MANIFOLD). Part arguments as in notes/SHAPES.md: kind, size (3,), world centre
    (3,), world rotation (3, 3) columns = part axes, hull vertices (V, 3), planes (F, 4),
    face_start (F + 1,), face_vertices; empty tables (support.NO_*) for the other kinds."""
    if kind_a == BOX and kind_b == BOX:
        return manifold.box_box(ca, Ra, size_a, cb, Rb, size_b, margin, point, normal, depth,
                                feature, k)
    if kind_a == SPHERE and kind_b == SPHERE:
        return manifold.sphere_sphere(ca, size_a[0], cb, size_b[0], margin, point, normal,
                                      depth, feature, k)
    if kind_a == BOX and kind_b == SPHERE:
        return manifold.box_sphere(ca, Ra, size_a, cb, size_b[0], margin, point, normal, depth,
                                   feature, k)
    if kind_a == SPHERE and kind_b == BOX:
        found = manifold.box_sphere(cb, Rb, size_b, ca, size_a[0], margin, point, normal, depth,
                                    feature, k)
        if found:  # the sphere comes first: the normal runs from it to the box
            for i in range(3):
                normal[k, i] = -normal[k, i]
        return found
    a = (kind_a, size_a, ca, Ra, va)
    b = (kind_b, size_b, cb, Rb, vb)
    n, wa, wb = np.empty(3), np.empty(3), np.empty(3)
    sep = separation(a, b, margin, FACE_PREFERENCE_RELATIVE, pa, pb, n, wa, wb)
    if not sep <= margin:
        return 0
    return _manifold(a, pa, fsa, fva, b, pb, fsb, fvb, sep, n, wa, wb, margin,
                     point, normal, depth, feature, k)


@njit(cache=True)
def convex_gap(kind_a, size_a, ca, Ra, va, pa, fsa, fva, kind_b, size_b, cb, Rb, vb, pb, fsb,
               fvb, direction):
    """Signed gap of parts a and b for CCD (toi.pair_gap): > 0 apart, < 0 minus the
    penetration depth; writes the unit direction (a -> b) it is measured along. The gap along
    that direction, held fixed, stays a lower bound of the distance (it is measured by the
    support functions, so it never exceeds the true separation): the largest of the gaps along
    GJK's or EPA's normal and the two nearest face normals. Box-box uses the SAT as
    toi.pair_gap does."""
    if kind_a == BOX and kind_b == BOX:
        return sat_pair(ca, Ra, size_a, cb, Rb, size_b, direction, 0.0)[0]
    a = (kind_a, size_a, ca, Ra, va)
    b = (kind_b, size_b, cb, Rb, vb)
    wa, wb, face_a, face_b = np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    separation(a, b, math.inf, 0.0, pa, pb, direction, wa, wb)
    best = gap_along(a, b, direction)
    # The nearest face normals give lower bounds too, exact for a face contact, where GJK's
    # direction can trail by ~1e-5 (a curved rim nearly parallel to a face).
    gap_a, gap_b = face_gaps(a, pa, b, pb, direction, face_a, face_b)
    if gap_a > best:
        best = gap_a
        for i in range(3):
            direction[i] = face_a[i]
    if gap_b > best:
        best = gap_b
        for i in range(3):
            direction[i] = -face_b[i]
    return best


@njit(cache=True)
def _feature_id(tag, ref_is_b, payload):
    return ((tag * 2 + (1 if ref_is_b else 0)) << _TAG_SHIFT) | payload


@njit(cache=True)
def _manifold(a, pa, fsa, fva, b, pb, fsb, fvb, sep, n, wa, wb, margin,
              point, normal, depth, feature, k):
    """Choose the reference face (step 2 of the module text) and build the contacts."""
    scale = min(part_scale(a[0], a[1], a[4]), part_scale(b[0], b[1], b[4]))
    if sep > 0.0:
        slack = APART_SLACK * (sep + scale)
    else:
        slack = FACE_PREFERENCE_RELATIVE * -sep + FACE_PREFERENCE_ABSOLUTE * scale
    face_a, face_b, m = np.empty(3), np.empty(3), np.empty(3)
    gap_a, gap_b = face_gaps(a, pa, b, pb, n, face_a, face_b)
    ref, best = 0, sep
    if gap_a >= sep - slack:
        ref, best = 1, gap_a
    if (gap_b > best + slack) if ref == 1 else (gap_b >= sep - slack):
        ref, best = 2, gap_b
    if ref == 1:
        written = face_contacts(a, pa, fsa, fva, b, pb, fsb, fvb, face_a, np.bool_(False), margin,
                                 point, normal, depth, feature, k)
    elif ref == 2:
        written = face_contacts(b, pb, fsb, fvb, a, pa, fsa, fva, face_b, np.bool_(True), margin,
                                 point, normal, depth, feature, k)
    else:
        written = _line_contacts(a, pa, fsa, fva, b, pb, fsb, fvb, n, margin, scale,
                                 point, normal, depth, feature, k)
    if written > 0:
        return written
    if not -best >= -margin:
        return 0
    # One point midway between the closest (or deepest) points: the contact is at an edge,
    # vertex or rim, or clipping left nothing within reach. Its id names the support points.
    for i in range(3):
        m[i] = n[i] if ref == 0 else (face_a[i] if ref == 1 else -face_b[i])
    local, support_point = np.empty(3), np.empty(3)
    id_a = support(a[0], a[1], a[2], a[3], a[4], m, np.bool_(False), local, support_point)
    for i in range(3):
        m[i] = -m[i]
    id_b = support(b[0], b[1], b[2], b[3], b[4], m, np.bool_(False), local, support_point)
    for i in range(3):
        normal[k, i] = -m[i]
        point[k, i] = 0.5 * (wa[i] + wb[i])
    depth[k] = -best
    feature[k] = _feature_id(np.int64(2), np.bool_(False),
                             (id_a & ID_MASK) << _ID_BITS | (id_b & ID_MASK))
    return 1


@njit(cache=True)
def tangents(n, t1, t2):
    """Unit t1, t2 with t1 × t2 = n (n unit)."""
    if abs(n[0]) < 0.57735:
        t1[0], t1[1], t1[2] = 0.0, n[2], -n[1]
    else:
        t1[0], t1[1], t1[2] = -n[2], 0.0, n[0]
    length = math.sqrt(t1[0] ** 2 + t1[1] ** 2 + t1[2] ** 2)
    for i in range(3):
        t1[i] /= length
    t2[0] = n[1] * t1[2] - n[2] * t1[1]
    t2[1] = n[2] * t1[0] - n[0] * t1[2]
    t2[2] = n[0] * t1[1] - n[1] * t1[0]


@njit(cache=True)
def face_contacts(ref, rp, rfs, rfv, inc, ip, ifs, ifv, face, ref_is_b, margin,
                  point, normal, depth, feature, k):
    """Reference face of `ref` with outward normal `face`: clip the facing feature of `inc`
    against its side planes, in the face's plane coordinates (u, v, w = height above it);
    returns the count written from row k (0 when nothing is within the margin). Parts are
    (kind, size, c, R, vertices) with their planes, face_start, face_vertices after them;
    ref_is_b says the reference part is the pair's b (normals then run -face). Public for
    mesh_contacts, which forces a triangle's face as the reference at inactive edges."""
    ref_points = np.empty((MAX_FEATURE, 3))
    ref_ids = np.empty(MAX_FEATURE, np.int64)
    n_ref = face_feature(ref[0], ref[1], ref[2], ref[3], ref[4], rp, rfs, rfv, face,
                         ref_points, ref_ids)
    down = np.empty(3)
    for i in range(3):
        down[i] = -face[i]
    inc_points = np.empty((MAX_FEATURE, 3))
    inc_ids = np.empty(MAX_FEATURE, np.int64)
    n_inc = face_feature(inc[0], inc[1], inc[2], inc[3], inc[4], ip, ifs, ifv, down,
                         inc_points, inc_ids)
    t1, t2 = np.empty(3), np.empty(3)
    tangents(face, t1, t2)
    origin = ref_points[0]
    # the reference polygon's rim in (u, v), and the incident feature in (u, v, w)
    rim = np.empty((n_ref, 2))
    size = 0.0
    for j in range(n_ref):
        rim[j, 0] = _along(ref_points[j], origin, t1)
        rim[j, 1] = _along(ref_points[j], origin, t2)
        size = max(size, abs(rim[j, 0]), abs(rim[j, 1]))
    capacity = 2 * MAX_FEATURE
    poly = np.empty((capacity, 3))
    ids = np.empty(capacity, np.int64)  # the point's feature id
    labels = np.empty(capacity, np.int64)  # the edge (i -> i + 1) line's id, for crossings
    for q in range(n_inc):
        poly[q, 0] = _along(inc_points[q], origin, t1)
        poly[q, 1] = _along(inc_points[q], origin, t2)
        poly[q, 2] = _along(inc_points[q], origin, face)
        ids[q] = _feature_id(np.int64(0), ref_is_b, inc_ids[q])
        labels[q] = inc_ids[q]
    count = n_inc
    tolerance = manifold.ON_PLANE * size
    if n_inc >= 3:
        scratch = np.empty((capacity, 3))
        scratch_ids = np.empty((capacity, 2), np.int64)
        for j in range(n_ref):
            count = _clip_polygon(poly, ids, labels, count, rim, j, ref_ids[j], ref_is_b,
                                  tolerance, scratch, scratch_ids)
    elif n_inc == 2:
        count = _clip_segment(poly, ids, labels[0], rim, ref_ids, n_ref, ref_is_b, tolerance)
    depths = np.empty(capacity)
    keep = np.zeros(capacity, np.bool_)
    n_valid = 0
    for q in range(count):
        depths[q] = -poly[q, 2]
        keep[q] = depths[q] >= -margin
        n_valid += keep[q]
    if n_valid > MAX_MANIFOLD:
        manifold.reduce_manifold(poly[:count], depths[:count], keep[:count], REDUCE_TIE * size)
    written = 0
    for q in range(count):
        if not keep[q]:
            continue
        for i in range(3):
            point[k + written, i] = (origin[i] + poly[q, 0] * t1[i] + poly[q, 1] * t2[i]
                                     + 0.5 * poly[q, 2] * face[i])
            normal[k + written, i] = -face[i] if ref_is_b else face[i]
        depth[k + written] = depths[q]
        feature[k + written] = ids[q]
        written += 1
    return written


@njit(cache=True)
def _along(p, origin, axis):
    """(p - origin)·axis."""
    return ((p[0] - origin[0]) * axis[0] + (p[1] - origin[1]) * axis[1]
            + (p[2] - origin[2]) * axis[2])


@njit(cache=True)
def _side(rim, j, x, y):
    """How far (x, y) lies outside rim edge j (rim counter-clockwise), in length units."""
    following = (j + 1) % len(rim)
    ex, ey = rim[following, 0] - rim[j, 0], rim[following, 1] - rim[j, 1]
    length = math.sqrt(ex * ex + ey * ey)
    if not length > 0.0:
        return -math.inf
    return ((x - rim[j, 0]) * ey - (y - rim[j, 1]) * ex) / length


@njit(cache=True)
def _clip_polygon(poly, ids, labels, count, rim, j, plane_id, ref_is_b, tolerance, scratch,
                  scratch_ids):
    """One Sutherland-Hodgman pass of the polygon poly[:count] against rim edge j, in place;
    the new count. As manifold's box clipping: a crossing point's id names the edge line it
    lies on and the plane that made it, so the same geometric corner keeps its id."""
    capacity = len(poly)
    for i in range(count):
        for c in range(3):
            scratch[i, c] = poly[i, c]
        scratch_ids[i, 0], scratch_ids[i, 1] = ids[i], labels[i]
    out = 0
    for i in range(count):
        following = (i + 1) % count
        d0 = _side(rim, j, scratch[i, 0], scratch[i, 1])
        d1 = _side(rim, j, scratch[following, 0], scratch[following, 1])
        inside = d0 <= tolerance
        if inside and out < capacity:
            for c in range(3):
                poly[out, c] = scratch[i, c]
            ids[out], labels[out] = scratch_ids[i, 0], scratch_ids[i, 1]
            out += 1
        if inside != (d1 <= tolerance) and out < capacity:
            t = d0 / (d0 - d1)
            for c in range(3):
                poly[out, c] = scratch[i, c] + t * (scratch[following, c] - scratch[i, c])
            ids[out] = _feature_id(np.int64(1), ref_is_b,
                                   (scratch_ids[i, 1] << _ID_BITS) | plane_id)
            # leaving the half-plane, the next polygon edge runs along the plane itself
            labels[out] = (ID_MASK + 1) + plane_id if inside else scratch_ids[i, 1]
            out += 1
    return out


@njit(cache=True)
def _clip_segment(poly, ids, label, rim, ref_ids, n_ref, ref_is_b, tolerance):
    """Clip the segment poly[0] -> poly[1] to the rim's prism (parametric form); the new
    count (2 or 0). A clipped end's id names the segment and the plane that cut it."""
    t0, t1 = 0.0, 1.0
    cut0, cut1 = -1, -1
    for j in range(n_ref):
        d0 = _side(rim, j, poly[0, 0], poly[0, 1]) - tolerance
        d1 = _side(rim, j, poly[1, 0], poly[1, 1]) - tolerance
        if d0 > 0.0 and d1 > 0.0:
            return 0
        if d0 > 0.0:
            t = d0 / (d0 - d1)
            if t > t0:
                t0, cut0 = t, j
        elif d1 > 0.0:
            t = d0 / (d0 - d1)
            if t < t1:
                t1, cut1 = t, j
    if not t0 < t1:
        return 0
    start, end = np.empty(3), np.empty(3)
    for c in range(3):
        start[c] = poly[0, c] + t0 * (poly[1, c] - poly[0, c])
        end[c] = poly[0, c] + t1 * (poly[1, c] - poly[0, c])
    for c in range(3):
        poly[0, c], poly[1, c] = start[c], end[c]
    if cut0 >= 0:
        ids[0] = _feature_id(np.int64(1), ref_is_b, (label << _ID_BITS) | ref_ids[cut0])
    if cut1 >= 0:
        ids[1] = _feature_id(np.int64(1), ref_is_b, (label << _ID_BITS) | ref_ids[cut1])
    return 2


@njit(cache=True)
def _line_contacts(a, pa, fsa, fva, b, pb, fsb, fvb, n, margin, scale,
                   point, normal, depth, feature, k):
    """Two points when both parts touch with parallel segment features (capsule, cylinder or
    cone side lines) that overlap along their length; else 0 (the caller writes one point)."""
    seg_a, seg_b = np.empty((MAX_FEATURE, 3)), np.empty((MAX_FEATURE, 3))
    ids_a, ids_b = np.empty(MAX_FEATURE, np.int64), np.empty(MAX_FEATURE, np.int64)
    if face_feature(a[0], a[1], a[2], a[3], a[4], pa, fsa, fva, n, seg_a, ids_a) != 2:
        return 0
    m = np.empty(3)
    for i in range(3):
        m[i] = -n[i]
    if face_feature(b[0], b[1], b[2], b[3], b[4], pb, fsb, fvb, m, seg_b, ids_b) != 2:
        return 0
    ea, eb = np.empty(3), np.empty(3)
    for i in range(3):
        ea[i] = seg_a[1, i] - seg_a[0, i]
        eb[i] = seg_b[1, i] - seg_b[0, i]
    length_a = math.sqrt(ea[0] ** 2 + ea[1] ** 2 + ea[2] ** 2)
    length_b = math.sqrt(eb[0] ** 2 + eb[1] ** 2 + eb[2] ** 2)
    for i in range(3):
        ea[i] /= length_a
        eb[i] /= length_b
    sine = math.sqrt((ea[1] * eb[2] - ea[2] * eb[1]) ** 2 + (ea[2] * eb[0] - ea[0] * eb[2]) ** 2
                     + (ea[0] * eb[1] - ea[1] * eb[0]) ** 2)
    if not sine < PARALLEL_SINE:
        return 0
    s0 = _along(seg_b[0], seg_a[0], ea)
    s1 = _along(seg_b[1], seg_a[0], ea)
    if not abs(s1 - s0) > 0.0:
        return 0
    lo, hi = max(0.0, min(s0, s1)), min(length_a, max(s0, s1))
    if not hi - lo > 1e-9 * scale:
        return 0
    written = 0
    for end in range(2):
        s = lo if end == 0 else hi
        f = (s - s0) / (s1 - s0)  # where along b's segment
        gap = 0.0
        for i in range(3):
            gap += n[i] * (seg_b[0, i] + f * (seg_b[1, i] - seg_b[0, i]) - seg_a[0, i]
                           - s * ea[i])
        if not gap <= margin:
            continue
        for i in range(3):
            point[k + written, i] = 0.5 * (seg_a[0, i] + s * ea[i] + seg_b[0, i]
                                           + f * (seg_b[1, i] - seg_b[0, i]))
            normal[k + written, i] = n[i]
        depth[k + written] = -gap
        # which end made this point: a's own end (s at 0 or length_a) or b's
        own = (s == 0.0) if end == 0 else (s == length_a)
        payload = ((((ids_a[0] & 63) << 6) | (ids_b[0] & 63)) << 2) | (end * 2 + (1 if own else 0))
        feature[k + written] = _feature_id(np.int64(3), np.bool_(False), payload)
        written += 1
    return written
