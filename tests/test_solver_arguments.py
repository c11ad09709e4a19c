"""Every public argument of World, add_body and simulate is checked where it is given.

A bad value raises TypeError (not a number, not an integer) or ValueError (NaN, inf, out of
range, wrong length) whose message names the argument and shows the value, instead of NaN
poses or a numpy error frames later.
"""

import numpy as np
import pytest

from solver import World

NAN, INF = float("nan"), float("inf")
IDENTITY = np.tile([1.0, 0.0, 0.0, 0.0], (2, 1))
STILL = np.zeros((2, 3))

WORLD_CASES = [
    ("gravity", (0, 0, NAN), ValueError),
    ("gravity", (0, INF, 0), ValueError),
    ("gravity", (0, 0), ValueError),
    ("gravity", -9.81, ValueError),
    ("gravity", ("a", 0, 0), TypeError),
    ("fps", INF, ValueError),
    ("fps", NAN, ValueError),
    ("fps", 0, ValueError),
    ("fps", -24, ValueError),
    ("fps", "24", TypeError),
    ("substeps", 2.7, TypeError),
    ("substeps", 0, ValueError),
    ("substeps", True, TypeError),
    ("iterations", 2.0, TypeError),
    ("iterations", -1, ValueError),
    ("iterations", None, TypeError),
]


@pytest.mark.parametrize(("name", "value", "error"), WORLD_CASES)
def test_world_refuses_a_bad_argument_by_name(name, value, error):
    with pytest.raises(error, match=f"World: {name} must be"):
        World(**{name: value})


ADD_BODY_CASES = [
    ("position", (NAN, 0, 0), ValueError),
    ("position", (0, 0, INF), ValueError),
    ("position", (0, 0), ValueError),
    ("position", (0, 0, 0, 0), ValueError),
    ("position", 1.0, ValueError),
    ("position", None, TypeError),
    ("orientation", (0, 0, 0, 0), ValueError),
    ("orientation", (NAN, 0, 0, 0), ValueError),
    ("orientation", (1, 0, 0), ValueError),
    ("linear_velocity", 5, ValueError),
    ("linear_velocity", (0, NAN, 0), ValueError),
    ("linear_velocity", [1, 2], ValueError),
    ("angular_velocity", (INF, 0, 0), ValueError),
    ("angular_velocity", np.zeros(4), ValueError),
    ("center_of_mass", (NAN, 0, 0), ValueError),
    ("center_of_mass", (0, 0), ValueError),
    ("size", (1, NAN, 1), ValueError),
    ("size", (1, INF, 1), ValueError),
    ("size", (1, 1), ValueError),
    ("mass", INF, ValueError),
    ("mass", NAN, ValueError),
    ("mass", 0, ValueError),
    ("mass", "1", TypeError),
    ("density", INF, ValueError),
    ("density", -1, ValueError),
    ("restitution", NAN, ValueError),
    ("restitution", 1.5, ValueError),
    ("friction", NAN, ValueError),
    ("friction", INF, ValueError),
    ("friction", -0.1, ValueError),
    ("friction", None, TypeError),
    ("drag", NAN, ValueError),
    ("drag", -1, ValueError),
    ("lift", INF, ValueError),
    ("lift", True, TypeError),
    ("inertia", (1, NAN, 1), ValueError),
    ("inertia", np.full((3, 3), INF), ValueError),
    ("inertia", (1, 1), ValueError),
]


@pytest.mark.parametrize(("name", "value", "error"), ADD_BODY_CASES)
def test_add_body_refuses_a_bad_argument_by_name(name, value, error):
    world = World()
    with pytest.raises(error, match=f"add_body: {name}"):
        world.add_body(**{name: value})
    assert len(world.bodies) == 0


@pytest.mark.parametrize(("size", "error"), [(NAN, ValueError), (INF, ValueError),
                                             (0.0, ValueError), ((1, 2), ValueError),
                                             ("big", TypeError)])
def test_a_sphere_radius_is_one_positive_finite_number(size, error):
    with pytest.raises(error, match="add_body: size"):
        World().add_body("sphere", size)


KINEMATIC_CASES = [
    ("path", (STILL,), TypeError, "path must be"),
    ("path", (np.full((2, 3), NAN), IDENTITY), ValueError, "path positions"),
    ("path", (np.zeros((2, 2)), IDENTITY), ValueError, "path positions"),
    ("path", (STILL, np.zeros((2, 4))), ValueError, "path orientations"),
    ("path", (STILL, np.full((2, 4), INF)), ValueError, "path orientations"),
    ("path", (STILL, IDENTITY[:1]), ValueError, "path positions and orientations"),
    ("path_samples_per_frame", 2.5, TypeError, "path_samples_per_frame"),
    ("path_samples_per_frame", 0, ValueError, "path_samples_per_frame"),
]


@pytest.mark.parametrize(("name", "value", "error", "words"), KINEMATIC_CASES)
def test_a_kinematic_path_is_checked(name, value, error, words):
    arguments = {"path": (STILL, IDENTITY), name: value}
    with pytest.raises(error, match=f"add_body: {words}"):
        World().add_body(kind="kinematic", **arguments)


@pytest.mark.parametrize(("name", "value", "error"), [
    ("frames", 2.7, TypeError), ("frames", -1, ValueError), ("frames", INF, TypeError),
    ("progress", "print", TypeError), ("should_cancel", 1, TypeError),
])
def test_simulate_refuses_a_bad_argument_by_name(name, value, error):
    world = World()
    world.add_body()
    arguments = {"frames": 2, name: value}
    with pytest.raises(error, match=f"simulate: {name} must be"):
        world.simulate(**arguments)
    assert world.frame == 0


def test_the_message_shows_the_value():
    with pytest.raises(ValueError) as raised:
        World().add_body(position=(NAN, 0.0, 0.0))
    assert str(raised.value) == "add_body: position must be 3 finite numbers, got (nan, 0.0, 0.0)"


def test_valid_inputs_of_every_form_are_kept():
    world = World(gravity=np.array([0.0, 0.0, -9.81]), fps=np.float32(24), substeps=np.int64(2),
                  iterations=np.int32(3))
    assert (world.substeps, world.iterations) == (2, 3)
    world.add_body("sphere", 0.5, position=[0, 0, 1], orientation=np.array([2.0, 0, 0, 0]))
    world.add_body("sphere", [0.5], mass=np.float64(2.0), inertia=[1, 1, 1])
    world.add_body("box", np.array([0.5, 1, 2]), linear_velocity=np.zeros(3), inertia=np.eye(3),
                   center_of_mass=(0.1, 0, 0), friction=0, lift=-0.5)
    world.add_body(kind="kinematic", path=(STILL.tolist(), IDENTITY * 3),
                   path_samples_per_frame=np.int16(2))
    assert np.allclose(world.bodies.orientation[0], [1, 0, 0, 0])  # normalised, not refused
    trajectory = world.simulate(np.int64(1))
    assert trajectory.positions.shape == (2, 4, 3)
    assert np.all(np.isfinite(trajectory.positions))
