"""The "Impulse" tab in the 3D viewport's sidebar: Body, World and Bake panels."""

import bpy

from ..blender_addon import presets
from ..blender_addon.units import length_text
from . import shape_cache

PRESET_MENU = "IMPULSE_MT_material_presets"
POOR_FIT = 1.5  # a box or sphere this many times the mesh's volume: suggest Convex Hull


class IMPULSE_MT_material_presets(bpy.types.Menu):
    """Bundled and user material presets; applying one sets density, bounciness and friction
    (and the shape, for a preset a user saved)."""

    bl_label = "Material Presets"
    preset_subdir = presets.SUBDIR
    preset_operator = "impulse.apply_preset"
    preset_add_operator = "impulse.add_preset"
    def draw(self, context):
        self.draw_preset(context)


def _volume_text(scene, volume: float) -> str:
    """A volume in Blender units cubed as the scene's unit system shows it."""
    units = scene.unit_settings
    if units.system == "NONE":
        return f"{volume:.3g}"
    cubic = volume * units.scale_length**3
    return bpy.utils.units.to_string(units.system, "VOLUME", cubic, precision=3).strip()


def fit_lines(obj, depsgraph, scene) -> list[tuple[str, str]]:
    """(text, icon) lines under the Shape menu: the fitted shape's volume against the mesh's,
    and what to change when the shape cannot be used or fills the mesh poorly."""
    settings = obj.impulse
    if settings.shape == "MESH" and settings.body_type == "ACTIVE":
        return [("Mesh is for passive bodies: use Convex Hull or Compound", "ERROR")]
    found = shape_cache.volumes(obj, depsgraph)
    if isinstance(found, str):
        return [(found, "ERROR")]
    shape, mesh, error = found
    if mesh is None:
        lines = [(f"Shape volume {_volume_text(scene, shape)} (the mesh is open)", "MESH_DATA")]
    else:
        lines = [(f"Shape volume {_volume_text(scene, shape)}, mesh {_volume_text(scene, mesh)} "
                  f"({100.0 * shape / mesh:.0f} %)", "MESH_DATA")]
    if error > 0.0:
        far = length_text(scene, error * scene.unit_settings.scale_length)
        lines.append((f"Hull simplified to 64 faces: up to {far} from the exact hull", "INFO"))
    if mesh is None:
        return lines
    if settings.shape in ("BOX", "SPHERE") and shape > POOR_FIT * mesh:
        name = settings.shape.title()
        lines.append((f"The {name} fills the mesh poorly: try Convex Hull", "INFO"))
    return lines


class ImpulseSidebar(bpy.types.Panel):
    """Where every Impulse panel lives: the 3D viewport's sidebar, tab "Impulse"."""

    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Impulse"


class IMPULSE_PT_body(ImpulseSidebar):
    bl_label = "Body"

    def draw_header(self, context):
        obj = context.object
        if obj is not None and obj.type == "MESH":
            self.layout.prop(obj.impulse, "enabled", text="")

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        layout.prop(context.scene.impulse, "show_shapes")
        obj = context.object
        if obj is None or obj.type != "MESH":
            layout.label(text="Select a mesh object", icon="INFO")
            return
        settings = obj.impulse
        if not settings.enabled:
            row = layout.row(align=True)
            row.operator("impulse.add_bodies", text="Add Active").body_type = "ACTIVE"
            row.operator("impulse.add_bodies", text="Add Passive").body_type = "PASSIVE"
            return
        layout.prop(settings, "body_type", expand=True)
        if settings.body_type == "PASSIVE":
            layout.prop(settings, "animated")
        layout.prop(settings, "shape")
        for text, icon in fit_lines(obj, context.evaluated_depsgraph_get(), context.scene):
            layout.label(text=text, icon=icon)
        layout.menu(PRESET_MENU)
        layout.prop(settings, "mass_mode", expand=True)
        layout.prop(settings, "mass" if settings.mass_mode == "MASS" else "density")
        layout.prop(settings, "restitution")
        layout.prop(settings, "friction")
        if settings.body_type == "ACTIVE":
            column = layout.column(heading="Damping")
            column.prop(settings, "linear_damping")
            column.prop(settings, "angular_damping")
            column.prop(settings, "rolling_resistance")
            column = layout.column(heading="Air")
            column.prop(settings, "drag_coefficient")
            column.prop(settings, "magnus_coefficient")
            layout.prop(settings, "use_animation_velocity")
            column = layout.column()
            column.active = not settings.use_animation_velocity
            column.prop(settings, "initial_linear_velocity")
            column.prop(settings, "initial_angular_velocity")
        row = layout.row(align=True)
        row.operator("impulse.copy_settings", icon="COPYDOWN")
        row.operator("impulse.remove_bodies", icon="X")


class IMPULSE_PT_world(ImpulseSidebar):
    bl_label = "World"
    bl_options = {"DEFAULT_CLOSED"}  # noqa: RUF012 (read once, at registration)

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        settings = context.scene.impulse
        layout.prop(settings, "use_gravity")
        layout.prop(settings, "air_density")
        layout.prop(settings, "substeps")
        layout.prop(settings, "iterations")
        layout.prop(settings, "method", expand=True)
        column = layout.column(heading="Combine")
        column.prop(settings, "restitution_combine")
        column.prop(settings, "friction_combine")
        layout.prop(settings, "include_hidden")


class IMPULSE_PT_bake(ImpulseSidebar):
    bl_label = "Bake"

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        settings = context.scene.impulse
        layout.prop(settings, "use_scene_range")
        column = layout.column(align=True)
        source = context.scene if settings.use_scene_range else settings
        column.prop(source, "frame_start", text="Start")
        column.prop(source, "frame_end", text="End")
        layout.prop(settings, "key_step")
        layout.prop(settings, "interpolation")
        layout.prop(settings, "constraint_mode")
        row = layout.row(align=True)
        row.scale_y = 1.4
        row.operator("impulse.bake", icon="PHYSICS")
        row.operator("impulse.clear_bake", icon="TRASH")
        if settings.last_bodies:
            box = layout.box()
            box.label(text="Last Bake")
            for name in ("last_bodies", "last_frames", "last_seconds", "last_read_seconds",
                         "last_compile_seconds", "last_simulate_seconds", "last_write_seconds",
                         "last_contacts", "last_penetration"):
                row = box.row()
                row.enabled = False
                row.prop(settings, name)


CLASSES = (IMPULSE_MT_material_presets, IMPULSE_PT_body, IMPULSE_PT_world, IMPULSE_PT_bake)


def register() -> None:
    for cls in CLASSES:
        bpy.utils.register_class(cls)


def unregister() -> None:
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
