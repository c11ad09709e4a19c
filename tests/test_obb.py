"""solver.obb: oriented boxes by PCA and smallest volume, thickening, containment."""

import math

import numpy as np
import pytest

from solver import MIN_HALF_EXTENT, obb_from_points, quaternion
from solver.obb import FLAT_FRACTION
from tests.meshes import box_mesh, random_rotation

CUBE = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
# A cube like Blender's default: 8 vertices, 6 quads split into 12 triangles, wound outward.
CUBE_TRIANGLES = np.array(
    [
        [0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
        [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3],
    ]
)  # fmt: skip


def _assert_contains(box, points, tol=1e-9):
    local = (points - box.center) @ quaternion.to_matrix(box.orientation)
    assert np.all(np.abs(local) <= box.half_extents + tol)


def _assert_is_box(box, center, rotation, half_extents, tol=1e-9):
    """The box equals the given one up to a relabelling (permutation and signs) of its axes."""
    found = quaternion.to_matrix(box.orientation)
    relabel = rotation.T @ found  # a signed permutation when the frames agree
    permutation = np.abs(np.round(relabel))
    np.testing.assert_allclose(np.abs(relabel), permutation, atol=tol)
    np.testing.assert_allclose(box.half_extents, permutation.T @ half_extents, atol=tol)
    np.testing.assert_allclose(box.center, center, atol=tol)
    assert not box.thickened


def test_default_cube_with_applied_rotation_is_its_own_box():
    rng = np.random.default_rng(0)
    for _ in range(50):
        _, rotation = random_rotation(rng)
        shift = rng.uniform(-10, 10, size=3)
        box = obb_from_points(CUBE @ rotation.T + shift, CUBE_TRIANGLES)
        _assert_is_box(box, shift, rotation, np.ones(3))


def test_blender_cube_after_apply_rotation_is_its_own_box():
    """The real workflow: Blender rotates the vertices (as Ctrl+A does) and stores float32.

    So agreement is to float32 precision here; the float64 test above checks 1e-9.
    """
    import bpy  # noqa: F401  (bmesh and mathutils are importable only once bpy is)

    # isort: split
    import bmesh
    from mathutils import Matrix

    rng = np.random.default_rng(11)
    for _ in range(5):
        axis, angle = rng.normal(size=3), rng.uniform(0, np.pi)
        turn = Matrix.Rotation(angle, 3, axis)
        bm = bmesh.new()
        bmesh.ops.create_cube(bm, size=2.0)
        bmesh.ops.rotate(bm, verts=bm.verts, matrix=turn)
        bmesh.ops.triangulate(bm, faces=bm.faces)
        bm.verts.index_update()
        vertices = np.array([v.co for v in bm.verts], dtype=float)
        triangles = np.array([[v.index for v in f.verts] for f in bm.faces])
        bm.free()
        box = obb_from_points(vertices, triangles)
        _assert_is_box(box, np.zeros(3), np.array(turn), np.ones(3), tol=1e-6)


@pytest.mark.parametrize(
    "half", [(1.0, 1.0, 1.0), (2.0, 1.0, 1.0), (0.3, 1.7, 0.3), (1.5, 0.8, 0.4)]
)
def test_unevenly_subdivided_box_is_its_own_box(half):
    """Ties (cube, square cross-section) and no ties; cells of unequal size bias no frame."""
    rng = np.random.default_rng(1)
    for seed in range(10):
        vertices, triangles = box_mesh(half, cuts=rng.integers(1, 7, size=3), seed=seed)
        _, rotation = random_rotation(rng)
        shift = rng.uniform(-5, 5, size=3)
        points = vertices @ rotation.T + shift
        box = obb_from_points(points, triangles)
        _assert_is_box(box, shift, rotation, np.asarray(half))


def test_large_cube_mesh_within_the_work_budget():
    """~22,000 vertices: candidate frames are cut to the budget, the cube's own frame survives."""
    rng = np.random.default_rng(9)
    vertices, triangles = box_mesh((1.0, 1.0, 1.0), cuts=(60, 60, 60), seed=9)
    _, rotation = random_rotation(rng)
    box = obb_from_points(vertices @ rotation.T, triangles)
    _assert_is_box(box, np.zeros(3), rotation, np.ones(3))


def _prism(sides, radius, half_height):
    """A closed regular prism along z, wound outward, with a cross-section vertex on +x."""
    angle = 2 * np.pi * np.arange(sides) / sides
    ring = np.c_[radius * np.cos(angle), radius * np.sin(angle)]
    bottom = np.c_[ring, np.full(sides, -half_height)]
    top = np.c_[ring, np.full(sides, half_height)]
    k = np.arange(sides)
    after = (k + 1) % sides
    walls = np.r_[np.c_[k, after, after + sides], np.c_[k, after + sides, k + sides]]
    fan = np.arange(1, sides - 1)
    caps = np.r_[np.c_[0 * fan, fan + 1, fan], np.c_[0 * fan + sides, fan + sides, fan + 1 + sides]]
    return np.r_[bottom, top], np.r_[walls, caps]


def test_prism_cross_section_tie_finds_the_smallest_rectangle():
    """A 12-sided prism: the PCA cross-section is isotropic; the best square faces two walls."""
    rng = np.random.default_rng(2)
    vertices, triangles = _prism(12, 1.0, 2.0)
    across = math.cos(math.pi / 12)  # apothem: distance to the walls, less than the radius
    for _ in range(10):
        _, rotation = random_rotation(rng)
        box = obb_from_points(vertices @ rotation.T, triangles)
        assert sorted(box.half_extents) == pytest.approx([across, across, 2.0], abs=1e-9)
        _assert_contains(box, vertices @ rotation.T)


def test_points_without_triangles_use_point_pca():
    """Corners of a box with distinct extents: the point covariance's axes are the box's."""
    rng = np.random.default_rng(3)
    half = np.array([2.0, 1.0, 0.5])
    for _ in range(20):
        _, rotation = random_rotation(rng)
        shift = rng.uniform(-3, 3, size=3)
        box = obb_from_points((CUBE * half) @ rotation.T + shift)
        _assert_is_box(box, shift, rotation, half)


def test_every_point_is_inside():
    rng = np.random.default_rng(4)
    for _ in range(200):
        n = int(rng.integers(1, 300))
        _, rotation = random_rotation(rng)
        points = rng.normal(size=(n, 3)) * rng.uniform(0.001, 10, size=3) @ rotation.T
        points += rng.uniform(-1e3, 1e3, size=3)
        _assert_contains(obb_from_points(points), points)
        if n >= 3:
            triangles = rng.integers(0, n, size=(n, 3))
            _assert_contains(obb_from_points(points, triangles), points)


def test_box_aligned_with_the_input_axes_keeps_them():
    vertices, triangles = box_mesh((3.0, 2.0, 1.0), seed=5)
    box = obb_from_points(vertices + np.array([1.0, 2.0, 3.0]), triangles)
    np.testing.assert_array_equal(box.orientation, [1.0, 0.0, 0.0, 0.0])
    np.testing.assert_allclose(box.half_extents, [3.0, 2.0, 1.0], atol=1e-12)
    np.testing.assert_allclose(box.center, [1.0, 2.0, 3.0], atol=1e-12)


def test_axes_are_reported_nearest_the_input_axes():
    """A box turned 0.3 rad about z: its frame is that turn, not a relabelling; extents in order."""
    vertices, triangles = box_mesh((3.0, 2.0, 1.0), seed=10)
    turn = quaternion.from_axis_angle(np.array([0.0, 0.0, 1.0]), np.array(0.3))
    for points, tri in ((vertices, triangles), (CUBE * (3.0, 2.0, 1.0), None)):
        box = obb_from_points(quaternion.rotate(turn, points), tri)
        np.testing.assert_allclose(box.orientation, turn, atol=1e-12)
        np.testing.assert_allclose(box.half_extents, [3.0, 2.0, 1.0], atol=1e-12)


def _ground(depth=0.0, size=10.0):
    """A subdivided square, top face in z = 0 looking up; depth > 0 adds a skirt: an open tray."""
    half = (size, size, 0.5 * depth)
    vertices, triangles = box_mesh(half, cuts=(8, 8, 0), seed=6)
    a, b, c = (vertices[triangles[:, k]] for k in range(3))
    upward = np.cross(b - a, c - a)[:, 2] >= 0.0  # drops the bottom (zero-area sides stay)
    return vertices - (0.0, 0.0, 0.5 * depth), triangles[upward]


GROUND_HALF = 0.5 * FLAT_FRACTION * 20.0  # a 20 m ground is 1 % of 20 m thick


@pytest.mark.parametrize("depth", [0.0, 0.004])
def test_ground_plane_is_thickened_behind_its_faces(depth):
    rng = np.random.default_rng(7)
    vertices, triangles = _ground(depth)
    for _ in range(10):
        _, rotation = random_rotation(rng)
        shift = rng.uniform(-5, 5, size=3)
        up = rotation[:, 2]
        box = obb_from_points(vertices @ rotation.T + shift, triangles)
        assert box.thickened
        assert sorted(box.half_extents) == pytest.approx([GROUND_HALF, 10.0, 10.0], abs=1e-9)
        # The top face stays in the plane; the whole thickness lies below it.
        np.testing.assert_allclose(box.center, shift - GROUND_HALF * up, atol=1e-9)
        _assert_contains(box, vertices @ rotation.T + shift)
    # Faces looking down (a ceiling): the box grows upward from the lowest points instead.
    ceiling = obb_from_points(vertices, triangles[:, ::-1])
    bottom = -depth
    np.testing.assert_allclose(ceiling.center, [0.0, 0.0, bottom + GROUND_HALF], atol=1e-12)


@pytest.mark.parametrize("faces", ["up", "down", "both", "none"])
def test_a_sheet_across_up_keeps_its_upper_side_whichever_way_its_faces_look(faces):
    vertices, triangles = _ground()
    given = {"up": triangles, "down": triangles[:, ::-1], "none": None,
             "both": np.r_[triangles, triangles[:, ::-1]]}[faces]
    rng = np.random.default_rng(12)
    for _ in range(5):
        _, rotation = random_rotation(rng)
        up = rotation @ np.array([0.3, -0.2, 1.0])  # within 45° of the sheet's normal
        box = obb_from_points(vertices @ rotation.T, given, up=up)
        np.testing.assert_allclose(box.center, -GROUND_HALF * rotation[:, 2], atol=1e-9)
        # Across a wall, `up` says nothing: the faces decide (here: behind them).
        wall = obb_from_points(vertices @ rotation.T, triangles, up=rotation[:, 0])
        np.testing.assert_allclose(wall.center, -GROUND_HALF * rotation[:, 2], atol=1e-9)


@pytest.mark.parametrize(
    ("name", "half"),
    [("1 cm die", (0.005, 0.005, 0.005)), ("2 mm coin", (0.01, 0.01, 0.001)),
     ("plank at 1 %", (1.0, 0.1, 0.5 * FLAT_FRACTION * 2.0)), ("grain", (1e-5, 2e-5, 3e-5))],
)
def test_small_and_thin_solids_keep_their_true_size(name, half):
    vertices, triangles = box_mesh(half, seed=3)
    for points in (vertices, vertices * 1e-3, vertices * 1e3):
        box = obb_from_points(points, triangles)
        assert not box.thickened, name
        scale = points.max() / vertices.max()
        np.testing.assert_allclose(sorted(box.half_extents), sorted(np.multiply(half, scale)),
                                   rtol=1e-9)


def test_thinner_than_one_percent_is_thickened_to_one_percent_of_the_largest_extent():
    for ratio in (0.0099, 1e-4, 0.0):
        vertices, triangles = box_mesh((3.0, 1.0, 3.0 * ratio), cuts=(2, 2, 0), seed=4)
        box = obb_from_points(vertices, triangles)  # closed: grows about its centre
        assert box.thickened
        np.testing.assert_allclose(box.half_extents, [3.0, 1.0, FLAT_FRACTION * 3.0], atol=1e-12)
        np.testing.assert_allclose(box.center, [0.0, 0.0, 0.0], atol=1e-12)


def test_two_sided_sheet_and_points_only_plane_grow_symmetrically():
    vertices, triangles = _ground()
    two_sided = np.r_[triangles, triangles[:, ::-1]]
    for box in (obb_from_points(vertices, two_sided), obb_from_points(vertices)):
        assert box.thickened
        np.testing.assert_allclose(box.center, [0.0, 0.0, 0.0], atol=1e-12)
        np.testing.assert_allclose(box.half_extents, [10.0, 10.0, GROUND_HALF], atol=1e-12)


def test_line_gets_a_thickness_of_its_length_and_a_point_the_minimum():
    rng = np.random.default_rng(8)
    direction = rng.normal(size=3)
    direction /= np.linalg.norm(direction)
    line = np.linspace(-2.0, 3.0, 11)[:, None] * direction + (1.0, 1.0, 1.0)
    box = obb_from_points(line)
    assert box.thickened
    thin = 0.5 * FLAT_FRACTION * 5.0
    assert sorted(box.half_extents) == pytest.approx([thin, thin, 2.5], abs=1e-12)
    np.testing.assert_allclose(box.center, 0.5 * direction + 1.0, atol=1e-12)
    _assert_contains(box, line)

    point = obb_from_points([[4.0, 5.0, 6.0]])
    assert point.thickened
    np.testing.assert_array_equal(point.center, [4.0, 5.0, 6.0])
    np.testing.assert_array_equal(point.half_extents, [MIN_HALF_EXTENT] * 3)
    np.testing.assert_array_equal(point.orientation, [1.0, 0.0, 0.0, 0.0])


def test_empty_and_invalid_inputs_raise_clear_errors():
    with pytest.raises(ValueError, match="no points"):
        obb_from_points(np.empty((0, 3)))
    with pytest.raises(ValueError, match="no points"):
        obb_from_points([], np.empty((0, 3), int))
    with pytest.raises(ValueError, match="does not exist"):
        obb_from_points(CUBE, [[0, 1, 8]])
    with pytest.raises(ValueError, match="NaN"):
        obb_from_points([[0.0, 0.0, np.nan]])
    with pytest.raises(ValueError, match="up contains NaN"):
        obb_from_points(CUBE, up=(0.0, np.nan, 1.0))
