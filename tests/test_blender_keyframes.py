"""The keyframe writer: bulk keys in the object's action, continuity, exact restore."""

import bpy
import numpy as np
import pytest

from tests.blender_helpers import cube, fcurves, keys, transform


@pytest.fixture
def writer(impulse):
    return impulse.blender_addon.keying.keyframes


def bake(writer, obj, frames, basis, interpolation="LINEAR"):
    """Key `basis` at `frames` the way a bake does (turns between keys: the short way)."""
    writer.begin(obj, int(frames[0]), int(frames[-1]))
    return writer.write(obj, frames, basis, np.zeros(len(frames) - 1), interpolation)


def spin_basis(turns: float, count: int, axis=2, scale=(1.0, 1.0, 1.0)) -> np.ndarray:
    """(count, 4, 4) matrices turning `turns` times about an axis while moving along x."""
    angles = np.linspace(0.0, 2.0 * np.pi * turns, count)
    c, s = np.cos(angles), np.sin(angles)
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    basis = np.zeros((count, 4, 4))
    basis[:, axis, axis] = 1.0
    basis[:, i, i], basis[:, i, j], basis[:, j, i], basis[:, j, j] = c, -s, s, c
    basis[:, :3, :3] *= np.asarray(scale)
    basis[:, 0, 3] = np.arange(count) * 0.5
    basis[:, 3, 3] = 1.0
    return basis


def test_keys_go_into_a_new_action_named_after_the_object(scene, writer):
    obj = cube("Crate")
    frames = np.arange(1, 42)
    action = bake(writer, obj, frames, spin_basis(0.25, len(frames)), "LINEAR")
    assert action.name == "Crate"
    assert obj.animation_data.action == action
    assert {(c.data_path, c.array_index) for c in fcurves(obj)} == {
        *(("location", i) for i in range(3)),
        *(("rotation_euler", i) for i in range(3)),
    }
    location = keys(obj, "location")
    assert np.array_equal(location[:, 0], frames)
    assert location[:, 1] == pytest.approx(np.arange(len(frames)) * 0.5, abs=1e-6)
    assert all(k.interpolation == "LINEAR" for c in fcurves(obj) for k in c.keyframe_points)
    scene.frame_set(41)
    assert obj.rotation_euler.z == pytest.approx(np.pi / 2, abs=1e-5)


def test_euler_keys_are_continuous_through_several_turns(scene, writer):
    obj = cube("Spinner")
    frames = np.arange(0, 101)
    bake(writer, obj, frames, spin_basis(2.0, len(frames)))
    z = keys(obj, "rotation_euler")[:, 3]
    assert np.all(np.diff(z) > 0.0), "Euler angle flipped"
    assert z[-1] == pytest.approx(4.0 * np.pi, abs=1e-4)


def test_quaternion_keys_never_flip_sign(scene, writer):
    obj = cube("Spinner")
    obj.rotation_mode = "QUATERNION"
    frames = np.arange(0, 101)
    bake(writer, obj, frames, spin_basis(2.0, len(frames), axis=0))
    q = keys(obj, "rotation_quaternion")[:, 1:]
    assert q[0] == pytest.approx([1.0, 0.0, 0.0, 0.0], abs=1e-6)
    assert np.all(np.sum(q[1:] * q[:-1], axis=1) > 0.0)


def test_negative_scale_stays_in_scale_not_rotation(scene, writer):
    obj = cube("Mirror")
    obj.scale = (-1.0, 2.0, 1.0)
    frames = np.arange(1, 11)
    bake(writer, obj, frames, spin_basis(0.1, len(frames), scale=(-1.0, 2.0, 1.0)))
    for frame, angle in zip(frames, np.linspace(0.0, 0.2 * np.pi, len(frames)), strict=True):
        scene.frame_set(int(frame))
        assert tuple(obj.rotation_euler) == pytest.approx((0.0, 0.0, angle), abs=1e-5)
        assert tuple(obj.scale) == (-1.0, 2.0, 1.0)


def test_bezier_interpolation_option(scene, writer):
    obj = cube("Smooth")
    bake(writer, obj, np.arange(1, 6), spin_basis(0.1, 5), "BEZIER")
    assert all(k.interpolation == "BEZIER" for c in fcurves(obj) for k in c.keyframe_points)


def test_restore_brings_back_the_keys_and_transform_exactly(scene, writer):
    obj = cube("Animated", location=(1.0, 2.0, 3.0))
    obj.rotation_mode = "QUATERNION"
    for frame, x in ((1, 1.0), (5, 3.0), (20, 4.0)):
        obj.location.x = x
        obj.keyframe_insert("location", frame=frame)
    action = obj.animation_data.action
    slot = obj.animation_data.action_slot.identifier
    obj.rotation_quaternion = (0.5, 0.5, 0.5, 0.5)  # unkeyed: kept as it is
    scene.frame_set(5)
    before = transform(obj)
    user_keys = keys(obj, "location").copy()
    bake(writer, obj, np.arange(3, 11), spin_basis(0.3, 8))
    assert obj.animation_data.action == action  # keys go into the action the object plays
    baked = keys(obj, "location")
    assert baked[:, 0].tolist() == [1, *range(3, 11), 20]  # the keys outside the range stay
    assert baked[[0, -1]] == pytest.approx(user_keys[[0, -1]])
    scene.frame_set(6)
    assert transform(obj) != before
    writer.restore(obj)
    scene.frame_set(5)
    assert obj.animation_data.action == action
    assert obj.animation_data.action_slot.identifier == slot
    assert np.array_equal(keys(obj, "location"), user_keys)
    assert {c.data_path for c in fcurves(obj)} == {"location"}
    assert transform(obj) == before
    assert not obj.impulse.bake_state.baked


def test_restore_without_previous_animation_removes_animation_data(scene, writer):
    obj = cube("Plain", location=(0.0, 0.0, 4.0))
    before = transform(obj)
    bake(writer, obj, np.arange(1, 11), spin_basis(0.3, 10))
    writer.restore(obj)
    assert obj.animation_data is None
    assert transform(obj) == before
    assert len(bpy.data.actions) == 0
