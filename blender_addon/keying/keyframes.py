"""Write baked transforms as keyframes in bulk, and put objects back as they were.

Keys go into a new action per object, created through `fcurve_ensure_for_datablock` so the
layered actions of Blender 4.4+ (and 5.0, which has no `Action.fcurves`) get their slot, layer and
strip. Values are set with `foreach_set`, not `keyframe_insert`, which is what makes Blender's
own Bake to Keyframes slow. The object's previous action (kept with a fake user) and transform
are remembered in `object.impulse.bake_state`.
"""

from typing import cast

import bpy
import numpy as np
from mathutils import Euler, Quaternion

from ...solver import quaternion

GROUP = "Object Transforms"


def _interpolation_value(name: str) -> int:
    prop = cast(bpy.types.EnumProperty, bpy.types.Keyframe.bl_rna.properties["interpolation"])
    return prop.enum_items[name].value


def _delta_rotation(obj) -> np.ndarray:
    """Blender applies the delta rotation before the rotation: R = delta @ rotation."""
    if obj.rotation_mode == "QUATERNION":
        return np.array(obj.delta_rotation_quaternion.to_matrix())
    if obj.rotation_mode == "AXIS_ANGLE":
        return np.eye(3)
    return np.array(Euler(obj.delta_rotation_euler, obj.rotation_mode).to_matrix())


def _decompose(obj, basis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Locations and rotation quaternions that rebuild the (K, 4, 4) basis matrices.

    The object's own signed scale is divided out, so negative scale never leaks into rotation.
    """
    scale = np.array(obj.scale) * np.array(obj.delta_scale)
    location = basis[:, :3, 3] - np.array(obj.delta_location)
    rotation = _delta_rotation(obj).T @ (basis[:, :3, :3] / scale)
    return location, quaternion.from_matrix(rotation)


def _continuous_quaternions(obj, quats: np.ndarray) -> np.ndarray:
    """Flip signs so neighbouring keys (and the first key and the current value) agree."""
    previous = np.vstack([np.array(obj.rotation_quaternion), quats[:-1]])
    signs = np.cumprod(np.where(np.sum(previous * quats, axis=1) < 0.0, -1.0, 1.0))
    return quats * signs[:, None]


def rotation_channels(obj, quats: np.ndarray) -> tuple[str, np.ndarray]:
    """The rotation property of the object's rotation mode, with values free of flips."""
    mode = obj.rotation_mode
    if mode == "QUATERNION":
        return "rotation_quaternion", _continuous_quaternions(obj, quats)
    if mode == "AXIS_ANGLE":
        values = np.empty((len(quats), 4))
        for i, q in enumerate(quats):
            axis, angle = Quaternion(q).to_axis_angle()
            values[i] = (angle, axis.x, axis.y, axis.z)
        return "rotation_axis_angle", values
    values = np.empty((len(quats), 3))
    compatible = obj.rotation_euler.copy()
    for i, q in enumerate(quats):
        compatible = Quaternion(q).to_euler(mode, compatible)
        values[i] = compatible
    return "rotation_euler", values


def remember(obj) -> None:
    """Store the previous action and transform; the action gets a fake user so it survives."""
    state = obj.impulse.bake_state
    animation = obj.animation_data
    previous = animation.action if animation else None
    state.had_animation_data = animation is not None
    state.previous_action = previous
    slot = animation.action_slot if animation else None
    state.previous_slot = slot.identifier if slot else ""
    state.previous_fake_user = bool(previous and previous.use_fake_user)
    if previous is not None:
        previous.use_fake_user = True
    state.rotation_mode = obj.rotation_mode
    state.location = obj.location
    state.rotation_euler = obj.rotation_euler
    state.rotation_quaternion = obj.rotation_quaternion
    state.rotation_axis_angle = obj.rotation_axis_angle


def _write_curves(action, obj, data_path, frames, values, interpolation) -> None:
    count = len(frames)
    co = np.empty((count, 2), dtype=np.float32)
    co[:, 0] = frames
    modes = np.full(count, interpolation, dtype=np.int32)
    for index in range(values.shape[1]):
        curve = action.fcurve_ensure_for_datablock(obj, data_path, index=index, group_name=GROUP)
        co[:, 1] = values[:, index]
        curve.keyframe_points.add(count)
        curve.keyframe_points.foreach_set("co", co.ravel())
        curve.keyframe_points.foreach_set("interpolation", modes)
        curve.update()


def write(obj, frames: np.ndarray, basis: np.ndarray, interpolation: str = "LINEAR"):
    """Key location and rotation for (K, 4, 4) parent-space matrices at `frames`; return the action.

    Call `remember` first; the new action is named after the object.
    """
    location, quats = _decompose(obj, basis)
    rotation_path, rotation = rotation_channels(obj, quats)
    action = bpy.data.actions.new(obj.name)
    animation = obj.animation_data or obj.animation_data_create()
    animation.action = action
    mode = _interpolation_value(interpolation)
    _write_curves(action, obj, "location", frames, location, mode)
    _write_curves(action, obj, rotation_path, frames, rotation, mode)
    state = obj.impulse.bake_state
    state.baked = True
    state.action = action
    return action


def restore(obj) -> None:
    """Undo `write`: drop the baked action, reassign the previous one, restore the transform."""
    state = obj.impulse.bake_state
    previous = state.previous_action
    animation = obj.animation_data
    if animation is not None:
        animation.action = previous
        if previous is not None and state.previous_slot in previous.slots:
            animation.action_slot = previous.slots[state.previous_slot]
    if state.action is not None:
        bpy.data.actions.remove(state.action)
    if previous is not None:
        previous.use_fake_user = state.previous_fake_user
    if not state.had_animation_data:
        obj.animation_data_clear()
    obj.rotation_mode = state.rotation_mode
    obj.location = state.location
    obj.rotation_euler = state.rotation_euler
    obj.rotation_quaternion = state.rotation_quaternion
    obj.rotation_axis_angle = state.rotation_axis_angle
    state.baked = False
    state.previous_action = None
    state.previous_slot = ""
