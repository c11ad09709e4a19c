"""Sequential impulses (Box2D-lite style) over the colour batches of the manifolds.

Normal impulses are accumulated and clamped (the total pushes, never pulls); friction is
clamped to the Coulomb disc |λ_t| <= μ λ_n per point, so it can only brake (the Swedish notes).
The up to four normal rows of a manifold are solved together, exactly: from the (pseudo-)inverse
of their effective-mass block, so a box lying on a face is held evenly and a flat box bounces
without spurious spin, and where that would pull at a point, by solving the manifold's linear
complementarity problem (principal pivoting over the subsets of its points).

Each substep solves in two passes, as Box2D v3 does. First the pair is pressed: a gap s beyond
the slop may close within the substep (speculative contact, v_n >= -s/h), a touching or
bouncing point may not sink (v_n >= 0), with friction. Then the normal blocks alone are driven
to the rebound targets of the points that bounce (approaching faster than
RESTITUTION_THRESHOLD, measured before the solve), so a bounce uses the velocities and geometry
of one instant and an elastic pair keeps its energy exactly; friction, already spent, cannot
turn the bounce into a gain (set_targets says which points bounce when). Penetration is
removed by a separate solve on pseudo-velocities (split impulse) that move the bodies and are
then forgotten, so position correction adds no kinetic energy and no linear momentum (it does
move angular momentum about a fixed point, and what it lifts against gravity is counted in the
trajectory's push_out_work).
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
# Pulling tolerated in a contact set (rounding), relative to the largest impulse; and sinking,
# relative to the largest velocity error: the pseudo-inverse drops modes below _CUTOFF of the
# strongest, which leaves errors of about that size that no choice of points can remove.
_COMPLEMENTARITY_TOLERANCE = 1e-9
_SINKING_TOLERANCE = 1e-3


def set_targets(m: Manifolds, velocity6: np.ndarray, h: float, gravity_step: np.ndarray) -> None:
    """Measure the approach and fill the velocity targets (as biases) of the normal rows.

    gravity_step (P, 4): what one substep of gravity adds to v_n (negative when it pulls the
    pair together). Semi-implicit Euler moves a falling body along an exact parabola; the
    speed u that the bounce reverses is that parabola's at the touching point, from the
    velocity and gap of the substep in which the point was caught, and the rebound velocity
    e u + gravity_step / 2 starts the next parabola with speed e u there, so bounce heights
    scale by exactly e². Without gravity u is simply the approach speed. `bias` holds the
    targets of the pressing pass, `rebound_bias` those of the bounce.
    """
    speed = -normal_velocity(m, velocity6)
    gap = np.maximum(m.separation, 0.0)
    parabola = np.sqrt((speed + 0.5 * gravity_step) ** 2
                       + np.maximum(-2.0 * gravity_step * gap / h, 0.0))
    arriving = np.where(speed > 0.0, parabola, speed)
    caught = m.incoming > 0.0
    incoming = np.where(caught, m.incoming, arriving)
    e, s, slop = m.restitution[:, None], m.separation, m.slop[:, None]
    # A point of a pair meeting on its own with no gravity between them (two bodies in flight,
    # or zero gravity) bounces in the substep its gap closes, with the velocities and geometry
    # of that one instant, so an elastic pair keeps its energy exactly. Elsewhere a point first
    # closes its gap and bounces from the surface in the next substep, up to what turning moved
    # it: on a floor that keeps the parabola exact, and in a cluster the sweeps then push from
    # touching bodies instead of asking for rebounds the bodies behind cannot give yet.
    free = m.isolated[:, None] & (gravity_step == 0.0)
    fresh = ~caught & ((s <= slop) | (free & (speed * h >= s)))
    late = caught & (s <= slop + CAUGHT_TOLERANCE * incoming * h)
    bounce = (m.mask & (fresh | late) & (incoming > RESTITUTION_THRESHOLD)
              & ((e > 0.0) | free))
    rebound = e * incoming + 0.5 * gravity_step
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


def restitute(m: Manifolds, velocity6: np.ndarray, sweeps: int) -> None:
    """Sweeps of the normal blocks of the colours with a bounce towards the rebound targets
    (friction stays as solved)."""
    bouncing = [batch for batch in m.batches
                if not np.array_equal(batch.rebound_bias, batch.bias)]
    for _ in range(sweeps):
        for batch in bouncing:
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
        new[pulling] = _complementary(batch, pulling, old[pulling], (vn + offset)[pulling],
                                      old[pulling] > 0.0)
    v += np.einsum("ps,psi->pi", new - old, batch.normal_response)
    impulse[:] = new


def _subset_inverse(batch, manifolds, pushing):
    """(K, 4, 4) pseudo-inverses of these manifolds' blocks restricted to the `pushing` points,
    each worked out once per substep."""
    codes = pushing @ SUBSET_CODES
    missing = ~batch.subset_ready[manifolds, codes]
    if missing.any():
        rows, subset = manifolds[missing], codes[missing]
        batch.subset_inverse[rows, subset] = pseudo_inverse(batch.normal_block[rows],
                                                            SUBSETS[subset])
        batch.subset_ready[rows, subset] = True
    return batch.subset_inverse[manifolds, codes]


def _complementary(batch, manifolds, old, error, pushing):
    """Impulses >= 0 with v_n + offset >= 0 at every point and = 0 where they push (the
    manifold's linear complementarity problem), by Murty's principal pivoting: solve with the
    `pushing` points held, then let go of the first point that would pull or hold the first one
    that would sink, and repeat. Four coplanar points span only three directions, and with
    uneven targets the pivots can cycle; after POINTS of them what remains is clamped, and the
    next sweep goes on from there."""
    block = batch.normal_block[manifolds]
    q = error - np.einsum("pst,pt->ps", block, old)
    live = np.diagonal(block, axis1=1, axis2=2) > 0.0
    tolerance = _SINKING_TOLERANCE * (np.abs(q).max(axis=1, keepdims=True) + _TINY)
    rows = np.arange(len(q))
    impulse = np.zeros_like(q)
    solved = pushing.copy()  # the set each row's impulse was solved with
    for _ in range(POINTS):
        held = solved[rows] = pushing[rows]
        inverse = _subset_inverse(batch, manifolds[rows], held)
        impulse[rows] = -np.einsum("pst,pt->ps", inverse, np.where(held, q[rows], 0.0))
        velocity = q[rows] + np.einsum("pst,pt->ps", block[rows], impulse[rows])
        pulls = impulse[rows] < -_COMPLEMENTARITY_TOLERANCE * np.abs(impulse[rows]).max(
            axis=1, keepdims=True)
        wrong = np.where(held, pulls, live[rows] & (velocity < -tolerance[rows]))
        unresolved = wrong.any(axis=1)
        rows, wrong = rows[unresolved], wrong[unresolved]
        if not len(rows):
            break
        pushing[rows, wrong.argmax(axis=1)] ^= True
    return np.where(solved, np.maximum(impulse, 0.0), 0.0)


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
