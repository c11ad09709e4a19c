"""All or nothing: what key writing may change, recorded first so a failed bake can put it back.

A bake fails after it started writing only through a bug or a Blender API difference (as 4.5's
missing `group_name` once did); then every object gets back its action and slot, the keys of
its transform curves, its bake state, constraint mutes and transform, and actions the bake made
are removed.
"""

from dataclasses import dataclass

import bpy

from . import channels


def _state_values(state) -> dict:
    names = [p.identifier for p in state.bl_rna.properties if p.identifier != "rna_type"]
    values = {name: getattr(state, name) for name in names}
    return {name: tuple(v) if hasattr(v, "__len__") and not isinstance(v, str) else v
            for name, v in values.items()}


def _curves(action, slot) -> dict | None:
    """Keys of every transform curve of one slot (None for a curve that does not exist)."""
    if action is None or slot is None or not action.layers or not action.layers[0].strips:
        return None
    bag = action.layers[0].strips[0].channelbag(slot)
    out = {}
    for path, size in channels.TRANSFORM_PATHS.items():
        for index in range(size):
            curve = bag.fcurves.find(path, index=index) if bag is not None else None
            out[path, index] = None if curve is None else channels.read(curve)
    return out


def _put_curves(action, identifier: str, saved: dict) -> None:
    slot = action.slots.get(identifier)
    bag = action.layers[0].strips[0].channelbag(slot, ensure=True)
    for (path, index), keys in saved.items():
        curve = bag.fcurves.find(path, index=index)
        if keys is None:
            if curve is not None:
                bag.fcurves.remove(curve)
            continue
        if curve is None:
            curve = bag.fcurves.new(path, index=index)
        channels.write(curve, keys)


@dataclass
class _Object:
    name: str
    had_animation_data: bool
    action: object
    slot: str
    curves: list  # (action, slot identifier, saved curves)
    state: dict
    mutes: dict
    transform: tuple


def _record(obj) -> _Object:
    animation = obj.animation_data
    action = animation.action if animation else None
    slot = animation.action_slot if animation else None
    state = obj.impulse.bake_state
    curves: list[tuple] = []
    for owner, owner_slot in ((action, slot), (state.action, None)):
        if owner is not None and owner_slot is None:
            owner_slot = owner.slots.get(state.slot)
        saved = _curves(owner, owner_slot)
        if saved is not None and all(owner is not c[0] for c in curves):
            curves.append((owner, owner_slot.identifier, saved))
    return _Object(
        name=obj.name,
        had_animation_data=animation is not None,
        action=action,
        slot=slot.identifier if slot else "",
        curves=curves,
        state=_state_values(state),
        mutes={c.name: c.mute for c in obj.constraints},
        transform=tuple(
            tuple(getattr(obj, p))
            for p in ("location", "rotation_euler", "rotation_quaternion", "rotation_axis_angle")
        ),
    )


class Journal:
    """What `objects` look like now; `rollback()` makes them look like that again."""

    def __init__(self, objects):
        self._actions = {action.as_pointer() for action in bpy.data.actions}
        self._objects = [_record(obj) for obj in objects]

    def rollback(self) -> None:
        # one pass over the objects, not a search per name
        objects: dict = {obj.name: obj for obj in bpy.data.objects}
        for record in self._objects:
            obj = objects[record.name]
            for action, identifier, saved in record.curves:
                _put_curves(action, identifier, saved)
            if record.had_animation_data:
                animation = obj.animation_data or obj.animation_data_create()
                animation.action = record.action
                if record.action is not None and record.slot in record.action.slots:
                    animation.action_slot = record.action.slots[record.slot]
            elif obj.animation_data is not None:
                obj.animation_data_clear()
            state = obj.impulse.bake_state
            for name, value in record.state.items():
                setattr(state, name, value)
            for constraint in obj.constraints:
                constraint.mute = record.mutes.get(constraint.name, constraint.mute)
            paths = ("location", "rotation_euler", "rotation_quaternion", "rotation_axis_angle")
            for path, value in zip(paths, record.transform, strict=True):
                setattr(obj, path, value)
        for action in [a for a in bpy.data.actions if a.as_pointer() not in self._actions]:
            bpy.data.actions.remove(action)
