"""Live Preview: the Bake panel's toggle; the work is in blender_addon.baking.preview."""

import bpy

from ..blender_addon.baking import preview, preview_handlers


class IMPULSE_OT_live_preview(bpy.types.Operator):
    """Re-simulate after every change and show the motion while scrubbing, without keys"""

    bl_idname = "impulse.live_preview"
    bl_label = "Live Preview"
    bl_options = {"REGISTER"}  # noqa: RUF012 (read once, at registration); nothing to undo

    @classmethod
    def register(cls) -> None:
        """The handlers come and go with the toggle's class, so with the extension."""
        preview_handlers.register()

    @classmethod
    def unregister(cls) -> None:
        preview_handlers.unregister()

    def execute(self, context):
        scene = context.scene
        if preview.running(scene):
            preview.stop(scene, context.evaluated_depsgraph_get())
            self.report({"INFO"}, "Live preview off: the bodies show their real transforms")
        else:
            preview.start(scene)
            self.report({"INFO"}, "Live preview on: changes re-simulate; scrub to see the motion")
        return {"FINISHED"}


CLASSES = (IMPULSE_OT_live_preview,)
