"""Contact manifolds in solver form: Jacobian rows, effective masses and warm starting.

The narrow phase's points are grouped per touching pair into manifolds of up to four points
(padded, with a mask). Both bodies take each impulse at the same world point, so momentum and
angular momentum are exchanged exactly. Rows act on the 12 velocities [v_a, ω_a, v_b, ω_b] of a
pair: per point one normal row and two friction rows along the tangents t1, t2 of the
manifold's normal. Velocities are one (N, 6) array [v, ω].
"""

import itertools

import numpy as np

from .coloring import color_contacts
from .materials import combine

POINTS = 4  # the narrow phase reports at most four points per pair
# The subsets of a manifold's points, row k holding the points whose bit is set in k.
SUBSET_CODES = 2 ** np.arange(POINTS)
SUBSETS = (np.arange(2**POINTS)[:, None] & SUBSET_CODES) > 0
# A face-on-face manifold has four (nearly) coplanar points but only three degrees of freedom:
# its normal block is singular. Modes weaker than this fraction of the strongest are treated as
# absent (pseudo-inverse), which gives the even, minimum-norm split of the load.
_CUTOFF = 1e-4


class Manifolds:
    """P pair manifolds, permuted into colour order; rows are rewritten in place every substep
    so each colour Batch keeps views into them."""

    def __init__(self, a, b, mask, feature, normal, point, separation, friction, restitution,
                 slop, starts):
        count = len(a)
        self.a, self.b, self.mask, self.feature = a, b, mask, feature
        self.pairs = np.stack([a, b], axis=1)
        self.points = mask.sum(axis=1)
        self.normal = normal  # (P, 4, 3), a -> b, fixed for the frame
        self.tangents = tangent_basis(normal[:, 0])  # (P, 2, 3)
        self.point = point  # (P, 4, 3) world, midway between the surfaces
        self.friction, self.restitution, self.slop = friction, restitution, slop
        self.starts = starts
        self.isolated = np.ones(count, dtype=bool)  # no movable body of the pair touches a third
        self.normal_impulse = np.zeros((count, POINTS))  # accumulated, per substep
        self.friction_impulse = np.zeros((count, POINTS, 2))  # along t1, t2
        self.separation = np.where(mask, separation, 0.0)  # minus the depth
        self.incoming = np.zeros((count, POINTS))  # arrival speed carried to the touch
        self.bias = np.zeros((count, POINTS))  # -(target v_n) while the pair is pressed
        self.rebound_bias = np.zeros((count, POINTS))  # the same, then, for the bounce
        self.normal_rows = np.zeros((count, POINTS, 12))
        self.normal_response = np.zeros((count, POINTS, 12))  # M⁻¹Jᵀ
        self.normal_block = np.zeros((count, POINTS, POINTS))  # J M⁻¹ Jᵀ
        self.normal_inverse = np.zeros((count, POINTS, POINTS))  # its pseudo-inverse
        # the same on each subset of points (for contact sets), filled on demand each substep
        self.subset_inverse = np.zeros((count, len(SUBSETS), POINTS, POINTS))
        self.subset_ready = np.zeros((count, len(SUBSETS)), dtype=bool)
        self.friction_rows = np.zeros((count, POINTS, 2, 12))
        self.friction_response = np.zeros((count, POINTS, 2, 12))
        self.friction_mass = np.zeros((count, POINTS, 2))
        self.batches = [Batch(self, slice(s, e)) for s, e in itertools.pairwise(starts)]

    def __len__(self) -> int:
        return len(self.a)


class Batch:
    """Views of one colour's manifolds: no movable body occurs twice, so they solve as one."""

    __slots__ = ("bias", "friction", "friction_impulse", "friction_mass", "friction_response",
                 "friction_rows", "index", "normal_block", "normal_impulse", "normal_inverse",
                 "normal_response", "normal_rows", "rebound_bias", "rows", "subset_inverse",
                 "subset_ready")

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


