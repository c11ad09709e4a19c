"""Time integration: semi-implicit Euler for velocities and positions, and a rotation update that
keeps the angular momentum and energy of a torque-free body at any spin rate.

Velocities are updated first and the new velocities move the bodies (symplectic Euler). For the
rotation, ω = I_world⁻¹ L changes as the body turns even without torque (the gyroscopic term,
which makes a box tumble about its intermediate axis). Integrating ω explicitly gains energy, so
the body-frame momentum L_b follows Euler's equation dL_b/dt = L_b × I⁻¹ L_b by a midpoint
rule, which keeps |L_b| and the energy ½ L_b·I⁻¹L_b exactly (both are quadratic invariants):
the midpoint m = L_b + s m × I⁻¹m turns L_b by the Cayley map of -2s ω_m (ω_m = I⁻¹m), a
rotation by 2 atan(s|ω_m|) about ω_m, and the body turns by the same rotation, so the world L
is unchanged. With s = h/2 (the plain midpoint rule) a body spinning about a principal axis
turns by 2 atan(h|ω|/2) instead of h|ω| (0.4 % short at 50 rad/s and 240 substeps a second);
s = tan(h|ω_m|/2)/|ω_m| makes that angle exactly h|ω_m| and keeps both invariants, since any
midpoint step does. The midpoint equation is solved by fixed-point iteration, which contracts
by about h|L_b|(1/I_min - 1/I_max)/2 per pass, so the step is cut into sub-steps that keep that
small (the iteration then provably converges in a few passes), and a sub-step that
still has not converged is redone as two halves: an unconverged midpoint is never used.
"""

import numpy as np
from numba import njit

from . import linalg
from .aero import air_force

# The midpoint iteration stops when a pass changes m by less than this fraction of |L_b|. Only
# the anisotropic part of I⁻¹ makes the map m -> L_b + s m × I⁻¹m move (for I⁻¹ = c·1 the
# cross product is zero), so a pass contracts by at most about h|L_b|(λmax - λmin) of I⁻¹ /
# 2; sub-steps keep h|L_b|(λmax - λmin) within _SUBSTEP_CONTRACTION (contraction ≈ 0.3, so 40
# passes reach the tolerance with a wide margin: 0.3^40 ≈ 1e-21) and the turn h|ω| within
# _SUBSTEP_TURN radians (tan(h|ω|/2) stays far from its pole).
_MIDPOINT_TOLERANCE = 1e-14
_MIDPOINT_PASSES = 40
_SUBSTEP_CONTRACTION = 0.5
_SUBSTEP_TURN = 0.5
_HALVINGS = 20  # sub-step count doublings before giving up (never reached for finite input)
_TINY = np.finfo(float).tiny


@njit(cache=True)
def integrate_velocities(velocity, angular_velocity, inverse_mass, drag, lift, linear_damping,
                         angular_damping, awake, gravity, h) -> None:
    """v += h (g + F/m) for awake bodies, F the air force: the first half of semi-implicit
    Euler; then damping d (the fraction of velocity lost per second, as Blender's rigid bodies
    have it) scales v and ω by (1 - d)^h."""
    for i in range(len(velocity)):
        if awake[i]:
            force = air_force(linalg.row(velocity, i), linalg.row(angular_velocity, i), drag[i],
                              lift[i])
            keep = (1.0 - linear_damping[i]) ** h
            turn = (1.0 - angular_damping[i]) ** h
            for k in range(3):
                velocity[i, k] = keep * (velocity[i, k]
                                         + h * (gravity[k] + inverse_mass[i] * force[k]))
                angular_velocity[i, k] *= turn


