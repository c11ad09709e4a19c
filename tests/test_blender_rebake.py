"""Bakes as animators use them: re-bakes and Clear that keep the user's own keys and actions,
hand-over from a keyed throw, constraints, fast spins, and all-or-nothing key writing."""

import math
import re

import bpy
import numpy as np
import pytest
from mathutils import Matrix, Quaternion

from tests.blender_helpers import cube, fcurves, keys, transform
from tests.test_blender_bake import add, floor, seconds, spin_case, world_matrices


def snapshot() -> list:
    """Every action with its users and curves' keys, every object's assignment and transform."""
    actions = []
    for action in sorted(bpy.data.actions, key=lambda a: a.name):
        curves = []
        for layer in action.layers:
            for strip in layer.strips:
                for bag in strip.channelbags:
                    for curve in bag.fcurves:
                        co = np.empty(2 * len(curve.keyframe_points))
                        curve.keyframe_points.foreach_get("co", co)
                        curves.append((curve.data_path, curve.array_index, tuple(co)))
        actions.append((action.name, action.users, action.use_fake_user, sorted(curves)))
    objects = [
        (o.name, transform(o), o.animation_data and o.animation_data.action,
         o.impulse.bake_state.baked, [c.mute for c in o.constraints])
        for o in bpy.data.objects
    ]
    return [actions, objects]


def test_keys_sit_in_blenders_transform_group_and_clear_works(scene):
    """Blender 4.5's fcurve_ensure_for_datablock has no group_name: baking raised there."""
    box = cube("Box", location=(0.0, 0.0, 3.0), size=1.0)
    add(box)
    scene.frame_end = 10
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    assert {c.group.name for c in fcurves(box)} == {"Object Transforms"}
    assert bpy.ops.impulse.clear_bake() == {"FINISHED"}
    assert box.animation_data is None and len(bpy.data.actions) == 0


def test_a_failed_bake_rolls_everything_back(scene, impulse, monkeypatch):
    scene.frame_end = 12
    first = cube("First", location=(0.0, 0.0, 3.0), size=1.0)
    keyed = cube("Keyed", location=(3.0, 0.0, 3.0), size=1.0)
    keyed.keyframe_insert("location", frame=5)
    last = cube("Last", location=(6.0, 0.0, 3.0), size=1.0)
    add(first, keyed, last)
    assert bpy.ops.impulse.bake() == {"FINISHED"}  # a re-bake must keep this bake on failure
    first.keyframe_insert("scale", frame=3)
    scene.impulse.key_step = 2
    scene.frame_set(4)
    before = snapshot()
    keyframes = impulse.blender_addon.keying.keyframes
    write = keyframes.write

    def fail_on_last(obj, *args, **kwargs):
        if obj.name == "Last":
            raise TypeError("Action.fcurve_ensure_for_datablock() takes at most 3 arguments")
        return write(obj, *args, **kwargs)

    monkeypatch.setattr(keyframes, "write", fail_on_last)
    with pytest.raises(RuntimeError, match="takes at most 3 arguments"):
        bpy.ops.impulse.bake()
    assert snapshot() == before
    monkeypatch.undo()
    assert bpy.ops.impulse.clear_bake() == {"FINISHED"}


def test_rebake_and_clear_keep_the_animators_own_keys(scene):
    scene.frame_start, scene.frame_end = 1, 24
    floor()
    box = cube("Box", location=(0.0, 0.0, 3.0), size=1.0)
    box.keyframe_insert("location", frame=40)  # after the range: not Impulse's
    add(box)
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    action = box.animation_data.action
    box.scale = (2.0, 2.0, 2.0)
    box.keyframe_insert("scale", frame=12)  # the animator keys the baked action
    box.keyframe_insert("rotation_euler", frame=30)
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    assert box.animation_data.action == action
    assert keys(box, "scale")[:, 0].tolist() == [12]
    assert keys(box, "rotation_euler")[-1, 0] == 30
    assert keys(box, "location")[:, 0].tolist() == [*range(1, 25), 40]
    assert bpy.ops.impulse.clear_bake() == {"FINISHED"}
    assert box.animation_data.action == action
    assert keys(box, "scale")[:, 0].tolist() == [12]
    assert keys(box, "rotation_euler")[:, 0].tolist() == [30]
    assert keys(box, "location")[:, 0].tolist() == [40]


