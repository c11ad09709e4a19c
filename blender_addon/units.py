"""Lengths in messages, in the scene's unit system: '1 cm', not '0.01'."""

import bpy


def length_text(scene, metres: float) -> str:
    """A length in metres as the sidebar would show it (Blender units when the system is None)."""
    units = scene.unit_settings
    if units.system == "NONE":
        return f"{metres / units.scale_length:.3g}"
    return bpy.utils.units.to_string(units.system, "LENGTH", metres, precision=3).strip()
