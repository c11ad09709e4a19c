"""add_body's shape arguments checked and turned into a body's parts (solver.geometry.Part).

Every wrong value fails here with a ValueError naming the argument (and, inside a compound,
the part), before anything is added to the world.
"""

import numpy as np

from . import arguments, quaternion
from .bodies import body_code, extents_of
from .geometry import Geometry, Part
from .hull import convex_hull
from .mesh import prepare_mesh
from .shapes import (
    BOX,
    CAPSULE,
    CONE,
    CYLINDER,
    HULL,
    MESH,
    SPHERE,
    Box,
    Capsule,
    Cone,
    ConvexHull,
    Cylinder,
    Sphere,
)

_AXIAL = {"capsule": CAPSULE, "cylinder": CYLINDER, "cone": CONE}
_CONVEX = ("box", "sphere", *_AXIAL, "hull")
_PART_KEYS = ("shape", "size", "points", "position", "orientation")
_WHERE = "add_body"


def shape_parts(shape: str, kind: str, size, points, vertices, triangles, parts) -> list[Part]:
    """The parts of a body of `shape` (one, or a compound's several)."""
    _only_for(shape, "hull", "points", points)
    _only_for(shape, "mesh", "vertices", vertices)
    _only_for(shape, "mesh", "triangles", triangles)
    _only_for(shape, "compound", "parts", parts)
    if shape == "mesh":
        if kind == "dynamic":
            raise ValueError("add_body: shape 'mesh' is for static or kinematic bodies only; a "
                             "dynamic body needs shape='hull' (its convex hull) or 'compound' "
                             "(convex parts)")
        return [mesh_part(vertices, triangles)]
    if shape == "compound":
        return compound_parts(parts)
    return [convex_part(shape, size, points, "")]


def _only_for(shape: str, owner: str, name: str, value) -> None:
    if value is not None and shape != owner:
        raise ValueError(f"{_WHERE}: {name} is for shape={owner!r}, not {shape!r}")


def convex_part(shape: str, size, points, prefix: str, position=None, rotation=None) -> Part:
    """One convex part at `position`, `rotation` (the body's origin by default); `prefix`
    names the part in messages ("parts[2] ")."""
    position = np.zeros(3) if position is None else position
    rotation = np.eye(3) if rotation is None else rotation
    if shape == "hull":
        if points is None:
            raise ValueError(f"{_WHERE}: {prefix}points (K, 3) are needed for shape 'hull'")
        points = arguments.finite_array(_WHERE, f"{prefix}points", points, (-1, 3),
                                        "a finite (K, 3) array of points")
        try:
            hull = convex_hull(points)
        except ValueError as error:
            raise ValueError(f"{_WHERE}: {prefix}{error}") from None
        return Part(HULL, np.abs(hull.vertices).max(axis=0), position, rotation, hull=hull)
    if shape == "box":
        return Part(BOX, arguments.positive_vector(_WHERE, f"{prefix}size", size, 3), position,
                    rotation)
    if shape == "sphere":
        return Part(SPHERE, np.full(3, _radius(size, prefix)), position, rotation)
    name = f"{prefix}size (radius, half_height) of shape {shape!r}"
    if shape != "capsule":
        radius, half_height = arguments.positive_vector(_WHERE, name, size, 2)
    else:  # a capsule of half-height 0 is a sphere
        radius, half_height = arguments.finite_vector(_WHERE, name, size, 2)
        if not (radius > 0.0 and half_height >= 0.0):
            raise ValueError(f"{_WHERE}: {name} must be a radius > 0 and a half_height >= 0, "
                             f"got ({radius}, {half_height})")
    return Part(_AXIAL[shape], np.array([radius, half_height, 0.0]), position, rotation)


