"""Sidebar panels, the preset menu and the collision-shape overlay: drawing only.

The list below is the one place registration is listed: each module has register() and
unregister(), called in this order (and in reverse). Add a module here to hook it in.
"""

import bpy

register, unregister = bpy.utils.register_submodule_factory(
    __name__, ["shape_cache", "panels", "preview_panel", "overlay", "verify_panel"]
)
