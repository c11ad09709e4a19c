"""Operators (`impulse.*`): thin wrappers that validate, call blender_addon and report.

MODULES is the one place registration is listed: each module has a CLASSES tuple, registered in
order (and unregistered in reverse). Add a module here to hook it in.
"""

import bpy

from . import bake, bodies, presets, verify

MODULES = (bodies, presets, bake, verify)


def register() -> None:
    for module in MODULES:
        for cls in module.CLASSES:
            bpy.utils.register_class(cls)


def unregister() -> None:
    for module in reversed(MODULES):
        for cls in reversed(module.CLASSES):
            bpy.utils.unregister_class(cls)
