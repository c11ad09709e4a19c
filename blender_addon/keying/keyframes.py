"""Write baked transforms as keyframes into the object's own action, and take them off again.

A bake owns only the location and rotation keys of its frame range: it swaps them for simulated
keys in the action the object plays (one is made, named after the object, if it has none) and
keeps every other curve and key, so a keyed throw before the start frame plays on into the
simulation and keys added after a bake survive re-baking. What it swapped out is stored in
`object.impulse.bake_state`; Clear puts exactly that back and changes no action assignment.
An action linked from a library cannot take keys: the bake keys a local copy in its place, and
Clear puts the linked action back.
Keys are moved in bulk (see `channels`), not with `keyframe_insert`, which is what makes
Blender's own Bake to Keyframes slow.
"""

import json

import bpy
import numpy as np
from mathutils import Euler

from ...solver import quaternion
from . import channels, rotations


def _delta_rotation(obj) -> np.ndarray:
    """Blender applies the delta rotation before the rotation: R = delta @ rotation."""
    if obj.rotation_mode == "QUATERNION":
        return np.array(obj.delta_rotation_quaternion.to_matrix())
    if obj.rotation_mode == "AXIS_ANGLE":
        return np.eye(3)
    return np.array(Euler(obj.delta_rotation_euler, obj.rotation_mode).to_matrix())


