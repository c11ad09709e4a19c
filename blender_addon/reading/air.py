"""The golf lab's air forces in Blender terms: drag and Magnus coefficients, the reference area
from the fitted shape and the scene's air density, turned into the solver's per-body drag and
lift (solver/aero.py: F = -k_d |v| v - the drag, F = k_l ω × v - the Magnus lift).

Drag is F = ½ ρ C_d A v², so k_d = ½ ρ C_d A. Magnus lift is written F = ½ ρ C_m A r |ω × v|
(its lift coefficient C_L = C_m S grows with the spin ratio S = r ω / v), so k_l = ½ ρ C_m A r.
A is the frontal area: π r² for a sphere and, for a box, its largest face (4 a b, a and b the
two largest half-extents), the box seen broadside; r is the sphere's radius or the box's largest
half-extent.
"""

import math

from .shapes import Shape


def reference_area(shape: Shape) -> float:
    """Frontal area in m² of the fitted shape (see the module docstring)."""
    if shape.kind == "sphere":
        return math.pi * shape.radius ** 2
    a, b = sorted(float(h) for h in shape.half_extents)[1:]
    return 4.0 * a * b


def air_coefficients(shape: Shape, drag_coefficient: float, magnus_coefficient: float,
                     air_density: float) -> dict:
    """The solver's add_body drag (kg/m) and lift (kg) for one body."""
    pressure = 0.5 * air_density * reference_area(shape)
    lever = float(max(shape.half_extents))
    return {"drag": pressure * drag_coefficient, "lift": pressure * magnus_coefficient * lever}
