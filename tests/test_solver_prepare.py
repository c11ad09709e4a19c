"""constraints.prepare_rows keeps a manifold's pseudo-inverses (the whole set's and its subsets')
while its block stays the same and works them out again once the block changes; a World's new
set of rows reuses the last set's per-substep arrays (RowScratch) but none of its
pseudo-inverses."""

import itertools
import pickle

import numpy as np

from solver import World, linalg
from solver.constraints import CUTOFF, POINTS, Manifolds, RowScratch, prepare

CORNERS = np.array([[-0.5, -0.5, 0.0], [0.5, -0.5, 0.0], [0.5, 0.5, 0.0], [-0.5, 0.5, 0.0]])


def _box_on_ground(scratch: RowScratch | None = None) -> tuple:
    """One manifold: a 1 kg unit box lying on a static ground, its four corners touching."""
    one = np.array([5e-4])
    m = Manifolds(np.array([[0, 1]]), np.array([0.5]), np.array([0.0]), one, one, scratch)
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


def test_new_rows_reuse_the_buffers_but_not_the_pseudo_inverses_left_there():
    scratch = RowScratch()
    old, rows, position, inverse_mass, world_inverse = _box_on_ground(scratch)
    prepare(old, rows, position, inverse_mass, world_inverse)
    old.normal_inverse[0] = 7.0  # left behind beside the very block the next box will have
    old.subset_inverse[0] = 7.0
    old.subset_ready[0] = True
    new = _box_on_ground(scratch)[0]
    assert np.shares_memory(new.subset_inverse, old.subset_inverse)
    assert not new.normal_block.any() and not new.subset_ready.any()
    prepare(new, rows, position, inverse_mass, world_inverse)
    assert np.array_equal(new.normal_inverse[0], _fresh_inverse(new))
    assert not new.subset_ready[0, 0b0011]


def _bouncing_box() -> World:
    """A lively box bouncing on a static ground: its pair is found, lost and found again."""
    world = World(sleeping=False)
    world.add_body(shape="box", size=(5.0, 5.0, 0.5), position=(0.0, 0.0, -0.5), kind="static",
                   restitution=1.0)
    world.add_body(shape="box", size=(0.5, 0.5, 0.5), position=(0.0, 0.0, 2.0), restitution=0.9)
    return world


def test_a_world_steps_every_new_set_of_rows_in_the_same_buffers():
    world = _bouncing_box()
    sets = []
    for _ in range(96):
        world.step()
        latest = world._contacts
        if latest is not None and len(latest) and all(m is not latest for m in sets):
            sets.append(latest)
    largest, shared = len(sets[0]), 0
    for before, after in itertools.pairwise(sets):
        if len(after) <= largest:  # within the buffers the sets before it had
            assert np.shares_memory(after.normal_rows, before.normal_rows)
            shared += 1
        largest = max(largest, len(after))
    assert shared >= 1


def test_a_copied_world_steps_as_the_original_with_buffers_of_its_own():
    world = _bouncing_box()
    for _ in range(30):
        world.step()
    saved = pickle.dumps(world)
    assert b"RowScratch" not in saved  # loads where the solver has no such buffers
    copy = pickle.loads(saved)
    ours, theirs = world.simulate(30), copy.simulate(30)
    assert np.array_equal(ours.positions, theirs.positions)
    assert not np.shares_memory(world._contacts.normal_rows, copy._contacts.normal_rows)
