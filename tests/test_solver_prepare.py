"""constraints.prepare_rows keeps a manifold's pseudo-inverses (the whole set's and its subsets')
while its block stays the same and works them out again once the block changes."""

import numpy as np

from solver import linalg
from solver.constraints import CUTOFF, POINTS, Manifolds, prepare

CORNERS = np.array([[-0.5, -0.5, 0.0], [0.5, -0.5, 0.0], [0.5, 0.5, 0.0], [-0.5, 0.5, 0.0]])


def _box_on_ground() -> tuple:
    """One manifold: a 1 kg unit box lying on a static ground, its four corners touching."""
    one = np.array([5e-4])
    m = Manifolds(np.array([[0, 1]]), np.array([0.5]), np.array([0.0]), one, one)
    m.points[0] = POINTS
    m.point[0] = CORNERS
    m.normal[0] = (0.0, 0.0, 1.0)
    m.tangents[0] = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0))
    position = np.array([[0.0, 0.0, -0.5], [0.0, 0.0, 0.5]])
    inverse_mass = np.array([0.0, 1.0])
    world_inverse = np.zeros((2, 3, 3))
    world_inverse[1] = 6.0 * np.eye(3)  # a unit cube of 1 kg: I = 1/6 kg m²
    return m, np.array([0]), position, inverse_mass, world_inverse


def _fresh_inverse(m: Manifolds) -> np.ndarray:
    out = np.empty((POINTS, POINTS))
    linalg.pseudo_inverse(m.normal_block[0], np.ones(POINTS, dtype=np.bool_), CUTOFF, out,
                          np.empty((POINTS, POINTS)), np.empty((POINTS, POINTS)))
    return out


def test_unchanged_block_keeps_its_pseudo_inverse():
    m, rows, position, inverse_mass, world_inverse = _box_on_ground()
    prepare(m, rows, position, inverse_mass, world_inverse)
    assert np.array_equal(m.normal_inverse[0], _fresh_inverse(m))
    block = m.normal_block[0].copy()
    m.normal_inverse[0] = 7.0  # what a recomputation would overwrite
    prepare(m, rows, position, inverse_mass, world_inverse)
    assert np.array_equal(m.normal_block[0], block)
    assert np.all(m.normal_inverse[0] == 7.0)
    assert np.all(m.subset_inverse[0, (1 << POINTS) - 1] == 7.0)  # the whole set's, too


def test_unchanged_block_keeps_its_subsets():
    m, rows, position, inverse_mass, world_inverse = _box_on_ground()
    prepare(m, rows, position, inverse_mass, world_inverse)
    m.subset_inverse[0, 0b0011] = 7.0  # a contact set's, worked out in a sweep
    m.subset_ready[0, 0b0011] = True
    prepare(m, rows, position, inverse_mass, world_inverse)
    assert m.subset_ready[0, 0b0011] and np.all(m.subset_inverse[0, 0b0011] == 7.0)
    m.point[0, :, 0] += 0.1  # the box slid: its block changed
    prepare(m, rows, position, inverse_mass, world_inverse)
    assert not m.subset_ready[0, 0b0011]
    assert m.subset_ready[0, (1 << POINTS) - 1]


def test_changed_block_gets_a_new_pseudo_inverse():
    m, rows, position, inverse_mass, world_inverse = _box_on_ground()
    prepare(m, rows, position, inverse_mass, world_inverse)
    old = m.normal_inverse[0].copy()
    m.point[0, :, 0] += 0.1  # the box slid: its arms changed
    prepare(m, rows, position, inverse_mass, world_inverse)
    assert not np.array_equal(m.normal_inverse[0], old)
    assert np.array_equal(m.normal_inverse[0], _fresh_inverse(m))
    assert np.array_equal(m.subset_inverse[0, (1 << POINTS) - 1], m.normal_inverse[0])
