"""F-curves of an object's transform as plain arrays, the same on Blender 4.5 and 5.0.

Keys are moved in bulk (`foreach_get` / `foreach_set` of every keyframe field), so replacing the
keys of a frame range keeps every other key exactly, handles and easing included, and what a
bake replaced can be stored as JSON in the object's bake state and put back by Clear.
"""

from functools import cache
from typing import cast

import bpy
import numpy as np

GROUP = "Object Transforms"
TRANSFORM_PATHS = {
    "location": 3,
    "rotation_euler": 3,
    "rotation_quaternion": 4,
    "rotation_axis_angle": 4,
}
_PAIRS = ("co", "handle_left", "handle_right")  # two floats per key
_ENUMS = ("interpolation", "handle_left_type", "handle_right_type", "type", "easing")
_FLOATS = ("back", "amplitude", "period")

Keys = dict[str, np.ndarray]  # field -> (n, 2) or (n,) array, one row per key

# What `keyframe_points.add` gives a new key (Blender's fixed defaults for the API, not the
# user's preferences): a field whose keys all hold it needs no foreach_set.
_ADDED = {"interpolation": "BEZIER", "handle_left_type": "AUTO_CLAMPED",
          "handle_right_type": "AUTO_CLAMPED", "type": "KEYFRAME", "easing": "AUTO"}
# Handles of these types are computed by curve.update() from the keys alone.
_COMPUTED_HANDLES = ("AUTO", "AUTO_CLAMPED")


@cache
def enum_value(field: str, name: str) -> int:
    prop = cast(bpy.types.EnumProperty, bpy.types.Keyframe.bl_rna.properties[field])
    return prop.enum_items[name].value


def channelbag(action, obj):
    """The curves of `obj`'s slot in `action` (layered actions, 4.4+), or None."""
    animation = obj.animation_data
    slot = animation.action_slot if animation else None
    if action is None or slot is None or not action.layers or not action.layers[0].strips:
        return None
    return action.layers[0].strips[0].channelbag(slot)


def ensure(action, obj, path: str, index: int, bag=None):
    """The curve for path[index], created in the group Blender's own keying uses. 4.5's
    `fcurve_ensure_for_datablock` has no `group_name`, so the group is set afterwards.
    bag: `channelbag(action, obj)` when the caller has it (None before the first curve)."""
    curve = action.fcurve_ensure_for_datablock(obj, path, index=index)
    if curve.group is None:
        groups = (channelbag(action, obj) if bag is None else bag).groups
        curve.group = groups.get(GROUP) or groups.new(GROUP)
    return curve


def read(curve) -> Keys:
    points = curve.keyframe_points
    count = len(points)
    keys: Keys = {}
    for name in _PAIRS:
        keys[name] = np.empty(count * 2)
        points.foreach_get(name, keys[name])
        keys[name] = keys[name].reshape(count, 2)
    for name in _ENUMS:
        keys[name] = np.empty(count, dtype=np.int32)
        points.foreach_get(name, keys[name])
    for name in _FLOATS:
        keys[name] = np.empty(count)
        points.foreach_get(name, keys[name])
    return keys


def write(curve, keys: Keys) -> None:
    """Make `keys` (sorted by frame) the curve's keys; Blender recomputes automatic handles.

    Fields every key has at `add`'s default, and automatic handles, are not set (one
    foreach_set fewer each: most of the cost of keying many bodies)."""
    points = curve.keyframe_points
    points.clear()
    count = len(keys["co"])
    points.add(count)
    automatic = all(_computed(keys[f"handle_{side}_type"]) for side in ("left", "right"))
    for name in (*_PAIRS, *_ENUMS, *_FLOATS):
        values = keys[name]
        if name in _ENUMS:
            if count and (values == enum_value(name, _ADDED[name])).all():
                continue
        elif name in _FLOATS:
            if count and not values.any():
                continue
        elif name != "co" and automatic:
            continue
        dtype = np.int32 if name in _ENUMS else np.float32
        points.foreach_set(name, np.ascontiguousarray(values, dtype=dtype).ravel())
    curve.update()


