"""Fast spin: the torque-free rotation update against its invariants and closed forms, at spin
rates where h|ω| is well above 1 (a thin plate or a chip at 1000 rad/s turns 4 rad a substep)."""

import numpy as np
import pytest

from solver import World, quaternion


def _free(half_extents, angular_velocity, substeps=10):
    world = World(gravity=(0, 0, 0), sleeping=False, substeps=substeps)
    world.add_body(size=half_extents, angular_velocity=angular_velocity)
    return world


def _angle_between(p, q) -> float:
    """Rotation angle (rad) between two unit quaternions (atan2 form: exact near zero)."""
    d = quaternion.multiply(quaternion.conjugate(p), q)
    return 2.0 * float(np.arctan2(np.linalg.norm(d[1:]), abs(d[0])))


@pytest.mark.parametrize("rate", [100.0, 500.0, 1000.0])
@pytest.mark.parametrize("half_extents", [(0.1, 0.07, 0.002), (0.005, 0.003, 0.0005)],
                         ids=["plate", "chip"])
def test_fast_tumbling_plate_keeps_energy_and_angular_momentum(half_extents, rate):
    """A thin plate (20 × 14 cm, 4 mm) or a 1 cm chip spinning mostly about its normal with a
    tilt: over one second the kinetic energy and the world angular momentum stay what they were
    to 1e-9 relative (the midpoint rule keeps both exactly; the fixed-point solve used to diverge
    above h|ω| ≈ 1.8 and gained up to 90 % at 500 rad/s)."""
    axis = np.array([0.05, 0.1, 1.0]) / np.linalg.norm([0.05, 0.1, 1.0])
    trajectory = _free(half_extents, rate * axis).simulate(24)
    energy, momentum = trajectory.kinetic_energy, trajectory.angular_momentum
    assert np.all(np.isfinite(trajectory.orientations))
    assert np.abs(energy / energy[0] - 1.0).max() < 1e-9
    assert np.abs(momentum - momentum[0]).max() < 1e-9 * np.linalg.norm(momentum[0])


@pytest.mark.parametrize("substeps", [1, 10])
def test_box_spinning_about_a_principal_axis_turns_exactly_omega_t(substeps):
    """50 rad/s about the box's own z axis: after every frame the box has turned ω t to 1e-9 rad
    (the plain Cayley midpoint turned 2 atan(h ω / 2) a substep: 119.37° a frame became 118.94°
    at 10 substeps)."""
    world = _free((0.5, 0.3, 0.1), (0.0, 0.0, 50.0), substeps)
    for frame in range(1, 49):
        world.step()
        exact = quaternion.from_axis_angle(np.array([0.0, 0.0, 1.0]), 50.0 * frame / world.fps)
        assert _angle_between(world.bodies.orientation[0], exact) < 1e-9


def test_fast_symmetric_top_follows_its_closed_form_precession():
    """A square plate (I1 = I2 = A, I3 = C) spun at 1000 rad/s, 0.1 rad off its normal. Torque-free,
    its attitude is R(t) = exp(t |L|/A L̂) R0 exp(t (1/C − 1/A) L3 e3): the integrator must follow
    that to 1e-4 of the 1000 rad turned in one second (second order in the sub-step, which turns
    at most 0.5 rad; measured 4.9e-5)."""
    rate, tilt = 1000.0, 0.1
    omega = rate * np.array([np.sin(tilt), 0.0, np.cos(tilt)])
    world = _free((0.1, 0.1, 0.002), omega)
    inertia = world.bodies.inertia[0]
    A, C = inertia[0, 0], inertia[2, 2]
    momentum = inertia @ omega
    for _ in range(24):
        world.step()
    t = 1.0
    about_momentum = quaternion.from_axis_angle(momentum, np.linalg.norm(momentum) / A * t)
    about_axis = quaternion.from_axis_angle(np.array([0.0, 0.0, 1.0]),
                                            (1.0 / C - 1.0 / A) * momentum[2] * t)
    exact = quaternion.multiply(about_momentum, about_axis)
    assert _angle_between(world.bodies.orientation[0], exact) < 1e-4 * rate * t
