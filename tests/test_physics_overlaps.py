"""Bodies deep inside or touching each other when one bounces: no energy gained (issue #10
item 6)."""

import numpy as np
import pytest

from solver import World, quaternion


def _overlapping_cluster(seed: int, gravity: float) -> World:
    """Eight 1 m boxes, each placed 0.5-0.8 m from one before it (overlapping by 20-50 % of
    their size), the lowest 15 cm into the ground, tumbling at about 1 m/s and 1 rad/s;
    restitution 0.98, friction 0.5."""
    rng = np.random.default_rng(seed)
    world = World(gravity=(0.0, 0.0, gravity), sleeping=False)
    world.add_body(size=(10.0, 10.0, 0.5), position=(0, 0, -0.5), kind="static",
                   restitution=1.0, friction=0.5)
    centres = [np.zeros(3)]
    while len(centres) < 8:
        direction = rng.normal(size=3)
        centres.append(centres[rng.integers(len(centres))]
                       + rng.uniform(0.5, 0.8) * direction / np.linalg.norm(direction))
    lowest = min(centre[2] for centre in centres)
    for centre in centres:
        world.add_body(size=(0.5, 0.5, 0.5), position=centre + np.array([0.0, 0.0, 0.35 - lowest]),
                       orientation=quaternion.from_axis_angle(rng.normal(size=3),
                                                              rng.uniform(0, 3)),
                       mass=rng.uniform(1, 10), restitution=0.98, friction=0.5,
                       linear_velocity=rng.normal(size=3), angular_velocity=rng.normal(size=3))
    return world


@pytest.mark.parametrize("gravity", [0.0, -9.81])
@pytest.mark.parametrize("seed", range(8))
def test_cluster_of_deep_overlaps_never_gains_energy(seed, gravity):
    trajectory = _overlapping_cluster(seed, gravity).simulate(12)
    # No frame has more kinetic plus potential energy than the start, less what the push-out
    # spent lifting the overlaps apart against gravity, to 1e-6 of the scene's energy
    # (bounces that held touching, separating neighbours shut gave up to +0.05 % in the first
    # frame here, +10 % in clusters of smaller boxes). Frame by frame it may rise: a point
    # caught while apart at a frame's last substep, its approach stopped at the surface,
    # bounces back in the next.
    kinetic, potential = trajectory.kinetic_energy, trajectory.potential_energy
    energy = kinetic + potential - trajectory.push_out_work
    scale = kinetic[0] + np.abs(potential).max()
    assert np.all(energy <= energy[0] + 1e-6 * scale)


@pytest.mark.parametrize("gravity", [0.0, -9.81])
def test_ball_bouncing_under_a_heavier_touching_ball_creates_no_energy(gravity):
    """A 2.6 kg ball on the floor moving down at 5 m/s, a 10.8 kg ball resting on it moving
    down at 0.5 m/s (separating from it at 4.5 m/s), e 0.86 (0.74 between the balls), no
    friction. The light ball rebounds into the heavy one, which may be hit but must not be
    thrown up with more energy than the pair had (it left at the light ball's 3.8 m/s: +186 %)."""
    world = World(gravity=(0.0, 0.0, gravity), sleeping=False)
    world.add_body(size=(5.0, 5.0, 0.5), position=(0, 0, -0.5), kind="static", restitution=1.0,
                   friction=0.0)
    world.add_body("sphere", 0.37, position=(0, 0, 0.37), mass=2.6, restitution=0.86,
                   friction=0.0, linear_velocity=(0, 0, -5.0))
    heavy = world.add_body("sphere", 0.34, position=(0, 0, 1.08), mass=10.8, restitution=0.86,
                           friction=0.0, linear_velocity=(0, 0, -0.5))
    trajectory = world.simulate(6)
    kinetic, potential = trajectory.kinetic_energy, trajectory.potential_energy
    energy = kinetic + potential - trajectory.push_out_work
    assert np.all(energy <= energy[0] + 1e-6 * (kinetic[0] + np.abs(potential).max()))
    assert trajectory.linear_velocities[1, heavy, 2] > 0.0  # the heavy ball was hit upwards
