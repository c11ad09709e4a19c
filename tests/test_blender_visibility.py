"""Hidden, disabled and excluded bodies in real Blender: left out unless the World panel says."""

import bpy
import pytest

from tests.blender_helpers import cube, select


def scene_with_hidden_bodies(scene):
    """One shown body and one left out in each way Blender can leave an object out."""
    names = ["Shown", "Hidden", "NoViewport", "NoRender", "Excluded", "InHiddenCollection"]
    boxes = {name: cube(name, location=(3.0 * i, 0.0, 5.0)) for i, name in enumerate(names)}
    select(*boxes.values())
    assert bpy.ops.impulse.add_bodies(body_type="ACTIVE") == {"FINISHED"}
    boxes["Hidden"].hide_set(True)
    boxes["NoViewport"].hide_viewport = True
    boxes["NoRender"].hide_render = True
    for name, flag in (("Excluded", "exclude"), ("InHiddenCollection", "hide_render")):
        collection = bpy.data.collections.new(name + "Props")
        scene.collection.children.link(collection)
        collection.objects.link(boxes[name])
        scene.collection.objects.unlink(boxes[name])
        layer = bpy.context.view_layer.layer_collection.children[collection.name]
        if flag == "exclude":
            layer.exclude = True
        else:
            collection.hide_render = True
    scene.frame_start, scene.frame_end = 1, 5
    return names


def test_hidden_disabled_and_excluded_bodies_are_left_out_and_counted(scene, capsys):
    names = scene_with_hidden_bodies(scene)
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    assert scene.impulse.last_bodies == 1
    assert bpy.data.objects["Shown"].animation_data.action is not None
    for name in names[1:]:
        assert bpy.data.objects[name].animation_data is None, name
    out = capsys.readouterr().out
    assert f"Left out 5 hidden or disabled bodies: {', '.join(names[1:])}" in out
    assert "Include Hidden Bodies" in out


def test_include_hidden_simulates_them_all(scene, capsys):
    names = scene_with_hidden_bodies(scene)
    scene.impulse.include_hidden = True
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    assert scene.impulse.last_bodies == len(names)
    for name in names:
        assert bpy.data.objects[name].animation_data.action is not None, name
    assert "Left out" not in capsys.readouterr().out


def test_a_hidden_ground_lets_bodies_fall_through(scene):
    floor = cube("Floor", location=(0.0, 0.0, -1.0))
    floor.scale = (10.0, 10.0, 1.0)
    select(floor)
    bpy.ops.impulse.add_bodies(body_type="PASSIVE")
    floor.hide_set(True)
    box = cube("Box", location=(0.0, 0.0, 1.0))
    select(box)
    bpy.ops.impulse.add_bodies(body_type="ACTIVE")
    scene.frame_start, scene.frame_end = 1, 25
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    box_keys = box.animation_data.action
    assert box_keys is not None
    scene.frame_set(25)
    assert box.location.z == pytest.approx(1.0 - 0.5 * 9.81 * 1.0, abs=0.05)
