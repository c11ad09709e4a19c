"""Checking the physics: the built-in world mirrored, comparisons, closed-form scenes, reports."""

import bpy

register, unregister = bpy.utils.register_submodule_factory(__name__, ["report_state"])
