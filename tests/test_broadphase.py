"""solver.broadphase: AABBs of boxes and spheres, and sweep and prune against brute force."""

import numpy as np
import pytest

from solver import aabbs, quaternion, sweep_and_prune
from solver.shapes import BOX, SPHERE


def _brute_force(lo, hi, movable):
    """Every pair i < j whose AABBs overlap (touching counts) with a movable body, sorted."""
    overlap = np.all(
        (lo[:, None, :] <= hi[None, :, :]) & (lo[None, :, :] <= hi[:, None, :]), axis=2
    )
    overlap &= movable[:, None] | movable[None, :]
    i, j = np.nonzero(np.triu(overlap, k=1))
    return np.stack([i, j], axis=1).astype(np.int64)


KINDS = ["spread", "clustered", "flat", "grid", "duplicates", "ground", "points", "far"]


def _scene(rng, n, kind):
    """AABBs of n bodies in one of several arrangements that stress different paths."""
    centers = rng.uniform(-20, 20, size=(n, 3))
    half = rng.uniform(0.1, 2.0, size=(n, 3))
    if kind == "clustered":
        centers = rng.normal(scale=0.5, size=(n, 3))
        half = rng.uniform(0.05, 0.6, size=(n, 3))
    elif kind == "flat":  # a pile on a floor: all overlap on z
        centers[:, 2] = rng.uniform(0, 0.5, size=n)
    elif kind == "grid":  # unit cubes on integer positions: faces, edges and corners touch exactly
        centers = rng.integers(0, max(2, round(n ** (1 / 3)) + 1), size=(n, 3)).astype(float)
        half = np.full((n, 3), 0.5)
    elif kind == "duplicates":  # many identical boxes
        centers = np.repeat(rng.uniform(-3, 3, size=(n // 4 + 1, 3)), 4, axis=0)[:n]
        half = np.ones((n, 3))
    elif kind == "ground":  # a few huge boxes (ground, walls) spanning very many slabs
        big = rng.random(n) < 0.02
        half[big] = rng.uniform(50, 500, size=(big.sum(), 3)) * (rng.random((big.sum(), 3)) < 0.7)
    elif kind == "points":  # zero-size boxes, some coinciding
        centers = np.round(centers / 8.0) * 8.0
        half = np.zeros((n, 3))
    elif kind == "far":  # far from the origin, where slab indices are large
        centers = centers * 1e-3 + 1e6
        half = half * 1e-3
    return centers - half, centers + half


@pytest.mark.parametrize(("seed", "kind"), list(enumerate(KINDS)))
def test_sweep_and_prune_equals_brute_force(seed, kind):
    rng = np.random.default_rng(seed)
    for n in [1, 2, 3, 10, 57, 300, 2000]:
        lo, hi = _scene(rng, n, kind)
        movable = rng.random(n) < 0.7
        pairs = sweep_and_prune(lo, hi, movable)
        expected = _brute_force(lo, hi, movable)
        assert pairs.dtype == np.int64
        assert pairs.shape[1] == 2
        np.testing.assert_array_equal(pairs, expected)


def test_static_static_pairs_excluded_and_all_movable_kept():
    lo = np.zeros((3, 3))
    hi = np.ones((3, 3))
    assert sweep_and_prune(lo, hi, np.array([False, False, False])).shape == (0, 2)
    np.testing.assert_array_equal(
        sweep_and_prune(lo, hi, np.array([False, True, False])), [[0, 1], [1, 2]]
    )
    np.testing.assert_array_equal(
        sweep_and_prune(lo, hi, np.ones(3, bool)), [[0, 1], [0, 2], [1, 2]]
    )


def test_touching_counts_and_a_gap_does_not():
    lo = np.array([[0.0, 0, 0], [1.0, 0, 0], [2.0 + 1e-12, 0, 0]])
    hi = lo + 1.0
    np.testing.assert_array_equal(sweep_and_prune(lo, hi, np.ones(3, bool)), [[0, 1]])


def test_coincident_points_overlap():
    """Zero-size boxes all at one place: no extent at all to size slabs by, yet all pairs found."""
    lo = np.full((4, 3), 2.5)
    np.testing.assert_array_equal(
        sweep_and_prune(lo, lo, np.ones(4, bool)), [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    )


def test_small_batches_give_the_same_pairs(monkeypatch):
    """Candidate generation in several batches (as for huge clustered scenes) loses no pair."""
    from solver import broadphase

    rng = np.random.default_rng(5)
    lo, hi = _scene(rng, 400, "clustered")
    movable = np.ones(400, bool)
    whole = sweep_and_prune(lo, hi, movable)
    monkeypatch.setattr(broadphase, "_BATCH_PAIRS", 97)
    np.testing.assert_array_equal(sweep_and_prune(lo, hi, movable), whole)
    np.testing.assert_array_equal(whole, _brute_force(lo, hi, movable))


def test_aabbs_of_rotated_boxes_and_spheres():
    rng = np.random.default_rng(2)
    n = 500
    centers = rng.uniform(-5, 5, size=(n, 3))
    rotations = quaternion.to_matrix(quaternion.normalize(rng.normal(size=(n, 4))))
    half = rng.uniform(0.1, 2.0, size=(n, 3))
    shape = np.where(rng.random(n) < 0.3, SPHERE, BOX).astype(np.int8)
    half[shape == SPHERE] = half[shape == SPHERE, :1]
    lo, hi = aabbs(centers, rotations, half, shape)
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    world = centers[:, None, :] + np.einsum("nij,nkj->nki", rotations, corners * half[:, None, :])
    boxes = shape == BOX
    np.testing.assert_allclose(lo[boxes], world[boxes].min(axis=1), atol=1e-12)
    np.testing.assert_allclose(hi[boxes], world[boxes].max(axis=1), atol=1e-12)
    r = half[~boxes, :1]
    np.testing.assert_array_equal(lo[~boxes], centers[~boxes] - r)
    np.testing.assert_array_equal(hi[~boxes], centers[~boxes] + r)
