"""Sequential impulses (Box2D-lite style) over the colour batches of the manifolds.

Normal impulses are accumulated and clamped (the total pushes, never pulls); friction is
clamped to the Coulomb disc |λ_t| <= μ λ_n per point, so it can only brake (the Swedish notes).
The up to four normal rows of a manifold are solved together, exactly, from the (pseudo-)inverse
of their effective-mass block, so a box lying on a face is held evenly and a flat box bounces
without spurious spin; where that would pull at a point, the point is let go and the rest
re-solved (an active-set step).

Velocity targets per point: a gap s beyond the slop may close within the substep (speculative
contact, v_n >= -s/h); a touching point that approached faster than RESTITUTION_THRESHOLD
bounces (v_n >= -e v_in, v_in measured before the solve, or when the point was caught while
still apart, at that moment); otherwise v_n >= 0. Penetration is removed by a separate solve
on pseudo-velocities (split impulse) that move the bodies and are then forgotten, so position
correction adds no kinetic energy and no linear momentum. For one point touching at zero depth, one
sweep gives exactly j = -(1 + e) m_eff v_n, the Croatian notes' impulse, with
m_eff = 1 / (1/m_a + 1/m_b + (r_a×n)·I_a⁻¹(r_a×n) + (r_b×n)·I_b⁻¹(r_b×n)).
"""

import numpy as np

from .constraints import POINTS, Manifolds, normal_velocity, pseudo_inverse

# Approach speed below which contacts do not bounce, so resting bodies do not buzz under
# gravity (which adds g h ≈ 0.04 m/s per 240 Hz substep).
RESTITUTION_THRESHOLD = 0.5  # m/s
BAUMGARTE = 0.2  # fraction of the penetration beyond the slop removed per substep
MAX_PUSH = 3.0  # m/s, the fastest push-out
CAUGHT_TOLERANCE = 0.25  # of the substep's approach distance
_TINY = np.finfo(float).tiny


def set_targets(m: Manifolds, velocity6: np.ndarray, h: float, gravity_step: np.ndarray) -> None:
    """Measure the approach and fill the velocity targets (as biases) of the normal rows.

    gravity_step (P, 4): what one substep of gravity adds to v_n (negative when it pulls the
    pair together). Semi-implicit Euler moves a falling body along an exact parabola; the
    speed u that the bounce reverses is that parabola's at the touching point, from the
    velocity and gap of the substep in which the point was caught, and the rebound velocity
    e u + gravity_step / 2 starts the next parabola with speed e u there, so bounce heights
    scale by exactly e². Without gravity u is simply the approach speed.
    """
    speed = -normal_velocity(m, velocity6)
    gap = np.maximum(m.separation, 0.0)
    parabola = np.sqrt((speed + 0.5 * gravity_step) ** 2
                       + np.maximum(-2.0 * gravity_step * gap / h, 0.0))
    arriving = np.where(speed > 0.0, parabola, speed)
    caught = m.incoming > 0.0
    incoming = np.where(caught, m.incoming, arriving)
    s, slop = m.separation, m.slop[:, None]
    # A point caught last substep touches now, up to what turning moved it in the meantime.
    touching = (s <= slop) | (caught & (s <= slop + CAUGHT_TOLERANCE * incoming * h))
    bounce = (m.mask & touching & (incoming > RESTITUTION_THRESHOLD)
              & (m.restitution[:, None] > 0.0))
    rebound = m.restitution[:, None] * incoming + 0.5 * gravity_step
    m.bias[:] = np.where(bounce, -rebound, np.where(s > slop, s / h, 0.0))
    m.incoming[:] = incoming


def remember_incoming(m: Manifolds) -> None:
    """Keep the arrival speed only of points caught while apart, for the substep they touch."""
    caught = m.mask & (m.separation > m.slop[:, None]) & (m.normal_impulse > 0.0)
    m.incoming[:] = np.where(caught, m.incoming, 0.0)


def solve(m: Manifolds, velocity6: np.ndarray) -> None:
    """One Gauss–Seidel sweep over the colours: normal block, then friction, per manifold."""
    for batch in m.batches:
        index = batch.index
        v = velocity6[index].reshape(-1, 12)
        _normal(batch.normal_rows, batch.normal_response, batch.normal_block,
                batch.normal_inverse, batch.normal_impulse, v, batch.bias)
        _friction(batch, v)
        velocity6[index] = v.reshape(-1, 2, 6)


def push_out(m: Manifolds, h: float, count: int, sweeps: int) -> np.ndarray:
    """(N, 6) pseudo-velocities that remove BAUMGARTE of each penetration beyond the slop."""
    excess = m.separation + m.slop[:, None]
    deep = m.mask & (excess < 0.0)
    pseudo = np.zeros((count, 6))
    if not deep.any():
        return pseudo
    target = np.where(deep, np.maximum(BAUMGARTE * excess / h, -MAX_PUSH), 0.0)
    impulse = np.zeros_like(target)
    for _ in range(sweeps):
        for batch in m.batches:
            rows = batch.rows
            v = pseudo[batch.index].reshape(-1, 12)
            _normal(batch.normal_rows, batch.normal_response, batch.normal_block,
                    batch.normal_inverse, impulse[rows], v, target[rows])
            pseudo[batch.index] = v.reshape(-1, 2, 6)
    return pseudo


def _normal(rows, response, block, inverse, impulse, v, offset) -> None:
    """Drive v_n + offset to zero at every point, impulses clamped >= 0; updates v, impulse."""
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
    """Point by point, stop the sliding within the Coulomb disc |λ_t| <= μ λ_n."""
    rows, response, mass = batch.friction_rows, batch.friction_response, batch.friction_mass
    impulse, limit = batch.friction_impulse, batch.friction[:, None] * batch.normal_impulse
    for s in range(POINTS):  # the manifold's points in turn (a loop over slots, not contacts)
        old = impulse[:, s].copy()
        new = old - mass[:, s] * np.einsum("pri,pi->pr", rows[:, s], v)
        length = np.sqrt(np.einsum("pr,pr->p", new, new))
        new *= (limit[:, s] / np.maximum(np.maximum(length, limit[:, s]), _TINY))[:, None]
        v += np.einsum("pr,pri->pi", new - old, response[:, s])
        impulse[:, s] = new
