"""Stacks, mass ratios, contact identities and resting at coarse steps (issue #10, items 1, 2, 4).

All at the default settings (24 fps, 10 substeps, 10 iterations) unless a test says otherwise,
with sleeping off, so the solver itself must hold the bodies (sleeping would only freeze what
it already held). The issue's full runs (500 and 1,000 frames, ratios up to 1:10,000) are
measured by benchmarks/heavy_on_light.py; these use fewer frames, enough for today's failures
(the light box crushed within 5 frames, the column sagging 3 mm in its first 2).
"""

import numpy as np
import pytest

from solver import World
from solver.constraints import POINTS, warm_start_from

DRIFT = 1e-3  # m, the bound on drift and sinking
SLOP = 5e-4  # m, world.LINEAR_SLOP: what a resting contact may sink without push-out


def _ground(world):
    return world.add_body(size=(20.0, 20.0, 0.5), position=(0.0, 0.0, -0.5), kind="static",
                          restitution=1.0, friction=1.0)


def _worst_drift(trajectory, body):
    """Largest distance of a body from where it started, over every frame."""
    positions = trajectory.positions[:, body]
    return float(np.linalg.norm(positions - positions[0], axis=1).max())


@pytest.mark.parametrize("ratio", [1000.0, 10000.0])
def test_heavy_box_resting_on_a_light_one_stays_put(ratio):
    """1,000 (and 10,000) kg on 1 kg on a static ground: both boxes stay within 1 mm of where
    they started over 120 frames (the exact answer: they do not move at all)."""
    world = World(sleeping=False)
    _ground(world)
    light = world.add_body(size=(0.5, 0.5, 0.5), position=(0.0, 0.0, 0.5), mass=1.0,
                           restitution=0.0)
    heavy = world.add_body(size=(0.5, 0.5, 0.5), position=(0.0, 0.0, 1.5), mass=ratio,
                           restitution=0.0)
    trajectory = world.simulate(120)
    assert _worst_drift(trajectory, light) < DRIFT
    assert _worst_drift(trajectory, heavy) < DRIFT
    assert trajectory.max_penetration.max() < DRIFT


def test_column_of_twenty_boxes_stands():
    """20 equal unit boxes on the ground: the top box stays within 1 mm of its start at every
    one of 240 frames (1,000 frames in benchmarks/heavy_on_light.py)."""
    world = World(sleeping=False)
    _ground(world)
    boxes = [world.add_body(size=(0.5, 0.5, 0.5), position=(0.0, 0.0, 0.5 + k),
                            restitution=0.0) for k in range(20)]
    trajectory = world.simulate(240)
    assert _worst_drift(trajectory, boxes[-1]) < DRIFT
    assert np.abs(trajectory.linear_velocities[-1]).max() < 1e-6


def test_pyramid_of_twenty_rows_stands():
    """A pyramid of 20 rows (210 unit boxes side by side, each row on the one below): the top
    box stays within 1 mm of its start over 24 frames (300 in the benchmark)."""
    world = World(sleeping=False)
    _ground(world)
    for row in range(20):
        for k in range(20 - row):
            top = world.add_body(size=(0.5, 0.5, 0.5),
                                 position=(k - (19 - row) / 2, 0.0, 0.5 + row), restitution=0.0)
    trajectory = world.simulate(24)
    assert _worst_drift(trajectory, top) < DRIFT


def test_pyramid_dropped_row_by_row_settles_without_creeping():
    """The same pyramid with every box 1 cm from its neighbours and 1 cm above the row below:
    each row drops onto the next, and once settled (frame 24) the top box moves less than
    0.05 mm sideways over the next 48 frames (it crept 2.2 mm while boxes closing face to face
    flipped to single edge points on rounding, and 0.1-0.4 mm while the polish, preconditioned by
    block Jacobi, stopped at its step cap every substep with its error down only 40-fold)."""
    world = World(sleeping=False)
    _ground(world)
    for row in range(20):
        for k in range(20 - row):
            top = world.add_body(size=(0.5, 0.5, 0.5),
                                 position=(1.01 * (k - (19 - row) / 2), 0.0, 0.5 + 1.01 * row),
                                 restitution=0.0)
    sideways = world.simulate(72).positions[24:, top, :2]
    assert np.linalg.norm(sideways - sideways[0], axis=1).max() < 0.05 * DRIFT


