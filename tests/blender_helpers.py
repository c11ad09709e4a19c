"""Helpers shared by the real-Blender tests: make objects, select, read baked F-curves."""

import bpy
import numpy as np


def cube(name: str, location=(0.0, 0.0, 0.0), size: float = 2.0):
    bpy.ops.mesh.primitive_cube_add(size=size, location=location)
    obj = bpy.context.active_object
    obj.name = name
    return obj


def select(*objects, active=None):
    bpy.ops.object.select_all(action="DESELECT")
    for obj in objects:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = active or (objects[-1] if objects else None)


def fcurves(obj):
    """The F-curves of the object's action in its assigned slot (layered actions, 4.4+)."""
    animation = obj.animation_data
    strip = animation.action.layers[0].strips[0]
    return strip.channelbag(animation.action_slot).fcurves


def keys(obj, data_path: str) -> np.ndarray:
    """(K, 1 + channels): key frames, then each channel's key values."""
    curves = sorted(
        (c for c in fcurves(obj) if c.data_path == data_path), key=lambda c: c.array_index
    )
    columns = []
    for curve in curves:
        co = np.empty(len(curve.keyframe_points) * 2)
        curve.keyframe_points.foreach_get("co", co)
        columns.append(co.reshape(-1, 2))
    return np.column_stack([columns[0][:, 0]] + [c[:, 1] for c in columns])


def transform(obj) -> tuple:
    """Everything that says where an object is, for exact before/after comparisons."""
    bpy.context.view_layer.update()
    return (
        obj.rotation_mode,
        tuple(obj.location),
        tuple(obj.rotation_euler),
        tuple(obj.rotation_quaternion),
        tuple(obj.rotation_axis_angle),
        tuple(obj.scale),
        tuple(map(tuple, obj.matrix_world)),
    )
