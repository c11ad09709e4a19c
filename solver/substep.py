"""One substep's response and motion as one compiled driver, so that a substep is one compiled
call instead of a dozen kernels and the numpy glue between them (issue #9: the glue, not the
arithmetic, was most of a small scene's time); substep_loop calls it for each substep.

`substep` runs the phases in order: velocities (gravity, air, damping), the contact rows
(prepare), then for the impulse method the targets, warm start, sweeps, bounce sweeps and
push-out of solve_impulse, and rolling resistance (for the penalty method its springs), then
positions and orientations, their rotation matrices and the substep's contact statistics. Two
rare cases need Python (the narrow phase of a free pair at its time of impact, and CCD's
time of impact): the driver then stops before them and says so (IMPACT, CCD), and the world
does that part and goes on with the driver's own later phases: `substep` again with `resume`
(the response and motion only; through substep_loop) or `move`. One kernel with a flag rather
than a second kernel for the later phases: numba links every kernel's callees into its module
and optimises and emits them again, so a second entry point compiled the whole response code
twice. For the same reason the world calls the driver only through substep_loop."""

import numpy as np
from numba import njit

from . import linalg
from .constraints import POINTS, apply_impulses, prepare_rows
from .impact import _closing_free_rows
from .integrate import integrate_positions, integrate_velocities
from .penalty import _spring_impulses
from .polish import polish
from .rolling import resist_rolling
from .sleep import row_islands
from .solve_impulse import (
    POLISH_STEPS,
    _curving_targets,
    _push_targets,
    _set_targets,
    _sweep,
    bounce_ceilings,
    remember_incoming,
    warm_start,
)

# What the driver did: all of it, or where it stopped for the world's Python part.
DONE, IMPACT, CCD = np.int64(0), np.int64(1), np.int64(2)
# Bodies moving more than this fraction of their smallest half-extent in a substep get
# continuous collision detection.
CCD_FRACTION = 0.5


def body_arrays(bodies, shape: np.ndarray, dynamic: np.ndarray, awake: np.ndarray,
                radius: np.ndarray) -> tuple:
    """The bodies' arrays in the order the driver takes them (shape: their codes as int64)."""
    b = bodies
    return (b.position, b.orientation, b.velocity, b.angular_velocity, b.mass, b.inverse_mass,
            b.inertia, b.inverse_inertia, b.drag, b.lift, b.linear_damping, b.angular_damping,
            b.rolling_resistance, shape, dynamic, awake, radius, b.thickness)


def row_arrays(m) -> tuple:
    """A Manifolds' arrays in the order the driver takes them."""
    return (m.a, m.b, m.points, m.point, m.normal, m.tangents, m.separation, m.slop,
            m.restitution, m.friction, m.isolated, m.thin, m.incoming, m.bias, m.rebound_bias,
            m.normal_rows, m.normal_response, m.normal_block, m.normal_inverse, m.normal_vectors,
            m.subset_inverse, m.subset_ready, m.friction_rows, m.friction_response,
            m.friction_mass, m.normal_impulse, m.friction_impulse, m.feature)