def _warm_start(old_feature, new_feature, new_anchor_a):
    """Impulses a new manifold of one pair inherits from an old one holding 1, 2, 3, 4 at
    the corners of a unit face (the same anchors on both bodies, for simplicity)."""
    corners = np.array([[0.5, 0.5, 0.5], [-0.5, 0.5, 0.5], [-0.5, -0.5, 0.5], [0.5, -0.5, 0.5]])
    old_anchor = corners[None].copy()
    old_impulse = np.array([[1.0, 2.0, 3.0, 4.0]])
    old_friction = np.zeros((1, POINTS, 2))
    tangents = np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    count = len(new_feature)
    anchor = np.zeros((1, POINTS, 3))
    anchor[0, :count] = new_anchor_a
    feature = np.full((1, POINTS), -1, dtype=np.int64)
    feature[0, :count] = new_feature
    impulse = np.zeros((1, POINTS))
    warm_start_from(np.array([7]), np.array([4]), np.array([old_feature], dtype=np.int64),
                    old_anchor, old_anchor, old_impulse, np.zeros((1, POINTS)), old_friction,
                    tangents, np.array([7]), np.array([count]), feature, anchor, anchor.copy(),
                    impulse, np.zeros((1, POINTS)), np.zeros((1, POINTS, 2)), tangents.copy())
    return impulse[0, :count]


def test_warm_start_follows_points_whose_feature_ids_changed_under_rounding():
    """Corners exactly on the rim of the face below are clipped as corners or as crossing
    points depending on rounding, so their feature ids change while they stay put: they must
    keep their impulses (matched to the nearest previous point of the pair), and a point
    somewhere else must not take one."""
    corners = np.array([[0.5, 0.5, 0.5], [-0.5, 0.5, 0.5], [-0.5, -0.5, 0.5], [0.5, -0.5, 0.5]])
    noise = 1e-12 * np.arange(12).reshape(4, 3)
    inherited = _warm_start([10, 11, 12, 13], [10, 11, 42, 43], corners + noise)
    assert np.array_equal(inherited, [1.0, 2.0, 3.0, 4.0])
    # reordered, with new ids: each point still finds its own corner
    inherited = _warm_start([10, 11, 12, 13], [44, 45, 46, 47], (corners + noise)[[2, 0, 3, 1]])
    assert np.array_equal(inherited, [3.0, 1.0, 4.0, 2.0])
    # a new point at the middle of an edge is no corner's: no impulse
    inherited = _warm_start([10, 11, 12, 13], [50], np.array([[0.0, 0.5, 0.5]]))
    assert np.array_equal(inherited, [0.0])


@pytest.mark.parametrize("fps", [1, 6, 24, 1000])
@pytest.mark.parametrize("g", [9.81, 1000.0])
@pytest.mark.parametrize("restitution", [0.0, 0.5, 1.0])
def test_resting_box_stays_within_the_slop_at_any_step_and_gravity(fps, g, restitution):
    """A box resting on the ground stays within the slop of its place at fps 1–1000 and
    gravity up to 1000 m/s², and gains no energy (kinetic + potential never above the start,
    to rounding), with no push-out work: the rebound target e u + g h / 2 must not point into
    the ground when g h / 2 > e u, and one substep of gravity is no bounce."""
    world = World(fps=fps, gravity=(0.0, 0.0, -g), sleeping=False)
    _ground(world)
    box = world.add_body(size=(0.5, 0.5, 0.5), position=(0.0, 0.0, 0.5), restitution=restitution)
    trajectory = world.simulate(24)
    z = trajectory.positions[:, box, 2]
    assert np.abs(z - 0.5).max() <= SLOP
    energy = trajectory.kinetic_energy + trajectory.potential_energy
    assert energy.max() <= energy[0] + 1e-12 * abs(energy[0])
    assert trajectory.push_out_work[-1] == 0.0
