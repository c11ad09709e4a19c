"""Material presets: add or remove the user's own, apply any to the selected bodies."""

import bpy
from bl_operators.presets import AddPresetBase
from bpy.props import StringProperty

from ..blender_addon import presets

MENU = "IMPULSE_MT_material_presets"


class IMPULSE_OT_add_preset(AddPresetBase, bpy.types.Operator):  # type: ignore[misc]
    """Save the active body's material as a preset (in your user presets folder)"""

    bl_idname = "impulse.add_preset"
    bl_label = "Add Material Preset"
    preset_menu = MENU
    preset_subdir = presets.SUBDIR
    preset_defines = presets.DEFINES
    preset_values = presets.VALUES


class IMPULSE_OT_apply_preset(bpy.types.Operator):
    """Apply a material preset to the selected bodies"""

    bl_idname = "impulse.apply_preset"
    bl_label = "Apply Material Preset"
    bl_options = {"REGISTER", "UNDO"}  # noqa: RUF012 (read once, at registration)

    name: StringProperty(name="Preset", description="Preset name, e.g. Steel")
    filepath: StringProperty(subtype="FILE_PATH", options={"SKIP_SAVE", "HIDDEN"})

    def execute(self, context):
        filepath = self.filepath or presets.find(self.name)
        if not filepath:
            known = ", ".join(presets.names())
            self.report({"ERROR"}, f"No material preset '{self.name}' (known: {known})")
            return {"CANCELLED"}
        bodies = [obj for obj in context.selected_objects if obj.impulse.enabled]
        if not bodies:
            self.report({"ERROR"}, "No bodies selected")
            return {"CANCELLED"}
        linked = [obj.name for obj in bodies if obj.library is not None]
        if linked:
            self.report({"ERROR"}, f"Cannot edit linked objects: {', '.join(linked)}")
            return {"CANCELLED"}
        presets.apply(filepath, bodies)
        label = bpy.path.display_name(bpy.path.basename(filepath))
        self.report({"INFO"}, f"Applied '{label}' to {len(bodies)} bodies")
        return {"FINISHED"}


CLASSES = (IMPULSE_OT_add_preset, IMPULSE_OT_apply_preset)
