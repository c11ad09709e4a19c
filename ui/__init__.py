"""PLACEHOLDER: filled in by the Blender-side work."""

import bpy

CLASSES: tuple[type, ...] = ()


def register() -> None:
    for cls in CLASSES:
        bpy.utils.register_class(cls)


def unregister() -> None:
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