@njit(cache=True)
def substep(rows, position, orientation, velocity, angular_velocity, mass, inverse_mass, inertia,
            inverse_inertia, drag, lift, linear_damping, angular_damping, rolling_resistance,
            shape, dynamic, awake, radius, thickness, a, b, points, point, normal, tangents,
            separation, slop, restitution, friction, isolated, thin, incoming, bias, rebound_bias,
            normal_rows, normal_response, normal_block, normal_inverse, normal_vectors,
            subset_inverse, subset_ready, friction_rows, friction_response, friction_mass,
            normal_impulse, friction_impulse, feature, rotations, world_inverse, pseudo, left,
            omega, zeta, gravity, h, sweeps, impulse, resume):
    """Velocities, contact rows, response and motion of one substep (module notes) on contact
    rows `rows`: the bodies' arrays (body_arrays), the manifolds' (row_arrays), rotations and
    world_inverse (N, 3, 3), rewritten; pseudo (2, N, 3), room for the push-out's
    pseudo-velocities; left (N,), each body's share of the substep; omega, zeta per row, the
    penalty method's springs (impulse False; empty otherwise). Arrays, not tuples: numba types
    an array argument in C but a tuple in Python, which cost 100 µs a call.

    Returns (DONE, whether anything was pushed out, push-out work, contact count, deepest
    penetration, no candidates), or (CCD, pushed, 0, 0, 0, none) when a body moves fast
    enough for CCD: the world then calls move itself, with pseudo[:, :N] if pushed; or
    (IMPACT, ..., the candidates of `advance_to_impact`) with nothing after prepare run: the
    world moves those pairs to their time of impact, then calls substep again with resume
    True, which skips the velocities and prepare (those rows are prepared again there) and
    runs the response on the prepared rows, then `move` with each body's share `left`."""
    no_candidates = np.empty(0, dtype=np.int64)
    if not resume:
        integrate_velocities(velocity, angular_velocity, inverse_mass, drag, lift, linear_damping,
                             angular_damping, awake, gravity, h)
        if len(rows):
            for i in range(len(rotations)):
                linalg.sandwich(rotations, inverse_inertia, i, world_inverse, i)
            prepare_rows(rows, a, b, points, point, normal, tangents, position, inverse_mass,
                         world_inverse, normal_rows, normal_response, normal_block, normal_inverse,
                         normal_vectors, subset_inverse, subset_ready, friction_rows,
                         friction_response, friction_mass)
            if impulse:
                candidates = _closing_free_rows(rows, a, b, shape, dynamic, isolated, points,
                                                separation, normal, normal_rows, velocity,
                                                angular_velocity, radius, gravity, h)
                if len(candidates):
                    return IMPACT, False, 0.0, np.int64(0), 0.0, candidates
    count = len(position)
    pushed = np.zeros((0, 3))
    pushed_spin = np.zeros((0, 3))
    with_friction = sweeps > 0  # a plain runtime flag: one compiled variant of the sweep
    unbounded = np.empty((0, POINTS))  # no ceiling on the impulses (_sweep)
    if len(rows) and impulse:
        ceiling = np.empty_like(bias)
        island, _ = row_islands(rows, a, b, dynamic, np.ones(len(rows), dtype=np.bool_))
        bouncing = _set_targets(rows, a, b, points, normal, normal_rows, separation, slop,
                                restitution, isolated, thin, incoming, bias, rebound_bias,
                                normal_impulse, ceiling, velocity, angular_velocity, gravity,
                                dynamic, h)
        _curving_targets(rows, a, b, points, point, normal, normal_rows, position, velocity,
                         angular_velocity, shape, thickness, feature, rotations, separation,
                         slop, dynamic, h, bias, rebound_bias)
        warm_start(rows, a, b, points, normal_rows, normal_response, friction_rows,
                   friction_response, normal_impulse, friction_impulse, bias, velocity,
                   angular_velocity)
        _sweep(rows, a, b, points, normal_rows, normal_response, normal_block, normal_inverse,
               subset_inverse, subset_ready, friction_rows, friction_response, friction_mass,
               friction, normal_impulse, friction_impulse, bias, unbounded, velocity,
               angular_velocity, sweeps, with_friction, island)
        polish(rows, a, b, points, normal_rows, normal_response, normal_block, subset_inverse,
               subset_ready, normal_impulse, bias, velocity, angular_velocity, dynamic,
               POLISH_STEPS * sweeps)
        if bouncing:
            bounce_ceilings(rows, points, restitution, normal_impulse, ceiling)
            _sweep(rows, a, b, points, normal_rows, normal_response, normal_block,
                   normal_inverse, subset_inverse, subset_ready, friction_rows,
                   friction_response, friction_mass, friction, normal_impulse,
                   friction_impulse, rebound_bias, ceiling, velocity, angular_velocity,
                   sweeps, not with_friction, island)
        remember_incoming(rows, points, separation, slop, normal_impulse, incoming)
        target = np.zeros_like(bias)
        if _push_targets(rows, a, b, points, point, normal, normal_rows, position, velocity,
                         angular_velocity, shape, thickness, feature, rotations, separation,
                         slop, h, target):
            pushed, pushed_spin = pseudo[0], pseudo[1]
            pushed[:] = 0.0
            pushed_spin[:] = 0.0
            _sweep(rows, a, b, points, normal_rows, normal_response, normal_block,
                   normal_inverse, subset_inverse, subset_ready, friction_rows,
                   friction_response, friction_mass, friction, np.zeros_like(target),
                   friction_impulse, target, unbounded, pushed, pushed_spin, sweeps,
                   not with_friction, island)
        resist_rolling(rows, a, b, points, point, normal, normal_impulse, position,
                       world_inverse, rolling_resistance, angular_velocity)
    elif len(rows):
        normal_spring = np.zeros_like(normal_impulse)
        friction_spring = np.zeros_like(friction_impulse)
        _spring_impulses(rows, a, b, points, separation, normal_rows, friction_rows,
                         friction_mass, friction, zeta, inverse_mass, omega, velocity,
                         angular_velocity, h, normal_spring, friction_spring)
        apply_impulses(rows, a, b, points, normal_response, friction_response, normal_spring,
                       friction_spring, velocity, angular_velocity)
    step = np.empty(count)
    if fast_bodies(velocity, angular_velocity, radius, thickness, awake, h, step):
        return CCD, len(pushed) > 0, 0.0, np.int64(0), 0.0, no_candidates
    for i in range(count):
        step[i] = h * left[i]
    work, touching, deepest = move(rows, position, orientation, velocity, angular_velocity,
                                   inertia, inverse_inertia, mass, awake, step, step, pushed,
                                   pushed_spin, gravity, rotations, points, separation,
                                   normal_impulse)
    return DONE, len(pushed) > 0, work, touching, deepest, no_candidates


