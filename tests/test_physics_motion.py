"""Free motion, fast bodies, the spring method, robustness and determinism."""

import numpy as np
import pytest

from solver import World, quaternion
from solver.integrate import integrate_positions, integrate_velocities


def test_torque_free_tumbling_box_keeps_momentum_and_energy():
    world = World(gravity=(0, 0, 0), sleeping=False)
    body = world.add_body(size=(0.5, 0.3, 0.1), angular_velocity=(0.05, 2.0, 0.05))
    trajectory = world.simulate(1000)
    L, energy = trajectory.angular_momentum, trajectory.kinetic_energy
    assert np.abs(np.linalg.norm(L, axis=1) / np.linalg.norm(L[0]) - 1).max() < 1e-9
    assert np.abs(L - L[0]).max() < 1e-9 * np.linalg.norm(L[0])
    assert np.abs(energy / energy[0] - 1).max() < 1e-6
    # Spinning about the intermediate axis is unstable: the body flips (Dzhanibekov effect),
    # so the spin along its own y axis reverses at some point.
    axes = quaternion.to_matrix(trajectory.orientations[:, body])
    spin_y = np.einsum("fi,fi->f", axes[:, :, 1], trajectory.angular_velocities[:, body])
    assert spin_y.min() < -1.0 < 1.0 < spin_y.max()


def test_fast_small_box_does_not_pass_through_a_thin_wall():
    world = World(gravity=(0, 0, 0), sleeping=False)
    world.add_body(size=(0.005, 1.0, 1.0), position=(0.0, 0.0, 0.0), kind="static")
    bullet = world.add_body(size=(0.01, 0.01, 0.01), position=(-1.0, 0.0, 0.0),
                            linear_velocity=(200.0, 0.0, 0.0), restitution=0.5)
    trajectory = world.simulate(12)
    assert trajectory.positions[:, bullet, 0].max() < 0.0
    assert trajectory.linear_velocities[-1, bullet, 0] <= 0.0


