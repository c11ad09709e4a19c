"""reading.fit_cache in real Blender: fits shared between objects of one mesh, and refitted after
an edit. Each fit is compared with the solver's own fit of the object's world-space vertices,
the definition the shared fit must keep."""

import math

import bpy
import numpy as np
from mathutils import Matrix

from tests.blender_helpers import cube

TURN = (0.4, -0.7, 1.1)  # an arbitrary rotation (Euler XYZ, radians)


def points_of(impulse, obj):
    depsgraph = bpy.context.evaluated_depsgraph_get()
    return impulse.blender_addon.reading.shapes.mesh_points(obj, depsgraph, 1.0)


def assert_fitted_in_place(impulse, obj):
    """The shared box and solid equal the solver's fit of the object's world vertices."""
    points = points_of(impulse, obj)
    cache = impulse.blender_addon.reading.fit_cache
    shared, direct = cache.box(points), impulse.solver.obb_from_points(points.vertices,
                                                                        points.triangles)
    np.testing.assert_allclose(np.sort(shared.half_extents), np.sort(direct.half_extents),
                               atol=1e-5)
    np.testing.assert_allclose(shared.center, direct.center, atol=1e-5)
    turn = impulse.solver.quaternion.to_matrix
    relabel = np.abs(turn(direct.orientation).T @ turn(shared.orientation))
    np.testing.assert_allclose(relabel, np.round(relabel), atol=1e-5)  # the same axes
    solid = cache.mass_properties(points)
    exact = impulse.solver.mass_properties(points.vertices, points.triangles)
    np.testing.assert_allclose(solid.volume, exact.volume, rtol=1e-6)
    np.testing.assert_allclose(solid.center_of_mass, exact.center_of_mass, atol=1e-5)
    np.testing.assert_allclose(solid.inertia, exact.inertia, rtol=1e-5, atol=1e-6)
    return shared, solid


def brick(name: str):
    """A 2 x 1 x 0.5 box mesh (its axes distinct, so a wrong frame makes a bigger box)."""
    obj = cube(name)
    obj.data.transform(Matrix.Diagonal((1.0, 0.5, 0.25, 1.0)))
    obj.data.update()
    return obj


def test_objects_sharing_a_mesh_turned_and_scaled_get_their_own_fits(scene, impulse):
    first = brick("First")
    second = bpy.data.objects.new("Second", first.data)
    scene.collection.objects.link(second)
    second.rotation_euler, second.scale, second.location = TURN, (1.5, 1.5, 1.5), (3, 0, 1)
    third = bpy.data.objects.new("Third", first.data)  # non-uniform scale: fitted on its own
    scene.collection.objects.link(third)
    third.rotation_euler, third.scale = TURN, (1.0, 2.0, 3.0)
    bpy.context.view_layer.update()
    box, solid = assert_fitted_in_place(impulse, first)
    turned, turned_solid = assert_fitted_in_place(impulse, second)
    np.testing.assert_allclose(np.sort(turned.half_extents), 1.5 * np.sort(box.half_extents),
                               atol=1e-5)
    np.testing.assert_allclose(turned_solid.volume, 1.5**3 * solid.volume, rtol=1e-6)
    assert_fitted_in_place(impulse, third)


def test_an_edited_mesh_is_fitted_again(scene, impulse):
    obj = brick("Brick")
    obj.rotation_euler = TURN
    bpy.context.view_layer.update()
    before, solid = assert_fitted_in_place(impulse, obj)
    # The animator stretches and turns the mesh itself (Edit Mode), then bakes again.
    obj.data.transform(Matrix.Rotation(math.radians(30.0), 4, "Z") @ Matrix.Diagonal(
        (3.0, 1.0, 1.0, 1.0)))
    obj.data.update()
    bpy.context.view_layer.update()
    after, stretched = assert_fitted_in_place(impulse, obj)
    np.testing.assert_allclose(np.prod(after.half_extents), 3.0 * np.prod(before.half_extents),
                               rtol=1e-5)
    np.testing.assert_allclose(stretched.volume, 3.0 * solid.volume, rtol=1e-6)


