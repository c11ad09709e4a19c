"""solver.hull: quickhull against scipy's qhull and trimesh, degenerate clouds, the face budget."""

import math
from itertools import pairwise

import numpy as np
import pytest
import trimesh
from scipy.spatial import ConvexHull

from solver.hull import convex_hull
from tests.meshes import random_rotation

UNLIMITED = 10**6


def _fans(hull):
    """The hull's faces split into triangles (for trimesh)."""
    bounds, ring = hull.face_start.tolist(), hull.face_vertices.tolist()
    return np.array([
        (ring[start], ring[k], ring[k + 1])
        for start, end in pairwise(bounds)
        for k in range(start + 1, end - 1)
    ])


def _assert_valid(hull, points, grown=False):
    """Closed, convex, planar, counter-clockwise faces; no two neighbouring faces coplanar."""
    size = np.ptp(points, axis=0).max()
    vertices, planes, start, ring = hull.vertices, hull.planes, hull.face_start, hull.face_vertices
    assert vertices.dtype == np.float64 and vertices.shape[1] == 3
    assert planes.dtype == np.float64 and planes.shape == (len(start) - 1, 4)
    assert start.dtype == np.int64 and ring.dtype == np.int64
    assert start[0] == 0 and start[-1] == len(ring) and np.all(np.diff(start) >= 3)
    assert set(ring.tolist()) == set(range(len(vertices)))
    if not grown:
        assert set(map(tuple, vertices)) <= set(map(tuple, points))
    normals, offsets = planes[:, :3], planes[:, 3]
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0, atol=1e-12)
    assert np.all(vertices @ normals.T - offsets <= 1e-9 * size)
    edges = {}
    for f, (s, e) in enumerate(pairwise(start)):
        corners = vertices[ring[s:e]]
        np.testing.assert_allclose(corners @ normals[f], offsets[f], atol=1e-9 * size)
        turns = np.cross(np.roll(corners, -1, axis=0) - corners,
                         np.roll(corners, -2, axis=0) - np.roll(corners, -1, axis=0))
        assert np.all(turns @ normals[f] > 0.0), "a face is not convex and counter-clockwise"
        for a, b in zip(ring[s:e], np.roll(ring[s:e], -1), strict=True):
            assert (a, b) not in edges
            edges[a, b] = f
    assert all((b, a) in edges for a, b in edges), "the surface is not closed"
    assert len(vertices) - len(edges) // 2 + len(planes) == 2  # Euler
    for (a, b), f in edges.items():
        other = vertices[ring[start[edges[b, a]]:start[edges[b, a] + 1]]]
        assert np.min(other @ normals[f] - offsets[f]) < -1e-10 * size, "coplanar faces unmerged"


def _volume(hull):
    return trimesh.Trimesh(hull.vertices, _fans(hull), process=False).volume


def _clouds():
    rng = np.random.default_rng(7)
    yield "normal", rng.normal(size=(300, 3))
    yield "cube", rng.uniform(-1, 1, size=(1000, 3))
    yield "sphere", (lambda v: v / np.linalg.norm(v, axis=1)[:, None])(rng.normal(size=(200, 3)))
    yield "far", rng.normal(size=(200, 3)) * (3.0, 0.5, 1.0) + 1e4
    yield "slab", rng.uniform(-1, 1, size=(400, 3)) * (1.0, 1.0, 1e-4)
    yield "tiny", rng.normal(size=(50, 3)) * 1e-6
    yield "five", rng.normal(size=(5, 3))
    yield "four", rng.normal(size=(4, 3))


@pytest.mark.parametrize(("name", "points"), list(_clouds()), ids=[c[0] for c in _clouds()])
def test_random_clouds_agree_with_qhull(name, points):
    hull = convex_hull(points, max_faces=UNLIMITED)
    reference = ConvexHull(points)
    _assert_valid(hull, points)
    assert set(map(tuple, hull.vertices)) == set(map(tuple, points[reference.vertices]))
    assert _volume(hull) == pytest.approx(reference.volume, rel=1e-9)
    assert hull.error == 0.0


def test_duplicates_change_nothing():
    rng = np.random.default_rng(1)
    points = rng.normal(size=(100, 3))
    once = convex_hull(points, max_faces=UNLIMITED)
    thrice = convex_hull(rng.permutation(np.concatenate([points] * 3)), max_faces=UNLIMITED)
    _assert_valid(thrice, points)
    assert set(map(tuple, thrice.vertices)) == set(map(tuple, once.vertices))
    assert len(thrice.planes) == len(once.planes)


