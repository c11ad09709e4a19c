"""Sequential impulses (Box2D-lite / Box2D v3 style) over the colour batches of the manifolds.

Normal impulses are accumulated and clamped (the total pushes, never pulls); friction is
clamped to μ times the manifold's normal impulse, so it can only brake (the Swedish notes).
The up to four normal rows of a manifold are solved together, exactly, from the inverse of
their effective-mass block (Box2D's block solver, for four points), so a box lying on a face
is held evenly in one sweep and a flat box bounces without spurious spin; if that would pull
at a point, the manifold falls back to point-by-point clamped updates. Each substep runs:

* sweeps with bias: rows are rigid (the target is v_n >= 0), and penetration deeper than the
  slop is pushed out at BAUMGARTE of the excess per substep, at most MAX_PUSH fast;
* the positions are integrated;
* sweeps without bias ("relax"), which take the push-out velocity away again, so position
  correction moves bodies but adds no kinetic energy (as Box2D v3's soft step);
* `restitute`: points that approached faster than RESTITUTION_THRESHOLD before the solve and
  now carry load get the bounce target v_n = -e v_n(before).

A gap (speculative contact, separation s > 0) may always close by s within the substep. For one
point touching at zero separation the passes sum to j = -(1 + e) m_eff v_n, the Croatian notes'
impulse, m_eff = 1 / (1/m_a + 1/m_b + (r_a×n)·I_a⁻¹(r_a×n) + (r_b×n)·I_b⁻¹(r_b×n)).
"""

import numpy as np

from .constraints import POINTS, Manifolds, pseudo_inverse

# Approach speed below which contacts do not bounce, so resting bodies do not buzz under
# gravity (which adds g h ≈ 0.04 m/s per 240 Hz substep).
RESTITUTION_THRESHOLD = 0.5  # m/s
BAUMGARTE = 0.2  # fraction of the penetration beyond the slop removed per substep
MAX_PUSH = 3.0  # m/s
_TINY = np.finfo(float).tiny


def set_targets(m: Manifolds, h: float, use_bias: bool) -> None:
    """Fill the normal rows' bias velocities for the next sweeps."""
    s = m.separation
    bias = np.where(s > 0.0, s / h, 0.0)
    if use_bias:
        excess = s + m.slop[:, None]
        deep = m.mask & (excess < 0.0)
        bias[deep] = np.maximum(BAUMGARTE * excess[deep] / h, -MAX_PUSH)
    m.bias[:] = bias


def solve(m: Manifolds, velocity6: np.ndarray) -> None:
    """One Gauss–Seidel sweep over the colours: normal block, then friction, per manifold."""
    for batch in m.batches:
        index = batch.index
        v = velocity6[index].reshape(-1, 12)
        _normal(batch.normal_rows, batch.normal_response, batch.normal_block,
                batch.normal_inverse, batch.normal_impulse, v, batch.bias)
        _friction(batch, v)
        velocity6[index] = v.reshape(-1, 2, 6)


def _normal(rows, response, block, inverse, impulse, v, offset) -> None:
    """Drive v_n + offset to zero at every point, impulses clamped >= 0; updates v, impulse.

    The whole block at once; where that would pull somewhere, the pulling points are let go
    and the rest re-solved (an active-set step, at most once per point), which keeps symmetric
    situations symmetric.
    """
    vn = np.einsum("psi,pi->ps", rows, v)
    old = impulse.copy()
    new = old - np.einsum("pst,pt->ps", inverse, vn + offset)
    pulling = np.any(new < 0.0, axis=1)
    if pulling.any():
        new[pulling] = _active_set(block[pulling], old[pulling], (vn + offset)[pulling],
                                   new[pulling] > 0.0)
    v += np.einsum("ps,psi->pi", new - old, response)
    impulse[:] = new


def _active_set(block, old, error, active):
    """Impulses >= 0 with v_n + offset = 0 at the active points, the others released."""
    for _ in range(POINTS):
        change = np.where(active, 0.0, -old)
        rhs = np.where(active, -(error + np.einsum("pst,pt->ps", block, change)), 0.0)
        change += np.einsum("pst,pt->ps", pseudo_inverse(block, active), rhs)
        new = np.where(active, old + change, 0.0)
        if np.all(new >= 0.0):
            break
        active &= new > 0.0
    return np.maximum(new, 0.0)


def _friction(batch, v) -> None:
    """Stop sliding and twisting at the manifold centre, within the Coulomb limit."""
    old = batch.friction_impulse.copy()
    new = old - np.einsum("prq,pq->pr", batch.friction_inverse,
                          np.einsum("pri,pi->pr", batch.friction_rows, v))
    limit = batch.friction * batch.normal_impulse.sum(axis=1)
    length = np.sqrt(new[:, 0] ** 2 + new[:, 1] ** 2)
    new[:, :2] *= (limit / np.maximum(np.maximum(length, limit), _TINY))[:, None]
    twist = limit * batch.twist_radius
    new[:, 2] = np.clip(new[:, 2], -twist, twist)
    v += np.einsum("pr,pri->pi", new - old, batch.friction_response)
    batch.friction_impulse[:] = new


def bouncing(m: Manifolds, approach: np.ndarray) -> np.ndarray:
    """(P, 4) points that bounce now: approached fast before the solve, and now carry load."""
    return m.mask & (approach < -RESTITUTION_THRESHOLD) & (m.normal_impulse > 0.0) & (
        m.restitution[:, None] > 0.0)


def restitute(m: Manifolds, velocity6: np.ndarray, approach: np.ndarray,
              bounce: np.ndarray) -> None:
    """One sweep over manifolds with bouncing points: those get v_n = -e v_n(before), their
    neighbours in the manifold v_n >= 0."""
    offset = np.where(bounce, m.restitution[:, None] * approach, 0.0)
    selected = bounce.any(axis=1)
    for batch in m.batches:
        rows = batch.rows.start + np.flatnonzero(selected[batch.rows])
        if not len(rows):
            continue
        index = m.pairs[rows]
        v = velocity6[index].reshape(-1, 12)
        impulse = m.normal_impulse[rows]
        _normal(m.normal_rows[rows], m.normal_response[rows], m.normal_block[rows],
                m.normal_inverse[rows], impulse, v, offset[rows])
        m.normal_impulse[rows] = impulse
        velocity6[index] = v.reshape(-1, 2, 6)
