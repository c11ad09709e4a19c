"""Options and last results of comparison and verification, saved per scene.

A property group of its own (`scene.impulse_report`) so verification adds nothing to the bake's
data model.
"""

import bpy
from bpy.props import BoolProperty, PointerProperty, StringProperty


class ImpulseReportSettings(bpy.types.PropertyGroup):
    """What the Verify panel shows and the compare and verify operators read."""

    use_ghosts: BoolProperty(
        name="Ghosts",
        description="Add wireframe copies keyed with the built-in world's trajectories",
        default=False,
    )
    blender_damping: BoolProperty(
        name="Blender Damping",
        description="Keep the built-in world's default damping (0.04 linear, 0.1 angular) "
        "instead of zero, which bends every closed-form check",
        default=False,
    )
    output_dir: StringProperty(
        name="Output",
        description="Folder for the verification and comparison reports (report.html, JSON, "
        "CSV and PNG charts)",
        subtype="DIR_PATH",
        default="//impulse_verify",
    )
    last_compare: StringProperty(name="Last Comparison")
    last_verify: StringProperty(name="Last Verification")
    last_report: StringProperty(name="Last Report", description="report.html of the last "
                                "comparison or verification: tables and charts on one page",
                                subtype="FILE_PATH")


ATTRIBUTE = "impulse_report"  # set with setattr: the type stubs cannot know added attributes


def register() -> None:
    bpy.utils.register_class(ImpulseReportSettings)
    setattr(bpy.types.Scene, ATTRIBUTE, PointerProperty(type=ImpulseReportSettings))


def unregister() -> None:
    delattr(bpy.types.Scene, ATTRIBUTE)
    bpy.utils.unregister_class(ImpulseReportSettings)
