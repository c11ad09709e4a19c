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

from .constraints import Manifolds, normal_velocity

SINK = 1e-3  # static compression as a fraction of the smallest half-extent
STEPS_PER_PERIOD = 100  # substeps per spring period, for stability and an accurate bounce


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


def spring_impulses(m: Manifolds, velocity6: np.ndarray, inverse_mass: np.ndarray,
                    omega: np.ndarray, h: float):
    """((P, 4) normal, (P, 4, 2) friction) impulses of springs, dampers and friction over h."""
    point_mass = 1.0 / (inverse_mass[m.a] + inverse_mass[m.b]) / m.points
    stiffness = (point_mass * omega**2)[:, None]
    damping = (2.0 * damping_ratio(m.restitution) * omega * point_mass)[:, None]
    overlap = -m.separation
    force = np.where(m.mask & (overlap > 0.0),
                     stiffness * overlap - damping * normal_velocity(m, velocity6), 0.0)
    sliding = np.einsum("psri,pi->psr", m.friction_rows, velocity6[m.pairs].reshape(-1, 12))
    stop = -m.friction_mass * sliding  # impulse that would stop each point's sliding
    limit = m.friction[:, None] * np.maximum(force, 0.0) * h
    length = np.linalg.norm(stop, axis=2)
    stop *= (limit / np.maximum(np.maximum(length, limit), np.finfo(float).tiny))[..., None]
    return force * h, stop
