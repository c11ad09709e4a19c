"""Fitted shapes of the bodies on screen, as the bake fits them, for the overlay and the panel.

Fitting reads the evaluated mesh, so a fit is cached until the next edit or frame change rather
than redone on every redraw.
"""

import bpy
import numpy as np

from .. import solver
from ..blender_addon.reading.fitting import ShapeError, fit_body
from ..blender_addon.reading.shapes import MeshPoints, Shape, hull_solid_volume, up_direction
from ..solver.hull import convex_hull

_cache: dict[tuple[str, str, str], tuple[MeshPoints, Shape] | str] = {}
_volumes: dict[tuple[str, str, str], tuple[float, float | None, float]] = {}


def fitted(obj, depsgraph) -> tuple[MeshPoints, Shape] | str:
    """(the mesh that weighs, the shape) of body `obj` in Blender units, or why there is none."""
    settings = obj.impulse
    key = (obj.name, settings.shape, settings.body_type)
    if key not in _cache:
        up = None
        if settings.body_type == "PASSIVE":
            try:
                up = up_direction(bpy.context.scene.gravity)
            except ValueError:
                up = np.array([0.0, 0.0, 1.0])
        try:
            _cache[key] = fit_body(obj, depsgraph, 1.0, up)
        except (ShapeError, ValueError) as error:  # the solver's hull refuses a flat mesh
            _cache[key] = str(error)
    return _cache[key]


def volumes(obj, depsgraph) -> tuple[float, float | None, float] | str:
    """(the shape's volume, the closed mesh's or None when it is open, Blender units cubed; how
    far a simplified convex hull is from the exact one, Blender units, else 0)."""
    fit = fitted(obj, depsgraph)
    if isinstance(fit, str):
        return fit
    settings = obj.impulse
    key = (obj.name, settings.shape, settings.body_type)
    if key not in _volumes:
        points, shape = fit
        mesh = solver.mass_properties(points.vertices, points.triangles)
        error = 0.0
        if shape.kind == "hull":
            hull = convex_hull(shape.points)
            volume, error = hull_solid_volume(hull), float(hull.error)
        else:
            volume = shape.volume()
        _volumes[key] = (volume, float(mesh.volume) if mesh.closed else None, error)
    return _volumes[key]


@bpy.app.handlers.persistent  # a handler that is not persistent is dropped when a file loads
def invalidate(*_args) -> None:
    _cache.clear()
    _volumes.clear()


def register() -> None:
    bpy.app.handlers.depsgraph_update_post.append(invalidate)
    bpy.app.handlers.frame_change_post.append(invalidate)


def unregister() -> None:
    bpy.app.handlers.frame_change_post.remove(invalidate)
    bpy.app.handlers.depsgraph_update_post.remove(invalidate)
    invalidate()
