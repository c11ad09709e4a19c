"""Time integration: semi-implicit Euler for velocities and positions, and a rotation update that
keeps the angular momentum of a torque-free body.

Velocities are updated first and the new velocities move the bodies (symplectic Euler). For the
rotation, ω = I_world⁻¹ L changes as the body turns even without torque (the gyroscopic term,
which makes a box tumble about its intermediate axis). Integrating ω explicitly gains energy, so
the body-frame momentum L_b follows Euler's equation dL_b/dt = L_b × I⁻¹ L_b by the implicit
midpoint rule, which keeps |L_b| and the energy ½ L_b·I⁻¹L_b exactly (both are quadratic
invariants). That step is the rotation of L_b by the Cayley map of -h ω_mid, so the body turns by
the same rotation, 2 atan(h|ω_mid|/2) about ω_mid, through the quaternion exponential; the world
L is then unchanged and the new ω is recovered as I_world⁻¹ L.
"""

import numpy as np
from numba import njit

from . import linalg
from .aero import air_force

# The midpoint equation is solved by fixed-point iteration, which contracts by about h|ω| per
# pass; these bound it well past double precision for any sensible step.
_MIDPOINT_TOLERANCE = 1e-15
_MIDPOINT_PASSES = 60
_TINY = np.finfo(float).tiny


@njit(cache=True)
def integrate_velocities(velocity, angular_velocity, inverse_mass, drag, lift, linear_damping,
                         angular_damping, awake, gravity, h) -> None:
    """v += h (g + F/m) for awake bodies, F the air force: the first half of semi-implicit
    Euler; then damping d (the fraction of velocity lost per second, as Blender's rigid bodies
    have it) scales v and ω by (1 - d)^h."""
    for i in range(len(velocity)):
        if awake[i]:
            force = air_force(velocity[i], angular_velocity[i], drag[i], lift[i])
            keep = (1.0 - linear_damping[i]) ** h
            turn = (1.0 - angular_damping[i]) ** h
            for k in range(3):
                velocity[i, k] = keep * (velocity[i, k]
                                         + h * (gravity[k] + inverse_mass[i] * force[k]))
                angular_velocity[i, k] *= turn


@njit(cache=True)
def integrate_positions(position, orientation, velocity, angular_velocity, inertia,
                        inverse_inertia, mass, awake, step, pseudo_velocity,
                        pseudo_angular_velocity, gravity) -> float:
    """x += h v and the momentum-keeping rotation for awake bodies (h = step[i] per body), plus
    the split-impulse push-out when pseudo-velocities are given (rows = bodies, else empty),
    which moves bodies without any momentum: ω turns with the body, so its kinetic energy stays
    exactly what it was. Returns the work the push-out did lifting bodies against gravity."""
    pushed = len(pseudo_velocity) == len(position)
    work = 0.0
    identity = np.empty(4)
    rotation = np.empty((3, 3))
    world_inverse = np.empty((3, 3))
    for i in range(len(position)):
        if not awake[i]:
            continue
        h = step[i]
        for k in range(3):
            position[i, k] += h * velocity[i, k]
        if pushed:
            for k in range(3):
                lift = h * pseudo_velocity[i, k]
                position[i, k] += lift
                work -= mass[i] * lift * gravity[k]
            wx, wy, wz = pseudo_angular_velocity[i, 0], pseudo_angular_velocity[i, 1], \
                pseudo_angular_velocity[i, 2]
            linalg.turn(orientation[i], wx, wy, wz, h)
            identity[0], identity[1], identity[2], identity[3] = 1.0, 0.0, 0.0, 0.0
            linalg.turn(identity, wx, wy, wz, h)
            linalg.rotate_vector(identity, angular_velocity[i])
        rotate_keeping_momentum(orientation[i], angular_velocity[i], inertia[i],
                                inverse_inertia[i], h, rotation, world_inverse)
    return work


@njit(cache=True)
def rotate_keeping_momentum(q, omega, inertia, inverse_inertia, h, rotation,
                            world_inverse) -> None:
    """Turn orientation q (4,) and world ω (3,) in place by h seconds of torque-free rotation;
    rotation and world_inverse are (3, 3) scratch (3-vectors are tuples, so nothing is
    allocated per body)."""
    linalg.to_matrix(q, rotation)
    omega_body = _apply(rotation.T, (omega[0], omega[1], omega[2]))
    momentum_body = _apply(inertia, omega_body)
    momentum_world = _apply(rotation, momentum_body)
    scale = max(linalg.norm(momentum_body), _TINY)
    midpoint = momentum_body
    for _ in range(_MIDPOINT_PASSES):
        spin = _apply(inverse_inertia, midpoint)
        turn = _cross(midpoint, spin)
        updated = (momentum_body[0] + 0.5 * h * turn[0], momentum_body[1] + 0.5 * h * turn[1],
                   momentum_body[2] + 0.5 * h * turn[2])
        change = linalg.norm((updated[0] - midpoint[0], updated[1] - midpoint[1],
                          updated[2] - midpoint[2])) / scale
        midpoint = updated
        if change <= _MIDPOINT_TOLERANCE:
            break
    spin = _apply(inverse_inertia, midpoint)
    rate = linalg.norm(spin)
    stretch = 2.0 * np.arctan(0.5 * h * rate) / (h * rate) if h * rate > 0.0 else 1.0
    spin_world = _apply(rotation, spin)
    linalg.turn(q, spin_world[0] * stretch, spin_world[1] * stretch, spin_world[2] * stretch, h)
    linalg.to_matrix(q, rotation)
    linalg.sandwich(rotation, inverse_inertia, world_inverse)
    new = _apply(world_inverse, momentum_world)
    omega[0], omega[1], omega[2] = new[0], new[1], new[2]


@njit(cache=True)
def _apply(matrix, v):
    """matrix (3, 3) times the tuple v."""
    return (matrix[0, 0] * v[0] + matrix[0, 1] * v[1] + matrix[0, 2] * v[2],
            matrix[1, 0] * v[0] + matrix[1, 1] * v[1] + matrix[1, 2] * v[2],
            matrix[2, 0] * v[0] + matrix[2, 1] * v[1] + matrix[2, 2] * v[2])


@njit(cache=True)
def _cross(u, v):
    return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])