def _cube_surface(rng, cuts=7, noise=0.0):
    """Grid points on a 2 × 2 × 2 cube's faces and edges, some inside, turned and moved."""
    ticks = np.linspace(-1.0, 1.0, cuts)
    grid = np.array(np.meshgrid(ticks, ticks, ticks, indexing="ij")).reshape(3, -1).T
    points = np.concatenate([grid, rng.uniform(-1, 1, size=(50, 3))])
    points += rng.uniform(-noise, noise, size=points.shape)
    _, rotation = random_rotation(rng)
    shift = rng.uniform(-10, 10, size=3)
    return points @ rotation.T + shift, rotation, shift


@pytest.mark.parametrize("noise", [0.0, 1e-12])
def test_cube_with_points_on_faces_and_edges_has_six_square_faces(noise):
    rng = np.random.default_rng(3)
    points, rotation, shift = _cube_surface(rng, noise=noise)
    hull = convex_hull(points)
    _assert_valid(hull, points)
    assert len(hull.planes) == 6 and np.all(np.diff(hull.face_start) == 4)
    assert len(hull.vertices) == 8
    np.testing.assert_allclose(np.abs((hull.vertices - shift) @ rotation), 1.0, atol=1e-11)
    axes = np.sort(np.abs(hull.planes[:, :3] @ rotation), axis=1)
    np.testing.assert_allclose(axes, [[0.0, 0.0, 1.0]] * 6, atol=1e-9)
    assert _volume(hull) == pytest.approx(8.0, rel=1e-9)
    assert hull.error == 0.0


def test_points_on_an_icosahedron_give_its_twenty_faces():
    rng = np.random.default_rng(5)
    ico = trimesh.creation.icosahedron()
    weights = rng.dirichlet((1.0, 1.0, 1.0), size=(len(ico.faces), 30))
    on_faces = np.einsum("fkj,fji->fki", weights, ico.vertices[ico.faces]).reshape(-1, 3)
    points = np.concatenate([on_faces, ico.vertices, 0.5 * ico.vertices])
    hull = convex_hull(rng.permutation(points))
    _assert_valid(hull, points)
    assert len(hull.planes) == 20 and np.all(np.diff(hull.face_start) == 3)
    assert len(hull.vertices) == 12
    assert _volume(hull) == pytest.approx(ico.volume, rel=1e-9)


def _prism(sides, radius=1.0, half_height=0.5):
    angles = 2.0 * math.pi * np.arange(sides) / sides
    rim = np.column_stack([radius * np.cos(angles), radius * np.sin(angles), np.zeros(sides)])
    lift = np.array([0.0, 0.0, half_height])
    return np.concatenate([rim + lift, rim - lift, [lift, (0.3, 0.1, -half_height)]])


def test_prism_caps_are_single_polygons():
    points = _prism(40)
    hull = convex_hull(points)
    _assert_valid(hull, points)
    sizes = np.sort(np.diff(hull.face_start))
    assert sizes.tolist() == [4] * 40 + [40, 40]
    assert len(hull.vertices) == 80
    assert _volume(hull) == pytest.approx(ConvexHull(points).volume, rel=1e-9)


def _farthest_outside(vertices, triangles, points):
    """The largest distance of a point from the convex solid of these triangles (0 if inside),
    by trimesh's point-triangle distances, not by solver.hull.

    A point is outside when it is above a triangle's plane; only points that could be the
    farthest are measured: a point's distance is at least its height above the triangles' planes
    and at most its distance to the nearest vertex.
    """
    corners = vertices[triangles]
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    normals /= np.linalg.norm(normals, axis=1)[:, None]
    outward = np.einsum("ij,ij->i", normals, corners[:, 0] - vertices.mean(axis=0))
    normals *= np.sign(outward)[:, None]
    heights = points @ normals.T - np.einsum("tk,tk->t", corners[:, 0], normals)
    low = heights.max(axis=1)
    if low.max() <= 0.0:
        return 0.0
    high = np.linalg.norm(points[:, None] - vertices[None], axis=2).min(axis=1)
    candidates = points[(low > 0.0) & (high >= low.max())]
    if not len(candidates):
        return 0.0  # only rounding puts a point on the surface (high = 0) above a plane
    pairs = np.repeat(candidates, len(corners), axis=0)
    closest = trimesh.triangles.closest_point(np.tile(corners, (len(candidates), 1, 1)), pairs)
    gaps = np.linalg.norm(closest - pairs, axis=1).reshape(len(candidates), len(corners))
    return float(gaps.min(axis=1).max())


def _hausdorff(hull, points):
    """Between the hull and the points' exact hull (qhull): the larger of how far a point lies
    outside the hull and how far a hull vertex lies outside the exact hull."""
    exact = ConvexHull(points)
    missing = _farthest_outside(hull.vertices, _fans(hull), points)
    reaching = _farthest_outside(points, exact.simplices, hull.vertices)
    return max(missing, reaching)


