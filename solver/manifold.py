"""Contact points for each pair type, batched: box-box manifolds, sphere-box, sphere-sphere.

Every function returns a `PairContacts` over K contact points, indexed back to the input pairs.
Normals point from the first body of the pair to the second; depth > 0 is penetration, depth < 0
a gap (kept down to -margin, for speculative contacts); points lie midway between the surfaces.

Feature ids name the touching features so the dynamics can match a contact from one substep to
the next (warm starting); they are unique within a pair and per pair type.
"""

from dataclasses import dataclass

import numpy as np

from .sat import SatResult

MAX_POLYGON = 8  # a quad clipped by four half-planes gains at most one vertex per plane
MAX_MANIFOLD = 4

# Face contact ids: ((reference face * 6 + incident face) * 64 + clipped-vertex id) < 4608;
# edge-edge ids follow above that.
_POINT_IDS = 64
_EDGE_BASE = 12 * 6 * _POINT_IDS

# Corners of the incident face in cyclic order, as signs along its two in-plane axes.
_QUAD = np.array([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])


@dataclass(frozen=True)
class PairContacts:
    """K contacts: `pair` (K,) index into the batch, point (K, 3), normal (K, 3), depth (K,),
    feature (K,) int64."""

    pair: np.ndarray
    point: np.ndarray
    normal: np.ndarray
    depth: np.ndarray
    feature: np.ndarray


def empty_contacts() -> PairContacts:
    return PairContacts(
        np.zeros(0, np.int64),
        np.zeros((0, 3)),
        np.zeros((0, 3)),
        np.zeros(0),
        np.zeros(0, np.int64),
    )


def concatenate(parts: list[PairContacts]) -> PairContacts:
    """Join contact sets whose `pair` fields already index the same batch."""
    return PairContacts(
        *(
            np.concatenate([getattr(p, f) for p in parts])
            for f in ("pair", "point", "normal", "depth", "feature")
        )
    )


def sphere_sphere(ca, ra, cb, rb, margin: float) -> PairContacts:
    """One contact per pair on the line of centres (coincident centres: +z, by convention)."""
    d = cb - ca
    dist = np.linalg.norm(d, axis=1)
    normal = np.where(
        (dist > 0.0)[:, None],
        d / np.where(dist > 0.0, dist, 1.0)[:, None],
        np.array([0.0, 0.0, 1.0]),
    )
    depth = ra + rb - dist
    point = ca + normal * (ra - 0.5 * depth)[:, None]
    keep = np.flatnonzero(depth >= -margin)
    return PairContacts(keep, point[keep], normal[keep], depth[keep], np.zeros(len(keep), np.int64))


def box_sphere(cbox, Rbox, hbox, csphere, r, margin: float) -> PairContacts:
    """One contact per pair, normal from the box to the sphere.

    Outside the box the normal runs from the closest box point to the centre; with the centre
    inside, it is the normal of the nearest face. The feature id is the Voronoi region of the
    box (which of 27 face/edge/vertex zones the centre is in), stable while the sphere rolls on
    one face.
    """
    local = np.einsum("pki,pk->pi", Rbox, csphere - cbox)
    closest = np.clip(local, -hbox, hbox)
    gap = local - closest
    dist = np.linalg.norm(gap, axis=1)
    outside = dist > 0.0

    face_gap = np.abs(local) - hbox  # all <= 0 when inside
    face = face_gap.argmax(axis=1)
    rows = np.arange(len(local))
    inside_normal = np.zeros_like(local)
    inside_normal[rows, face] = np.where(local[rows, face] >= 0.0, 1.0, -1.0)
    normal_local = np.where(
        outside[:, None], gap / np.where(outside, dist, 1.0)[:, None], inside_normal
    )
    surface = np.where(outside[:, None], closest, local)
    surface[~outside, face[~outside]] = (inside_normal * hbox)[~outside, face[~outside]]
    depth = r - np.where(outside, dist, face_gap[rows, face])

    sphere_point = local - normal_local * r[:, None]
    point = cbox + np.einsum("pij,pj->pi", Rbox, 0.5 * (surface + sphere_point))
    normal = np.einsum("pij,pj->pi", Rbox, normal_local)

    zone = np.where(local > hbox, 2, np.where(local < -hbox, 0, 1))
    zone = np.where(outside[:, None], zone, 1 + inside_normal.astype(np.int64))
    feature = (zone @ np.array([1, 3, 9])).astype(np.int64)
    keep = np.flatnonzero(depth >= -margin)
    return PairContacts(keep, point[keep], normal[keep], depth[keep], feature[keep])


def box_box(ca, Ra, ha, cb, Rb, hb, sat: SatResult, margin: float) -> PairContacts:
    """Contacts of box pairs whose SAT gap is within the margin: face clipping or edge-edge."""
    near = sat.separation <= margin
    face = np.flatnonzero(near & (sat.axis < 6))
    edge = np.flatnonzero(near & (sat.axis >= 6))
    parts = []
    for index, build in ((face, _face_contacts), (edge, _edge_contacts)):
        if len(index):
            found = build(
                ca[index],
                Ra[index],
                ha[index],
                cb[index],
                Rb[index],
                hb[index],
                sat.axis[index],
                sat.axis_separation[index],
                sat.normal[index],
                margin,
            )
            parts.append(
                PairContacts(
                    index[found.pair],
                    *(getattr(found, f) for f in ("point", "normal", "depth", "feature")),
                )
            )
    return concatenate(parts) if parts else empty_contacts()


