"""Material presets through Blender's preset system.

A preset sets the mass mode, density or mass, bounciness and friction; one a user adds keeps the
body's shape too (a barrel preset makes a cylinder), while the bundled materials leave it alone.

The bundled materials ship read-only inside the extension (`presets/impulse/materials/`, found
through `register_preset_path`); presets a user adds are written by `AddPresetBase` to the user's
scripts/presets/impulse/materials folder, never into the extension's own folder.
"""

from pathlib import Path

import bpy

SUBDIR = "impulse/materials"
DEFINES = ("obj = bpy.context.object",)
VALUES = (
    "obj.impulse.shape",
    "obj.impulse.mass_mode",
    "obj.impulse.density",
    "obj.impulse.mass",
    "obj.impulse.restitution",
    "obj.impulse.friction",
)
_ROOT = str(Path(__file__).resolve().parent.parent)


def find(name: str) -> str | None:
    """The preset file for a display name ("Steel") or file name ("steel"), or None."""
    return bpy.utils.preset_find(name, SUBDIR) or bpy.utils.preset_find(
        name, SUBDIR, display_name=True
    )


def names() -> list[str]:
    """Display names of every preset the menu shows, bundled and the user's own."""
    found = {
        bpy.path.display_name(path.name)
        for folder in bpy.utils.preset_paths(SUBDIR)
        for path in Path(folder).glob("*.py")
    }
    return sorted(found)


def apply(filepath: str, objects) -> None:
    """Run a preset script once per object, with that object as `context.object`."""
    for obj in objects:
        with bpy.context.temp_override(object=obj, active_object=obj):
            bpy.utils.execfile(filepath)


def register() -> None:
    bpy.utils.register_preset_path(_ROOT)


def unregister() -> None:
    bpy.utils.unregister_preset_path(_ROOT)
