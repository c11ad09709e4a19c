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

from . import linalg
from .constraints import POINTS


@njit(cache=True, inline="always")  # one caller: not compiled and emitted again on its own
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
        n = (normal[p, 0, 0], normal[p, 0, 1], normal[p, 0, 2])  # a view: two atomic counts
        for side in range(2):
            body, other = (a[p], b[p]) if side == 0 else (b[p], a[p])
            coefficient = rolling_resistance[body]
            if coefficient <= 0.0:
                continue
            w = np.empty(3)
            for k in range(3):
                w[k] = angular_velocity[body, k] - angular_velocity[other, k]
            along = w[0] * n[0] + w[1] * n[1] + w[2] * n[2]
            for k in range(3):
                w[k] -= along * n[k]
            rate = linalg.norm(w)
            if rate == 0.0:
                continue
            inverse = world_inverse_inertia[body]
            response = np.empty(3)
            for i in range(3):
                response[i] = (inverse[i, 0] * w[0] + inverse[i, 1] * w[1]
                               + inverse[i, 2] * w[2]) / rate
            stiffness = (w[0] * response[0] + w[1] * response[1] + w[2] * response[2]) / rate
            if stiffness <= 0.0:
                continue
            lever = abs((point[p, 0, 0] - position[body, 0]) * n[0]
                        + (point[p, 0, 1] - position[body, 1]) * n[1]
                        + (point[p, 0, 2] - position[body, 2]) * n[2])
            impulse = min(rate / stiffness, coefficient * pressed * lever)
            for k in range(3):
                angular_velocity[body, k] -= impulse * response[k]
