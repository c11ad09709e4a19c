"""Add, remove and copy body settings on the selected objects.

Linked objects cannot be changed; library overrides can (every Impulse setting is overridable).
An override Blender made on its own (a system override, greyed out in the sidebar) is made
editable first, as the Outliner's Make Editable does, since the user asked to change it.
"""

import bpy
from bpy.props import EnumProperty

from ..blender_addon.reading.shape_guess import guess_shape
from ..blender_addon.reading.shapes import mesh_points

# Settings that describe the body; the bake state belongs to each object alone.
_NOT_COPIED = {"rna_type", "bake_state"}


LINKED = "Cannot edit linked objects: {} (make a library override or make them local)"


def split_selection(context) -> tuple[list, list[str], list[str]]:
    """Editable meshes, names of skipped non-meshes, names of linked (read-only) objects."""
    selected = list(context.selected_objects)
    linked = [obj.name for obj in selected if obj.library is not None]
    others = [obj.name for obj in selected if obj.type != "MESH"]
    meshes = [obj for obj in selected if obj.type == "MESH" and obj.library is None]
    return meshes, others, linked


def make_editable(objects) -> None:
    """System overrides among `objects` become editable overrides (their settings are saved)."""
    for obj in objects:
        if obj.override_library is not None and obj.override_library.is_system_override:
            obj.override_library.is_system_override = False


def _report_skipped(operator, others: list[str]) -> None:
    if others:
        operator.report({"WARNING"}, f"Skipped non-mesh objects: {', '.join(others)}")


class IMPULSE_OT_add_bodies(bpy.types.Operator):
    """Make the selected meshes rigid bodies (a sphere, cylinder, capsule or cone mesh gets
    that shape, anything else a box)"""

    bl_idname = "impulse.add_bodies"
    bl_label = "Add Bodies"
    bl_options = {"REGISTER", "UNDO"}  # noqa: RUF012 (read once, at registration)

    body_type: EnumProperty(
        name="Type",
        items=(
            ("ACTIVE", "Active", "Bodies that fall and collide"),
            ("PASSIVE", "Passive", "Bodies that others collide with"),
        ),
    )

    def execute(self, context):
        meshes, others, linked = split_selection(context)
        if linked:
            self.report({"ERROR"}, LINKED.format(", ".join(linked)))
            return {"CANCELLED"}
        if not meshes:
            self.report({"ERROR"}, "No mesh objects selected")
            return {"CANCELLED"}
        make_editable(meshes)
        depsgraph = context.evaluated_depsgraph_get()
        for obj in meshes:
            if not obj.impulse.enabled and obj.impulse.shape == "BOX":  # still the default
                obj.impulse.shape = guess_shape(mesh_points(obj, depsgraph))
            obj.impulse.enabled = True
            obj.impulse.body_type = self.body_type
        _report_skipped(self, others)
        self.report({"INFO"}, f"{len(meshes)} {self.body_type.lower()} bodies")
        return {"FINISHED"}


class IMPULSE_OT_remove_bodies(bpy.types.Operator):
    """Stop simulating the selected objects (their keys stay until Clear)"""

    bl_idname = "impulse.remove_bodies"
    bl_label = "Remove Bodies"
    bl_options = {"REGISTER", "UNDO"}  # noqa: RUF012 (read once, at registration)

    def execute(self, context):
        bodies = [obj for obj in context.selected_objects if obj.impulse.enabled]
        linked = [obj.name for obj in bodies if obj.library is not None]
        if linked:
            self.report({"ERROR"}, LINKED.format(", ".join(linked)))
            return {"CANCELLED"}
        if not bodies:
            self.report({"ERROR"}, "No bodies selected")
            return {"CANCELLED"}
        make_editable(bodies)
        for obj in bodies:
            obj.impulse.enabled = False
        self.report({"INFO"}, f"Removed {len(bodies)} bodies")
        return {"FINISHED"}


class IMPULSE_OT_copy_settings(bpy.types.Operator):
    """Copy the active body's settings to the other selected meshes"""

    bl_idname = "impulse.copy_settings"
    bl_label = "Copy to Selected"
    bl_options = {"REGISTER", "UNDO"}  # noqa: RUF012 (read once, at registration)

    def execute(self, context):
        source = context.active_object
        if source is None or not source.impulse.enabled:
            self.report({"ERROR"}, "The active object is not a body")
            return {"CANCELLED"}
        meshes, others, linked = split_selection(context)
        if linked:
            self.report({"ERROR"}, LINKED.format(", ".join(linked)))
            return {"CANCELLED"}
        targets = [obj for obj in meshes if obj != source]
        if not targets:
            self.report({"ERROR"}, "Select the meshes to copy to, then the source body last")
            return {"CANCELLED"}
        make_editable(targets)
        names = [p.identifier for p in source.impulse.bl_rna.properties]
        for obj in targets:
            for name in names:
                if name not in _NOT_COPIED:
                    setattr(obj.impulse, name, getattr(source.impulse, name))
        _report_skipped(self, others)
        self.report({"INFO"}, f"Copied settings of '{source.name}' to {len(targets)} objects")
        return {"FINISHED"}


CLASSES = (IMPULSE_OT_add_bodies, IMPULSE_OT_remove_bodies, IMPULSE_OT_copy_settings)
