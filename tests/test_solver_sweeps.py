"""solve_impulse._sweep stops once a pass changes no row's velocity by more than the polish's
tolerance (a resting, warm-started pile needs one pass, not ten), and goes on while the
Gauss–Seidel passes still move something (a heavy box settling on a light one)."""

import numpy as np

from solver.constraints import POINTS, Manifolds, prepare
from solver.polish import TOLERANCE
from solver.solve_impulse import _sweep

G_H = 9.81 / 240  # a substep's fall speed at 24 fps and 10 substeps
CORNERS = np.array([[-0.5, -0.5, 0.0], [0.5, -0.5, 0.0], [0.5, 0.5, 0.0], [-0.5, 0.5, 0.0]])


def _column(masses) -> tuple:
    """Unit boxes of `masses` (kg, bottom first) stacked on a static ground (body 0), each face
    resting on the one below at its four corners, all falling at one substep of gravity."""
    count = len(masses)
    pairs = np.array([[k, k + 1] for k in range(count)])
    one = np.full(count, 5e-4)
    m = Manifolds(pairs, np.full(count, 0.5), np.zeros(count), one, one)
    for k in range(count):
        m.points[k] = POINTS
        m.point[k] = CORNERS + np.array([0.0, 0.0, k])
        m.normal[k] = (0.0, 0.0, 1.0)
        m.tangents[k] = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0))
    position = np.array([[0.0, 0.0, -0.5]] + [[0.0, 0.0, k + 0.5] for k in range(count)])
    inverse_mass = np.r_[0.0, 1.0 / np.asarray(masses, dtype=float)]
    world_inverse = np.zeros((count + 1, 3, 3))
    for k, mass in enumerate(masses):
        world_inverse[k + 1] = 6.0 / mass * np.eye(3)  # a unit cube: I = m/6
    rows = np.arange(count)
    prepare(m, rows, position, inverse_mass, world_inverse)
    velocity = np.zeros((count + 1, 3))
    velocity[1:, 2] = -G_H
    return m, rows, velocity, np.zeros_like(velocity)


def _sweeps(m, rows, velocity, angular_velocity, sweeps) -> int:
    offset = np.zeros((len(m), POINTS))
    return _sweep(rows, m.a, m.b, m.points, m.normal_rows, m.normal_response, m.normal_block,
                  m.normal_inverse, m.subset_inverse, m.subset_ready, m.friction_rows,
                  m.friction_response, m.friction_mass, m.friction, m.normal_impulse,
                  m.friction_impulse, offset, np.empty((0, POINTS)), velocity,
                  angular_velocity, sweeps, True)


def test_a_box_landing_flat_is_stopped_in_one_pass_and_the_next_ends_the_sweeps():
    m, rows, velocity, angular_velocity = _column([1.0])
    assert _sweeps(m, rows, velocity, angular_velocity, 10) == 2
    assert np.abs(velocity).max() < 1e-15 and np.abs(angular_velocity).max() < 1e-15
    # the box's weight over the substep, shared by its four corners
    assert np.allclose(m.normal_impulse[0], G_H / 4, rtol=1e-12, atol=0.0)
    before = velocity.copy()
    assert _sweeps(m, rows, velocity, angular_velocity, 10) == 1  # already converged
    assert np.abs(velocity - before).max() <= TOLERANCE


def test_sweeps_go_on_while_a_heavy_box_still_settles_on_a_light_one():
    # each pass hands the light box about 1/1000 of the heavy one's weight: far from converged
    m, rows, velocity, angular_velocity = _column([1.0, 1000.0])
    assert _sweeps(m, rows, velocity, angular_velocity, 10) == 10
    moved = velocity.copy()
    _sweeps(m, rows, velocity, angular_velocity, 1)
    assert np.abs(velocity - moved).max() > TOLERANCE  # an eleventh pass still moves them


def test_stopped_sweeps_leave_no_more_than_the_tolerance_to_change():
    m, rows, velocity, angular_velocity = _column([1.0, 1.0, 1.0])
    ran = _sweeps(m, rows, velocity, angular_velocity, 200)
    assert 2 < ran < 200
    settled = velocity.copy()
    _sweeps(m, rows, velocity, angular_velocity, 1)
    assert np.abs(velocity - settled).max() <= TOLERANCE
    assert np.abs(settled).max() < 1e-6  # the column is held: no body still falls
