"""Operators (`impulse.*`): thin wrappers that validate, call blender_addon and report.

Each module has a CLASSES tuple; the modules listed here are registered in order (and
unregistered in reverse). Add a module here to hook it in.
"""

import bpy

from . import bake, bodies, presets, preview, verify

register, unregister = bpy.utils.register_classes_factory(
    tuple(cls for module in (bodies, presets, bake, preview, verify) for cls in module.CLASSES)
)