def _radius(size, prefix: str) -> float:
    """A sphere's size: its radius, a number or one in a sequence."""
    if np.ndim(size) == 1 and np.size(size) == 1:
        size = size[0]
    if np.ndim(size) != 0:
        raise ValueError(f"{_WHERE}: {prefix}size must be a sphere's radius, one positive finite "
                         f"number, got {size!r}")
    return arguments.positive_finite(_WHERE, f"{prefix}size (the radius)", size)


def compound_parts(parts) -> list[Part]:
    """A compound's parts: dicts of shape, size or points, position and orientation."""
    if not isinstance(parts, (list, tuple)) or not parts:
        raise ValueError(f"{_WHERE}: parts must be a non-empty list of dicts (shape, size, "
                         f"points, position, orientation) for shape 'compound', got {parts!r}")
    result = []
    for i, spec in enumerate(parts):
        prefix = f"parts[{i}] "
        if not isinstance(spec, dict):
            raise ValueError(f"{_WHERE}: {prefix}must be a dict, got {spec!r}")
        unknown = sorted(set(spec) - set(_PART_KEYS))
        if unknown:
            raise ValueError(f"{_WHERE}: {prefix}has unknown keys {unknown}; use {_PART_KEYS}")
        shape = spec.get("shape", "box")
        if shape not in _CONVEX:
            raise ValueError(f"{_WHERE}: {prefix}shape must be one of {list(_CONVEX)} (convex "
                             f"parts), got {shape!r}")
        position = arguments.finite_vector(_WHERE, f"{prefix}position",
                                           spec.get("position", (0.0, 0.0, 0.0)), 3)
        q = arguments.unit_quaternion(_WHERE, f"{prefix}orientation",
                                      spec.get("orientation", (1.0, 0.0, 0.0, 0.0)))
        if shape != "hull" and spec.get("points") is not None:
            raise ValueError(f"{_WHERE}: {prefix}points are for shape 'hull', not {shape!r}")
        result.append(convex_part(shape, spec.get("size", (0.5, 0.5, 0.5)), spec.get("points"),
                                  prefix, position, quaternion.to_matrix(q)))
    return result


def mesh_part(vertices, triangles) -> Part:
    """A triangle mesh (static or kinematic ground), with its tree and edge flags."""
    if vertices is None or triangles is None:
        raise ValueError(f"{_WHERE}: shape 'mesh' needs vertices (V, 3) and triangles (T, 3)")
    try:
        mesh = prepare_mesh(vertices, triangles)
    except ValueError as error:
        raise ValueError(f"{_WHERE}: {error}") from None
    return Part(MESH, np.abs(mesh.vertices).max(axis=0), np.zeros(3), np.eye(3), mesh=mesh)


def pack_records(records) -> tuple:
    """Shape records (solver.shapes: Box, Sphere, Capsule, Cylinder, Cone, ConvexHull) as the
    solver's arrays: shape codes, centres, orientations, half-extents rows and part tables."""
    geometry = Geometry()
    codes, extents = [], []
    for record in records:
        parts = [_record_part(record)]
        geometry.add(parts)
        codes.append(body_code("", parts))
        extents.append(extents_of(parts))
    orientations = [getattr(r, "orientation", (1.0, 0.0, 0.0, 0.0)) for r in records]
    return (np.array(codes, np.int8), np.array([r.center for r in records]),
            np.array(orientations, float), np.array(extents), geometry.tables())


def _record_part(record) -> Part:
    if isinstance(record, Box):
        return convex_part("box", record.half_extents, None, "")
    if isinstance(record, Sphere):
        return convex_part("sphere", record.radius, None, "")
    if isinstance(record, ConvexHull):
        return convex_part("hull", None, record.points, "")
    names = {Capsule: "capsule", Cylinder: "cylinder", Cone: "cone"}
    if type(record) not in names:
        raise TypeError(f"expected a shape record (Box, Sphere, Capsule, Cylinder, Cone, "
                        f"ConvexHull), got {record!r}")
    return convex_part(names[type(record)], (record.radius, record.half_height), None, "")
