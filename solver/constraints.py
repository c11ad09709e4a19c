"""Contact manifolds in solver form: anchors, Jacobian rows, effective masses, warm starting.

The narrow phase's points are grouped per touching pair into manifolds of up to four points
(padded, with a mask). Their geometry is refreshed every substep from how far the bodies moved,
as Box2D v3 does: each point is kept on both bodies (local anchors) and the current separation
is the detected one plus the normal component of the anchors' relative displacement. Both bodies
apply an impulse at one common point, the midpoint of their anchors, so momentum and angular
momentum are exchanged exactly.

Rows act on the 12 velocities [v_a, ω_a, v_b, ω_b] of a pair: one normal row per point, and
friction at the manifold's centre as two tangent rows and a twist row about the normal (the
"central friction" of game engines), limited by μ times the manifold's total normal impulse.
Velocities are one (N, 6) array [v, ω].
"""

import itertools

import numpy as np

from .coloring import color_contacts
from .materials import combine

POINTS = 4  # the narrow phase reports at most four points per pair
# A face-on-face manifold has four (nearly) coplanar points but only three degrees of freedom:
# its normal block is singular. Modes weaker than this fraction of the strongest are treated as
# absent (pseudo-inverse), which gives the even, minimum-norm split of the load.
_CUTOFF = 1e-4


class Manifolds:
    """P pair manifolds, permuted into colour order; rows are rewritten in place every substep
    so each colour Batch keeps views into them."""

    def __init__(self, a, b, mask, feature, normal, local_a, local_b, detected_separation,
                 friction, restitution, slop, starts):
        count = len(a)
        self.a, self.b, self.mask, self.feature = a, b, mask, feature
        self.pairs = np.stack([a, b], axis=1)
        self.points = mask.sum(axis=1)
        self.normal = normal  # (P, 4, 3), a -> b, fixed for the frame
        self.tangents = tangent_basis(normal[:, 0])  # (P, 2, 3)
        self.local_a, self.local_b = local_a, local_b  # (P, 4, 3) body frame, from the COM
        self.detected_separation = detected_separation  # (P, 4), minus the detected depth
        self.friction, self.restitution, self.slop = friction, restitution, slop
        self.starts = starts
        self.normal_impulse = np.zeros((count, POINTS))  # accumulated, per substep
        self.friction_impulse = np.zeros((count, 3))  # t1, t2, twist
        self.separation = np.where(mask, detected_separation, 0.0)
        self.bias = np.zeros((count, POINTS))
        self.mass_scale = np.ones((count, POINTS))
        self.impulse_scale = np.zeros((count, POINTS))
        self.normal_rows = np.zeros((count, POINTS, 12))
        self.normal_response = np.zeros((count, POINTS, 12))  # M⁻¹Jᵀ
        self.normal_block = np.zeros((count, POINTS, POINTS))  # J M⁻¹ Jᵀ
        self.normal_inverse = np.zeros((count, POINTS, POINTS))  # its pseudo-inverse
        self.normal_mass = np.zeros((count, POINTS))  # 1 / diagonal
        self.friction_rows = np.zeros((count, 3, 12))
        self.friction_response = np.zeros((count, 3, 12))
        self.friction_inverse = np.zeros((count, 3, 3))
        self.twist_radius = np.zeros(count)
        self.batches = [Batch(self, slice(s, e)) for s, e in itertools.pairwise(starts)]

    def __len__(self) -> int:
        return len(self.a)


class Batch:
    """Views of one colour's manifolds: no movable body occurs twice, so they solve as one."""

    __slots__ = ("bias", "friction", "friction_impulse", "friction_inverse", "friction_response",
                 "friction_rows", "impulse_scale", "index", "mass_scale", "normal_block",
                 "normal_impulse", "normal_inverse", "normal_mass", "normal_response", "normal_rows", "rows",
                 "twist_radius")

    def __init__(self, m: Manifolds, rows: slice):
        self.rows = rows
        self.index = m.pairs[rows]
        for name in self.__slots__:
            if name not in ("index", "rows"):
                setattr(self, name, getattr(m, name)[rows])


def tangent_basis(normal: np.ndarray) -> np.ndarray:
    """(P, 2, 3) unit tangents: t1 ⟂ n from the world axis least aligned with n, t2 = n × t1."""
    axis = np.eye(3)[np.argmin(np.abs(normal), axis=1)]
    t1 = np.cross(normal, axis)
    t1 /= np.linalg.norm(t1, axis=1, keepdims=True)
    return np.stack([t1, np.cross(normal, t1)], axis=1)