@njit(cache=True, inline="always")  # one caller: not compiled and emitted again on its own
def integrate_positions(position, orientation, velocity, angular_velocity, inertia,
                        inverse_inertia, mass, awake, step, share, pseudo_velocity,
                        pseudo_angular_velocity, gravity) -> float:
    """x += h v and the momentum-keeping rotation for awake bodies (h = step[i] per body), plus
    the split-impulse push-out when pseudo-velocities are given (rows = bodies, else empty),
    which moves bodies without any momentum: ω turns with the body, so its kinetic energy stays
    exactly what it was. Returns the work the push-out did lifting bodies against gravity.

    share[i] is the time body i had to move (its part of the substep); continuous collision
    may let it move only step[i] of it. integrate_velocities gave it the whole share's gravity,
    but it falls only for step, so keeping that velocity would gain m g·v (share - step) of
    kinetic energy with no fall to pay for it: the velocity a body has reached when it stops
    is that of step seconds of fall, so the gravity of the rest is taken back before it moves
    (it then moves as semi-implicit Euler over step). The take-back only slows a fall, never
    turns it into a rise: the contacts of a body held up by them (sliding fast into a wall)
    cancelled that gravity already, and taking it back again would lift the body off."""
    pushed = len(pseudo_velocity) == len(position)
    work = 0.0
    identity = np.empty(4)
    rotation = np.empty((3, 3))
    # body i's rows, copied in and out: a view of each would cost two atomic reference counts
    v, q, omega = np.empty(3), np.empty(4), np.empty(3)
    body_inertia, body_inverse = np.empty((3, 3)), np.empty((3, 3))
    weight = linalg.norm(gravity)
    for i in range(len(position)):
        if not awake[i]:
            continue
        for k in range(3):
            v[k], omega[k] = velocity[i, k], angular_velocity[i, k]
            for m in range(3):
                body_inertia[k, m], body_inverse[k, m] = inertia[i, k, m], inverse_inertia[i, k, m]
        for k in range(4):
            q[k] = orientation[i, k]
        h = step[i]
        if share[i] > h and weight > 0.0:
            _take_back_gravity(v, gravity, weight, share[i] - h)
        for k in range(3):
            position[i, k] += h * v[k]
        if pushed:
            for k in range(3):
                lift = h * pseudo_velocity[i, k]
                position[i, k] += lift
                work -= mass[i] * lift * gravity[k]
            wx, wy, wz = pseudo_angular_velocity[i, 0], pseudo_angular_velocity[i, 1], \
                pseudo_angular_velocity[i, 2]
            linalg.turn(q, wx, wy, wz, h)
            identity[0], identity[1], identity[2], identity[3] = 1.0, 0.0, 0.0, 0.0
            linalg.turn(identity, wx, wy, wz, h)
            linalg.rotate_vector(identity, omega)
        rotate_keeping_momentum(q, omega, body_inertia, body_inverse, h, rotation)
        for k in range(3):
            velocity[i, k], angular_velocity[i, k] = v[k], omega[k]
        for k in range(4):
            orientation[i, k] = q[k]
    return work


@njit(cache=True)
def _take_back_gravity(v, gravity, weight, held) -> None:
    """v (3,) loses the velocity `held` seconds of gravity (|g| = weight) gave it along g, or
    only its speed along g if that is less."""
    falling = (v[0] * gravity[0] + v[1] * gravity[1] + v[2] * gravity[2]) / weight
    slower = min(weight * held, max(falling, 0.0)) / weight
    for k in range(3):
        v[k] -= slower * gravity[k]


@njit(cache=True)
def body_momentum(rotation, omega, inertia):
    """L_b = I_b Rᵀ ω (a 3-tuple): the body-frame angular momentum of world ω, which the
    torque-free turn keeps."""
    return _apply(inertia, _apply_transposed(rotation, (omega[0], omega[1], omega[2])))


