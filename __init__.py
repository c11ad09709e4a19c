"""Impulse extension entry point: registers the Blender side, nothing else."""

import bpy

register, unregister = bpy.utils.register_submodule_factory(
    __name__, ["blender_addon", "operators", "ui"]
)