def build_manifolds(found, bodies, rotations, movable, previous, restitution_rule,
                    friction_rule, slop) -> Manifolds:
    """Manifolds of the contacts `found` (sorted by pair), warm-started from `previous`."""
    n = len(bodies)
    key = found.a * n + found.b
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.zeros(0, int)
    pair_of = np.cumsum(np.r_[False, key[1:] != key[:-1]]) if len(key) else np.zeros(0, int)
    slot = np.arange(len(key)) - first[pair_of]
    a, b = found.a[first], found.b[first]
    order, starts = color_contacts(a, b, movable)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    p, count = rank[pair_of], len(first)
    a, b = a[order], b[order]

    def padded(values, fill):
        out = np.full((count, POINTS, *values.shape[1:]), fill, dtype=values.dtype)
        out[p, slot] = values
        return out

    mask = padded(np.ones(len(key), dtype=bool), False)
    normal = padded(found.normal, 0.0)
    normal[~mask] = np.repeat(normal[:, :1], POINTS, axis=1)[~mask]
    point = padded(found.point, 0.0)
    local_a = np.einsum("pji,psj->psi", rotations[a], point - bodies.position[a, None])
    local_b = np.einsum("pji,psj->psi", rotations[b], point - bodies.position[b, None])
    manifolds = Manifolds(
        a, b, mask, padded(found.feature, -1), normal, local_a, local_b,
        padded(-found.depth, 0.0),
        combine(friction_rule, bodies.friction[a], bodies.friction[b]),
        combine(restitution_rule, bodies.restitution[a], bodies.restitution[b]),
        np.minimum(slop[a], slop[b]), starts,
    )
    if previous is not None and len(previous) and count:
        _warm_start_from(manifolds, previous)
    return manifolds


def _match(old_keys: np.ndarray, new_keys: np.ndarray):
    """(old rows, new rows) of equal integer key rows (keys unique on each side)."""
    keys = np.concatenate([old_keys, new_keys])
    source = np.concatenate([np.arange(len(old_keys)), -1 - np.arange(len(new_keys))])
    order = np.lexsort((source, *keys.T[::-1]))
    keys, source = keys[order], source[order]
    # A new row (negative source) sorts just before the old row with the same key.
    same = np.all(keys[1:] == keys[:-1], axis=1) & (source[:-1] < 0) & (source[1:] >= 0)
    return source[1:][same], -1 - source[:-1][same]


def _warm_start_from(m: Manifolds, previous: Manifolds) -> None:
    """Carry impulses over from last frame: normal ones by (a, b, feature), friction per pair
    as a world vector projected on the new tangents, so it survives a change of basis."""
    def point_keys(x):
        pair, slot = np.nonzero(x.mask)
        return pair, slot, np.stack([x.a[pair], x.b[pair], x.feature[pair, slot]], axis=1)

    old_pair, old_slot, old_keys = point_keys(previous)
    new_pair, new_slot, new_keys = point_keys(m)
    old, new = _match(old_keys, new_keys)
    m.normal_impulse[new_pair[new], new_slot[new]] = previous.normal_impulse[
        old_pair[old], old_slot[old]]
    old, new = _match(previous.pairs, m.pairs)
    tangential = np.einsum("pr,pri->pi", previous.friction_impulse[old, :2],
                           previous.tangents[old])
    m.friction_impulse[new, :2] = np.einsum("pri,pi->pr", m.tangents[new], tangential)
    m.friction_impulse[new, 2] = previous.friction_impulse[old, 2]


def _anchors(m: Manifolds, position, rotations):
    """(P, 4, 3) world positions of each point as carried by body a and by body b."""
    anchor_a = position[m.a, None] + np.einsum("pij,psj->psi", rotations[m.a], m.local_a)
    anchor_b = position[m.b, None] + np.einsum("pij,psj->psi", rotations[m.b], m.local_b)
    return anchor_a, anchor_b


def refresh_separation(m: Manifolds, position, rotations) -> None:
    """Current gaps: the detected ones plus how far the anchors moved apart along n."""
    anchor_a, anchor_b = _anchors(m, position, rotations)
    gap = m.detected_separation + np.einsum("psi,psi->ps", anchor_b - anchor_a, m.normal)
    m.separation[:] = np.where(m.mask, gap, 0.0)