@njit(cache=True)
def move(rows, position, orientation, velocity, angular_velocity, inertia, inverse_inertia, mass,
         awake, step, share, pushed, pushed_spin, gravity, rotations, points, separation,
         normal_impulse):
    """Positions and orientations advance by step (N,) seconds each of the share (N,) they had
    to move (integrate_positions; step < share where CCD holds a body), with the push-out's
    pseudo-velocities, if any ((N, 3) each, else empty), and their rotation matrices; returns
    (push-out work against gravity, points pushing or touching, deepest penetration)."""
    work = integrate_positions(position, orientation, velocity, angular_velocity, inertia,
                               inverse_inertia, mass, awake, step, share, pushed, pushed_spin,
                               gravity)
    linalg.matrices(orientation, rotations)
    count, deepest = np.int64(0), -np.inf
    for p in rows:
        for s in range(points[p]):
            count += normal_impulse[p, s] > 0.0 or separation[p, s] <= 0.0
            deepest = max(deepest, -separation[p, s])
    return work, count, deepest


@njit(cache=True)
def fast_bodies(velocity, angular_velocity, radius, thickness, awake, h, fast) -> bool:
    """fast[i] = 1 where awake body i moves more than CCD_FRACTION of its smallest half-width
    in a substep h (else 0); whether any does."""
    anyone = False
    for i in range(len(velocity)):
        speed = (linalg.norm(linalg.row(velocity, i))
                 + linalg.norm(linalg.row(angular_velocity, i)) * radius[i])
        moving = awake[i] and speed * h > CCD_FRACTION * thickness[i]
        fast[i] = 1.0 if moving else 0.0
        anyone |= moving
    return anyone