def build_manifolds(found, bodies, movable, previous, restitution_rule,
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
    manifolds = Manifolds(
        a, b, mask, padded(found.feature, -1), normal, padded(found.point, 0.0),
        padded(-found.depth, 0.0),
        combine(friction_rule, bodies.friction[a], bodies.friction[b]),
        combine(restitution_rule, bodies.restitution[a], bodies.restitution[b]),
        np.minimum(slop[a], slop[b]), starts,
    )
    touching = np.bincount(np.concatenate([a[movable[a]], b[movable[b]]]), minlength=n)
    manifolds.isolated[:] = ((~movable[a] | (touching[a] == 1))
                             & (~movable[b] | (touching[b] == 1)))
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
    """Carry impulses over from last frame by (a, b, feature); friction as a world vector
    projected on the new tangents, so it survives a change of basis."""
    def point_keys(x):
        pair, slot = np.nonzero(x.mask)
        return pair, slot, np.stack([x.a[pair], x.b[pair], x.feature[pair, slot]], axis=1)

    old_pair, old_slot, old_keys = point_keys(previous)
    new_pair, new_slot, new_keys = point_keys(m)
    old, new = _match(old_keys, new_keys)
    old_pair, old_slot = old_pair[old], old_slot[old]
    new_pair, new_slot = new_pair[new], new_slot[new]
    m.normal_impulse[new_pair, new_slot] = previous.normal_impulse[old_pair, old_slot]
    m.incoming[new_pair, new_slot] = previous.incoming[old_pair, old_slot]
    tangential = np.einsum("kr,kri->ki", previous.friction_impulse[old_pair, old_slot],
                           previous.tangents[old_pair])
    m.friction_impulse[new_pair, new_slot] = np.einsum("kri,ki->kr", m.tangents[new_pair],
                                                       tangential)


def update_rows(m: Manifolds, position, inverse_mass, world_inverse_inertia) -> None:
    """Rows, responses and effective masses for the bodies' current state."""
    a, b, mask = m.a, m.b, m.mask
    live = mask[:, :, None]
    ra, rb = m.point - position[a, None], m.point - position[b, None]
    n = m.normal * live
    _fill(m.normal_rows, m.normal_response, n, np.cross(ra, n), np.cross(rb, n),
          a, b, inverse_mass, world_inverse_inertia)
    block = np.einsum("psi,pti->pst", m.normal_rows, m.normal_response)
    m.normal_block[:] = block
    m.normal_inverse[:] = pseudo_inverse(block, mask)
    m.subset_ready[:] = False
    t = m.tangents[:, None] * live[..., None]  # (P, 4, 2, 3)
    _fill(m.friction_rows, m.friction_response, t, np.cross(ra[:, :, None], t),
          np.cross(rb[:, :, None], t), a, b, inverse_mass, world_inverse_inertia)
    diagonal = np.einsum("psri,psri->psr", m.friction_rows, m.friction_response)
    m.friction_mass[:] = np.divide(1.0, diagonal, out=np.zeros_like(diagonal),
                                   where=diagonal > 0.0)


def pseudo_inverse(block: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(P, 4, 4) inverse of each normal block restricted to the masked points (zero elsewhere)."""
    live = mask[:, :, None] & mask[:, None, :]
    values, vectors = np.linalg.eigh(np.where(live, block, 0.0))
    keep = values > _CUTOFF * values.max(axis=1, keepdims=True)
    inverse_values = np.divide(1.0, values, out=np.zeros_like(values), where=keep)
    return np.einsum("psk,pk,ptk->pst", vectors, inverse_values, vectors)


def _fill(rows, response, direction, arm_a, arm_b, a, b, inverse_mass, inverse_inertia):
    """Write rows J = [-d, -r_a×d, d, r_b×d] and responses M⁻¹Jᵀ in place (any middle axes)."""
    rows[..., 0:3], rows[..., 3:6] = -direction, -arm_a
    rows[..., 6:9], rows[..., 9:12] = direction, arm_b
    shape = (-1,) + (1,) * (direction.ndim - 1)
    response[..., 0:3] = -inverse_mass[a].reshape(shape) * direction
    response[..., 3:6] = -np.einsum("pij,p...j->p...i", inverse_inertia[a], arm_a)
    response[..., 6:9] = inverse_mass[b].reshape(shape) * direction
    response[..., 9:12] = np.einsum("pij,p...j->p...i", inverse_inertia[b], arm_b)


def normal_velocity(m: Manifolds, velocity6: np.ndarray) -> np.ndarray:
    """(P, 4) velocity of b relative to a along n at each point (negative = approaching)."""
    gathered = velocity6[m.pairs].reshape(-1, 12)
    return np.einsum("psi,pi->ps", m.normal_rows, gathered)


def apply_impulses(m: Manifolds, velocity6: np.ndarray, normal: np.ndarray,
                   friction: np.ndarray) -> None:
    """Add the velocity change of (P, 4) normal and (P, 4, 2) friction impulses to both bodies
    (warm starting, and the spring forces times h of the penalty method)."""
    change = (np.einsum("ps,psi->pi", normal, m.normal_response)
              + np.einsum("psr,psri->pi", friction, m.friction_response))
    np.add.at(velocity6, m.a, change[:, :6])
    np.add.at(velocity6, m.b, change[:, 6:])
