"""solver.mass: divergence-theorem mass properties against closed forms and trimesh (oracle)."""

import itertools
import math

import numpy as np
import pytest
import trimesh

import solver.mass
from solver import box_inertia, mass_properties, obb_from_points, quaternion, sphere_inertia
from solver.hull import convex_hull
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


# --- capsule, cylinder, cone closed forms; hulls; compounds (issue #11) ---


def _tessellated(shape, radius, half_height, sections):
    """A fine trimesh of the shape in the shapes contract's placement (axis z, cone base at -h)."""
    if shape == "capsule":
        return trimesh.creation.capsule(2 * half_height, radius, count=[sections, sections])
    if shape == "cylinder":
        return trimesh.creation.cylinder(radius, 2 * half_height, sections=sections)
    cone = trimesh.creation.cone(radius, 2 * half_height, sections=sections)
    return cone.apply_translation((0.0, 0.0, -half_height))


@pytest.mark.parametrize("shape", ["capsule", "cylinder", "cone"])
@pytest.mark.parametrize(("radius", "half_height"), [(0.5, 1.0), (1.3, 0.2)])
def test_round_closed_forms_are_the_limit_of_fine_meshes(shape, radius, half_height):
    """The tessellation error falls ~4× per doubling (O(1/n²)) and is below 1e-4 at 512 sides.

    So the closed form is the meshes' limit, not just near one of them.
    """
    density = 750.0
    props = solver.mass.part_mass_properties(shape, (radius, half_height, 0.0), density)
    assert props.closed
    assert props.mass == pytest.approx(density * props.volume, rel=1e-15)
    errors = []
    for sections in (128, 256, 512):  # (trimesh's finer capsules weld vertices near the poles)
        mesh = _tessellated(shape, radius, half_height, sections)
        scale = np.abs(props.inertia).max()
        errors.append(max(
            abs(mesh.volume / props.volume - 1.0),
            np.abs(mesh.center_mass - props.center_of_mass).max() / (radius + half_height),
            np.abs(density * mesh.moment_inertia - props.inertia).max() / scale,
        ))
    assert errors[-1] < 1e-4
    assert errors[1] < 0.3 * errors[0] and errors[2] < 0.3 * errors[1]


def test_round_inertia_scales_with_mass_and_cone_centre_is_below():
    for inertia in (solver.mass.capsule_inertia, solver.mass.cylinder_inertia,
                    solver.mass.cone_inertia):
        np.testing.assert_allclose(inertia(6.0, 0.4, 0.9), 3.0 * inertia(2.0, 0.4, 0.9),
                                   rtol=1e-15)
    cone = solver.mass.part_mass_properties("cone", (1.0, 2.0, 0.0))
    np.testing.assert_array_equal(cone.center_of_mass, [0.0, 0.0, -1.0])
    # A capsule without its cylinder is a sphere; a cylinder with h = r·√3/2 has equal moments.
    np.testing.assert_allclose(solver.mass.capsule_inertia(3.0, 0.7, 0.0),
                               sphere_inertia(3.0, 0.7), rtol=1e-15)
    moments = np.diag(solver.mass.cylinder_inertia(1.0, 1.0, math.sqrt(3.0) / 2.0))
    np.testing.assert_allclose(moments, moments[0], rtol=1e-15)


def test_box_and_sphere_parts_use_their_closed_forms():
    box = solver.mass.part_mass_properties("box", (1.0, 2.0, 3.0), density=0.5)
    assert box.volume == pytest.approx(48.0, rel=1e-15) and box.mass == pytest.approx(24.0)
    np.testing.assert_allclose(box.inertia, box_inertia(24.0, (1.0, 2.0, 3.0)), rtol=1e-15)
    ball = solver.mass.part_mass_properties("sphere", (2.0, 2.0, 2.0))
    assert ball.volume == pytest.approx(32.0 / 3.0 * math.pi, rel=1e-15)
    np.testing.assert_allclose(ball.inertia, sphere_inertia(ball.mass, 2.0), rtol=1e-15)


