"""Sequential impulses (Box2D-lite style) over the colour batches of the manifolds.

Normal impulses are accumulated and clamped (the total pushes, never pulls); friction is
clamped to the Coulomb disc |λ_t| <= μ λ_n per point, so it can only brake (the Swedish notes).
The up to four normal rows of a manifold are solved together, exactly: from the (pseudo-)inverse
of their effective-mass block, so a box lying on a face is held evenly and a flat box bounces
without spurious spin, and where that would pull at a point, by solving the manifold's linear
complementarity problem (principal pivoting over the subsets of its points).

Each substep solves in two passes, as Box2D v3 does. First the pair is pressed: a gap s beyond
the slop may close within the substep (speculative contact, v_n >= -s/h), a touching point
may not sink (v_n >= 0), with friction. Then the normal blocks alone are driven to the rebound
targets of the points that bounce: those approaching faster than RESTITUTION_THRESHOLD whose
gap closes within this substep, measured before the solve, so the bounce uses the velocities
and geometry of one instant and an elastic pair keeps its energy exactly; friction, already
spent, cannot turn the bounce into a gain. Penetration is removed by a separate solve on
pseudo-velocities (split impulse) that move the bodies and are then forgotten, so position
correction adds no kinetic energy and no linear momentum (it does move angular momentum about a
fixed point, and what it lifts against gravity is counted in the trajectory's push_out_work).
For one point touching at zero depth, one sweep of each pass gives exactly
j = -(1 + e) m_eff v_n, the Croatian notes' impulse, with
m_eff = 1 / (1/m_a + 1/m_b + (r_a×n)·I_a⁻¹(r_a×n) + (r_b×n)·I_b⁻¹(r_b×n)).
"""

import numpy as np

from .constraints import POINTS, SUBSET_CODES, SUBSETS, Manifolds, normal_velocity, pseudo_inverse

# Approach speed below which contacts do not bounce, so resting bodies do not buzz under
# gravity (which adds g h ≈ 0.04 m/s per 240 Hz substep).
RESTITUTION_THRESHOLD = 0.5  # m/s
BAUMGARTE = 0.2  # fraction of the penetration beyond the slop removed per substep
MAX_PUSH = 3.0  # m/s, the fastest push-out
CAUGHT_TOLERANCE = 0.25  # of the substep's approach distance
_TINY = np.finfo(float).tiny
_COMPLEMENTARITY_TOLERANCE = 1e-12  # sinking tolerated, relative to the largest velocity error


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
    e, s, slop = m.restitution[:, None], m.separation, m.slop[:, None]
    # Rebounding from the gap s with sqrt(e²u² - 2 g s) puts the next parabola's apex where a
    # bounce at the surface would (e u up from it), so a point whose gap closes within this
    # substep bounces now, with the velocities and geometry it has now.
    reach = (e * incoming) ** 2 + 2.0 * gravity_step * gap / h
    fresh = ~caught & ((s <= slop) | (speed * h >= s)) & (reach >= 0.0)
    # Gravity may leave too little speed to rebound from the gap: such a point is caught (the
    # gap closes) and bounces from the surface next substep, up to what turning moved it.
    late = caught & (s <= slop + CAUGHT_TOLERANCE * incoming * h) & (e > 0.0)
    bounce = m.mask & (fresh | late) & (incoming > RESTITUTION_THRESHOLD)
    rebound = np.sqrt(np.maximum(reach, 0.0)) + 0.5 * gravity_step
    m.bias[:] = np.where((s > slop) & ~bounce, s / h, 0.0)
    m.rebound_bias[:] = np.where(bounce, -rebound, m.bias)
    m.incoming[:] = np.where(bounce, 0.0, incoming)


def remember_incoming(m: Manifolds) -> None:
    """Keep the arrival speed only of points caught while apart, for the substep they touch."""
    caught = m.mask & (m.separation > m.slop[:, None]) & (m.normal_impulse > 0.0)
    m.incoming[:] = np.where(caught, m.incoming, 0.0)


def solve(m: Manifolds, velocity6: np.ndarray) -> None:
    """One Gauss–Seidel sweep over the colours: normal block, then friction, per manifold."""
    for batch in m.batches:
        index = batch.index
        v = velocity6[index].reshape(-1, 12)
        _normal(batch, batch.normal_impulse, v, batch.bias)
        _friction(batch, v)
        velocity6[index] = v.reshape(-1, 2, 6)


def restitute(m: Manifolds, velocity6: np.ndarray) -> None:
    """One sweep of the normal blocks of colours with a bounce towards the rebound targets
    (friction stays as solved)."""
    for batch in m.batches:
        if np.array_equal(batch.rebound_bias, batch.bias):
            continue
        index = batch.index
        v = velocity6[index].reshape(-1, 12)
        _normal(batch, batch.normal_impulse, v, batch.rebound_bias)
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
            _normal(batch, impulse[rows], v, target[rows])
            pseudo[batch.index] = v.reshape(-1, 2, 6)
    return pseudo


def _normal(batch, impulse, v, offset) -> None:
    """Drive v_n + offset to zero at every point, impulses clamped >= 0; updates v, impulse."""
    vn = np.einsum("psi,pi->ps", batch.normal_rows, v)
    old = impulse.copy()
    new = old - np.einsum("pst,pt->ps", batch.normal_inverse, vn + offset)
    pulling = np.flatnonzero(np.any(new < 0.0, axis=1))
    if len(pulling):
        new[pulling] = _complementary(batch.normal_block[pulling], _subset_inverses(batch, pulling),
                                      old[pulling], (vn + offset)[pulling], new[pulling] > 0.0)
    v += np.einsum("ps,psi->pi", new - old, batch.normal_response)
    impulse[:] = new


def _subset_inverses(batch, pulling):
    """(K, 16, 4, 4) pseudo-inverses of the blocks of these manifolds restricted to each subset
    of their points, worked out once per substep for the manifolds that need them."""
    todo = pulling[~batch.subset_ready[pulling]]
    if len(todo):
        count = len(SUBSETS)
        batch.subset_inverse[todo] = pseudo_inverse(
            np.repeat(batch.normal_block[todo], count, axis=0),
            np.tile(SUBSETS, (len(todo), 1))).reshape(-1, count, POINTS, POINTS)
        batch.subset_ready[todo] = True
    return batch.subset_inverse[pulling]


def _complementary(block, inverses, old, error, pushing):
    """Impulses >= 0 with v_n + offset >= 0 at every point and = 0 where they push (the
    manifold's linear complementarity problem), by Murty's principal pivoting: solve with the
    `pushing` points held, then let go of the first point that would pull or hold the first one
    that would sink, and repeat (at most 16 subsets of four points; least-index order ends)."""
    q = error - np.einsum("pst,pt->ps", block, old)
    live = np.diagonal(block, axis1=1, axis2=2) > 0.0
    tolerance = _COMPLEMENTARITY_TOLERANCE * (np.abs(q).max(axis=1, keepdims=True) + _TINY)
    rows = np.arange(len(q))
    for _ in range(len(SUBSETS)):
        inverse = inverses[rows, pushing @ SUBSET_CODES]
        impulse = -np.einsum("pst,pt->ps", inverse, np.where(pushing, q, 0.0))
        velocity = q + np.einsum("pst,pt->ps", block, impulse)
        wrong = (pushing & (impulse < 0.0)) | (~pushing & live & (velocity < -tolerance))
        if not wrong.any():
            break
        flip = wrong.any(axis=1)
        pushing[rows[flip], wrong[flip].argmax(axis=1)] ^= True
    return np.where(pushing, np.maximum(impulse, 0.0), 0.0)


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
