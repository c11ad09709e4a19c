"""The Live Preview sub-panel of the Bake panel: the toggle and the preview's status line."""

import bpy

from ..blender_addon.baking import preview
from .panels import ImpulseSidebar


class IMPULSE_PT_live_preview(ImpulseSidebar):
    bl_label = "Live Preview"
    bl_parent_id = "IMPULSE_PT_bake"

    def draw_header(self, context):
        on = preview.running(context.scene)
        self.layout.operator("impulse.live_preview", text="", icon="PAUSE" if on else "PLAY",
                             depress=on)

    def draw(self, context):
        layout = self.layout
        line = preview.status(context.scene)
        if not line:
            layout.label(text="Off: press the button to re-simulate on every change")
            return
        layout.label(text=line, icon="ERROR" if preview.failed(context.scene) else "TIME")


def register() -> None:
    bpy.utils.register_class(IMPULSE_PT_live_preview)


def unregister() -> None:
    bpy.utils.unregister_class(IMPULSE_PT_live_preview)