@pytest.mark.parametrize("seed", range(4))
def test_hull_mass_properties_agree_with_trimesh(seed):
    rng = np.random.default_rng(seed)
    points = rng.normal(size=(200, 3)) * rng.uniform(0.2, 3.0, size=3) + rng.uniform(-50, 50, 3)
    hull = convex_hull(points, max_faces=10**6)
    reference = trimesh.Trimesh(points).convex_hull
    props = solver.mass.hull_mass_properties(hull, density=300.0)
    assert props.closed
    assert props.volume == pytest.approx(reference.volume, rel=REL)
    _close(props.center_of_mass, reference.center_mass, np.ptp(points, axis=0).max())
    expected = 300.0 * reference.moment_inertia
    _close(props.inertia, expected, np.abs(expected).max())
    same = solver.mass.part_mass_properties("hull", None, density=300.0, hull=hull)
    np.testing.assert_array_equal(same.inertia, props.inertia)


def test_simplified_suzanne_hull_agrees_with_trimesh(suzanne):
    whole, _ = suzanne
    hull = convex_hull(whole.vertices)  # simplified to 64 faces
    reference = trimesh.Trimesh(hull.vertices).convex_hull
    props = solver.mass.hull_mass_properties(hull, density=1000.0)
    assert props.volume == pytest.approx(reference.volume, rel=REL)
    _close(props.center_of_mass, reference.center_mass, 3.0)
    _close(props.inertia, 1000.0 * reference.moment_inertia, np.abs(props.inertia).max())


def _transformed(mesh, position, orientation):
    matrix = np.eye(4)
    matrix[:3, :3] = quaternion.to_matrix(orientation)
    matrix[:3, 3] = position
    return mesh.copy().apply_transform(matrix)


def test_compound_is_the_sum_of_its_parts_by_parallel_axes():
    """Boxes and hulls (exact polyhedra) placed anywhere, overlapping or not: the compound equals
    trimesh's mass properties of all their placed meshes together (overlaps count twice)."""
    rng = np.random.default_rng(4)
    parts, meshes, positions, orientations = [], [], [], []
    for k in range(5):
        if k % 2:
            half = rng.uniform(0.1, 1.0, size=3)
            parts.append(solver.mass.part_mass_properties("box", half, density=1.0))
            meshes.append(trimesh.creation.box(extents=2 * half))
        else:
            points = rng.normal(size=(40, 3)) + rng.uniform(-1, 1, size=3)
            hull = convex_hull(points)
            parts.append(solver.mass.hull_mass_properties(hull))
            meshes.append(trimesh.Trimesh(hull.vertices).convex_hull)
        positions.append(rng.uniform(-2, 2, size=3))
        orientations.append(quaternion.normalize(rng.normal(size=4)))
    compound = solver.mass.compound_mass_properties(parts, positions, orientations)
    union = trimesh.util.concatenate([_transformed(m, p, q) for m, p, q in
                                      zip(meshes, positions, orientations, strict=True)])
    assert compound.closed
    assert compound.volume == pytest.approx(union.volume, rel=REL)
    assert compound.mass == pytest.approx(union.volume, rel=REL)
    _close(compound.center_of_mass, union.center_mass, 4.0)
    _close(compound.inertia, union.moment_inertia, np.abs(compound.inertia).max())


def test_one_part_compound_is_the_part_turned_and_moved():
    cone = solver.mass.part_mass_properties("cone", (0.5, 1.0, 0.0), density=2.0)
    q = quaternion.normalize(np.array([0.3, -0.2, 0.9, 0.1]))
    rotation = quaternion.to_matrix(q)
    alone = solver.mass.compound_mass_properties([cone], [[1.0, 2.0, 3.0]], [q])
    _close(alone.center_of_mass, rotation @ cone.center_of_mass + (1.0, 2.0, 3.0), 1.0)
    _close(alone.inertia, rotation @ cone.inertia @ rotation.T, np.abs(cone.inertia).max())
    assert alone.mass == cone.mass


def test_with_mass_rescales_the_inertia():
    capsule = solver.mass.part_mass_properties("capsule", (0.3, 0.8, 0.0), density=1000.0)
    heavy = capsule.with_mass(5.0)
    assert heavy.mass == 5.0 and heavy.volume == capsule.volume
    np.testing.assert_allclose(heavy.inertia, solver.mass.capsule_inertia(5.0, 0.3, 0.8),
                               rtol=1e-14)


def test_part_errors():
    with pytest.raises(ValueError, match="shape must be"):
        solver.mass.part_mass_properties("torus", (1.0, 1.0, 0.0))
    with pytest.raises(ValueError, match="needs the hull"):
        solver.mass.part_mass_properties("hull", None)
    with pytest.raises(ValueError, match="one position and orientation per part"):
        solver.mass.compound_mass_properties([], [], [])
