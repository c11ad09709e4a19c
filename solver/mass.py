"""Mass properties of triangle meshes by the divergence theorem, and box/sphere closed forms.

A closed mesh splits into tetrahedra from a reference point to each triangle; summing their signed
volume, first and second moments gives the solid's exact volume, centre of mass and inertia
(signs cancel the parts outside the solid). An open or non-manifold mesh bounds no solid, so it
falls back to its oriented box as a solid box, and says so with closed=False.
"""

from dataclasses import dataclass

import numpy as np

from . import quaternion
from .obb import obb_from_points

# A closed mesh enclosing less than this fraction of its bounding cube's volume encloses nothing.
_EMPTY = 1e-12


@dataclass(frozen=True)
class MassProperties:
    """Volume (m³), mass (kg), centre of mass (3,) and inertia (3, 3) about it, in the input frame.

    closed is False when the mesh was open or non-manifold and the values are its OBB's.
    """

    volume: float
    mass: float
    center_of_mass: np.ndarray
    inertia: np.ndarray
    closed: bool


def box_inertia(mass: float, half_extents) -> np.ndarray:
    """Inertia of a solid box about its centre, in its own frame: diagonal m/3 (h_j² + h_k²)."""
    h2 = np.asarray(half_extents, dtype=float) ** 2
    return np.diag(mass / 3.0 * (h2.sum() - h2))


def sphere_inertia(mass: float, radius: float) -> np.ndarray:
    """Inertia of a solid sphere about its centre: 2/5 m r² on the diagonal."""
    return np.eye(3) * (0.4 * mass * radius * radius)


def mass_properties(vertices, triangles, density: float = 1.0) -> MassProperties:
    """Volume, mass, centre of mass and inertia about it of a solid of uniform density.

    vertices (M, 3), triangles (T, 3) vertex indices. A closed, consistently wound mesh is
    integrated exactly whichever way its faces wind (an inside-out mesh is flipped); several
    closed parts add up (where they overlap, twice). Anything else gets the OBB's solid box and
    closed=False.
    """
    vertices = np.asarray(vertices, dtype=float).reshape(-1, 3)
    triangles = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    if len(vertices) == 0:
        raise ValueError("mass_properties: the mesh has no vertices")
    if len(triangles) and (triangles.min() < 0 or triangles.max() >= len(vertices)):
        raise ValueError("mass_properties: a triangle indexes a vertex that does not exist")
    solid = _integrate(vertices, triangles) if _is_closed(vertices, triangles) else None
    if solid is None:
        return _box_fallback(vertices, triangles, density)
    volume, center, second = solid
    inertia = density * (np.trace(second) * np.eye(3) - second)
    return MassProperties(volume, density * volume, center, inertia, True)


def _integrate(vertices: np.ndarray, triangles: np.ndarray):
    """(volume, centre of mass, second moment ∫ r rᵀ dV about it), or None if nothing is enclosed.

    Each triangle (a, b, c) with the reference point forms a tetrahedron of signed volume
    a·(b×c)/6, centroid (a+b+c)/4 and second moment V/20 (Σ v vᵀ + s sᵀ), s = a+b+c. Working
    relative to the vertex mean keeps the sums free of cancellation for meshes far from the origin.
    A negative total means the faces wind inward: flipping every tetrahedron fixes all sums.
    """
    reference = vertices.mean(axis=0)
    a, b, c = (vertices[triangles[:, k]] - reference for k in range(3))
    six_volumes = np.einsum("ij,ij->i", a, np.cross(b, c))
    volume = six_volumes.sum() / 6.0
    if abs(volume) <= _EMPTY * float(np.ptp(vertices, axis=0).max()) ** 3:
        return None  # e.g. a two-sided sheet: closed, but it bounds no solid
    if volume < 0.0:
        six_volumes, volume = -six_volumes, -volume
    s = a + b + c
    offset = (six_volumes @ s) / (24.0 * volume)
    outer = sum((six_volumes[:, None] * v).T @ v for v in (a, b, c, s)) / 120.0
    second = outer - volume * np.outer(offset, offset)
    return volume, reference + offset, second


def _is_closed(vertices: np.ndarray, triangles: np.ndarray) -> bool:
    """True when every edge is shared by exactly two triangles that traverse it in opposite ways.

    That is: each directed edge occurs once and so does its reverse. Vertices at identical
    positions are merged first, so meshes split at seams (imported STL, split normals) still
    count as closed.
    """
    if len(triangles) < 4:
        return False
    _, welded = np.unique(vertices, axis=0, return_inverse=True)
    tri = welded.reshape(-1)[triangles]
    start = tri.reshape(-1)
    end = tri[:, [1, 2, 0]].reshape(-1)
    if np.any(start == end):
        return False
    n = int(welded.max()) + 1
    directed = np.sort(start * n + end)
    if np.any(directed[1:] == directed[:-1]):
        return False
    reverse = np.sort(end * n + start)
    return bool(np.array_equal(directed, reverse))


def _box_fallback(vertices: np.ndarray, triangles: np.ndarray, density: float) -> MassProperties:
    """The OBB as a solid box: the best guess at a solid for a mesh that bounds none."""
    box = obb_from_points(vertices, triangles)
    volume = 8.0 * float(np.prod(box.half_extents))
    mass = density * volume
    rotation = quaternion.to_matrix(box.orientation)
    inertia = rotation @ box_inertia(mass, box.half_extents) @ rotation.T
    return MassProperties(volume, mass, box.center.copy(), inertia, False)
