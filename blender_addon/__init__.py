"""The Blender side that is neither an operator nor a panel: data model, presets, bake, batch.

The list below is the one place registration is listed: each module has register() and
unregister(), called in this order (and in reverse). Add a module here to hook it in.
"""

import bpy

register, unregister = bpy.utils.register_submodule_factory(
    __name__, ["properties", "presets", "cli", "report_state", "report_cli"]
)
