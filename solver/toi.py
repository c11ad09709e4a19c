"""Time of first contact of moving shapes (continuous collision detection), compiled per pair.

The thesis time-stamps the separating axis: while some axis still separates the boxes they have
not met, and the last stamp before the SAT fails is the contact time. Here the stamps are chosen
by conservative advancement along that axis. At time t the SAT gives the largest gap s and its
direction n. Held fixed in the world, n keeps giving a lower bound of the distance, and the gap
along it cannot shrink faster than mu = |n·(vb - va)| + |n × wa| ra + |n × wb| rb (ra, rb = the
shapes' bounding radii about their centres: a turning shape's support along n moves at most
|n × w| r), so after a step of s / mu the shapes still have not touched. The steps shrink as the
gap closes; the gap is zero exactly when the shapes touch. Motion across n (sliding along a
wall, spinning about the contact normal) costs no steps: mu only sees what closes the gap.

Motion: each shape centre moves with constant linear velocity and the shape turns about its
centre with constant world angular velocity (exact exponential map). Given the world's bodies,
the motion is the integrator's instead: the centre of mass moves at constant velocity, a
dynamic body turns torque-free (integrate.rotate_keeping_momentum, so the pose at the time found
is the one the substep then moves the body to) and its shape centre follows the turn. A
torque-free ω changes as the body turns (an asymmetric plate at 60 rad/s: the corners of the two
motions part by 1.6 mm in a 240 Hz substep, several slops); |dω/dt| = |I⁻¹(L_b × ω_b)| is at most
B = λmax (λmax - λmin) |L|² / 2 (eigenvalues of I⁻¹), so over a step τ the gap along n shrinks by
at most c τ + β τ² / 2 (c the closing speed now, β = Σ B r), and the step solves that for the gap.
"""


import numpy as np
from numba import njit

from . import linalg, manifold
from .contacts import bodies_gap, closing_speed
from .integrate import body_momentum, eigenvalue_bounds, rotate_keeping_momentum
from .sat import sat_pair
from .shapes import BOX, SPHERE, Box, Sphere, pack

# Contact is declared when the gap is within this fraction of the pair's size (about 1e-9 m for
# metre-sized bodies): the time error is this over the closing speed.
GAP_TOLERANCE = 1e-9
# Advancement steps per pair at most, so the cost per pair is bounded (about a microsecond per
# step). A pair approaching along n resolves in a few steps; only one whose gap direction keeps
# turning (a box tumbling near a surface) can use them all, and it keeps the (early, safe) time
# reached so far.
MAX_STEPS = 100


@njit(cache=True)
def pair_gap(kind_a, kind_b, ca, Ra, ha, cb, Rb, hb, direction):
    """Gap of two shapes: > 0 apart (a lower bound of the distance for two boxes, exact for
    spheres), 0 touching, < 0 minus the penetration depth; writes the unit direction (3,) it is
    measured along, the gap along which (held fixed) stays a lower bound of the distance."""
    if kind_a == BOX and kind_b == BOX:
        return sat_pair(ca, Ra, ha, cb, Rb, hb, direction, 0.0)[0]
    point, normal = np.empty((1, 3)), np.empty((1, 3))
    depth, feature = np.empty(1), np.empty(1, np.int64)
    row = np.int64(0)  # not the literal 0, which numba would compile a second variant for
    if kind_a == SPHERE and kind_b == SPHERE:
        manifold.sphere_sphere(ca, ha[0], cb, hb[0], np.inf, point, normal, depth, feature, row)
    elif kind_a == BOX:
        manifold.box_sphere(ca, Ra, ha, cb, hb[0], np.inf, point, normal, depth, feature, row)
    else:
        manifold.box_sphere(cb, Rb, hb, ca, ha[0], np.inf, point, normal, depth, feature, row)
    for k in range(3):
        direction[k] = normal[0, k]
    return -depth[0]


