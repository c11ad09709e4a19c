"""The World's public API: building, stepping, trajectories, kinematic paths, air, sleeping."""

import numpy as np
import pytest

from solver import Cancelled, Trajectory, World
from solver.materials import combine


def test_add_body_returns_indices_and_validates():
    world = World()
    assert world.add_body() == 0
    assert world.add_body("sphere", 0.2, position=(0, 0, 3)) == 1
    with pytest.raises(ValueError, match="shape"):
        world.add_body("cone")
    with pytest.raises(ValueError, match="kind"):
        world.add_body(kind="floating")
    with pytest.raises(ValueError, match="radius"):
        world.add_body("sphere", (1, 2, 3))
    with pytest.raises(ValueError, match="positive"):
        world.add_body(size=(1, 0, 1))
    with pytest.raises(ValueError, match="path"):
        world.add_body(path=(np.zeros((2, 3)), np.tile([1.0, 0, 0, 0], (2, 1))))
    with pytest.raises(ValueError, match="combine"):
        World(friction_combine="median")


def test_simulate_returns_rows_for_every_frame_and_reports_progress():
    world = World()
    world.add_body(size=(0.2, 0.3, 0.4), position=(1, 2, 3))
    seen = []
    trajectory = world.simulate(5, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(k, 5) for k in range(1, 6)]
    assert trajectory.positions.shape == (6, 1, 3)
    assert trajectory.orientations.shape == (6, 1, 4)
    assert trajectory.kinetic_energy.shape == (6,)
    assert trajectory.linear_momentum.shape == (6, 3)
    assert np.array_equal(trajectory.positions[0, 0], [1, 2, 3])
    # free fall under semi-implicit Euler: z = z0 - g h² n (n + 1) / 2 after n substeps
    n, h = 50, 1 / 240
    assert trajectory.positions[5, 0, 2] == pytest.approx(3 - 9.81 * h * h * n * (n + 1) / 2)


def test_cancel_raises_and_snapshots_rebuild_a_trajectory():
    world = World()
    world.add_body()
    with pytest.raises(Cancelled):
        world.simulate(10, should_cancel=lambda: world.frame >= 3)
    snapshots = [world.snapshot()]
    world.step()
    snapshots.append(world.snapshot())
    trajectory = Trajectory.from_snapshots(snapshots, 24.0)
    assert trajectory.frames == 1 and trajectory.fps == 24.0


def test_positions_are_shape_centres_with_a_centre_of_mass_offset():
    world = World(gravity=(0, 0, 0))
    body = world.add_body(size=(1, 1, 1), position=(1, 0, 0), center_of_mass=(0.5, 0, 0),
                          angular_velocity=(0, 0, np.pi))
    trajectory = world.simulate(24)  # half a turn about the centre of mass at x = 1.5
    # (the energy-keeping rotation step turns by 2 atan(h ω / 2) per substep, not h ω)
    assert np.allclose(trajectory.positions[-1, body], [2.0, 0, 0], atol=1e-4)


@pytest.mark.parametrize(("rule", "expected"), [("average", 0.5), ("minimum", 0.0),
                                                ("maximum", 1.0), ("multiply", 0.0)])
def test_combine_rules(rule, expected):
    assert combine(rule, np.array([0.0]), np.array([1.0]))[0] == expected


def test_friction_combine_rule_decides_whether_a_box_slides():
    travelled = {}
    for rule in ("multiply", "maximum"):
        world = World(friction_combine=rule, sleeping=False)
        world.add_body(size=(20, 20, 0.5), position=(0, 0, -0.5), kind="static", friction=1.0)
        box = world.add_body(size=(0.25,) * 3, position=(0, 0, 0.25), friction=0.0,
                             linear_velocity=(2.0, 0, 0))
        travelled[rule] = world.simulate(24).positions[-1, box, 0]
    assert travelled["multiply"] == pytest.approx(2.0, rel=0.01)  # ice: keeps sliding
    assert travelled["maximum"] < 0.3  # μ = 1: stops within 2²/(2 g) ≈ 0.2 m


def test_kinematic_body_follows_its_path_and_pushes():
    world = World(sleeping=False)
    world.add_body(size=(20, 20, 0.5), position=(0, 0, -0.5), kind="static", friction=0.0)
    frames = np.arange(25)
    path = (np.stack([-1.0 + 0.1 * frames, 0 * frames, 0.25 + 0 * frames], axis=1),
            np.tile([1.0, 0, 0, 0], (25, 1)))
    pusher = world.add_body(size=(0.25,) * 3, kind="kinematic", path=path, friction=0.0)
    box = world.add_body(size=(0.25,) * 3, position=(0.0, 0, 0.25), friction=0.0)
    trajectory = world.simulate(24)
    assert np.allclose(trajectory.positions[:, pusher], path[0], atol=1e-12)
    assert np.allclose(trajectory.linear_velocities[1:, pusher], [2.4, 0, 0], atol=1e-9)
    assert trajectory.positions[-1, box, 0] > 1.4 - 0.5 + 0.25  # pushed ahead of the pusher


def test_quadratic_drag_reaches_terminal_velocity():
    world = World(sleeping=False)
    body = world.add_body("sphere", 0.1, mass=2.0, drag=0.5)
    v = world.simulate(240).linear_velocities[-1, body, 2]
    assert -v == pytest.approx(np.sqrt(2.0 * 9.81 / 0.5), rel=1e-3)


