"""The golf lab's air forces in Blender terms: drag and Magnus coefficients, the reference area
from the fitted shape and the scene's air density, turned into the solver's per-body drag and
lift (solver/aero.py: F = -k_d |v| v - the drag, F = k_l ω × v - the Magnus lift).

Drag is F = ½ ρ C_d A v², so k_d = ½ ρ C_d A. Magnus lift is written F = ½ ρ C_m A r |ω × v|
(its lift coefficient C_L = C_m S grows with the spin ratio S = r ω / v), so k_l = ½ ρ C_m A r.
A is the frontal area, the shape seen from where it is largest: π r² for a sphere; for a
capsule, cylinder or cone of radius r and half-height h the larger of its side view (4 r h plus
a capsule's π r², a cone's triangle 2 r h) and its end view π r²; for a box, and for a hull, a
mesh or a compound by their bounding boxes, the largest face (4 a b, a and b the two largest
half-extents). r is the radius of a round shape, else the largest half-extent.
"""

import math

from .shapes import AXIAL, Shape

_SIDE_VIEW = {"capsule": (4.0, math.pi), "cylinder": (4.0, 0.0), "cone": (2.0, 0.0)}


def reference_area(shape: Shape) -> float:
    """Frontal area in m² of the fitted shape (see the module docstring)."""
    r = shape.radius
    if shape.kind == "sphere":
        return math.pi * r ** 2
    if shape.kind in AXIAL:
        along, ends = _SIDE_VIEW[shape.kind]
        return max(along * r * float(shape.size[1]) + ends * r * r, math.pi * r * r)
    a, b = sorted(float(h) for h in shape.half_extents)[1:]
    return 4.0 * a * b


def air_coefficients(shape: Shape, drag_coefficient: float, magnus_coefficient: float,
                     air_density: float) -> dict:
    """The solver's add_body drag (kg/m) and lift (kg) for one body."""
    pressure = 0.5 * air_density * reference_area(shape)
    lever = shape.radius if shape.kind in ("sphere", *AXIAL) else float(max(shape.half_extents))
    return {"drag": pressure * drag_coefficient, "lift": pressure * magnus_coefficient * lever}
