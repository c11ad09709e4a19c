"""Air forces of the golf-ball lab (the Swedish notes): quadratic drag and Magnus lift.

Both are per-body coefficients, zero by default, in the simplest forms that show the effects:
drag F = -k_d |v| v (k_d = ½ ρ C_d A, kg/m) and Magnus lift F = k_l ω × v (k_l in kg), which
curves a spinning ball sideways or, with backspin, holds it up.
"""

import numpy as np
from numba import njit


@njit(cache=True)
def air_force(v: np.ndarray, w: np.ndarray, drag: float, lift: float):
    """(Fx, Fy, Fz): drag plus Magnus force on a body moving at v (3,) and spinning at ω (3,)."""
    speed = np.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    return (-drag * speed * v[0] + lift * (w[1] * v[2] - w[2] * v[1]),
            -drag * speed * v[1] + lift * (w[2] * v[0] - w[0] * v[2]),
            -drag * speed * v[2] + lift * (w[0] * v[1] - w[1] * v[0]))
