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
centre with constant world angular velocity (exact exponential map), as over one substep.
"""


import numpy as np
from numba import njit

from . import linalg, manifold
from .contacts import bodies_gap, closing_speed
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
def _pose(center, q, v, w, t, out_center, out_q, out_rotation):
    """Centre and rotation matrix of a shape moved for time t: x + v t, and q turned by the
    exact exponential map exp(w t / 2) ⊗ q (renormalised)."""
    out_q[:] = q
    linalg.turn(out_q, w[0], w[1], w[2], t)
    linalg.to_matrix(out_q, out_rotation)
    for k in range(3):
        out_center[k] = center[k] + v[k] * t


@njit(cache=True)
def pair_time_of_impact(shape, centers, orientations, half_extents, v, w, i, j, t_max, target,
                        tables):
    """First time in [0, t_max] at which the gap of bodies i and j reaches `target` by
    conservative advancement; inf if it does not; the time reached after MAX_STEPS steps if it
    has not decided by then. Bodies other than boxes and spheres advance by their closest part
    pairs (contacts.bodies_gap, with the world's part `tables`; None when there are none)."""
    radius_i = 0.0 if shape[i] == SPHERE else linalg.norm(half_extents[i])
    radius_j = 0.0 if shape[j] == SPHERE else linalg.norm(half_extents[j])
    reach = (linalg.norm(v[j] - v[i]) + linalg.norm(w[i]) * radius_i
             + linalg.norm(w[j]) * radius_j) * t_max  # the most the pair can close
    tolerance = GAP_TOLERANCE * max(radius_i + radius_j,
                                    half_extents[i, 0] + half_extents[j, 0])
    ci, cj, n = np.empty(3), np.empty(3), np.empty(3)
    qi, qj = np.empty(4), np.empty(4)
    Ri, Rj = np.empty((3, 3)), np.empty((3, 3))
    relative = np.empty(3)
    for k in range(3):
        relative[k] = v[j, k] - v[i, k]
    step = np.empty(1)
    t = 0.0
    for _ in range(MAX_STEPS):
        _pose(centers[i], orientations[i], v[i], w[i], t, ci, qi, Ri)
        _pose(centers[j], orientations[j], v[j], w[j], t, cj, qj, Rj)
        if tables is not None and (shape[i] > SPHERE or shape[j] > SPHERE):
            gap = bodies_gap(tables, i, ci, Ri, j, cj, Rj, reach + abs(target), target,
                             relative, w[i], radius_i, w[j], radius_j, step)
        else:
            gap = pair_gap(shape[i], shape[j], ci, Ri, half_extents[i], cj, Rj,
                           half_extents[j], n) - target
            closing = closing_speed(n, relative, w[i], radius_i, w[j], radius_j)
            step[0] = gap / closing if closing > 0.0 else np.inf
        if gap <= tolerance:
            return t
        if not t + step[0] <= t_max:
            return np.inf
        t += step[0]
    return t


@njit(cache=True)
def _all_times(shape, centers, orientations, half_extents, v, w, pairs, t_max, target, tables,
               out):
    for p in range(len(pairs)):
        out[p] = pair_time_of_impact(shape, centers, orientations, half_extents, v, w,
                                     pairs[p, 0], pairs[p, 1], t_max, target[p], tables)


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
) -> np.ndarray:
    """(P,) first time in [0, t_max] at which each pair's gap reaches `target_distance` (a
    number, or one per pair; negative = that deep); inf when it does not within t_max. 0 for
    pairs already that close.

    shape (N,) body shape codes; centers (N, 3); orientations (N, 4) quaternions (w, x, y, z);
    half_extents (N, 3) (a sphere's row is (r, r, r)); linear_velocities (N, 3) of the centres;
    angular_velocities (N, 3) world frame; pairs (P, 2); tables: the world's part tables
    (solver.geometry), needed once any shape is not a box or sphere.
    """
    pairs = np.ascontiguousarray(pairs, dtype=np.int64).reshape(-1, 2)
    target = np.empty(len(pairs))  # writable whatever the count (one kernel variant)
    target[:] = target_distance
    out = np.empty(len(pairs))
    _all_times(
        np.ascontiguousarray(shape, dtype=np.int64).reshape(-1),
        *(np.ascontiguousarray(x, dtype=np.float64) for x in (
            centers, orientations, half_extents, linear_velocities, angular_velocities)),
        pairs, float(t_max), target,
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
