"""Rolling resistance: a body rolling on another feels a torque c_rr N r against its rolling.

c_rr is the body's dimensionless coefficient, N the contact's normal force and r the body's
lever over the contact (its centre's distance from the contact plane: a sphere's radius). Each
substep, after the contact sweeps, the spin of a body relative to the other about the axes in
the contact plane is braked by an angular impulse of at most c_rr λ_n r, λ_n the manifold's
normal impulse, and never past stopping it, so it can only brake; the friction of the next
substep then slows the body's travel to match, which gives a rolled solid sphere the
deceleration (5/7) c_rr g.
"""

import numpy as np
from numba import njit

from .constraints import POINTS


@njit(cache=True)
def resist_rolling(rows, a, b, points, point, normal, normal_impulse, position,
                   world_inverse_inertia, rolling_resistance, angular_velocity) -> None:
    """Brake, in place, the angular velocity (N, 3) of each body of the manifolds `rows` that
    has a rolling resistance, by the angular impulse described above."""
    for p in rows:
        count = points[p]
        if count == 0:
            continue
        pressed = 0.0
        for s in range(min(count, POINTS)):
            pressed += normal_impulse[p, s]
        if pressed <= 0.0:
            continue
        n = normal[p, 0]
        for side in range(2):
            body, other = (a[p], b[p]) if side == 0 else (b[p], a[p])
            coefficient = rolling_resistance[body]
            if coefficient <= 0.0:
                continue
            w = angular_velocity[body] - angular_velocity[other]
            w = w - np.dot(w, n) * n
            rate = np.sqrt(np.dot(w, w))
            if rate == 0.0:
                continue
            axis = w / rate
            response = world_inverse_inertia[body] @ axis
            stiffness = np.dot(axis, response)
            if stiffness <= 0.0:
                continue
            lever = abs(np.dot(point[p, 0] - position[body], n))
            impulse = min(rate / stiffness, coefficient * pressed * lever)
            for k in range(3):
                angular_velocity[body, k] -= impulse * response[k]
