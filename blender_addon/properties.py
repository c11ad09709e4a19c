"""The data model saved in .blend files: `Object.impulse` and `Scene.impulse`.

Values are stored in Blender units (lengths, velocities and accelerations are multiplied by the
scene's unit scale to get SI), so the sidebar shows them with the user's unit system.

Every setting is library-overridable, so a studio can link a character or prop, override it and
make it a body. Blender diffs an override against its linked reference when the file is saved,
and a reference that never had Impulse settings has nothing to diff against: the overrides'
settings would be dropped. So before every save the references' settings are made to exist (in
memory only; linked data is never written).
"""

from typing import Literal

import bpy
from bpy.app.handlers import persistent
from bpy.props import (
    BoolProperty,
    EnumProperty,
    FloatProperty,
    FloatVectorProperty,
    IntProperty,
    PointerProperty,
    StringProperty,
)

COMBINE_ITEMS = (
    ("MULTIPLY", "Multiply", "Product of the two bodies' values (Blender's built-in rule)"),
    ("AVERAGE", "Average", "Mean of the two bodies' values"),
    ("MINIMUM", "Minimum", "The smaller of the two values"),
    ("MAXIMUM", "Maximum", "The larger of the two values"),
)


# Identifiers are saved in .blend files: keep them, and add new ones at the end.
SHAPE_ITEMS = (
    ("BOX", "Box", "Oriented box fitted to the mesh (principal axes); the fastest"),
    ("SPHERE", "Sphere", "Sphere around the mesh's centre, for round objects"),
    ("CAPSULE", "Capsule", "Capsule along the mesh's axis of symmetry"),
    ("CYLINDER", "Cylinder", "Cylinder along the mesh's axis of symmetry (barrels, cans, wheels)"),
    ("CONE", "Cone", "Cone along the mesh's axis of symmetry, apex on the narrow side"),
    ("CONVEX_HULL", "Convex Hull", "The convex hull of the mesh's vertices (Suzanne, rocks)"),
    ("MESH", "Mesh", "The mesh's own triangles, for passive bodies only (terrain, bowls, ramps)"),
    ("COMPOUND", "Compound", "One body made of this object's child bodies, each with its own "
     "shape (Blender's Compound Parent); only this object is keyed, children follow it"),
)


class ImpulseBakeState(bpy.types.PropertyGroup):
    """What a bake changed on an object, so Clear (and a re-bake) can undo exactly that."""

    baked: BoolProperty(default=False)
    action: PointerProperty(type=bpy.types.Action, description="The action holding the bake")
    created_action: BoolProperty(description="The bake made the action (Clear removes it empty)")
    slot: StringProperty(description="Identifier of the action slot keyed")
    linked_action: PointerProperty(
        type=bpy.types.Action, description="The linked action the bake's local copy stands in for"
    )
    had_animation_data: BoolProperty(default=False)
    frame_start: IntProperty(description="First baked frame")
    frame_end: IntProperty(description="Last baked frame")
    channels: StringProperty(
        default="[]", description="JSON: the curves keyed and the keys they had in the range"
    )
    muted_constraints: StringProperty(
        default="[]", description="JSON: names of the constraints the bake muted"
    )
    location: FloatVectorProperty(size=3)
    rotation_euler: FloatVectorProperty(size=3)
    rotation_quaternion: FloatVectorProperty(size=4)
    rotation_axis_angle: FloatVectorProperty(size=4)