@pytest.fixture(scope="module")
def suzanne_points():
    """The vertices of Blender's Suzanne (bmesh's monkey: mesh.primitive_monkey_add's geometry)."""
    import bpy  # noqa: F401  (bmesh is importable only once bpy is)

    # isort: split
    import bmesh

    bm = bmesh.new()
    bmesh.ops.create_monkey(bm)
    points = np.array([v.co for v in bm.verts], dtype=float)
    bm.free()
    return points


def _ellipsoid(count=507, seed=11):
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(count, 3))
    radii = rng.uniform(0.9, 1.0, size=(count, 1))
    return v / np.linalg.norm(v, axis=1)[:, None] * (1.4, 0.9, 1.0) * radii


def _spiky(count=300, seed=2):
    return np.random.default_rng(seed).normal(size=(count, 3)) * (2.0, 0.5, 1.0)


@pytest.mark.parametrize(("cloud", "max_faces"), [
    ("suzanne", 64), ("suzanne", 32), ("suzanne", 8), ("ellipsoid", 64), ("ellipsoid", 32),
    ("ellipsoid", 8), ("spiky", 32), ("spiky", 16), ("spiky", 8)])
def test_simplified_hull_fits_the_budget_and_reports_its_true_error(cloud, max_faces,
                                                                    suzanne_points):
    points = {"suzanne": suzanne_points, "ellipsoid": _ellipsoid(), "spiky": _spiky()}[cloud]
    exact = ConvexHull(points)
    assert len(exact.simplices) > max_faces
    hull = convex_hull(points, max_faces=max_faces)
    grown = not set(map(tuple, hull.vertices)) <= set(map(tuple, points))
    _assert_valid(hull, points, grown)
    assert len(hull.planes) <= max_faces
    assert hull.error > 0.0
    true = _hausdorff(hull, points)
    if len(exact.simplices) <= 8 * max_faces:  # the exact hull was built: the error is exact
        assert hull.error == pytest.approx(true, rel=1e-9)
    else:  # measured against the hull quickhull stopped at: an upper bound
        assert hull.error >= true * (1.0 - 1e-9)


def test_grown_and_shrunk_hulls_both_occur(suzanne_points):
    """Suzanne at 64 faces is best grown (more corners for the faces); a spiky cloud at 8 faces
    best shrunk. A grown hull holds every input point; a shrunk one is made of them."""
    grown = convex_hull(suzanne_points, max_faces=64)
    planes = suzanne_points @ grown.planes[:, :3].T - grown.planes[:, 3]
    assert planes.max() <= 1e-9 * np.ptp(suzanne_points)
    assert not set(map(tuple, grown.vertices)) <= set(map(tuple, suzanne_points))
    shrunk = convex_hull(_spiky(), max_faces=8)
    assert set(map(tuple, shrunk.vertices)) <= set(map(tuple, _spiky()))


def test_a_dense_scan_is_simplified_quickly_within_its_reported_error():
    """10,242 points on an ellipsoid: quickhull stops early, the reported error still bounds."""
    points = trimesh.creation.icosphere(subdivisions=5).vertices * (1.5, 1.0, 0.7)
    hull = convex_hull(points)
    _assert_valid(hull, points, grown=True)
    assert len(hull.planes) <= 64
    assert hull.error >= _hausdorff(hull, points) * (1.0 - 1e-9)


def test_a_fine_cylinder_keeps_its_caps_when_simplified():
    points = _prism(70)
    hull = convex_hull(points, max_faces=64)
    _assert_valid(hull, points, grown=True)
    assert len(hull.planes) <= 64
    caps = np.flatnonzero(np.abs(hull.planes[:, 2]) > 1.0 - 1e-12)
    assert len(caps) == 2 and np.all(np.diff(hull.face_start)[caps] > 30)
    assert hull.error == pytest.approx(_hausdorff(hull, points), rel=1e-9)


@pytest.mark.parametrize(
    ("points", "message"),
    [
        (np.zeros((5, 2)), "shape"),
        (np.zeros(12), "shape"),
        (np.eye(3), "at least 4"),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, math.nan]], "finite"),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, math.inf]], "finite"),
        ([[1, 2, 3]] * 6, "one place"),
        ([[0, 0, 0], [1, 1, 1], [2, 2, 2], [3, 3, 3.0]], "one line"),
        (np.random.default_rng(0).uniform(size=(40, 3)) * (1, 1, 0) @ random_rotation(
            np.random.default_rng(1))[1].T, "one plane"),
        ([["a", "b", "c"]] * 4, "numbers"),
    ],
)
def test_bad_points_are_value_errors_naming_points(points, message):
    with pytest.raises(ValueError, match="points") as caught:
        convex_hull(points)
    assert message in str(caught.value)


@pytest.mark.parametrize("max_faces", [3, 0, 2.5, True])
def test_bad_face_budget_is_a_value_error(max_faces):
    with pytest.raises(ValueError, match="max_faces"):
        convex_hull(np.random.default_rng(0).normal(size=(20, 3)), max_faces=max_faces)
