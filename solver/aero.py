"""Air forces of the golf-ball lab (the Swedish notes): quadratic drag and Magnus lift.

Both are per-body coefficients, zero by default, in the simplest forms that show the effects:
drag F = -k_d |v| v (k_d = ½ ρ C_d A, kg/m) and Magnus lift F = k_l ω × v (k_l in kg), which
curves a spinning ball sideways or, with backspin, holds it up.
"""

import numpy as np


def air_force(velocity: np.ndarray, angular_velocity: np.ndarray, drag: np.ndarray,
              lift: np.ndarray) -> np.ndarray:
    """(N, 3) drag plus Magnus force on bodies moving at `velocity` and spinning at ω."""
    speed = np.linalg.norm(velocity, axis=1, keepdims=True)
    return (-drag[:, None] * speed * velocity
            + lift[:, None] * np.cross(angular_velocity, velocity))