def test_clear_after_assigning_another_action_orphans_nothing(scene):
    scene.frame_end = 12
    box = cube("Box", location=(0.0, 0.0, 3.0), size=1.0)
    box.keyframe_insert("location", frame=1)
    own = box.animation_data.action
    own_keys = keys(box, "location").copy()
    add(box)
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    other = bpy.data.actions.new("Other")
    box.animation_data.action = other
    assert bpy.ops.impulse.clear_bake() == {"FINISHED"}
    assert box.animation_data.action == other
    assert [a.name for a in bpy.data.actions if a.users == 0] == []
    box.animation_data.action = own
    assert np.array_equal(keys(box, "location"), own_keys)


def test_a_linked_action_is_keyed_through_a_local_copy(scene, tmp_path):
    box = cube("Borrowed", location=(0.0, 0.0, 3.0), size=1.0)
    box.keyframe_insert("location", frame=1)
    path = tmp_path / "library.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path), copy=True)
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_end = 12
    with bpy.data.libraries.load(str(path), link=True) as (_source, target):
        target.objects = ["Borrowed"]
    box = target.objects[0]
    scene.collection.objects.link(box)
    box.make_local()  # the object is local, the action it plays is still the library's
    linked = box.animation_data.action
    add(box)
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    assert box.animation_data.action != linked and box.animation_data.action.library is None
    assert keys(box, "location")[:, 0].tolist() == list(range(1, 13))
    assert bpy.ops.impulse.clear_bake() == {"FINISHED"}
    assert box.animation_data.action == linked
    assert [a.name for a in bpy.data.actions] == [linked.name]


def test_a_keyed_throw_hands_over_seamlessly(scene):
    """Keys up to the start frame: the simulation starts at the throw's speed (5 m/s, not the
    2.5 m/s a central difference gives) and the throw before the start still plays."""
    scene.impulse.use_gravity = False
    scene.frame_start, scene.frame_end = 10, 30
    box = cube("Thrown", location=(0.0, 0.0, 0.0))
    for frame, x in ((1, 0.0), (10, 9.0 / 24.0 * 5.0)):
        box.location.x = x
        box.keyframe_insert("location", frame=frame)
    for curve in fcurves(box):
        for key in curve.keyframe_points:
            key.interpolation = "LINEAR"
    add(box, use_animation_velocity=True)
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    x = keys(box, "location")[:, :2]
    assert x[0].tolist() == [1.0, 0.0]
    assert x[1:, 1] == pytest.approx((x[1:, 0] - 1.0) / 24.0 * 5.0, abs=1e-4)
    scene.frame_set(5)
    assert box.location.x == pytest.approx(4.0 / 24.0 * 5.0, abs=1e-6)


def constrained_spin(scene, constraint: str, mode: str, **settings):
    box = cube("Box", location=(1.0, 2.0, 3.0))
    made = box.constraints.new(constraint)
    for name, value in settings.items():
        setattr(made, name, value)
    scene.impulse.constraint_mode = mode
    return box, made


def moving_target(scene):
    bpy.ops.object.empty_add(location=(0.0, 0.0, 0.0))
    target = bpy.context.active_object
    target.keyframe_insert("location", frame=1)
    target.location = (2.0, 0.0, 0.0)
    target.keyframe_insert("location", frame=48)
    scene.frame_set(1)
    return target