def _decompose(objects, bases: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(n, K, 3) locations and (n, K, 4) rotation quaternions that rebuild the objects' (K, 4, 4)
    basis matrices (every object's rotations converted in one go).

    The object's own signed scale is divided out, so negative scale never leaks into rotation.
    """
    basis = np.stack(bases)
    scale = np.array([np.array(obj.scale) * np.array(obj.delta_scale) for obj in objects])
    delta = np.array([obj.delta_location for obj in objects])
    location = basis[..., :3, 3] - delta[:, None]
    turns = np.array([_delta_rotation(obj) for obj in objects]).transpose(0, 2, 1)
    rotation = turns[:, None] @ (basis[..., :3, :3] / scale[:, None, None])
    return location, quaternion.from_matrix(rotation)


def channel_parts(objects, bases: list[np.ndarray], turns: list[np.ndarray]) -> list[tuple]:
    """Per object (after `begin`), the location and rotation-channel values that rebuild its
    (K, 4, 4) basis matrices, its rotation turning `turns` (K - 1,) between keys: what `write`
    keys. Objects of one rotation mode are converted together."""
    if not objects:
        return []
    location, quats = _decompose(objects, bases)
    rotation: list = [None] * len(objects)
    for mode in dict.fromkeys(obj.rotation_mode for obj in objects):
        group = [j for j, obj in enumerate(objects) if obj.rotation_mode == mode]
        path = rotations.path_for(mode)
        references = np.array([_reference(objects[j], path) for j in group])
        _, values = rotations.channel_values(mode, quats[group], np.array(turns)[group],
                                             references)
        for j, value in zip(group, values, strict=True):
            rotation[j] = value
    return [(location[j], rotation[j]) for j in range(len(objects))]


def begin(obj, frame_start: int, frame_end: int) -> None:
    """Get an object ready to take a bake of [frame_start, frame_end]: an earlier bake's keys
    go back first, and the object gets an action if it plays none."""
    state = obj.impulse.bake_state
    if state.baked:
        _put_back_keys(obj)
        _unmute(obj)
    else:
        state.had_animation_data = obj.animation_data is not None
        state.created_action = False
        state.linked_action = None
        state.location = obj.location
        state.rotation_euler = obj.rotation_euler
        state.rotation_quaternion = obj.rotation_quaternion
        state.rotation_axis_angle = obj.rotation_axis_angle
    animation = obj.animation_data or obj.animation_data_create()
    if animation.action is None:
        animation.action = bpy.data.actions.new(obj.name)
        state.created_action = True
    elif not animation.action.is_editable:  # linked: the keys go into a local copy
        slot = animation.action_slot.identifier if animation.action_slot else ""
        state.linked_action = animation.action
        animation.action = animation.action.copy()
        if slot in animation.action.slots:
            animation.action_slot = animation.action.slots[slot]
        state.created_action = True
    elif animation.action != state.action:
        state.created_action = False
    state.action = animation.action
    state.slot = ""
    state.frame_start, state.frame_end = frame_start, frame_end
    state.channels = "[]"
    state.baked = True


def _reference(obj, path: str) -> np.ndarray:
    """The channel's value at the start frame before the bake: the first key stays next to it."""
    state = obj.impulse.bake_state
    values = np.array(getattr(obj, path), dtype=float)
    bag = channels.channelbag(state.action, obj)
    for index in range(len(values)):
        curve = None if bag is None else bag.fcurves.find(path, index=index)
        if curve is not None and len(curve.keyframe_points):
            values[index] = curve.evaluate(state.frame_start)
    return values


def write(obj, frames, basis: np.ndarray, turns: np.ndarray, interpolation: str = "LINEAR",
          parts: tuple[np.ndarray, np.ndarray] | None = None):
    """Key location and rotation for (K, 4, 4) parent-space matrices at `frames` (after `begin`).

    `turns` (K - 1,) are the angles the body turns between keys; `parts` is `channel_parts`'s of
    `basis` when already made (a bake converts every body at once). Writing again (as the
    visual transform does) replaces the bake's keys; the user's keys stored are the first write's.
    """
    state = obj.impulse.bake_state
    action = state.action
    location, rotation = parts if parts is not None else channel_parts([obj], [basis], [turns])[0]
    path = rotations.path_for(obj.rotation_mode)
    stored = json.loads(state.channels)
    known = {(entry["path"], entry["index"]) for entry in stored}
    bag = channels.channelbag(action, obj)  # looked up once: it is a few RNA calls
    frames = np.asarray(frames)
    for data_path, values in (("location", location), (path, rotation)):
        co = channels.coordinates(frames, values)
        for index in range(values.shape[1]):
            curve = None if bag is None else bag.fcurves.find(data_path, index=index)
            created = curve is None
            if created:
                curve = channels.ensure(action, obj, data_path, index, bag)
                bag = channels.channelbag(action, obj) if bag is None else bag
            if len(curve.keyframe_points):
                keys = channels.new(frames, values[:, index], interpolation)
                replaced = channels.to_json(
                    channels.replace_range(curve, state.frame_start, state.frame_end, keys))
            else:  # a new curve, or one the last bake emptied: nothing to keep or merge
                channels.key_empty(curve, co[index], interpolation)
                replaced = channels.EMPTY
            if (data_path, index) not in known:
                entry = {"path": data_path, "index": index, "created": created}
                stored.append({**entry, "keys": replaced})
    state.channels = json.dumps(stored)
    state.slot = obj.animation_data.action_slot.identifier
    return action


def mute_constraints(obj, constraints) -> None:
    """Mute constraints for the bake; Clear unmutes them."""
    state = obj.impulse.bake_state
    names = json.loads(state.muted_constraints or "[]")
    for constraint in constraints:
        constraint.mute = True
        names.append(constraint.name)
    state.muted_constraints = json.dumps(names)


def _has_curves(action) -> bool:
    bags = (bag for layer in action.layers for strip in layer.strips for bag in strip.channelbags)
    return any(len(bag.fcurves) for bag in bags)


def _unmute(obj) -> None:
    state = obj.impulse.bake_state
    for name in json.loads(state.muted_constraints or "[]"):
        constraint = obj.constraints.get(name)
        if constraint is not None:
            constraint.mute = False
    state.muted_constraints = "[]"


def _baked_channelbag(obj):
    state = obj.impulse.bake_state
    action = state.action
    slot = action.slots.get(state.slot) if action is not None else None
    if slot is None or not action.layers or not action.layers[0].strips:
        return None
    return action.layers[0].strips[0].channelbag(slot)


def _put_back_keys(obj) -> None:
    """Swap the bake's keys for the ones it replaced; curves the bake made and left empty go."""
    state = obj.impulse.bake_state
    bag = _baked_channelbag(obj)
    for entry in json.loads(state.channels) if bag is not None else []:
        curve = bag.fcurves.find(entry["path"], index=entry["index"])
        if curve is None:
            continue
        keys = channels.read(curve)
        kept = channels.pick(keys, ~channels.in_range(keys, state.frame_start, state.frame_end))
        restored = channels.merge(kept, channels.from_json(entry["keys"]))
        if entry["created"] and not len(restored["co"]):
            bag.fcurves.remove(curve)
        else:
            channels.write(curve, restored)
    state.channels = "[]"


def restore(obj) -> None:
    """Undo the bake: its keys out, the replaced keys back, the transform as it was.

    The action the bake made is removed when nothing else is in it; an action left holding keys
    with no user gets a fake user, so nothing of the user's is lost on saving.
    """
    state = obj.impulse.bake_state
    _put_back_keys(obj)
    action, created, linked = state.action, state.created_action, state.linked_action
    state.action = state.linked_action = None  # the pointers are users of the actions too
    animation = obj.animation_data
    if linked is not None and action is not None:
        if animation is not None and animation.action == action:
            slot = animation.action_slot.identifier if animation.action_slot else ""
            animation.action = linked
            if slot in linked.slots:
                animation.action_slot = linked.slots[slot]
        bpy.data.actions.remove(action)
    elif action is not None and created and not _has_curves(action):
        bpy.data.actions.remove(action)
    elif action is not None and action.users == 0:
        action.use_fake_user = True
    animation = obj.animation_data
    unused = animation is not None and animation.action is None
    if unused and not (state.had_animation_data or animation.drivers or animation.nla_tracks):
        obj.animation_data_clear()
    _unmute(obj)
    obj.location = state.location
    obj.rotation_euler = state.rotation_euler
    obj.rotation_quaternion = state.rotation_quaternion
    obj.rotation_axis_angle = state.rotation_axis_angle
    state.baked = False
    state.created_action = False
    state.slot = ""