@njit(cache=True)
def rotate_keeping_momentum(q, omega, inertia, inverse_inertia, h, rotation) -> None:
    """Turn orientation q (4,) and world ω (3,) in place by h seconds of torque-free rotation;
    rotation is (3, 3) scratch (3-vectors are tuples, so nothing is allocated per body)."""
    linalg.to_matrix(q, rotation)
    start = body_momentum(rotation, omega, inertia)
    momentum_world = _apply(rotation, start)
    lower, upper = eigenvalue_bounds(inverse_inertia)
    reach = linalg.norm(start) * h
    count = max(1, int(np.ceil(max(reach * (upper - lower) / _SUBSTEP_CONTRACTION,
                                   reach * upper / _SUBSTEP_TURN))))
    original = (q[0], q[1], q[2], q[3])
    momentum = start
    for _ in range(_HALVINGS):
        converged = True
        for _ in range(count):
            converged = _midpoint_turn(q, momentum, inverse_inertia, h / count, rotation)
            if not converged:
                break
            linalg.to_matrix(q, rotation)
            momentum = _apply_transposed(rotation, momentum_world)
        if converged:
            break
        q[0], q[1], q[2], q[3] = original
        linalg.to_matrix(q, rotation)
        momentum = start
        count *= 2
    new = _apply(rotation, _apply(inverse_inertia, momentum))
    omega[0], omega[1], omega[2] = new[0], new[1], new[2]


@njit(cache=True)
def _midpoint_turn(q, momentum, inverse_inertia, h, rotation) -> bool:
    """One midpoint step of h seconds from body-frame momentum L_b, rotation = q's matrix: q
    turned by h|ω_m| about ω_m; False (q untouched) if the midpoint iteration did not
    converge."""
    scale = max(linalg.norm(momentum), _TINY)
    midpoint = momentum
    for _ in range(_MIDPOINT_PASSES):
        spin = _apply(inverse_inertia, midpoint)
        turn = linalg.crossed(midpoint, spin)
        s = _half_step(spin, h)
        updated = (momentum[0] + s * turn[0], momentum[1] + s * turn[1],
                   momentum[2] + s * turn[2])
        change = linalg.norm((updated[0] - midpoint[0], updated[1] - midpoint[1],
                              updated[2] - midpoint[2])) / scale
        midpoint = updated
        if change <= _MIDPOINT_TOLERANCE:
            spin = _apply(rotation, _apply(inverse_inertia, midpoint))
            linalg.turn(q, spin[0], spin[1], spin[2], h)
            return True
    return False


@njit(cache=True)
def _half_step(spin, h) -> float:
    """s = tan(h|ω|/2)/|ω| (→ h/2 as ω → 0), so the Cayley turn 2 atan(s|ω|) is exactly h|ω|."""
    rate = linalg.norm(spin)
    half = 0.5 * h * rate
    return np.tan(half) / rate if half > 1e-8 else 0.5 * h


@njit(cache=True)
def eigenvalue_bounds(matrix):
    """(lower, upper) bounds of the eigenvalues of a symmetric (3, 3) matrix (Gershgorin's
    discs; exact for a diagonal one)."""
    lower, upper = np.inf, -np.inf
    for i in range(3):
        radius = abs(matrix[i, 0]) + abs(matrix[i, 1]) + abs(matrix[i, 2]) - abs(matrix[i, i])
        lower = min(lower, matrix[i, i] - radius)
        upper = max(upper, matrix[i, i] + radius)
    return lower, upper


@njit(cache=True)
def _apply_transposed(matrix, v):
    """matrixᵀ (3, 3) times the 3-vector v."""
    return (matrix[0, 0] * v[0] + matrix[1, 0] * v[1] + matrix[2, 0] * v[2],
            matrix[0, 1] * v[0] + matrix[1, 1] * v[1] + matrix[2, 1] * v[2],
            matrix[0, 2] * v[0] + matrix[1, 2] * v[1] + matrix[2, 2] * v[2])


@njit(cache=True)
def _apply(matrix, v):
    """matrix (3, 3) times the tuple v."""
    return (matrix[0, 0] * v[0] + matrix[0, 1] * v[1] + matrix[0, 2] * v[2],
            matrix[1, 0] * v[0] + matrix[1, 1] * v[1] + matrix[1, 2] * v[2],
            matrix[2, 0] * v[0] + matrix[2, 1] * v[1] + matrix[2, 2] * v[2])

