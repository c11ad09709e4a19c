"""solver.mass: divergence-theorem mass properties against closed forms and trimesh (oracle)."""

import itertools
import math

import numpy as np
import pytest
import trimesh

from solver import box_inertia, mass_properties, obb_from_points, quaternion, sphere_inertia
from tests.meshes import box_mesh, random_rotation

REL = 1e-9


def _close(actual, expected, scale, rel=REL):
    np.testing.assert_allclose(actual, expected, rtol=0, atol=rel * scale)


def test_closed_forms():
    np.testing.assert_allclose(
        box_inertia(12.0, (1.0, 2.0, 3.0)), np.diag([4.0 * 13, 4.0 * 10, 4.0 * 5]), rtol=1e-15
    )
    np.testing.assert_allclose(sphere_inertia(5.0, 2.0), np.eye(3) * 8.0, rtol=1e-15)


@pytest.mark.parametrize("seed", range(5))
def test_subdivided_rotated_box_is_exact(seed):
    rng = np.random.default_rng(seed)
    half = rng.uniform(0.2, 3.0, size=3)
    vertices, triangles = box_mesh(half, cuts=rng.integers(0, 6, size=3), seed=seed)
    _, rotation = random_rotation(rng)
    shift = rng.uniform(-100, 100, size=3)
    density = rng.uniform(100, 8000)
    props = mass_properties(vertices @ rotation.T + shift, triangles, density=density)
    volume = 8.0 * np.prod(half)
    assert props.closed
    assert props.volume == pytest.approx(volume, rel=REL)
    assert props.mass == pytest.approx(density * volume, rel=REL)
    _close(props.center_of_mass, shift, np.linalg.norm(half))
    expected = rotation @ box_inertia(density * volume, half) @ rotation.T
    _close(props.inertia, expected, np.abs(expected).max())


