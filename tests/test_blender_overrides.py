"""Library overrides in real Blender: link, override, make a body, bake, save and reload."""

import bpy
import pytest

from tests.blender_helpers import cube, keys, select


def save_and_reload(path) -> None:
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    bpy.ops.wm.open_mainfile(filepath=str(path))


def library_file(tmp_path, as_body: bool):
    """A .blend holding the cube 'Borrowed' high above the origin, a body or not."""
    bpy.ops.wm.read_homefile(use_empty=True)
    box = cube("Borrowed", location=(0.0, 0.0, 3.0), size=1.0)
    if as_body:
        select(box)
        assert bpy.ops.impulse.add_bodies(body_type="ACTIVE") == {"FINISHED"}
    path = tmp_path / "library.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path), copy=True)
    bpy.ops.wm.read_homefile(use_empty=True)
    return path


def override(path, name: str = "Borrowed"):
    """Link the object and put a library override of it in the scene instead."""
    with bpy.data.libraries.load(str(path), link=True) as (_source, target):
        target.objects = [name]
    linked = target.objects[0]
    collection = bpy.context.scene.collection
    collection.objects.link(linked)
    local = linked.override_create()
    collection.objects.unlink(linked)
    collection.objects.link(local)
    return local


def the_override():
    (found,) = [obj for obj in bpy.data.objects if obj.override_library is not None]
    return found


def test_every_setting_is_overridable(scene):
    obj = cube("Box")
    for group in (obj.impulse, obj.impulse.bake_state, scene.impulse):
        for prop in group.bl_rna.properties:
            if prop.identifier not in ("rna_type", "name"):  # Blender's own, not settings
                assert prop.is_overridable, f"{group.bl_rna.identifier}.{prop.identifier}"
    for owner in (bpy.types.Object, bpy.types.Scene):
        assert owner.bl_rna.properties["impulse"].is_overridable


def test_add_bodies_on_an_override_survives_saving_twice(scene, tmp_path):
    local = override(library_file(tmp_path, as_body=False))
    select(local)
    assert bpy.ops.impulse.add_bodies(body_type="PASSIVE") == {"FINISHED"}
    local.impulse.friction = 0.125
    for _ in range(2):
        save_and_reload(tmp_path / "shot.blend")
        local = the_override()
        assert local.impulse.enabled
        assert local.impulse.body_type == "PASSIVE"
        assert local.impulse.friction == pytest.approx(0.125)


def test_add_bodies_makes_a_system_override_editable(scene, tmp_path):
    local = override(library_file(tmp_path, as_body=False))
    local.override_library.is_system_override = True
    select(local)
    assert bpy.ops.impulse.add_bodies(body_type="ACTIVE") == {"FINISHED"}
    assert not local.override_library.is_system_override
    assert local.impulse.enabled


def test_add_bodies_refuses_linked_objects_and_says_what_to_do(scene, tmp_path):
    path = library_file(tmp_path, as_body=False)
    with bpy.data.libraries.load(str(path), link=True) as (_source, target):
        target.objects = ["Borrowed"]
    linked = target.objects[0]
    scene = bpy.context.scene
    scene.collection.objects.link(linked)
    select(linked)
    with pytest.raises(RuntimeError, match=r"Cannot edit linked objects: Borrowed \(make a"):
        bpy.ops.impulse.add_bodies(body_type="ACTIVE")


def test_override_bakes_into_a_local_action_that_is_saved(scene, tmp_path):
    local = override(library_file(tmp_path, as_body=True))
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 24
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    action = local.animation_data.action
    assert action is not None and action.library is None
    fallen = keys(local, "location")
    assert fallen[-1, 3] == pytest.approx(3.0 - 0.5 * 9.81 * (23 / 24) ** 2, abs=0.05)  # freely
    for _ in range(2):
        save_and_reload(tmp_path / "shot.blend")
        local = the_override()
        assert local.impulse.bake_state.baked
        assert local.animation_data.action.library is None
        assert keys(local, "location") == pytest.approx(fallen)
    assert bpy.ops.impulse.clear_bake() == {"FINISHED"}
    assert tuple(local.location) == pytest.approx((0.0, 0.0, 3.0))