def test_constraints_are_warned_about(scene, impulse):
    box, _ = constrained_spin(scene, "LIMIT_ROTATION", "KEEP", use_limit_z=True)
    scene.impulse.use_gravity = False
    scene.frame_end = 10
    add(box, initial_angular_velocity=(0.0, 0.0, 2.0))
    report = impulse.blender_addon.baking.job.bake_scene(scene)
    assert any("constraints" in w and "'Box' (Limit Rotation)" in w for w in report.warnings)


def test_visual_transform_follows_a_child_of_a_moving_target(scene):
    target = moving_target(scene)
    box, _ = constrained_spin(scene, "CHILD_OF", "VISUAL", target=target)
    actual, expected = spin_case(scene, box)
    assert actual == pytest.approx(expected, abs=1e-4)


def test_visual_transform_says_when_it_cannot_follow(scene, impulse):
    box, _ = constrained_spin(scene, "LIMIT_ROTATION", "VISUAL", use_limit_z=True)
    scene.impulse.use_gravity = False
    scene.frame_end = 24
    add(box, initial_angular_velocity=(0.0, 0.0, 2.0))
    report = impulse.blender_addon.baking.job.bake_scene(scene)
    assert any("'Box' stays up to" in w and "Mute" in w for w in report.warnings)


def test_mute_bakes_the_simulation_and_clear_unmutes(scene):
    box, limit = constrained_spin(scene, "LIMIT_ROTATION", "MUTE", use_limit_z=True)
    actual, expected = spin_case(scene, box)
    assert limit.mute
    assert actual == pytest.approx(expected, abs=1e-4)
    assert bpy.ops.impulse.clear_bake() == {"FINISHED"}
    assert not limit.mute


@pytest.mark.parametrize("mode", ["XYZ", "QUATERNION", "AXIS_ANGLE"])
def test_in_between_frames_follow_the_motion(scene, mode):
    """Subframes (motion blur) lie between neighbouring keys: no axis or sign flips."""
    box = cube("Box", location=(1.0, 2.0, 3.0))
    box.rotation_mode = mode
    box.rotation_axis_angle = (0.5, 0.0, 1.0, 0.0)
    box.rotation_quaternion = Matrix.Rotation(0.5, 3, "Y").to_quaternion()
    box.rotation_euler = (0.0, 0.5, 0.0)
    scene.frame_set(1)
    start = Matrix(np.array(box.matrix_world).tolist())
    spin_case(scene, box, omega=3.0, velocity=(0.0, 0.0, 0.0))
    for frame in range(1, 48):
        scene.frame_set(frame, subframe=0.5)
        angle = 3.0 * seconds(scene, frame + 0.5)
        turn = Matrix.Translation((1.0, 2.0, 3.0)) @ Matrix.Rotation(angle, 4, "Z")
        expected = turn @ Matrix.Translation((-1.0, -2.0, -3.0)) @ start
        assert np.array(box.matrix_world) == pytest.approx(np.array(expected), abs=0.02), frame


@pytest.mark.parametrize("mode", ["XYZ", "ZXY", "QUATERNION", "AXIS_ANGLE"])
def test_spins_over_half_a_turn_between_keys_turn_the_right_way(scene, impulse, mode):
    scene.impulse.use_gravity = False
    scene.frame_start, scene.frame_end = 1, 13
    scene.impulse.key_step = 2
    box = cube("Spinner", location=(0.0, 0.0, 0.0))
    box.rotation_mode = mode
    omega = math.radians(120.0) * 24.0  # 120° a frame, 240° between keys
    add(box, initial_angular_velocity=(0.0, 0.0, omega))
    report = impulse.blender_addon.baking.job.bake_scene(scene)
    assert any(re.match(r"'Spinner' turns 2[34]\d° between the keys", w) for w in report.warnings)
    between = range(2, 13, 2)  # simulated frames halfway between keys
    rotations = world_matrices(scene, box, between)[:, :3, :3]
    for frame, rotation in zip(between, rotations, strict=True):
        simulated = Quaternion(report.trajectory.orientations[frame - 1, 0]).to_matrix()
        assert rotation == pytest.approx(np.array(simulated), abs=0.02), frame
