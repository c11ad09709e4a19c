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


def test_changed_block_gets_a_new_pseudo_inverse_from_the_last_eigenvectors():
    m, rows, position, inverse_mass, world_inverse = _box_on_ground()
    prepare(m, rows, position, inverse_mass, world_inverse)
    old = m.normal_inverse[0].copy()
    basis = m.normal_vectors[0].copy()
    assert np.allclose(basis.T @ basis, np.eye(POINTS), atol=1e-14)  # kept for the next block
    m.point[0, :, 0] += 0.1  # the box slid: its arms changed
    prepare(m, rows, position, inverse_mass, world_inverse)
    assert not np.array_equal(m.normal_inverse[0], old)
    # the search started from the last eigenvectors finds the fresh search's pseudo-inverse
    assert not np.array_equal(m.normal_vectors[0], basis)
    assert np.allclose(m.normal_inverse[0], _fresh_inverse(m), rtol=0.0,
                       atol=1e-12 * np.abs(old).max())
    assert np.array_equal(m.subset_inverse[0, (1 << POINTS) - 1], m.normal_inverse[0])


def _face_block(slide: float) -> np.ndarray:
    """J M⁻¹ Jᵀ of a 1 kg unit box's four bottom corners on a static ground, its centre of
    mass `slide` m off their middle: rank 3, as every face of four coplanar points is."""
    rows = np.zeros((POINTS, 6))
    for s, corner in enumerate(CORNERS):
        arm = corner - (slide, 0.3 * slide, 0.5)
        rows[s] = (0.0, 0.0, 1.0, *np.cross(arm, (0.0, 0.0, 1.0)))
    return rows @ np.diag([1.0, 1.0, 1.0, 6.0, 6.0, 6.0]) @ rows.T


def test_a_search_from_a_nearby_blocks_eigenvectors_ends_sooner_with_the_same_result():
    held = np.ones(POINTS, dtype=np.bool_)
    scratch = np.empty((POINTS, POINTS))
    cold, cold_vectors, warm, vectors = (np.empty((POINTS, POINTS)) for _ in range(4))
    linalg.pseudo_inverse(_face_block(0.0), held, CUTOFF, cold, scratch, vectors)
    block = _face_block(0.004)  # a substep later at 1 m/s: slid 4 mm
    cold_sweeps = linalg.pseudo_inverse(block, held, CUTOFF, cold, scratch, cold_vectors)
    warm_sweeps = linalg.pseudo_inverse_from(block, CUTOFF, warm, scratch, vectors)
    assert warm_sweeps < cold_sweeps
    assert warm_sweeps <= 2 < 4 <= cold_sweeps
    assert np.allclose(warm, cold, rtol=0.0, atol=1e-13 * np.abs(cold).max())
    assert np.allclose(warm @ block @ warm, warm, atol=1e-12)  # a pseudo-inverse: A⁺ A A⁺ = A⁺
    assert np.allclose(vectors.T @ vectors, np.eye(POINTS), atol=1e-14)