def test_one_read_of_a_scene_shares_a_plain_mesh_and_nothing_else(scene, impulse):
    """Objects showing a mesh as it is share one read of it; a modifier or a shape key makes
    the evaluated mesh an object's own, read on its own."""
    shapes = impulse.blender_addon.reading.shapes
    first = brick("First")
    twin = bpy.data.objects.new("Twin", first.data)
    scene.collection.objects.link(twin)
    twin.rotation_euler, twin.location = TURN, (3, 0, 1)
    arrayed = bpy.data.objects.new("Arrayed", first.data)  # twice the vertices, side by side
    scene.collection.objects.link(arrayed)
    arrayed.modifiers.new("Array", "ARRAY")
    keyed = brick("Keyed")  # a shape key that moves every vertex, fully on
    keyed.shape_key_add(name="Basis")
    moved = keyed.shape_key_add(name="Moved")
    for point in moved.data:
        point.co.z += 0.5
    moved.value = 1.0
    bpy.context.view_layer.update()
    depsgraph = bpy.context.evaluated_depsgraph_get()
    read: dict = {}
    objects = (first, twin, arrayed, keyed)
    together = [shapes.mesh_points(obj, depsgraph, 1.0, read) for obj in objects]
    alone = [shapes.mesh_points(obj, depsgraph, 1.0) for obj in objects]
    for shared, own in zip(together, alone, strict=True):
        assert shared.vertices.tobytes() == own.vertices.tobytes()
        assert shared.triangles.tobytes() == own.triangles.tobytes()
        assert shared.digest == own.digest
    assert together[1].local is together[0].local  # the twin used the first's read
    assert len(together[2].local) == 2 * len(together[0].local)
    assert np.allclose(together[3].local[:, 2] - alone[0].local[:, 2], 0.5)
    assert len(read) == 1  # only the plain mesh was kept


def test_an_object_baked_again_keeps_its_box_until_it_moves(scene, impulse):
    """Reading an unmoved object again (a second bake) hands out the box fitted the first
    time; moving it gives the box moved with it, and the kept box cannot be edited."""
    cache = impulse.blender_addon.reading.fit_cache
    obj = brick("Brick")
    obj.rotation_euler = TURN
    bpy.context.view_layer.update()
    first, _ = assert_fitted_in_place(impulse, obj)
    assert cache.box(points_of(impulse, obj)) is first
    with np.testing.assert_raises(ValueError):
        first.half_extents[0] = 1.0
    obj.location = (0.5, -2.0, 3.0)
    bpy.context.view_layer.update()
    moved, _ = assert_fitted_in_place(impulse, obj)
    assert moved is not first
    np.testing.assert_allclose(moved.center - first.center, (0.5, -2.0, 3.0), atol=1e-5)
    np.testing.assert_allclose(moved.half_extents, first.half_extents, atol=1e-6)


def test_an_open_mesh_is_weighed_again_only_when_it_moves(scene, impulse):
    """An open mesh weighs as its world-fitted box: kept for an unmoved object, and weighed
    anew where it moved (its centre of mass moved with it)."""
    import bmesh

    cache = impulse.blender_addon.reading.fit_cache
    obj = brick("Open")
    mesh = bmesh.new()
    mesh.from_mesh(obj.data)
    mesh.faces.ensure_lookup_table()
    bmesh.ops.delete(mesh, geom=[mesh.faces[0]], context="FACES_ONLY")
    mesh.to_mesh(obj.data)
    mesh.free()
    obj.rotation_euler = TURN
    bpy.context.view_layer.update()
    points = points_of(impulse, obj)
    weighed = cache.mass_properties(points)
    assert not weighed.closed
    assert cache.mass_properties(points_of(impulse, obj)) is weighed
    obj.location = (0.5, -2.0, 3.0)
    bpy.context.view_layer.update()
    points = points_of(impulse, obj)
    moved = cache.mass_properties(points)
    exact = impulse.solver.mass_properties(points.vertices, points.triangles)
    np.testing.assert_allclose(moved.center_of_mass, exact.center_of_mass, atol=1e-9)
    np.testing.assert_allclose(moved.center_of_mass - weighed.center_of_mass, (0.5, -2.0, 3.0),
                               atol=1e-5)
