"""Collision shapes measured from Blender meshes: the evaluated mesh, in world space.

Modifiers, parents and non-uniform or negative scale all change what collides, so the shape is
fitted to the evaluated vertices after the full world matrix, never to the raw mesh data.
"""

from dataclasses import dataclass

import numpy as np
from mathutils import Matrix

from ... import solver


@dataclass(frozen=True)
class MeshPoints:
    """World-space triangles of one object's evaluated mesh, scaled to metres."""

    vertices: np.ndarray  # (M, 3)
    triangles: np.ndarray  # (T, 3) int


@dataclass(frozen=True)
class Shape:
    """A fitted box or sphere; `half_extents` is (r, r, r) for a sphere."""

    kind: str  # "box" | "sphere"
    center: np.ndarray  # (3,)
    orientation: np.ndarray  # (4,) w, x, y, z
    half_extents: np.ndarray  # (3,)
    thickened: bool

    @property
    def radius(self) -> float:
        return float(self.half_extents[0])


def matrix_array(matrix) -> np.ndarray:
    """A mathutils Matrix as a (4, 4) float array (rows as in Blender)."""
    return np.array(matrix, dtype=float)


def inverse(matrix: np.ndarray) -> np.ndarray:
    """Inverse of one 4 x 4 matrix through mathutils: numpy's LAPACK call competes with
    Blender's worker threads and can take a millisecond instead of microseconds."""
    return matrix_array(Matrix(matrix.tolist()).inverted())


def mesh_points(obj, depsgraph, unit_scale: float = 1.0) -> MeshPoints:
    """Read the evaluated mesh (with modifiers) and move it to world space in metres."""
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    try:
        local = np.empty(len(mesh.vertices) * 3)
        mesh.vertices.foreach_get("co", local)
        mesh.calc_loop_triangles()
        triangles = np.empty(len(mesh.loop_triangles) * 3, dtype=np.int64)
        mesh.loop_triangles.foreach_get("vertices", triangles)
    finally:
        evaluated.to_mesh_clear()
    world = matrix_array(evaluated.matrix_world)
    vertices = local.reshape(-1, 3) @ world[:3, :3].T + world[:3, 3]
    return MeshPoints(vertices * unit_scale, triangles.reshape(-1, 3))


def fit_shape(points: MeshPoints, kind: str, up=None) -> Shape:
    """PCA box of the surface, or the sphere about that box's centre through the farthest vertex.

    Only a flat axis (under 1 % of the largest extent) is thickened; with `up` (3,), a sheet
    lying across it keeps its upper side, as a passive ground should.
    """
    box = solver.obb_from_points(points.vertices, points.triangles, up)
    center = np.asarray(box.center, dtype=float)
    orientation = np.asarray(box.orientation, dtype=float)
    half = np.asarray(box.half_extents, dtype=float)
    if kind == "sphere":
        radius = max(float(np.linalg.norm(points.vertices - center, axis=1).max()), half.max())
        half = np.full(3, radius)
    return Shape(kind, center, orientation, half, bool(box.thickened))