def test_a_body_held_by_continuous_collision_falls_as_long_as_it_moves():
    # Four 2 kg bodies get a substep h of gravity, then move only 0.4 h (CCD holds 0, 1, 2):
    # free fall keeps semi-implicit Euler over 0.4 h (energy -m g² (0.4 h)² / 2, on main it
    # gained m g·v 0.6 h); a body sliding level (its contacts cancelled gravity) and one falling
    # slower than 0.6 h of gravity would give are not lifted; an unheld one keeps its velocity.
    h, f, g, m = 0.01, 0.4, np.array([0.0, 0.0, -9.81]), 2.0
    n = 4
    start = np.array([[3.0, 0.0, -5.0], [20.0, 0.0, 0.0], [0.0, 1.0, -0.02], [3.0, 0.0, -5.0]])
    velocity, spin, position = start.copy(), np.zeros((n, 3)), np.zeros((n, 3))
    zeros, awake = np.zeros(n), np.ones(n, dtype=bool)
    integrate_velocities(velocity, spin, np.full(n, 1 / m), zeros, zeros, zeros, zeros, awake,
                         g, h)
    velocity[1:3] = start[1:3]  # what their contacts left them
    orientation = np.tile([1.0, 0.0, 0.0, 0.0], (n, 1))
    inertia = np.tile(np.eye(3) / 3, (n, 1, 1))
    share, step = np.full(n, h), np.array([f * h, f * h, f * h, h])
    integrate_positions(position, orientation, velocity, spin, inertia, 3 * inertia,
                        np.full(n, m), awake, step, share, np.zeros((0, 3)), np.zeros((0, 3)), g)
    falling = start[0] + g * f * h
    np.testing.assert_allclose(velocity, [falling, start[1], [0.0, 1.0, 0.0], start[3] + g * h],
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(position[:3], f * h * velocity[:3], rtol=0, atol=1e-15)
    gained = 0.5 * m * (velocity[0] @ velocity[0] - start[0] @ start[0]) - m * g @ position[0]
    assert gained == pytest.approx(-0.5 * m * 9.81 ** 2 * (f * h) ** 2, rel=1e-9)


@pytest.mark.parametrize("e", [0.3, 0.6, 0.9])
def test_penalty_method_bounces_to_the_requested_restitution(e):
    world = World(method="penalty", sleeping=False)
    world.add_body(size=(5.0, 5.0, 0.5), position=(0, 0, -0.5), kind="static", restitution=1.0)
    ball = world.add_body("sphere", 0.25, position=(0, 0, 1.25), restitution=e)
    trajectory = world.simulate(36)
    z, vz = trajectory.positions[:, ball, 2] - 0.25, trajectory.linear_velocities[:, ball, 2]
    rising = np.flatnonzero((vz > 0) & (z > 0.01))[0]  # first free-flight frame after the bounce
    apex = z[rising] + vz[rising] ** 2 / (2 * 9.81)
    assert np.sqrt(apex / 1.0) == pytest.approx(e, rel=0.05)


def test_penalty_method_resting_box_sinks_less_than_one_percent():
    world = World(method="penalty", sleeping=False)
    world.add_body(size=(5.0, 5.0, 0.5), position=(0, 0, -0.5), kind="static")
    box = world.add_body(size=(0.25, 0.25, 0.25), position=(0, 0, 0.25), restitution=0.2)
    z = world.simulate(24).positions[:, box, 2]
    assert 0.25 - z.min() < 0.01 * 0.5


GROUND_TOP = 0.0


def _random_scene(seed):
    """A scene of what breaks solvers, all at once: sizes 1 cm–5 m, masses 0.1–1000 kg (ratios
    up to 1:10,000), spins up to 100 rad/s, speeds up to 50 m/s, 1–20 substeps, gravity on
    (two scenes in three) or off, and bodies dropped deep into each other and the ground (a
    third start up to 70 % of their size inside it)."""
    rng = np.random.default_rng(seed)
    gravity = (0.0, 0.0, -9.81) if seed % 3 else (0.0, 0.0, 0.0)
    world = World(gravity=gravity, substeps=int(rng.integers(1, 21)), sleeping=bool(seed % 2))
    world.add_body(size=(100.0, 100.0, 0.5), position=(0, 0, GROUND_TOP - 0.5), kind="static")
    for _ in range(int(rng.integers(2, 13))):
        size = 10.0 ** rng.uniform(-2, np.log10(5.0))
        shape = "sphere" if rng.random() < 0.3 else "box"
        extents = size if shape == "sphere" else size * rng.uniform(0.3, 1.0, 3)
        lowest = 0.3 * size if rng.random() < 1 / 3 else size  # deep in the ground, or on it
        world.add_body(shape, extents,
                       position=np.r_[rng.uniform(-1, 1, 2), GROUND_TOP + lowest
                                      + rng.uniform(0, 2)],
                       orientation=quaternion.from_axis_angle(rng.normal(size=3),
                                                              rng.uniform(0, np.pi)),
                       mass=10.0 ** rng.uniform(-1, 3), restitution=rng.uniform(0, 1),
                       friction=rng.uniform(0, 1),
                       linear_velocity=_random_direction(rng) * rng.uniform(0, 50),
                       angular_velocity=_random_direction(rng) * rng.uniform(0, 100))
    return world


def _random_direction(rng) -> np.ndarray:
    direction = rng.normal(size=3)
    return direction / np.linalg.norm(direction)


def _random_cluster(seed, gravity):
    """Three to eleven boxes and balls (5-50 cm, 0.1-100 kg, restitution 0.8-1) dropped in a
    heap within 0.8 m, at up to 5 m/s and 10 rad/s, 1-20 substeps: bodies that touch several
    others while they bounce, where each rebound asked on its own can add energy."""
    rng = np.random.default_rng(seed)
    world = World(gravity=(0.0, 0.0, gravity), substeps=int(rng.integers(1, 21)), sleeping=False)
    world.add_body(size=(5.0, 5.0, 0.5), position=(0, 0, GROUND_TOP - 0.5), kind="static",
                   restitution=1.0, friction=rng.uniform(0, 1))
    for _ in range(int(rng.integers(3, 12))):
        shape = "sphere" if rng.random() < 0.3 else "box"
        size = rng.uniform(0.05, 0.5)
        world.add_body(shape, size if shape == "sphere" else size * rng.uniform(0.3, 1.0, 3),
                       position=np.r_[rng.uniform(-0.4, 0.4, 2), GROUND_TOP + rng.uniform(0, 1)],
                       orientation=quaternion.from_axis_angle(rng.normal(size=3),
                                                              rng.uniform(0, 3)),
                       mass=10.0 ** rng.uniform(-1, 2), restitution=rng.uniform(0.8, 1.0),
                       friction=rng.uniform(0, 1),
                       linear_velocity=rng.normal(size=3) * rng.uniform(0, 5),
                       angular_velocity=rng.normal(size=3) * rng.uniform(0, 10))
    return world


def _assert_finite_no_energy_gain_above_ground(world, frames):
    trajectory = world.simulate(frames)
    for field in ("positions", "orientations", "linear_velocities", "angular_velocities"):
        assert np.all(np.isfinite(getattr(trajectory, field)))
    # Kinetic plus potential energy never rises above its start, except by what the push-out
    # put in lifting the deep initial overlaps apart against gravity (nothing kinematic here),
    # to 1e-6 of the scene's energy.
    kinetic, potential = trajectory.kinetic_energy, trajectory.potential_energy
    energy = kinetic + potential - trajectory.push_out_work
    scale = kinetic[0] + np.abs(potential).max()
    assert np.all(energy <= energy[0] + 1e-6 * scale)
    # No centre of mass ends below the top of the static ground (a 1 m slab).
    assert world.bodies.position[1:, 2].min() > GROUND_TOP


# Seed 397: a 1 cm, 941 kg box held by CCD deep in a 0.1 kg one (f 0.46-0.92 of each substep)
# gained 0.68 % of the scene's energy by frame 2 before integrate_positions took back the gravity
# of the time it did not move. Seed 507, zero gravity: a 394 kg ball deep in a 0.6 kg box
# gained 7.8 % in frame 1 while the warm start handed the box impulses that 10 sweeps could not
# take back (solve_impulse.warm_start).
@pytest.mark.parametrize("seed", [*range(120), 397, 507])
def test_random_scenes_stay_finite_never_create_energy_nor_pass_the_ground(seed):
    _assert_finite_no_energy_gain_above_ground(_random_scene(seed), 6)


@pytest.mark.parametrize("seed", range(60))
def test_heavy_ball_deep_in_a_light_box_without_gravity_creates_no_energy(seed):
    """Random scene 507 (zero gravity, 15 substeps: a 394 kg ball deep in a 0.6 kg box that
    touches the ground, a 6.7 kg box inside it too, all at 20-50 m/s) with each body's
    velocity scaled by 0.7-1.3 and shifted by about 5 m/s, its spin scaled by 0.5-1.5: 11 of
    these 60 gained 6-42 % while warm starts the sweeps could not take back in 10 iterations
    were applied whole."""
    world = _random_scene(507)
    rng = np.random.default_rng(seed)
    moving = world.bodies.velocity[1:], world.bodies.angular_velocity[1:]
    moving[0][:] = moving[0] * rng.uniform(0.7, 1.3, (len(moving[0]), 1))
    moving[0][:] += rng.normal(size=moving[0].shape) * 5.0
    moving[1][:] = moving[1] * rng.uniform(0.5, 1.5, (len(moving[1]), 1))
    _assert_finite_no_energy_gain_above_ground(world, 6)


@pytest.mark.parametrize("gravity", [0.0, -9.81])
@pytest.mark.parametrize("seed", range(40))
def test_random_clusters_stay_finite_never_create_energy_nor_pass_the_ground(seed, gravity):
    # Before Moreau's law and the bounce's arrival rules (solve_impulse.set_targets) seeds 23
    # and 34 gained 1-4.5 % here (9 of 400 such scenes did, up to 32 %).
    _assert_finite_no_energy_gain_above_ground(_random_cluster(seed, gravity), 12)


def test_same_scene_gives_identical_arrays():
    first, second = _random_scene(8).simulate(6), _random_scene(8).simulate(6)
    for field in ("positions", "orientations", "linear_velocities", "angular_velocities",
                  "kinetic_energy", "contact_count", "max_penetration"):
        assert np.array_equal(getattr(first, field), getattr(second, field))