@njit(cache=True)
def pose(center, q, v, w, offset, inertia, inverse_inertia, free, t, out_center, out_q,
         out_rotation, out_w):
    """Centre, orientation, rotation matrix and world ω (out_w) of a body moved for time t
    from centre of mass `center`: x + v t, and q turned torque-free (free) or by the exact
    exponential map exp(w t / 2) ⊗ q; the shape centre is x - R c (c = offset)."""
    out_q[:] = q
    out_w[:] = w
    if free:
        rotate_keeping_momentum(out_q, out_w, inertia, inverse_inertia, t, out_rotation)
    else:
        linalg.turn(out_q, w[0], w[1], w[2], t)
    linalg.to_matrix(out_q, out_rotation)
    for k in range(3):
        out_center[k] = center[k] + v[k] * t - (out_rotation[k, 0] * offset[0]
                                                + out_rotation[k, 1] * offset[1]
                                                + out_rotation[k, 2] * offset[2])


@njit(cache=True)
def _spin_bounds(q, w, inertia, inverse_inertia, free):
    """(the largest |ω| and the largest |dω/dt| over a body's motion): |w| and 0 at constant
    ω; torque-free, λmax |L| and λmax (λmax - λmin) |L|² / 2 (see the module notes)."""
    if not free:
        return linalg.norm(w), 0.0
    rotation = np.empty((3, 3))
    linalg.to_matrix(q, rotation)
    momentum = linalg.norm(body_momentum(rotation, w, inertia))
    lower, upper = eigenvalue_bounds(inverse_inertia)
    return upper * momentum, 0.5 * upper * (upper - lower) * momentum * momentum


@njit(cache=True, inline="always")  # one caller: not compiled and emitted again on its own
def pair_time_of_impact(shape, centers, orientations, half_extents, v, w, offsets, inertia,
                        inverse_inertia, free, i, j, t_max, target, tables):
    """First time in [0, t_max] at which the gap of bodies i and j reaches `target` by
    conservative advancement; inf if it does not; the time reached after MAX_STEPS steps if it
    has not decided by then. Bodies move as the module notes say (centres of mass `centers`,
    shape centres offset by `offsets`; free: turning torque-free). Bodies other than boxes and
    spheres advance by their closest part pairs (contacts.bodies_gap, with the world's part
    `tables`; None when there are none)."""
    radius_i = (0.0 if shape[i] == SPHERE else linalg.norm(half_extents[i])) \
        + linalg.norm(offsets[i])
    radius_j = (0.0 if shape[j] == SPHERE else linalg.norm(half_extents[j])) \
        + linalg.norm(offsets[j])
    fastest_i, change_i = _spin_bounds(orientations[i], w[i], inertia[i], inverse_inertia[i],
                                       free[i])
    fastest_j, change_j = _spin_bounds(orientations[j], w[j], inertia[j], inverse_inertia[j],
                                       free[j])
    curving = change_i * radius_i + change_j * radius_j  # β
    reach = (linalg.norm(v[j] - v[i]) + fastest_i * radius_i
             + fastest_j * radius_j) * t_max  # the most the pair can close
    tolerance = GAP_TOLERANCE * max(radius_i + radius_j,
                                    half_extents[i, 0] + half_extents[j, 0])
    ci, cj, n = np.empty(3), np.empty(3), np.empty(3)
    qi, qj = np.empty(4), np.empty(4)
    wi, wj = np.empty(3), np.empty(3)
    Ri, Rj = np.empty((3, 3)), np.empty((3, 3))
    relative = np.empty(3)
    for k in range(3):
        relative[k] = v[j, k] - v[i, k]
    step = np.empty(1)
    t = 0.0
    for _ in range(MAX_STEPS):
        pose(centers[i], orientations[i], v[i], w[i], offsets[i], inertia[i],
             inverse_inertia[i], free[i], t, ci, qi, Ri, wi)
        pose(centers[j], orientations[j], v[j], w[j], offsets[j], inertia[j],
             inverse_inertia[j], free[j], t, cj, qj, Rj, wj)
        if tables is not None and (shape[i] > SPHERE or shape[j] > SPHERE):
            gap = bodies_gap(tables, i, ci, Ri, j, cj, Rj, reach + abs(target), target,
                             relative, wi, radius_i, wj, radius_j, step)
        else:
            gap = pair_gap(shape[i], shape[j], ci, Ri, half_extents[i], cj, Rj,
                           half_extents[j], n) - target
            closing = closing_speed(n, relative, wi, radius_i, wj, radius_j)
            step[0] = gap / closing if closing > 0.0 else np.inf
        if gap <= tolerance:
            return t
        if curving > 0.0:  # c τ + β τ² / 2 = gap, c = gap / step (a lower bound of each
            closing = gap / step[0]  # part pair's own: their gaps are no smaller)
            step[0] = 2.0 * gap / (closing + np.sqrt(closing * closing + 2.0 * curving * gap))
        if not t + step[0] <= t_max:
            return np.inf
        t += step[0]
    return t


