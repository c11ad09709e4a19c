"""solve_impulse._sweep stops sweeping an island once a pass changes none of its rows' velocities
by more than the polish's tolerance (a resting, warm-started pile needs one pass, not ten), and
goes on while the Gauss–Seidel passes still move something there (a heavy box settling on a
light one), without sweeping the islands already settled again."""

import numpy as np

from solver.constraints import POINTS, Manifolds, prepare
from solver.polish import TOLERANCE
from solver.sleep import row_islands
from solver.solve_impulse import _sweep

G_H = 9.81 / 240  # a substep's fall speed at 24 fps and 10 substeps
CORNERS = np.array([[-0.5, -0.5, 0.0], [0.5, -0.5, 0.0], [0.5, 0.5, 0.0], [-0.5, 0.5, 0.0]])


def _columns(*columns) -> tuple:
    """For each list of masses (kg, bottom first), a column of unit boxes on one static ground
    (body 0), 10 m apart (an island each), each face resting on the one below at its four
    corners, all falling at one substep of gravity."""
    pairs, point, position, masses = [], [], [[0.0, 0.0, -0.5]], []
    for c, column in enumerate(columns):
        for k, mass in enumerate(column):
            body = len(masses) + 1
            pairs.append([body - 1 if k else 0, body])
            point.append(CORNERS + np.array([10.0 * c, 0.0, k]))
            position.append([10.0 * c, 0.0, k + 0.5])
            masses.append(mass)
    count = len(masses)
    one = np.full(count, 5e-4)
    m = Manifolds(np.array(pairs), np.full(count, 0.5), np.zeros(count), one, one)
    m.points[:] = POINTS
    m.point[:] = point
    m.normal[:] = (0.0, 0.0, 1.0)
    m.tangents[:] = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0))
    inverse_mass = np.r_[0.0, 1.0 / np.asarray(masses, dtype=float)]
    world_inverse = np.zeros((count + 1, 3, 3))
    for k, mass in enumerate(masses):
        world_inverse[k + 1] = 6.0 / mass * np.eye(3)  # a unit cube: I = m/6
    rows = np.arange(count)
    prepare(m, rows, np.array(position), inverse_mass, world_inverse)
    velocity = np.zeros((count + 1, 3))
    velocity[1:, 2] = -G_H
    return m, rows, velocity, np.zeros_like(velocity)


def _sweeps(m, rows, velocity, angular_velocity, sweeps) -> int:
    offset = np.zeros((len(m), POINTS))
    dynamic = np.r_[False, np.ones(len(velocity) - 1, dtype=bool)]
    return _sweep(rows, m.a, m.b, m.points, m.normal_rows, m.normal_response, m.normal_block,
                  m.normal_inverse, m.subset_inverse, m.subset_ready, m.friction_rows,
                  m.friction_response, m.friction_mass, m.friction, m.normal_impulse,
                  m.friction_impulse, offset, np.empty((0, POINTS)), velocity,
                  angular_velocity, sweeps, True, _islands(rows, m, dynamic))


def _islands(rows, m, dynamic) -> np.ndarray:
    return row_islands(rows, m.a, m.b, dynamic, np.ones(len(rows), dtype=bool))[0]


def test_a_box_landing_flat_is_stopped_in_one_pass_and_the_next_ends_the_sweeps():
    m, rows, velocity, angular_velocity = _columns([1.0])
    assert _sweeps(m, rows, velocity, angular_velocity, 10) == 2
    assert np.abs(velocity).max() < 1e-15 and np.abs(angular_velocity).max() < 1e-15
    # the box's weight over the substep, shared by its four corners
    assert np.allclose(m.normal_impulse[0], G_H / 4, rtol=1e-12, atol=0.0)
    before = velocity.copy()
    assert _sweeps(m, rows, velocity, angular_velocity, 10) == 1  # already converged
    assert np.abs(velocity - before).max() <= TOLERANCE


def test_sweeps_go_on_while_a_heavy_box_still_settles_on_a_light_one():
    # each pass hands the light box about 1/1000 of the heavy one's weight: far from converged
    m, rows, velocity, angular_velocity = _columns([1.0, 1000.0])
    assert _sweeps(m, rows, velocity, angular_velocity, 10) == 10
    moved = velocity.copy()
    _sweeps(m, rows, velocity, angular_velocity, 1)
    assert np.abs(velocity - moved).max() > TOLERANCE  # an eleventh pass still moves them


def test_stopped_sweeps_leave_no_more_than_the_tolerance_to_change():
    m, rows, velocity, angular_velocity = _columns([1.0, 1.0, 1.0])
    ran = _sweeps(m, rows, velocity, angular_velocity, 200)
    assert 2 < ran < 200
    settled = velocity.copy()
    _sweeps(m, rows, velocity, angular_velocity, 1)
    assert np.abs(velocity - settled).max() <= TOLERANCE
    assert np.abs(settled).max() < 1e-6  # the column is held: no body still falls


def test_a_settled_island_is_not_swept_again_while_another_still_settles():
    alone = _columns([1.0, 1.0, 1.0])
    ran = _sweeps(*alone, 200)
    both = _columns([1.0, 1.0, 1.0], [1.0, 1000.0])
    m, rows, velocity, angular_velocity = both
    assert _sweeps(m, rows, velocity, angular_velocity, 200) == 200 > ran
    # the column of three, an island of its own, got exactly its own passes, bit for bit
    assert np.array_equal(m.normal_impulse[:3], alone[0].normal_impulse)
    assert np.array_equal(velocity[:4], alone[2])


def test_islands_are_joined_through_dynamic_bodies_only():
    m, rows, _, _ = _columns([1.0, 1.0], [1.0], [1.0, 1.0, 1.0])
    dynamic = np.r_[False, np.ones(6, dtype=bool)]
    assert _islands(rows, m, dynamic).tolist() == [0, 0, 1, 2, 2, 2]
    dynamic[5] = False  # the last column's middle box kinematic: it joins nothing
    assert _islands(rows[::-1], m, dynamic).tolist() == [0, 1, 1, 2, 3, 3]