def _edge_contacts(ca, Ra, ha, cb, Rb, hb, axis, separation, normal, margin) -> PairContacts:
    """One point per pair: midway between the closest points of the two crossing edges."""
    ei, ej = np.divmod(axis - 6, 3)
    rows = np.arange(len(axis))
    # Each edge is the one of its box furthest along the normal towards the other box.
    sign_a = np.where(np.einsum("pki,pk->pi", Ra, normal) >= 0.0, 1.0, -1.0)
    sign_b = np.where(np.einsum("pki,pk->pi", Rb, normal) > 0.0, -1.0, 1.0)
    sign_a[rows, ei] = 0.0
    sign_b[rows, ej] = 0.0
    pa = ca + np.einsum("pij,pj->pi", Ra, sign_a * ha)
    pb = cb + np.einsum("pij,pj->pi", Rb, sign_b * hb)
    da = Ra[rows, :, ei]
    db = Rb[rows, :, ej]
    r = pb - pa
    cos = np.einsum("pi,pi->p", da, db)
    c = np.einsum("pi,pi->p", da, r)
    f = np.einsum("pi,pi->p", db, r)
    s = (c - cos * f) / np.maximum(1.0 - cos * cos, np.finfo(float).tiny)
    t = cos * s - f
    s = np.clip(s, -ha[rows, ei], ha[rows, ei])
    t = np.clip(t, -hb[rows, ej], hb[rows, ej])
    point = 0.5 * (pa + s[:, None] * da + pb + t[:, None] * db)
    bits_a = (sign_a > 0) @ np.array([1, 2, 4])
    bits_b = (sign_b > 0) @ np.array([1, 2, 4])
    feature = _EDGE_BASE + ((ei * 8 + bits_a) * 3 + ej) * 8 + bits_b
    keep = np.flatnonzero(-separation >= -margin)
    return PairContacts(
        keep, point[keep], normal[keep], -separation[keep], feature[keep].astype(np.int64)
    )


