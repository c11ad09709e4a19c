"""The spring (penalty) method of the Swedish notes: contacts push with a spring-damper force.

Each contact point is a spring k d plus a damper c (-v_n) while the bodies overlap by d. The pair's
mass m (linear, 1/(1/m_a + 1/m_b)) is shared between its manifold points, so a box landing flat
on four points behaves as one oscillator with natural frequency ω0 = sqrt(k/m). A damped
oscillator that lets go when d returns to 0 leaves with e = exp(-ζπ/sqrt(1 - ζ²)), so the
damping ratio that gives the requested restitution is ζ = -ln e / sqrt(π² + ln² e) (ζ = 1,
critical, for e = 0). ω0 is set so the weight of the body sinks it by SINK of its smallest
half-extent (g / ω0² = SINK h_min), and the World takes enough substeps per spring period.
Friction is a regularised Coulomb force at each point: it stops the sliding within a substep if
μ times the spring force allows.
"""

import numpy as np
from numba import njit

from .constraints import gather

SINK = 1e-3  # static compression as a fraction of the smallest half-extent
STEPS_PER_PERIOD = 100  # substeps per spring period, for stability and an accurate bounce
_TINY = np.finfo(float).tiny


def damping_ratio(restitution: np.ndarray) -> np.ndarray:
    """ζ that makes a linear spring-damper bounce back with coefficient e."""
    log_e = np.log(np.clip(restitution, 1e-12, 1.0))
    return -log_e / np.sqrt(np.pi**2 + log_e**2)


def frequency(smallest_half_extent, gravity: float):
    """ω0 of the springs touching a body whose smallest half-extent is given."""
    return np.sqrt(max(gravity, 9.81) / (SINK * np.asarray(smallest_half_extent, dtype=float)))


def substeps_needed(omega: np.ndarray, frame_time: float) -> int:
    """Substeps per frame that resolve the stiffest spring with STEPS_PER_PERIOD steps."""
    return int(np.ceil(frame_time * np.max(omega) * STEPS_PER_PERIOD / (2.0 * np.pi)))


@njit(cache=True)
def _spring_impulses(rows, a, b, points, separation, normal_rows, friction_rows, friction_mass,
                     friction, zeta, inverse_mass, omega, velocity, angular_velocity, h, normal,
                     tangential) -> None:
    """Fill (P, 4) normal and (P, 4, 2) friction impulses of each overlapping point."""
    v12 = np.empty(12)
    for p in rows:
        gather(velocity, angular_velocity, a[p], b[p], v12)
        point_mass = 1.0 / (inverse_mass[a[p]] + inverse_mass[b[p]]) / points[p]
        stiffness = point_mass * omega[p] ** 2
        damping = 2.0 * zeta[p] * omega[p] * point_mass
        for s in range(points[p]):
            overlap = -separation[p, s]
            if not overlap > 0.0:
                continue
            vn, slide0, slide1 = 0.0, 0.0, 0.0
            for k in range(12):
                vn += normal_rows[p, s, k] * v12[k]
                slide0 += friction_rows[p, s, 0, k] * v12[k]
                slide1 += friction_rows[p, s, 1, k] * v12[k]
            force = stiffness * overlap - damping * vn
            limit = friction[p] * max(force, 0.0) * h
            stop0, stop1 = -friction_mass[p, s, 0] * slide0, -friction_mass[p, s, 1] * slide1
            length = np.sqrt(stop0 * stop0 + stop1 * stop1)
            scale = limit / max(max(length, limit), _TINY)
            normal[p, s] = force * h
            tangential[p, s, 0], tangential[p, s, 1] = scale * stop0, scale * stop1