class ImpulseObjectSettings(bpy.types.PropertyGroup):
    """Per-object rigid-body settings (`object.impulse`)."""

    enabled: BoolProperty(name="Body", description="Simulate this object with Impulse")
    body_type: EnumProperty(
        name="Type",
        items=(
            ("ACTIVE", "Active", "Moves under gravity and collisions; gets baked keyframes"),
            ("PASSIVE", "Passive", "Does not react to collisions; other bodies hit it"),
        ),
        default="ACTIVE",
    )
    animated: BoolProperty(
        name="Animated",
        description="Passive body that follows its own keyframes and pushes active bodies",
    )
    shape: EnumProperty(
        name="Shape",
        description="What collides: a shape fitted to the evaluated mesh",
        items=SHAPE_ITEMS,
        default="BOX",
    )
    mass_mode: EnumProperty(
        name="Mass From",
        items=(
            ("DENSITY", "Density", "Mass = density × volume of the closed mesh"),
            ("MASS", "Mass", "Give the total mass directly"),
        ),
        default="DENSITY",
    )
    mass: FloatProperty(
        name="Mass", unit="MASS", default=1.0, min=1e-6, soft_max=10000.0, precision=3
    )
    density: FloatProperty(
        name="Density",
        description="Kilograms per cubic metre",
        default=1000.0,
        min=1e-3,
        soft_max=25000.0,
    )
    restitution: FloatProperty(
        name="Bounciness",
        description="Coefficient of restitution: 0 = no bounce, 1 = perfectly elastic",
        default=0.5,
        min=0.0,
        max=1.0,
    )
    friction: FloatProperty(
        name="Friction",
        description="Coulomb friction coefficient",
        default=0.5,
        min=0.0,
        soft_max=2.0,
    )
    linear_damping: FloatProperty(
        name="Linear",
        description="Fraction of the linear velocity lost per second (Blender's built-in "
        "rigid bodies default to 0.04; 0 is undamped physics)",
        default=0.0,
        min=0.0,
        max=1.0,
        subtype="FACTOR",
    )
    angular_damping: FloatProperty(
        name="Angular",
        description="Fraction of the spin lost per second (Blender's built-in rigid bodies "
        "default to 0.1; 0 is undamped physics)",
        default=0.0,
        min=0.0,
        max=1.0,
        subtype="FACTOR",
    )
    rolling_resistance: FloatProperty(
        name="Rolling Resistance",
        description="Coefficient c_rr: rolling is braked by a torque c_rr x normal force x "
        "radius, so a rolled ball comes to rest (about 0.001 steel on steel, 0.01-0.05 a ball "
        "on grass or carpet)",
        default=0.0,
        min=0.0,
        soft_max=0.2,
        precision=4,
    )
    drag_coefficient: FloatProperty(
        name="Drag Coefficient",
        description="C_d of the air drag ½ ρ C_d A v², A the shape's frontal area (a sphere's "
        "π r², a box's largest face); about 0.25 for a golf ball, 0.47 for a smooth ball",
        default=0.0,
        min=0.0,
        soft_max=2.0,
        precision=3,
    )
    magnus_coefficient: FloatProperty(
        name="Magnus Coefficient",
        description="Magnus lift ½ ρ C_m A r |ω × v| on a spinning body (lift coefficient = "
        "C_m × r ω / v); about 1 for a golf ball",
        default=0.0,
        soft_min=0.0,
        soft_max=2.0,
        precision=3,
    )
    initial_linear_velocity: FloatVectorProperty(
        name="Initial Velocity", subtype="VELOCITY", unit="VELOCITY", size=3
    )
    initial_angular_velocity: FloatVectorProperty(
        name="Initial Spin",
        description="Angular velocity in world axes, per second",
        subtype="XYZ",
        unit="ROTATION",
        size=3,
    )
    use_animation_velocity: BoolProperty(
        name="Velocity From Animation",
        description="Start with the velocity of the object's own animation at the start frame",
    )
    bake_state: PointerProperty(type=ImpulseBakeState)