@njit(cache=True)
def _all_times(shape, centers, orientations, half_extents, v, w, offsets, inertia,
               inverse_inertia, free, pairs, t_max, target, tables, out):
    for p in range(len(pairs)):
        out[p] = pair_time_of_impact(shape, centers, orientations, half_extents, v, w, offsets,
                                     inertia, inverse_inertia, free, pairs[p, 0], pairs[p, 1],
                                     t_max, target[p], tables)


def time_of_impact_batch(
    shape,
    centers,
    orientations,
    half_extents,
    linear_velocities,
    angular_velocities,
    pairs,
    t_max: float,
    target_distance: float = 0.0,
    tables=None,
    bodies=None,
) -> np.ndarray:
    """(P,) first time in [0, t_max] at which each pair's gap reaches `target_distance` (a
    number, or one per pair; negative = that deep); inf when it does not within t_max. 0 for
    pairs already that close.

    shape (N,) body shape codes; centers (N, 3); orientations (N, 4) quaternions (w, x, y, z);
    half_extents (N, 3) (a sphere's row is (r, r, r)); linear_velocities (N, 3) of the centres;
    angular_velocities (N, 3) world frame; pairs (P, 2); tables: the world's part tables
    (solver.geometry), needed once any shape is not a box or sphere. bodies: the world's
    Bodies, whose motion the pairs then follow (module notes): centers and linear velocities
    are then of the centres of mass.
    """
    pairs = np.ascontiguousarray(pairs, dtype=np.int64).reshape(-1, 2)
    target = np.empty(len(pairs))  # writable whatever the count (one kernel variant)
    target[:] = target_distance
    count = len(shape)
    if bodies is None:
        offsets, inertia = np.zeros((count, 3)), np.zeros((count, 3, 3))
        inverse, free = inertia, np.zeros(count, dtype=np.bool_)
    else:
        offsets, inertia, inverse, free = (bodies.com_offset, bodies.inertia,
                                           bodies.inverse_inertia, bodies.dynamic)
    out = np.empty(len(pairs))
    _all_times(
        np.ascontiguousarray(shape, dtype=np.int64).reshape(-1),
        *(np.ascontiguousarray(x, dtype=np.float64) for x in (
            centers, orientations, half_extents, linear_velocities, angular_velocities,
            offsets, inertia, inverse)),
        np.ascontiguousarray(free, dtype=np.bool_), pairs, float(t_max), target,
        None if np.max(shape, initial=BOX) <= SPHERE else tables, out)
    return out


def time_of_impact(
    a: Box | Sphere,
    b: Box | Sphere,
    linear_velocity_a,
    angular_velocity_a,
    linear_velocity_b,
    angular_velocity_b,
    t_max: float,
    target_distance: float = 0.0,
) -> float | None:
    """First time in [0, t_max] at which two moving shapes come within `target_distance`
    (0 = touching), or None if they do not. Velocities (3,) of the shape centres, angular ones in
    the world frame."""
    kind, centers, orientations, half = pack([a, b])
    t = time_of_impact_batch(
        kind,
        centers,
        orientations,
        half,
        np.array([linear_velocity_a, linear_velocity_b], dtype=float),
        np.array([angular_velocity_a, angular_velocity_b], dtype=float),
        np.array([[0, 1]]),
        t_max,
        target_distance,
    )[0]
    return None if np.isinf(t) else float(t)