def _face_contacts(ca, Ra, ha, cb, Rb, hb, axis, separation, normal, margin) -> PairContacts:
    """Clip the incident face against the reference face's side planes; keep up to 4 points.

    Work happens in the reference box's frame with its axes reordered per pair to (u, v, n),
    n the reference face's axis, so every pair clips against the same coordinates.
    """
    del separation  # face contacts measure each clipped point's own depth
    rows = np.arange(len(axis))
    ref_is_b = (axis >= 3)[:, None]
    k = axis % 3
    c_ref, c_inc = np.where(ref_is_b, cb, ca), np.where(ref_is_b, ca, cb)
    R_ref = np.where(ref_is_b[:, :, None], Rb, Ra)
    R_inc = np.where(ref_is_b[:, :, None], Ra, Rb)
    h_ref, h_inc = np.where(ref_is_b, hb, ha), np.where(ref_is_b, ha, hb)
    outward = np.where(ref_is_b, -normal, normal)  # reference face normal, out of its box

    order = (k[:, None] + np.array([1, 2, 0])) % 3
    frame = np.take_along_axis(R_ref, order[:, None, :], 2)  # columns u, v, n
    extent = np.take_along_axis(h_ref, order, 1)
    s_ref = np.where(np.sum(frame[:, :, 2] * outward, axis=1) >= 0.0, 1.0, -1.0)

    # The incident face is the face of the other box most opposed to the reference normal.
    facing = np.matmul(outward[:, None], R_inc)[:, 0]
    m = np.abs(facing).argmax(axis=1)
    s_inc = np.where(facing[rows, m] > 0.0, -1.0, 1.0)
    m1, m2 = (m + 1) % 3, (m + 2) % 3
    centre = c_inc + (s_inc * h_inc[rows, m])[:, None] * R_inc[rows, :, m]
    u = (h_inc[rows, m1])[:, None] * R_inc[rows, :, m1]
    w = (h_inc[rows, m2])[:, None] * R_inc[rows, :, m2]
    quad = centre[:, None] + _QUAD[None, :, :1] * u[:, None] + _QUAD[None, :, 1:] * w[:, None]

    poly = np.zeros((len(axis), MAX_POLYGON, 3))
    poly[:, :4] = np.matmul(quad - c_ref[:, None], frame)
    ids = np.zeros((len(axis), MAX_POLYGON), np.int64)
    ids[:, :4] = np.arange(4)
    labels = ids.copy()  # the line each polygon edge (vertex i -> i+1) lies on
    count = np.full(len(axis), 4)
    for plane in range(4):
        poly, ids, labels, count = _clip(poly, ids, labels, count, plane, extent[:, plane // 2])

    face = (s_ref * extent[:, 2])[:, None]
    depth = s_ref[:, None] * (face - poly[:, :, 2])
    valid = (np.arange(MAX_POLYGON) < count[:, None]) & (depth >= -margin)
    keep = valid & (_reduce(poly, depth, valid) | (valid.sum(axis=1) <= MAX_MANIFOLD)[:, None])

    # A pair within the margin whose nearest incident corner lies beyond the reference face's
    # rim can clip to nothing within reach; it still gets one speculative contact at that corner
    # with the gap along the normal (a lower bound of the distance, so the solver stays safe).
    lost = np.flatnonzero(~keep.any(axis=1))
    if len(lost):
        corners = np.matmul(quad[lost] - c_ref[lost, None], frame[lost])
        corner_depth = s_ref[lost, None] * (face[lost] - corners[:, :, 2])
        nearest = corner_depth.argmax(axis=1)
        picked = np.arange(len(lost))
        poly[lost, 0] = corners[picked, nearest]
        depth[lost, 0] = corner_depth[picked, nearest]
        ids[lost, 0] = nearest
        keep[lost, 0] = depth[lost, 0] >= -margin

    mid = poly.copy()
    mid[:, :, 2] = 0.5 * (poly[:, :, 2] + face)
    world = c_ref[:, None] + np.matmul(mid, frame.transpose(0, 2, 1))
    ref_face = (ref_is_b[:, 0] * 3 + k) * 2 + (s_ref > 0)
    inc_face = m * 2 + (s_inc > 0)
    feature = (ref_face * 6 + inc_face)[:, None] * _POINT_IDS + ids
    pair, slot = np.nonzero(keep)
    return PairContacts(
        pair, world[pair, slot], normal[pair], depth[pair, slot], feature[pair, slot]
    )


def _clip(poly, ids, labels, count, plane, limit):
    """One Sutherland-Hodgman pass against +-x[plane // 2] <= limit, for all polygons at once.

    Each input edge emits its start vertex if inside and its crossing point if it crosses; the
    2 x MAX_POLYGON candidates are then packed in order. A crossing point's id records the edge
    line and the plane that made it, so the same geometric corner keeps its id.
    """
    side, sign = plane // 2, 1.0 - 2.0 * (plane % 2)
    slots = np.arange(MAX_POLYGON)
    valid = slots < count[:, None]
    following = (slots + 1) % np.maximum(count, 1)[:, None]
    nxt = np.take_along_axis(poly, following[:, :, None], 1)
    d0 = sign * poly[:, :, side] - limit[:, None]
    d1 = sign * nxt[:, :, side] - limit[:, None]
    in0 = d0 <= 0.0
    crosses = valid & (in0 != (d1 <= 0.0))
    t = np.where(crosses, d0 / np.where(crosses, d0 - d1, 1.0), 0.0)
    cut = poly + t[:, :, None] * (nxt - poly)
    cut[:, :, side] = (sign * limit)[:, None]

    emit = np.stack([valid & in0, crosses], axis=2).reshape(len(poly), -1)
    pair, slot = np.nonzero(emit)
    target = np.cumsum(emit, axis=1)[pair, slot] - 1
    vertex, is_cut = np.divmod(slot, 2)
    is_cut = is_cut.astype(bool)
    out = np.zeros_like(poly)
    out[pair, target] = np.where(is_cut[:, None], cut[pair, vertex], poly[pair, vertex])
    out_ids = np.zeros_like(ids)
    out_ids[pair, target] = np.where(
        is_cut, 4 + labels[pair, vertex] * 4 + plane, ids[pair, vertex]
    )
    # leaving the half-plane, the next polygon edge runs along the plane itself
    leaving = is_cut & in0[pair, vertex]
    out_labels = np.zeros_like(labels)
    out_labels[pair, target] = np.where(leaving, 4 + plane, labels[pair, vertex])
    return out, out_ids, out_labels, emit.sum(axis=1)


def _reduce(poly, depth, valid):
    """Choose 4 of the clipped points: the deepest, the one farthest from it, the one making the
    largest triangle with those two, and the one adding the most area to that triangle.

    Areas are signed, in the reference face plane (the polygon's first two coordinates).
    """
    rows = np.arange(len(poly))
    first = np.where(valid, depth, -np.inf).argmax(axis=1)
    p1 = poly[rows, first]
    second = np.where(valid, np.sum((poly - p1[:, None]) ** 2, axis=2), -1.0).argmax(axis=1)
    p2 = poly[rows, second]

    def area(a, b):
        e, q = (b - a)[:, None], poly - a[:, None]
        return e[..., 0] * q[..., 1] - e[..., 1] * q[..., 0]

    side = area(p1, p2)
    third = np.where(valid, np.abs(side), -1.0).argmax(axis=1)
    p3 = poly[rows, third]
    orient = np.where(side[rows, third] >= 0.0, 1.0, -1.0)[:, None]
    gain = sum(np.maximum(-orient * area(a, b), 0.0) for a, b in ((p1, p2), (p2, p3), (p3, p1)))
    fourth = np.where(valid, gain, -1.0).argmax(axis=1)
    chosen = np.zeros(valid.shape, bool)
    for index in (first, second, third, fourth):
        chosen[rows, index] = True
    return chosen