class ImpulseSceneSettings(bpy.types.PropertyGroup):
    """Per-scene world and bake settings (`scene.impulse`), with the last bake's statistics."""

    use_scene_range: BoolProperty(
        name="Scene Range", description="Bake the scene's frame range", default=True
    )
    frame_start: IntProperty(name="Start", default=1, min=0)
    frame_end: IntProperty(name="End", default=250, min=0)
    substeps: IntProperty(
        name="Substeps", description="Solver steps per frame", default=10, min=1, soft_max=100
    )
    iterations: IntProperty(
        name="Iterations", description="Solver iterations per step", default=10, min=1, soft_max=100
    )
    method: EnumProperty(
        name="Method",
        items=(
            ("IMPULSE", "Impulse", "Sequential impulses (stiff, exact contact response)"),
            ("PENALTY", "Penalty", "Springs and dampers at the contacts"),
        ),
        default="IMPULSE",
    )
    restitution_combine: EnumProperty(name="Bounciness", items=COMBINE_ITEMS, default="MULTIPLY")
    friction_combine: EnumProperty(name="Friction", items=COMBINE_ITEMS, default="MULTIPLY")
    use_gravity: BoolProperty(
        name="Gravity", description="Use the scene's gravity (off: weightless)", default=True
    )
    air_density: FloatProperty(
        name="Air Density",
        description="Kilograms per cubic metre, for the bodies' air drag and Magnus lift "
        "(1.225 at sea level, 15 °C)",
        default=1.225,
        min=0.0,
        soft_max=2.0,
        precision=3,
    )
    key_step: IntProperty(
        name="Key Every", description="Write a key every N frames", default=1, min=1, soft_max=10
    )
    interpolation: EnumProperty(
        name="Interpolation",
        items=(
            ("LINEAR", "Linear", "Straight lines between keys (closest to the simulation)"),
            ("BEZIER", "Bézier", "Smooth curves through the keys"),
            ("CONSTANT", "Constant", "Hold each key until the next"),
        ),
        default="LINEAR",
    )
    constraint_mode: EnumProperty(
        name="Constraints",
        description="What to do about object constraints on active bodies",
        items=(
            ("KEEP", "Keep", "Key the simulation and let the constraints act on it (warned)"),
            ("VISUAL", "Visual Transform", "Keys such that the constrained motion is simulated"),
            ("MUTE", "Mute", "Mute the constraints of baked bodies (Clear unmutes them)"),
        ),
        default="KEEP",
    )
    include_hidden: BoolProperty(
        name="Include Hidden Bodies",
        description="Also simulate bodies that are hidden, disabled in viewports or renders, "
        "or in excluded collections",
    )
    show_shapes: BoolProperty(
        name="Show Collision Shapes",
        description="Draw the collision shapes of selected bodies in the viewport",
    )
    last_bodies: IntProperty(name="Bodies")
    last_frames: IntProperty(name="Frames")
    last_seconds: FloatProperty(name="Seconds", precision=2)
    last_contacts: IntProperty(name="Peak Contacts")
    last_penetration: FloatProperty(name="Largest Penetration", unit="LENGTH", precision=4)
    # Where the last bake's seconds went (BakeReport.timings).
    last_read_seconds: FloatProperty(name="Read Scene", precision=2)
    last_compile_seconds: FloatProperty(
        name="Compile Solver",
        description="Compiling the solver (first use only) or loading it from the cache; "
        "0 once this Blender session has it",
        precision=2,
    )
    last_simulate_seconds: FloatProperty(name="Simulate", precision=2)
    last_write_seconds: FloatProperty(name="Write Keys", precision=2)


CLASSES = (ImpulseBakeState, ImpulseObjectSettings, ImpulseSceneSettings)
ATTRIBUTE = "impulse"  # object.impulse, scene.impulse
OVERRIDABLE: set[Literal["LIBRARY_OVERRIDABLE"]] = {"LIBRARY_OVERRIDABLE"}
# Through setattr: the type stubs cannot know the attributes an extension adds to Blender's types.
_OWNERS = ((bpy.types.Object, ImpulseObjectSettings), (bpy.types.Scene, ImpulseSceneSettings))


def _make_overridable(cls) -> None:
    """Declare every property of `cls` overridable (one rule, so no new setting can miss it)."""
    for name, deferred in cls.__annotations__.items():
        keywords = {**deferred.keywords, "override": OVERRIDABLE}
        cls.__annotations__[name] = deferred.function(**keywords)


@persistent
def _settings_on_override_references(*_args) -> None:
    """Give each override's linked reference Impulse settings to be diffed against (save_pre)."""
    for collection in (bpy.data.objects, bpy.data.scenes):
        for item in collection:
            override = item.override_library
            reference = override.reference if override else None
            if reference is not None:
                settings = getattr(reference, ATTRIBUTE)
                getattr(settings, "bake_state", None)


def register() -> None:
    for cls in CLASSES:
        _make_overridable(cls)
        bpy.utils.register_class(cls)
    for owner, group in _OWNERS:
        setattr(owner, ATTRIBUTE, PointerProperty(type=group, override=OVERRIDABLE))
    bpy.app.handlers.save_pre.append(_settings_on_override_references)


def unregister() -> None:
    bpy.app.handlers.save_pre.remove(_settings_on_override_references)
    for owner, _group in reversed(_OWNERS):
        delattr(owner, ATTRIBUTE)
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
