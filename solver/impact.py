"""Bounces of free bodies with the geometry of the instant they touch.

A pair that meets on its own (no third body touches either, and no gravity acts between them:
two bodies in flight, or zero gravity) bounces in the substep its gap closes (set_targets).
Its points and normal come from the narrow phase at the substep's start, while the bodies are
still apart: for a glancing hit of two billiard balls that normal is the line of centres some
millimetres before contact, and the balls leave up to 10 % off the closed form depending on
where in the substep they touch. Here such a pair is moved to its time of impact t
(conservative advancement, toi.time_of_impact_batch, with the velocities the substep moves the
bodies by), collided there and solved there, and then moves only the rest of the substep,
h - t: the bounce uses the points, normal and arms of the instant of contact, and since both
bodies take the impulse at one world point in that configuration, momentum and angular
momentum about any point are kept exactly (event-driven, as for a single collision). A pair
whose points seem to close within h but whose time of impact lies beyond it (a glancing
approach closes more slowly than its start normal says) is left alone this substep.
"""

import numpy as np
from numba import njit

from . import constraints, linalg
from .constraints import Manifolds, fill_rows, prepare_rows
from .contacts import find_contacts
from .integrate import rotate_keeping_momentum
from .shapes import BOX, SPHERE
from .toi import time_of_impact_batch


def advance_to_impact(m: Manifolds, candidates, bodies, rotations, world_inverse,
                      h: float) -> np.ndarray:
    """Move the free pairs among the prepared rows `candidates` (_closing_free_rows: all their
    points apart, one closing within this substep) to their time of impact t, collide them
    there and rewrite their rows (see the module notes); rotations and world_inverse follow
    the moved bodies. Returns (N,) the fraction of the substep each body has left to move
    (1 - t/h for the moved ones, 1 for the rest)."""
    b = bodies
    times = time_of_impact_batch(b.shape, b.position, b.orientation, b.half_extents,
                                 b.velocity, b.angular_velocity, m.pairs[candidates], h,
                                 bodies=b)
    remaining = np.ones(len(b))
    for p, t in zip(candidates, times, strict=True):
        i, j = int(m.a[p]), int(m.b[p])
        if not t <= h:  # they do not touch in this substep: nothing may bounce or brake yet
            _keep_apart(p, m.a, m.b, m.points, m.separation, m.normal_rows, b.velocity,
                        b.angular_velocity, h)
            continue
        if not (t > 0.0 and remaining[i] == 1.0 and remaining[j] == 1.0):
            continue
        both = np.array([i, j])
        _advance(both, b.dynamic, b.position, b.orientation, b.velocity, b.angular_velocity,
                 b.inertia, b.inverse_inertia, rotations, world_inverse, t)
        remaining[both] = 1.0 - t / h
        found = find_contacts(b.shape[both], b.position[both] - np.einsum(
            "nij,nj->ni", rotations[both], b.com_offset[both]), rotations[both],
            b.half_extents[both], np.array([[0, 1]]), margin=float(m.slop[p]))
        row = np.array([p])
        fill_rows(row, np.array([0, len(found)]), found.point, found.normal, found.depth,
                  found.feature, m.a, m.b, b.shape.astype(np.int64), b.position,
                  b.orientation, rotations, b.com_offset, m.points, m.feature, m.normal,
                  m.tangents, m.point, m.anchor_a, m.anchor_b, m.base, m.separation,
                  m.relative, m.orientation_a, m.orientation_b, m.normal_impulse, m.incoming,
                  m.friction_impulse, m.apart)
        prepare_rows(row, m.a, m.b, m.points, m.point, m.normal, m.tangents, b.position,
                     b.inverse_mass, world_inverse, m.normal_rows, m.normal_response,
                     m.normal_block, m.normal_inverse, m.normal_vectors, m.subset_inverse,
                     m.subset_ready, m.friction_rows, m.friction_response, m.friction_mass)
    return remaining


@njit(cache=True)
def _advance(both, dynamic, position, orientation, velocity, angular_velocity, inertia,
             inverse_inertia, rotations, world_inverse, t) -> None:
    """Free flight of bodies `both` for t: x += v t, and the torque-free rotation (dynamic) or
    a turn at constant ω (kinematic); their rotation matrices and world inverse inertias."""
    scratch = np.empty((3, 3))
    for k in both:
        for d in range(3):
            position[k, d] += velocity[k, d] * t
        if dynamic[k]:
            rotate_keeping_momentum(orientation[k], angular_velocity[k], inertia[k],
                                    inverse_inertia[k], t, scratch)
        else:
            w = angular_velocity[k]
            linalg.turn(orientation[k], w[0], w[1], w[2], t)
        linalg.to_matrix(orientation[k], rotations[k])
        linalg.sandwich(rotations, inverse_inertia, k, world_inverse, k)


@njit(cache=True)
def _closing_free_rows(rows, a, b, shape, dynamic, isolated, points, separation, normal,
                       normal_rows, velocity, angular_velocity, radius, gravity, h):
    """Rows of isolated box/sphere pairs with no gravity between them (as set_targets' `free`)
    whose points are all apart and one of which may close its gap within h: along its normal,
    plus the turns' |ω| r (radius (N,) about the centres of mass), since a spinning body's rim
    comes round on an arc that the points' straight lines miss (a plate at 60 rad/s went from
    6 mm apart to 0.7 mm deep in one substep)."""
    out = np.empty(len(rows), dtype=np.int64)
    count = 0
    v12 = np.empty(12)
    for p in rows:
        i, j = a[p], b[p]
        if (not isolated[p] or points[p] == 0 or not (shape[i] == BOX or shape[i] == SPHERE)
                or not (shape[j] == BOX or shape[j] == SPHERE)):
            continue
        pull = (1.0 if dynamic[j] else 0.0) - (1.0 if dynamic[i] else 0.0)
        along = normal[p, 0, 0] * gravity[0] + normal[p, 0, 1] * gravity[1] \
            + normal[p, 0, 2] * gravity[2]
        if pull * along != 0.0:
            continue
        constraints.gather(velocity, angular_velocity, i, j, v12)
        spin = (linalg.norm(angular_velocity[i]) * radius[i]
                + linalg.norm(angular_velocity[j]) * radius[j])
        apart, closing = True, False
        for s in range(points[p]):
            apart &= separation[p, s] > 0.0
            speed = 0.0
            for k in range(12):
                speed -= normal_rows[p, s, k] * v12[k]
            closing |= (speed + spin) * h >= separation[p, s]
        if apart and closing:
            out[count] = p
            count += 1
    return out[:count]


@njit(cache=True)
def _keep_apart(p, a, b, points, separation, normal_rows, velocity, angular_velocity,
                h) -> None:
    """Row p's separations raised to more than each point closes along its normal in h: the
    pair's true time of impact lies beyond this substep (a glancing approach closes more slowly
    than its start normal says), so its speculative points must neither bounce nor brake."""
    v12 = np.empty(12)
    constraints.gather(velocity, angular_velocity, a[p], b[p], v12)
    for s in range(points[p]):
        speed = 0.0
        for k in range(12):
            speed -= normal_rows[p, s, k] * v12[k]
        separation[p, s] = max(separation[p, s], (1.0 + 1e-9) * speed * h)