def test_magnus_lift_curves_a_spinning_ball_into_a_circle():
    world = World(gravity=(0, 0, 0), sleeping=False)
    mass, speed, spin, lift = 1.0, 3.0, 10.0, 0.05
    body = world.add_body("sphere", 0.1, mass=mass, lift=lift, linear_velocity=(speed, 0, 0),
                          angular_velocity=(0, 0, spin))
    positions = world.simulate(96).positions[:, body]
    radius = mass * speed / (lift * spin)  # lift k ω v = m v² / R
    centre = np.array([0.0, radius, 0.0])
    assert np.allclose(np.linalg.norm(positions - centre, axis=1), radius, rtol=1e-3)


def test_resting_bodies_fall_asleep_and_wake_when_hit():
    world = World()
    world.add_body(size=(20, 20, 0.5), position=(0, 0, -0.5), kind="static")
    box = world.add_body(size=(0.25,) * 3, position=(0, 0, 0.25))
    world.simulate(48)
    assert not world.bodies.velocity[box].any()  # asleep: exactly still
    world.add_body("sphere", 0.2, position=(-1.0, 0, 0.2), linear_velocity=(4.0, 0, 0),
                   density=5000.0)
    trajectory = world.simulate(12)
    assert trajectory.positions[-1, box, 0] > 0.05  # woken and pushed along


def test_trajectory_keeps_poses_in_float32_and_velocities_in_float64():
    """Poses are what Blender keys (float32); velocities feed the conservation checks."""
    world = World()
    world.add_body(position=(0.1, 0.2, 3.0))
    trajectory = world.simulate(3)
    assert trajectory.positions.dtype == np.float32
    assert trajectory.orientations.dtype == np.float32
    assert trajectory.linear_velocities.dtype == np.float64
    assert trajectory.angular_velocities.dtype == np.float64
    assert trajectory.positions[3, 0, 2] == np.float32(world.snapshot().positions[0, 2])


SQUARE = (np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]]),
          np.array([[0, 1, 2], [0, 2, 3]]))


@pytest.mark.parametrize(("arguments", "words"), [
    (dict(shape="cylinder", size=(0.5, 0.5, 0.5)), "size \\(radius, half_height\\)"),
    (dict(shape="cone", size=(0.5, -1.0)), "size \\(radius, half_height\\)"),
    (dict(shape="capsule", size=(0.0, 0.2)), "size \\(radius, half_height\\)"),
    (dict(shape="hull"), "points"),
    (dict(shape="hull", points=np.zeros((5, 3))), "points"),
    (dict(shape="box", points=np.eye(3)), "points is for shape='hull'"),
    (dict(shape="mesh", vertices=SQUARE[0], triangles=SQUARE[1]), "static or kinematic"),
    (dict(shape="mesh", kind="static", vertices=SQUARE[0], triangles=[[0, 1, 9]]),
     "triangles"),
    (dict(shape="compound"), "parts"),
    (dict(shape="compound", parts=[dict(shape="mesh")]), "parts\\[0\\] shape"),
    (dict(shape="compound", parts=[dict(shape="box"), dict(size=(1, 1))]), "parts\\[1\\] size"),
    (dict(shape="compound", parts=[dict(shape="box", colour="red")]), "parts\\[0\\] has unknown"),
    (dict(shape="compound", parts=[dict(shape="box", position=(0, np.nan, 0))]),
     "parts\\[0\\] position"),
])
def test_add_body_checks_the_new_shapes_arguments_by_name(arguments, words):
    with pytest.raises(ValueError, match=f"add_body: .*{words}"):
        World().add_body(**arguments)


def test_new_shapes_get_their_own_mass_centre_and_box():
    world = World()
    cone = world.add_body("cone", (0.2, 0.3), density=1000.0)
    assert world.bodies.mass[cone] == pytest.approx(1000.0 * np.pi * 0.04 * 0.6 / 3)
    np.testing.assert_allclose(world.bodies.com_offset[cone], [0, 0, -0.15], atol=1e-12)
    capsule = world.add_body("capsule", (0.1, 0.0), mass=2.0)  # half-height 0: a sphere
    np.testing.assert_allclose(np.diag(world.bodies.inertia[capsule]), 0.4 * 2.0 * 0.01)
    cube = np.array(np.meshgrid(*[[-0.5, 0.5]] * 3)).reshape(3, -1).T
    hull = world.add_body("hull", points=np.vstack([cube, [[0.1, 0.2, 0.3]]]), mass=6.0)
    np.testing.assert_allclose(world.bodies.inertia[hull], np.eye(3), atol=1e-12)
    assert world.hull_error(hull) == 0.0
    ground = world.add_body("mesh", vertices=SQUARE[0], triangles=SQUARE[1], kind="static")
    np.testing.assert_allclose(world.bodies.half_extents[ground], [1.0, 1.0, 0.0])
    assert world.bodies.thickness[ground] == np.inf
    assert world.dropped_triangles(ground) == 0
    sliver = world.add_body("mesh", vertices=SQUARE[0], triangles=[[0, 1, 2], [0, 0, 3]],
                            kind="static")
    assert world.dropped_triangles(sliver) == 1
