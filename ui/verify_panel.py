"""The Verify panel in the Impulse sidebar tab: compare and verify buttons, last results."""

from pathlib import Path

import bpy

from .panels import ImpulseSidebar


class IMPULSE_PT_verify(ImpulseSidebar):
    bl_label = "Verify"
    bl_options = {"DEFAULT_CLOSED"}  # noqa: RUF012 (read once, at registration)

    def draw(self, context):
        layout = self.layout
        settings = context.scene.impulse_report
        layout.prop(settings, "output_dir")
        column = layout.column(align=True)
        column.operator("impulse.compare_builtin", icon="PHYSICS")
        row = column.row(align=True)
        row.prop(settings, "use_ghosts", toggle=True)
        row.prop(settings, "blender_damping", toggle=True)
        column.operator("impulse.remove_ghosts", icon="GHOST_DISABLED")
        if settings.last_compare:
            layout.label(text=settings.last_compare, icon="INFO")
        layout.separator()
        layout.operator("impulse.verify", icon="CHECKMARK")
        if settings.last_verify:
            layout.label(text=settings.last_verify, icon="INFO")
        if settings.last_report:
            layout.operator("wm.url_open", text="Open Report", icon="URL").url = (
                Path(settings.last_report).as_uri())


def register() -> None:
    bpy.utils.register_class(IMPULSE_PT_verify)


def unregister() -> None:
    bpy.utils.unregister_class(IMPULSE_PT_verify)
