"""The single-pair public API: solver.collide(a, b) -> Manifold."""

import numpy as np
import pytest

import solver
from solver import Box, Manifold, Sphere, collide

FLOOR = Box((0.0, 0.0, -0.5), (1.0, 0.0, 0.0, 0.0), (5.0, 5.0, 0.5))


def test_box_on_floor_normal_points_from_a_to_b():
    cube = Box((0.0, 0.0, 0.49), (1.0, 0.0, 0.0, 0.0), (0.5, 0.5, 0.5))
    m = collide(FLOOR, cube)
    assert isinstance(m, Manifold)
    np.testing.assert_allclose(m.normal, [0.0, 0.0, 1.0])
    assert m.points.shape == (4, 3) and m.depths.shape == (4,)
    np.testing.assert_allclose(m.depths, 0.01, rtol=1e-12)
    np.testing.assert_allclose(np.sort(m.points[:, 0]), [-0.5, -0.5, 0.5, 0.5])
    np.testing.assert_allclose(m.points[:, 2], -0.005, atol=1e-12)
    flipped = collide(cube, FLOOR)
    np.testing.assert_allclose(flipped.normal, [0.0, 0.0, -1.0])
    np.testing.assert_allclose(np.sort(flipped.points, axis=0), np.sort(m.points, axis=0))


def test_apart_is_empty_and_touching_counts():
    apart = collide(FLOOR, Sphere((0.0, 0.0, 1.0), 0.999))
    assert apart.points.shape == (0, 3) and apart.depths.shape == (0,)
    np.testing.assert_array_equal(apart.normal, np.zeros(3))
    touching = collide(FLOOR, Sphere((0.0, 0.0, 1.0), 1.0))
    np.testing.assert_allclose(touching.depths, [0.0])
    np.testing.assert_allclose(touching.points, [[0.0, 0.0, 0.0]])


def test_sphere_pairs_and_unnormalised_orientation():
    m = collide(Sphere((0.0, 0.0, 0.0), 1.0), Sphere((0.0, 1.5, 0.0), 1.0))
    np.testing.assert_allclose(m.normal, [0.0, 1.0, 0.0])
    np.testing.assert_allclose(m.depths, [0.5])
    # (2, 0, 0, 2) is a 90° turn about z once normalised: the long x side becomes y
    slab = Box((0.0, 0.0, 0.0), (2.0, 0.0, 0.0, 2.0), (2.0, 0.5, 0.5))
    m = collide(slab, Sphere((0.0, 2.2, 0.0), 0.5))
    np.testing.assert_allclose(m.normal, [0.0, 1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(m.depths, [0.3], atol=1e-12)


def test_bad_shapes_are_rejected_clearly():
    with pytest.raises(ValueError, match="expected 3 numbers"):
        Box((0.0, 0.0), (1.0, 0.0, 0.0, 0.0), (1.0, 1.0, 1.0))
    with pytest.raises(ValueError, match="non-zero quaternion"):
        Box((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 0.0), (1.0, 1.0, 1.0))
    with pytest.raises(ValueError, match="half-extents must be positive"):
        Box((0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0), (1.0, 0.0, 1.0))
    with pytest.raises(ValueError, match="radius must be positive"):
        Sphere((0.0, 0.0, 0.0), -1.0)


def test_public_names():
    for name in (
        "collide",
        "Manifold",
        "Box",
        "Sphere",
        "find_contacts",
        "Contacts",
        "time_of_impact",
        "time_of_impact_batch",
        "BOX",
        "SPHERE",
    ):
        assert name in solver.__all__ and hasattr(solver, name)


def test_new_shape_records_collide():
    lying = solver.Capsule((0.0, 0.0, 0.19), (np.sqrt(0.5), np.sqrt(0.5), 0.0, 0.0), 0.2, 0.5)
    m = collide(FLOOR, lying)
    np.testing.assert_allclose(m.normal, [0.0, 0.0, 1.0], atol=1e-9)
    np.testing.assert_allclose(m.depths, 0.01, atol=1e-9)
    np.testing.assert_allclose(np.sort(m.points[:, 1]), [-0.5, 0.5], atol=1e-9)
    tetra = solver.ConvexHull((0.0, 0.0, 2.0), (1.0, 0.0, 0.0, 0.0),
                              [[0, 0, -1.1], [1, 0, 1], [-1, 1, 1], [-1, -1, 1]])
    m = collide(solver.Cylinder((0.0, 0.0, 0.5), (1.0, 0.0, 0.0, 0.0), 0.3, 0.5), tetra)
    np.testing.assert_allclose(m.depths, [0.1], atol=1e-9)  # its tip 0.1 into the top face
    assert collide(solver.Cone((5.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0), 0.3, 0.5),
                   tetra).points.shape == (0, 3)
