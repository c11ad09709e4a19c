"""Linear and angular damping and rolling resistance against their closed forms."""

import numpy as np
import pytest

from solver import World

G = 9.81


def test_linear_damping_decays_velocity_as_one_minus_d_to_the_time():
    world = World(gravity=(0, 0, 0), sleeping=False)
    d, v0 = 0.3, np.array([2.0, -1.0, 0.5])
    body = world.add_body(linear_velocity=v0, linear_damping=d)
    trajectory = world.simulate(48)
    t = np.arange(len(trajectory.linear_velocities)) / world.fps
    expected = v0 * (1 - d) ** t[:, None]
    assert np.abs(trajectory.linear_velocities[:, body] - expected).max() < 1e-6
    # x(t) follows the substeps' geometric sum of those velocities, close to ∫ v dt
    travelled = v0 * ((1 - d) ** t[-1] - 1) / np.log(1 - d)
    assert trajectory.positions[-1, body] == pytest.approx(travelled, rel=1e-2)


def test_angular_damping_decays_spin_as_one_minus_d_to_the_time():
    world = World(gravity=(0, 0, 0), sleeping=False)
    d, w0 = 0.5, np.array([0.0, 3.0, 1.0])
    ball = world.add_body("sphere", 0.2, angular_velocity=w0, angular_damping=d)
    trajectory = world.simulate(48)
    t = np.arange(len(trajectory.angular_velocities)) / world.fps
    expected = w0 * (1 - d) ** t[:, None]
    assert np.abs(trajectory.angular_velocities[:, ball] - expected).max() < 1e-6
    assert np.abs(trajectory.linear_velocities[:, ball]).max() == 0.0


@pytest.mark.parametrize(("c_rr", "v0"), [(0.05, 2.0), (0.1, 3.0)])
def test_rolled_ball_stops_after_the_closed_form_distance(c_rr, v0):
    """A solid sphere rolling without slipping under the torque c_rr N r decelerates at
    a = (5/7) c_rr g and stops after v0² / (2a)."""
    r = 0.1
    world = World(sleeping=False)
    world.add_body(size=(50.0, 50.0, 0.5), position=(0, 0, -0.5), kind="static", friction=1.0,
                   restitution=0.0)
    ball = world.add_body("sphere", r, position=(0, 0, r), linear_velocity=(v0, 0, 0),
                          angular_velocity=(0, v0 / r, 0), friction=1.0, restitution=0.0,
                          rolling_resistance=c_rr)
    a = 5 / 7 * c_rr * G
    frames = int(1.3 * v0 / a * world.fps)
    trajectory = world.simulate(frames)
    x, v = trajectory.positions[:, ball, 0], trajectory.linear_velocities[:, ball, 0]
    assert x[-1] == pytest.approx(v0 ** 2 / (2 * a), rel=0.05)
    assert abs(v[-1]) < 1e-6 and np.abs(trajectory.angular_velocities[-1, ball]).max() < 1e-6
    assert v.min() > -1e-9  # braking never drives it backwards
    t = np.arange(len(v)) / world.fps
    rolling = slice(1, int(0.5 * v0 / a * world.fps))
    assert -np.polyfit(t[rolling], v[rolling], 1)[0] == pytest.approx(a, rel=0.05)


def test_without_rolling_resistance_the_ball_keeps_rolling():
    world = World(sleeping=False)
    world.add_body(size=(50.0, 50.0, 0.5), position=(0, 0, -0.5), kind="static", friction=1.0,
                   restitution=0.0)
    ball = world.add_body("sphere", 0.1, position=(0, 0, 0.1), linear_velocity=(2.0, 0, 0),
                          angular_velocity=(0, 20.0, 0), friction=1.0, restitution=0.0)
    v = world.simulate(48).linear_velocities[:, ball, 0]
    assert v[-1] == pytest.approx(2.0, rel=1e-3)


@pytest.mark.parametrize(("name", "value"), [("linear_damping", -0.1), ("angular_damping", 1.5),
                                             ("linear_damping", float("nan")),
                                             ("rolling_resistance", -1.0),
                                             ("rolling_resistance", float("inf"))])
def test_bad_damping_is_refused_naming_the_argument(name, value):
    world = World()
    with pytest.raises(ValueError, match=name):
        world.add_body(**{name: value})
    assert len(world.bodies) == 0
