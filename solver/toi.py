"""Time of first contact of moving shapes (continuous collision detection), batched over pairs.

The thesis time-stamps the separating axis: while some axis still separates the boxes they have
not met, and the last stamp before the SAT fails is the contact time. Here the stamps are chosen
by conservative advancement: the SAT gap s(t) never exceeds the true distance, and the distance
cannot shrink faster than mu = |vb - va| + |wa| ra + |wb| rb (ra, rb = the shapes' bounding
radii about their centres), so after a step of s / mu the shapes still have not touched. The
steps shrink as the gap closes; the gap is zero exactly when the shapes touch.

Motion: each shape centre moves with constant linear velocity and the shape turns about its
centre with constant world angular velocity (exact exponential map), as over one substep.
"""

import numpy as np

from . import manifold, quaternion
from .sat import box_box_sat
from .shapes import BOX, SPHERE, Box, Sphere, pack

# Contact is declared when the gap is within this fraction of the pair's size (about 1e-9 m for
# metre-sized bodies): the time error is this over the closing speed.
GAP_TOLERANCE = 1e-9
MAX_STEPS = 10_000  # a safety net; pairs still unresolved keep their (early, safe) time


def separation(shape, centers, rotations, half_extents, pairs) -> np.ndarray:
    """(P,) gap of each pair: > 0 apart (a lower bound of the distance for two boxes, exact for
    spheres), 0 touching, < 0 minus the penetration depth."""
    i, j = pairs[:, 0], pairs[:, 1]
    out = np.empty(len(pairs))
    boxes = (shape[i] == BOX) & (shape[j] == BOX)
    if boxes.any():
        a, b = i[boxes], j[boxes]
        out[boxes] = box_box_sat(
            centers[a], rotations[a], half_extents[a], centers[b], rotations[b], half_extents[b]
        ).separation
    balls = (shape[i] == SPHERE) & (shape[j] == SPHERE)
    if balls.any():
        a, b = i[balls], j[balls]
        out[balls] = -manifold.sphere_sphere(
            centers[a], half_extents[a, 0], centers[b], half_extents[b, 0], np.inf
        ).depth
    mixed = shape[i] != shape[j]
    if mixed.any():
        box = np.where(shape[i] == BOX, i, j)[mixed]
        ball = np.where(shape[i] == BOX, j, i)[mixed]
        out[mixed] = -manifold.box_sphere(
            centers[box],
            rotations[box],
            half_extents[box],
            centers[ball],
            half_extents[ball, 0],
            np.inf,
        ).depth
    return out


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
) -> np.ndarray:
    """(P,) first time in [0, t_max] at which each pair's gap reaches `target_distance` (a
    number, or one per pair; negative = that deep); inf when it does not within t_max. 0 for
    pairs already that close.

    shape (N,) BOX / SPHERE; centers (N, 3); orientations (N, 4) quaternions (w, x, y, z);
    half_extents (N, 3) (a sphere's row is (r, r, r)); linear_velocities (N, 3) of the centres;
    angular_velocities (N, 3) world frame; pairs (P, 2).
    """
    shape = np.asarray(shape)
    centers = np.asarray(centers, dtype=float)
    orientations = np.asarray(orientations, dtype=float)
    half_extents = np.asarray(half_extents, dtype=float)
    v = np.asarray(linear_velocities, dtype=float)
    w = np.asarray(angular_velocities, dtype=float)
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    i, j = pairs[:, 0], pairs[:, 1]

    radius = np.where(shape == SPHERE, 0.0, np.linalg.norm(half_extents, axis=1))
    spin = np.linalg.norm(w, axis=1) * radius
    closing = np.linalg.norm(v[j] - v[i], axis=1) + spin[i] + spin[j]
    tolerance = GAP_TOLERANCE * np.maximum(
        radius[i] + radius[j], half_extents[i, 0] + half_extents[j, 0]
    )

    target = np.broadcast_to(np.asarray(target_distance, dtype=float), (len(pairs),))
    result = np.full(len(pairs), np.inf)
    t = np.zeros(len(pairs))
    active = np.arange(len(pairs))
    for _ in range(MAX_STEPS):
        if not len(active):
            break
        a, b = i[active], j[active]
        # the two shapes of every active pair, posed at that pair's own time
        body = np.concatenate([a, b])
        when = np.concatenate([t[active], t[active]])
        posed = np.arange(len(body)).reshape(2, -1).T
        rotations = quaternion.to_matrix(quaternion.integrate(orientations[body], w[body], when))
        gap = (
            separation(
                shape[body],
                centers[body] + v[body] * when[:, None],
                rotations,
                half_extents[body],
                posed,
            )
            - target[active]
        )
        touching = gap <= tolerance[active]
        result[active[touching]] = t[active[touching]]
        with np.errstate(divide="ignore"):
            t_next = t[active] + gap / closing[active]
        moving = ~touching & (t_next <= t_max)
        t[active[moving]] = t_next[moving]
        active = active[moving]
    result[active] = t[active]
    return result


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