def test_inverted_winding_gives_the_same_solid():
    vertices, triangles = box_mesh((1.0, 0.5, 2.0), seed=3)
    outward = mass_properties(vertices, triangles)
    inward = mass_properties(vertices, triangles[:, ::-1])
    assert inward.closed
    assert inward.volume == pytest.approx(outward.volume, rel=1e-14)
    np.testing.assert_allclose(inward.inertia, outward.inertia, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(inward.inertia, box_inertia(8.0, (1.0, 0.5, 2.0)), atol=1e-13)


def test_icosphere_agrees_with_trimesh_and_approaches_the_sphere():
    errors = []
    for subdivisions in (2, 3, 4, 5):
        sphere = trimesh.creation.icosphere(subdivisions=subdivisions, radius=1.5)
        centre = np.array([3.0, -2.0, 1.0])
        props = mass_properties(sphere.vertices + centre, sphere.faces, density=2.0)
        assert props.closed
        assert props.volume == pytest.approx(sphere.volume, rel=REL)
        _close(props.inertia, 2.0 * sphere.moment_inertia, np.abs(props.inertia).max())
        exact_volume = 4.0 / 3.0 * math.pi * 1.5**3
        exact_inertia = sphere_inertia(2.0 * exact_volume, 1.5)
        errors.append(np.abs(props.inertia - exact_inertia).max() / exact_inertia[0, 0])
        _close(props.center_of_mass, centre, 1.0)
    # The inscribed polyhedron converges to the sphere: each subdivision quarters the error.
    assert all(later < 0.3 * earlier for earlier, later in itertools.pairwise(errors))
    assert errors[-1] < 2e-3


@pytest.fixture(scope="module")
def suzanne():
    """Blender's Suzanne with its holes filled: its three watertight parts (head and two eyes).

    Built with bmesh (the geometry of mesh.primitive_monkey_add) so no scene is touched.
    """
    import bpy  # noqa: F401  (bmesh is importable only once bpy is)

    # isort: split
    import bmesh

    bm = bmesh.new()
    bmesh.ops.create_monkey(bm)
    bmesh.ops.holes_fill(bm, edges=bm.edges, sides=0)
    bmesh.ops.triangulate(bm, faces=bm.faces)
    bmesh.ops.recalc_face_normals(bm, faces=bm.faces)
    bm.verts.index_update()
    vertices = np.array([v.co for v in bm.verts], dtype=float)
    triangles = np.array([[v.index for v in f.verts] for f in bm.faces])
    bm.free()
    whole = trimesh.Trimesh(vertices, triangles, process=False)
    # Filling also closes one sliver into a zero-volume two-sided sheet; keep the solid parts.
    parts = [p for p in whole.split(only_watertight=True) if abs(p.volume) > 1e-6]
    assert len(parts) == 3
    return whole, trimesh.util.concatenate(parts)


def test_suzanne_agrees_with_trimesh(suzanne):
    _, solid = suzanne
    assert solid.is_watertight and solid.is_winding_consistent
    props = mass_properties(solid.vertices, solid.faces, density=1000.0)
    assert props.closed
    assert props.volume == pytest.approx(solid.volume, rel=REL)
    assert props.mass == pytest.approx(1000.0 * solid.volume, rel=REL)
    _close(props.center_of_mass, solid.center_mass, np.ptp(solid.vertices, axis=0).max())
    _close(props.inertia, 1000.0 * solid.moment_inertia, np.abs(props.inertia).max())


def test_suzanne_alone_falls_back_to_its_box(suzanne):
    """The unrepaired sheet makes the whole mesh non-manifold: the OBB's solid box is used."""
    whole, _ = suzanne
    props = mass_properties(whole.vertices, whole.faces, density=10.0)
    _assert_is_obb_box(props, whole.vertices, whole.faces, 10.0)


def _assert_is_obb_box(props, vertices, triangles, density):
    box = obb_from_points(vertices, triangles)
    rotation = quaternion.to_matrix(box.orientation)
    volume = 8.0 * np.prod(box.half_extents)
    assert not props.closed
    assert props.volume == pytest.approx(volume, rel=1e-12)
    assert props.mass == pytest.approx(density * volume, rel=1e-12)
    np.testing.assert_allclose(props.center_of_mass, box.center, atol=1e-12)
    expected = rotation @ box_inertia(density * volume, box.half_extents) @ rotation.T
    np.testing.assert_allclose(props.inertia, expected, atol=1e-12 * np.abs(expected).max())


def test_open_and_non_manifold_meshes_fall_back_to_the_box():
    vertices, triangles = box_mesh((1.0, 2.0, 0.5), seed=1)
    open_mesh = triangles[2:]
    _assert_is_obb_box(mass_properties(vertices, open_mesh), vertices, open_mesh, 1.0)
    other = np.setdiff1d(np.arange(len(vertices)), triangles[0])[0]
    fin = np.concatenate([triangles, [[*triangles[0, :2], other]]])  # a third face on an edge
    _assert_is_obb_box(mass_properties(vertices, fin), vertices, fin, 1.0)
    flipped = triangles.copy()
    flipped[0] = flipped[0, ::-1]  # closed but inconsistently wound: bounds no oriented solid
    _assert_is_obb_box(mass_properties(vertices, flipped), vertices, flipped, 1.0)


def test_flattened_closed_mesh_encloses_nothing_and_falls_back():
    """A tetrahedron squashed to (nearly) a plane: closed, but its volume is only rounding."""
    vertices = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.2, 0.2, 1e-15]])
    triangles = np.array([[0, 2, 1], [0, 1, 3], [1, 2, 3], [2, 0, 3]])
    _assert_is_obb_box(mass_properties(vertices, triangles), vertices, triangles, 1.0)
    lifted = vertices * (1.0, 1.0, 1e14)  # the same tetrahedron 0.1 high is a solid
    assert mass_properties(lifted, triangles).volume == pytest.approx(0.1 / 6.0, rel=1e-12)


def test_seams_are_welded_so_a_split_mesh_is_still_closed():
    vertices, triangles = box_mesh((1.0, 1.0, 1.0), seed=2)
    split_vertices = vertices[triangles.reshape(-1)]  # every triangle has its own three vertices
    split_triangles = np.arange(len(split_vertices)).reshape(-1, 3)
    props = mass_properties(split_vertices, split_triangles)
    assert props.closed
    assert props.volume == pytest.approx(8.0, rel=1e-12)


def test_no_vertices_or_bad_indices_are_errors():
    with pytest.raises(ValueError, match="no vertices"):
        mass_properties(np.empty((0, 3)), np.empty((0, 3), int))
    with pytest.raises(ValueError, match="does not exist"):
        mass_properties(np.eye(3), [[0, 1, 3]])