def _computed(handle_types: np.ndarray) -> bool:
    """Whether curve.update() computes every one of these handles from the keys alone."""
    first, second = (enum_value("handle_left_type", name) for name in _COMPUTED_HANDLES)
    return bool(((handle_types == first) | (handle_types == second)).all())


_NEW_ENUMS: dict[str, str | None] = {**_ADDED, "interpolation": None}  # None: the caller's
_NEW_FLOATS = {"back": 1.70158, "amplitude": 0.8, "period": 4.1}  # Blender's for new keys


def new(frames: np.ndarray, values: np.ndarray, interpolation: str) -> Keys:
    """Plain keys at `frames` with automatic clamped handles, as Blender's own keying makes."""
    count = len(frames)
    co = np.column_stack([frames, values]).astype(float)
    keys: Keys = {name: co.copy() for name in _PAIRS}
    for name, value in _NEW_ENUMS.items():
        keys[name] = np.full(count, enum_value(name, value or interpolation), dtype=np.int32)
    for name, default in _NEW_FLOATS.items():
        keys[name] = np.full(count, default)
    return keys


def coordinates(frames: np.ndarray, values: np.ndarray) -> np.ndarray:
    """(C, K, 2) float32 keys' `co` of C channels, (K, C) `values` at K `frames`: what
    `key_empty` takes, made for all of an object's channels at once."""
    co = np.empty((values.shape[1], len(frames), 2), dtype=np.float32)
    co[:, :, 0] = frames
    co[:, :, 1] = values.T
    return co


@cache
def _new_fields(count: int, interpolation: str) -> dict[str, np.ndarray]:
    """The fields `key_empty` sets besides `co` for `count` keys, made once per key count
    (every curve of a bake has the same) and read-only: foreach_set only reads them."""
    fields = {name: np.full(count, default, dtype=np.float32)
              for name, default in _NEW_FLOATS.items()}
    if interpolation != _ADDED["interpolation"]:
        fields = {"interpolation": np.full(count, enum_value("interpolation", interpolation),
                                           np.int32), **fields}
    for values in fields.values():
        values.flags.writeable = False
    return fields


def key_empty(curve, co: np.ndarray, interpolation: str) -> None:
    """Give a curve without keys the keys `new` makes at `co` ((K, 2) float32, one row of
    `coordinates`), setting only what `add` does not."""
    points = curve.keyframe_points
    points.add(len(co))
    points.foreach_set("co", co.ravel())
    for name, values in _new_fields(len(co), interpolation).items():
        points.foreach_set(name, values)
    curve.update()


EMPTY: dict[str, list] = {name: [] for name in (*_PAIRS, *_ENUMS, *_FLOATS)}  # no keys' JSON


def pick(keys: Keys, mask: np.ndarray) -> Keys:
    return {name: values[mask] for name, values in keys.items()}


def merge(first: Keys, second: Keys) -> Keys:
    """Both sets of keys, sorted by frame."""
    joined = {name: np.concatenate([first[name], second[name]]) for name in first}
    return pick(joined, np.argsort(joined["co"][:, 0], kind="stable"))


def in_range(keys: Keys, start: float, end: float) -> np.ndarray:
    frames = keys["co"][:, 0]
    return (frames >= start - 1e-4) & (frames <= end + 1e-4)


def replace_range(curve, start: float, end: float, replacement: Keys) -> Keys:
    """Swap the curve's keys in [start, end] for `replacement`; return the keys taken out."""
    keys = read(curve)
    inside = in_range(keys, start, end)
    write(curve, merge(pick(keys, ~inside), replacement))
    return pick(keys, inside)


def to_json(keys: Keys) -> dict:
    return {name: values.tolist() for name, values in keys.items()}


def from_json(data: dict) -> Keys:
    return {
        name: np.asarray(values, dtype=np.int32 if name in _ENUMS else float).reshape(
            (-1, 2) if name in _PAIRS else (-1,)
        )
        for name, values in data.items()
    }
