"""Bad input never raises a traceback at the user and never changes data."""

import math

import bpy
import pytest

from tests.blender_helpers import cube, select, transform


def snapshot(scene) -> tuple:
    """Every object's transform and action, the actions in the file and the current frame."""
    return (
        scene.frame_current,
        sorted(bpy.data.actions.keys()),
        [
            (o.name, transform(o), o.animation_data and o.animation_data.action)
            for o in scene.objects
        ],
        scene.impulse.last_bodies,
    )


def bodies(*objects, body_type="ACTIVE"):
    select(*objects)
    assert bpy.ops.impulse.add_bodies(body_type=body_type) == {"FINISHED"}


def test_no_bodies_at_all(scene):
    cube("Lonely")
    before = snapshot(scene)
    with pytest.raises(RuntimeError, match="No active bodies") as raised:
        bpy.ops.impulse.bake()
    assert snapshot(scene) == before
    # The button it names is the one the Body panel shows (text="Add Active").
    assert "press Add Active in the Impulse tab's Body panel" in str(raised.value)


@pytest.mark.parametrize(
    ("setting", "what"),
    [
        ("location", "location, rotation or scale"),
        ("rotation_euler", "location, rotation or scale"),
        ("initial_linear_velocity", "initial velocity"),
        ("initial_angular_velocity", "initial spin"),
    ],
)
def test_not_a_number_is_reported_not_raised(scene, setting, what):
    box = cube("Box", location=(0.0, 0.0, 2.0))
    bodies(box)
    target = box if setting in ("location", "rotation_euler") else box.impulse
    getattr(target, setting)[1] = math.nan
    with pytest.raises(RuntimeError, match=f"'Box' has a {what} that is not a number"):
        bpy.ops.impulse.bake()
    assert box.animation_data is None
    assert scene.impulse.last_bodies == 0


def test_only_passive_bodies(scene):
    bodies(cube("Floor"), body_type="PASSIVE")
    before = snapshot(scene)
    with pytest.raises(RuntimeError, match="No active bodies"):
        bpy.ops.impulse.bake()
    assert snapshot(scene) == before


def test_frame_end_before_start(scene):
    bodies(cube("Box"))
    scene.impulse.use_scene_range = False
    scene.impulse.frame_start, scene.impulse.frame_end = 50, 10
    before = snapshot(scene)
    with pytest.raises(RuntimeError, match=r"Frame end \(10\) is before frame start \(50\)"):
        bpy.ops.impulse.bake()
    assert snapshot(scene) == before


def test_mesh_without_vertices_is_named(scene):
    bodies(cube("Box"))
    empty = bpy.data.objects.new("Hollow", bpy.data.meshes.new("Hollow"))
    scene.collection.objects.link(empty)
    empty.impulse.enabled = True
    scene.frame_set(7)
    before = snapshot(scene)
    with pytest.raises(RuntimeError, match="Mesh 'Hollow' has no vertices"):
        bpy.ops.impulse.bake()
    assert snapshot(scene) == before


def test_clear_with_nothing_baked_warns(scene):
    cube("Box")
    assert bpy.ops.impulse.clear_bake() == {"CANCELLED"}


@pytest.fixture
def library(tmp_path, scene):
    """A .blend holding one active body, to link from."""
    bodies(cube("Borrowed"))
    path = tmp_path / "library.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path), copy=True)
    bpy.ops.wm.read_homefile(use_empty=True)
    return path


def link_object(path, name: str):
    with bpy.data.libraries.load(str(path), link=True) as (_source, target):
        target.objects = [name]
    obj = target.objects[0]
    bpy.context.scene.collection.objects.link(obj)
    return obj


def test_linked_bodies_cannot_be_keyed(library):
    scene = bpy.context.scene
    link_object(library, "Borrowed")
    bodies(cube("Local"))
    before = snapshot(scene)
    with pytest.raises(RuntimeError, match=r"Cannot key linked objects: Borrowed \(make a library"):
        bpy.ops.impulse.bake()
    assert snapshot(scene) == before


def test_linked_objects_cannot_be_made_bodies(library):
    linked = link_object(library, "Borrowed")
    select(linked)
    with pytest.raises(RuntimeError, match="Cannot edit linked objects: Borrowed"):
        bpy.ops.impulse.remove_bodies()
    assert linked.impulse.enabled


def test_enabled_non_mesh_objects_are_skipped_with_a_warning(scene, capsys):
    bpy.ops.object.camera_add()
    bpy.context.active_object.impulse.enabled = True  # as a script could
    bodies(cube("Box", location=(0.0, 0.0, 5.0)))
    scene.frame_end = 3
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    assert "Skipped non-mesh objects: Camera" in capsys.readouterr().out
    assert bpy.data.objects["Camera"].animation_data is None


def test_zero_scale_is_named(scene):
    bodies(cube("Box"))
    squashed = cube("Squashed", location=(3.0, 0.0, 0.0))
    bodies(squashed, body_type="PASSIVE")
    squashed.scale.z = 0.0
    before = snapshot(scene)
    with pytest.raises(RuntimeError, match="'Squashed' has zero scale on an axis"):
        bpy.ops.impulse.bake()
    assert snapshot(scene) == before


def test_bodies_with_blenders_own_rigid_body_get_a_warning(scene, capsys):
    box = cube("Box", location=(0.0, 0.0, 5.0))
    bodies(box)
    bpy.ops.rigidbody.object_add()
    scene.frame_end = 3
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    assert "Blender's own rigid body also moves Box" in capsys.readouterr().out


def test_a_scene_other_than_the_windows_bakes_after_reopening(scene, impulse, tmp_path):
    """Its view layer has no depsgraph until something evaluates it."""
    other = bpy.data.scenes.new("Other")
    box = cube("Box", location=(0.0, 0.0, 5.0))
    other.collection.objects.link(box)
    scene.collection.objects.unlink(box)
    box.impulse.enabled = True
    other.frame_start, other.frame_end = 1, 3
    path = tmp_path / "two_scenes.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    bpy.ops.wm.open_mainfile(filepath=str(path))
    other = bpy.data.scenes["Other"]
    report = impulse.blender_addon.baking.job.bake_scene(other)
    assert (report.bodies, report.frames) == (1, 3)
    assert bpy.data.objects["Box"].animation_data.action is not None
