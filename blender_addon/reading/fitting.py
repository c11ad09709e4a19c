"""A body's collision shape from its object: its own mesh, or a compound's child bodies.

A Compound body is Blender's Compound Parent: its parts are its enabled child bodies, each
fitted with its own shape (a child that is itself a Compound adds its children); the parent's
own mesh is not a part, and the body's settings are the parent's. Only the parent is keyed;
the children follow it through parenting.
"""

from collections.abc import Callable

import numpy as np

from . import fit_cache
from .shapes import CONVEX, KINDS, MeshPoints, Shape, compound_shape, fit_shape, mesh_points

PART_KINDS = "Box, Sphere, Capsule, Cylinder, Cone or Convex Hull"


class ShapeError(ValueError):
    """A shape that cannot be built; the message is one readable line naming the object."""


def is_body(obj) -> bool:
    """Every enabled mesh counts (the viewport's rule; a bake also leaves out hidden ones)."""
    return obj.type == "MESH" and obj.impulse.enabled


def in_compound(obj, counts: Callable = is_body) -> bool:
    """Whether `obj` is a part of its parent's compound rather than a body of its own."""
    parent = obj.parent
    return parent is not None and counts(parent) and parent.impulse.shape == "COMPOUND"


def compound_parts(obj, counts: Callable = is_body) -> list:
    """The objects whose shapes make up compound `obj`, nested compounds flattened."""
    parts = []
    for child in sorted(obj.children, key=lambda o: o.name):
        if not counts(child):
            continue
        parts.extend(compound_parts(child, counts) if child.impulse.shape == "COMPOUND"
                     else [child])
    return parts


def fit_body(obj, depsgraph, unit_scale: float, up, counts: Callable = is_body,
             read: dict | None = None) -> tuple[MeshPoints, Shape]:
    """(the mesh that weighs, its collision shape) of body `obj`, in world space, metres.

    up (3,) or None: the side a flat passive ground keeps (see fit_shape); read: see
    mesh_points. Raises ShapeError.
    """
    kind = KINDS[obj.impulse.shape]
    if kind != "compound":
        points = mesh_points(obj, depsgraph, unit_scale, read)
        if len(points.vertices) == 0:
            raise ShapeError(f"Mesh '{obj.name}' has no vertices")
        return points, fit_shape(points, kind, up, fit_cache.box(points, up))
    parts = compound_parts(obj, counts)
    if not parts:
        raise ShapeError(f"Compound '{obj.name}' has no child bodies: add its children as "
                         f"bodies and give each a shape ({PART_KINDS})")
    meshes, shapes = [], []
    for part in parts:
        part_kind = KINDS[part.impulse.shape]
        if part_kind not in CONVEX:
            raise ShapeError(f"'{part.name}' is a Mesh part of compound '{obj.name}': parts "
                             f"must be convex ({PART_KINDS})")
        points = mesh_points(part, depsgraph, unit_scale, read)
        if len(points.vertices) == 0:
            raise ShapeError(f"Mesh '{part.name}' (a part of '{obj.name}') has no vertices")
        meshes.append(points)
        shapes.append(fit_shape(points, part_kind, up, fit_cache.box(points, up)))
    offsets = np.cumsum([0] + [len(m.vertices) for m in meshes])[:-1]
    union = MeshPoints(np.concatenate([m.vertices for m in meshes]),
                       np.concatenate([m.triangles + o for m, o in zip(meshes, offsets,
                                                                       strict=True)]))
    return union, compound_shape(_rigid_frame(obj, depsgraph, unit_scale), shapes)


def _rigid_frame(obj, depsgraph, unit_scale: float) -> np.ndarray:
    """The object's world matrix without scale (its nearest rotation), translation in metres."""
    world = np.array(obj.evaluated_get(depsgraph).matrix_world, dtype=float)
    u, _, vt = np.linalg.svd(world[:3, :3])
    rotation = u @ vt
    if np.linalg.det(rotation) < 0.0:  # a mirrored parent: keep a proper rotation
        rotation = u @ np.diag([1.0, 1.0, -1.0]) @ vt
    frame = np.eye(4)
    frame[:3, :3] = rotation
    frame[:3, 3] = world[:3, 3] * unit_scale
    return frame