def update_rows(m: Manifolds, position, rotations, inverse_mass, world_inverse_inertia) -> None:
    """Refresh separations, rows, responses and effective-mass inverses for this substep."""
    a, b, mask = m.a, m.b, m.mask
    anchor_a, anchor_b = _anchors(m, position, rotations)
    gap = m.detected_separation + np.einsum("psi,psi->ps", anchor_b - anchor_a, m.normal)
    m.separation[:] = np.where(mask, gap, 0.0)
    live = mask[:, :, None]
    common = 0.5 * (anchor_a + anchor_b)
    ra, rb = common - position[a, None], common - position[b, None]
    n = m.normal * live
    _fill(m.normal_rows, m.normal_response, n, np.cross(ra, n), np.cross(rb, n),
          a, b, inverse_mass, world_inverse_inertia)
    block = np.einsum("psi,pti->pst", m.normal_rows, m.normal_response)
    m.normal_mass[:] = np.where(mask, 1.0 / np.where(mask, np.diagonal(block, 0, 1, 2), 1.0), 0.0)
    m.normal_block[:] = block
    m.normal_inverse[:] = pseudo_inverse(block, mask)
    centre = np.sum(common * live, axis=1) / m.points[:, None]
    m.twist_radius[:] = np.sum(np.linalg.norm(common - centre[:, None], axis=2) * mask,
                               axis=1) / m.points
    ca, cb = centre - position[a], centre - position[b]
    t = m.tangents
    normal = m.normal[:, :1]
    linear = np.concatenate([t, np.zeros_like(normal)], axis=1)  # t1, t2, twist (no force)
    arm_a = np.concatenate([np.cross(ca[:, None], t), normal], axis=1)
    arm_b = np.concatenate([np.cross(cb[:, None], t), normal], axis=1)
    _fill(m.friction_rows, m.friction_response, linear, arm_a, arm_b,
          a, b, inverse_mass, world_inverse_inertia)
    m.friction_inverse[:] = np.linalg.inv(
        np.einsum("pri,pqi->prq", m.friction_rows, m.friction_response))


def pseudo_inverse(block: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(P, 4, 4) inverse of each normal block restricted to the masked points (zero elsewhere)."""
    live = mask[:, :, None] & mask[:, None, :]
    values, vectors = np.linalg.eigh(np.where(live, block, 0.0))
    keep = values > _CUTOFF * values.max(axis=1, keepdims=True)
    inverse_values = np.divide(1.0, values, out=np.zeros_like(values), where=keep)
    return np.einsum("psk,pk,ptk->pst", vectors, inverse_values, vectors)


def _fill(rows, response, direction, arm_a, arm_b, a, b, inverse_mass, inverse_inertia):
    """Write rows J = [-d, -r_a×d, d, r_b×d] and responses M⁻¹Jᵀ in place."""
    rows[..., 0:3], rows[..., 3:6] = -direction, -arm_a
    rows[..., 6:9], rows[..., 9:12] = direction, arm_b
    response[..., 0:3] = -inverse_mass[a, None, None] * direction
    response[..., 3:6] = -np.einsum("pij,psj->psi", inverse_inertia[a], arm_a)
    response[..., 6:9] = inverse_mass[b, None, None] * direction
    response[..., 9:12] = np.einsum("pij,psj->psi", inverse_inertia[b], arm_b)


def normal_velocity(m: Manifolds, velocity6: np.ndarray) -> np.ndarray:
    """(P, 4) velocity of b relative to a along n at each point (negative = approaching)."""
    gathered = velocity6[m.pairs].reshape(-1, 12)
    return np.einsum("psi,pi->ps", m.normal_rows, gathered)


def apply_impulses(m: Manifolds, velocity6: np.ndarray, normal: np.ndarray,
                   friction: np.ndarray) -> None:
    """Add the velocity change of (P, 4) normal and (P, 3) friction impulses to both bodies
    (warm starting, and the spring forces times h of the penalty method)."""
    change = (np.einsum("ps,psi->pi", normal, m.normal_response)
              + np.einsum("pr,pri->pi", friction, m.friction_response))
    np.add.at(velocity6, m.a, change[:, :6])
    np.add.at(velocity6, m.b, change[:, 6:])
