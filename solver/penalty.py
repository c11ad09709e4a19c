"""The spring (penalty) method of the Swedish notes: contacts push with a spring-damper force.

Each contact point is a spring k d plus a damper c (-v_n) while the bodies overlap by d. The pair's
mass m (linear, 1/(1/m_a + 1/m_b)) is shared between its manifold points, so a box landing flat
on four points behaves as one oscillator with natural frequency ω0 = sqrt(k/m). A damped
oscillator that lets go when d returns to 0 leaves with e = exp(-ζπ/sqrt(1 - ζ²)), so the
damping ratio that gives the requested restitution is ζ = -ln e / sqrt(π² + ln² e) (ζ = 1,
critical, for e = 0). ω0 is set so the weight of the body sinks it by SINK of its smallest
half-extent (g / ω0² = SINK h_min), and the World takes enough substeps per spring period.
Friction is a regularised Coulomb force at the manifold centre: it stops the sliding within a
substep if μ times the spring force allows.
"""

import numpy as np

from .constraints import Manifolds, normal_velocity

SINK = 1e-3  # static compression as a fraction of the smallest half-extent
STEPS_PER_PERIOD = 40  # substeps per spring period, for stability and an accurate bounce


def damping_ratio(restitution: np.ndarray) -> np.ndarray:
    """ζ that makes a linear spring-damper bounce back with coefficient e."""
    log_e = np.log(np.clip(restitution, 1e-12, 1.0))
    return -log_e / np.sqrt(np.pi**2 + log_e**2)


def natural_frequency(m: Manifolds, half_extents: np.ndarray, gravity: float) -> np.ndarray:
    """(P,) ω0 of each manifold's springs, from the smaller body of the pair."""
    smallest = np.minimum(half_extents[m.a].min(axis=1), half_extents[m.b].min(axis=1))
    return np.sqrt(max(gravity, 9.81) / (SINK * smallest))


def substeps_needed(omega: np.ndarray, frame_time: float) -> int:
    """Substeps per frame that resolve the stiffest spring with STEPS_PER_PERIOD steps."""
    if not len(omega):
        return 1
    return int(np.ceil(frame_time * omega.max() * STEPS_PER_PERIOD / (2.0 * np.pi)))


def spring_impulses(m: Manifolds, velocity6: np.ndarray, inverse_mass: np.ndarray,
                    omega: np.ndarray, h: float):
    """((P, 4) normal, (P, 3) friction) impulses of springs, dampers and friction over h."""
    point_mass = 1.0 / (inverse_mass[m.a] + inverse_mass[m.b]) / m.points
    stiffness = (point_mass * omega**2)[:, None]
    damping = (2.0 * damping_ratio(m.restitution) * omega * point_mass)[:, None]
    overlap = -m.separation
    force = np.where(m.mask & (overlap > 0.0),
                     stiffness * overlap - damping * normal_velocity(m, velocity6), 0.0)
    velocity = np.einsum("pri,pi->pr", m.friction_rows, velocity6[m.pairs].reshape(-1, 12))
    stop = -np.einsum("prq,pq->pr", m.friction_inverse, velocity)
    limit = m.friction * np.maximum(force, 0.0).sum(axis=1) * h
    length = np.linalg.norm(stop[:, :2], axis=1)
    stop[:, :2] *= (limit / np.maximum(np.maximum(length, limit), np.finfo(float).tiny))[:, None]
    stop[:, 2] = np.clip(stop[:, 2], -limit * m.twist_radius, limit * m.twist_radius)
    return force * h, stop
