"""Mass properties of solids: meshes and hulls by the divergence theorem, closed forms, compounds.

A closed mesh splits into tetrahedra from a reference point to each triangle; summing their signed
volume, first and second moments gives the solid's exact volume, centre of mass and inertia
(signs cancel the parts outside the solid). An open or non-manifold mesh bounds no solid, so it
falls back to its oriented box as a solid box, and says so with closed=False. Box, sphere,
capsule, cylinder and cone have closed forms (axis z, about their centre of mass); a compound
body adds its parts by the parallel-axis theorem.
"""

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

import numpy as np

from . import quaternion
from .hull import Hull
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

    def with_mass(self, mass: float) -> "MassProperties":
        """The same solid with another mass (a user-given one): the inertia scales with it."""
        return replace(self, mass=float(mass), inertia=self.inertia * (float(mass) / self.mass))


def box_inertia(mass: float, half_extents) -> np.ndarray:
    """Inertia of a solid box about its centre, in its own frame: diagonal m/3 (h_j² + h_k²)."""
    h2 = np.asarray(half_extents, dtype=float) ** 2
    return np.diag(mass / 3.0 * (h2.sum() - h2))


def sphere_inertia(mass: float, radius: float) -> np.ndarray:
    """Inertia of a solid sphere about its centre: 2/5 m r² on the diagonal."""
    return np.eye(3) * (0.4 * mass * radius * radius)


def capsule_inertia(mass: float, radius: float, half_height: float) -> np.ndarray:
    """Solid capsule (segment z in [-h, h], radius r) about its centre.

    The mass splits by volume between the cylinder (2h) and the two hemispherical caps (a
    sphere, 4r/3, in units of πr²); each cap is moved by the parallel-axis theorem from its own
    centre of mass, 3r/8 past the cylinder's end, which gives m_caps (2/5 r² + h² + 3/4 h r).
    """
    r, h = float(radius), float(half_height)
    cylinder = mass * 2.0 * h / (2.0 * h + 4.0 / 3.0 * r)
    caps = mass - cylinder
    axial = (0.5 * cylinder + 0.4 * caps) * r * r
    transverse = cylinder * (r * r / 4.0 + h * h / 3.0) + caps * (0.4 * r * r + h * (h + 0.75 * r))
    return np.diag([transverse, transverse, axial])


def cylinder_inertia(mass: float, radius: float, half_height: float) -> np.ndarray:
    """Solid cylinder (z in [-h, h]) about its centre: m r²/2 about z, m (r²/4 + h²/3) across."""
    r, h = float(radius), float(half_height)
    transverse = mass * (r * r / 4.0 + h * h / 3.0)
    return np.diag([transverse, transverse, 0.5 * mass * r * r])


def cone_inertia(mass: float, radius: float, half_height: float) -> np.ndarray:
    """Solid cone (base r at z = -h, apex at z = +h) about its centre of mass (0, 0, -h/2).

    For height H = 2h: 3/10 m r² about the axis and 3/20 m r² + 3/80 m H² = 3/20 m (r² + h²)
    across it.
    """
    r, h = float(radius), float(half_height)
    transverse = 0.15 * mass * (r * r + h * h)
    return np.diag([transverse, transverse, 0.3 * mass * r * r])


def part_mass_properties(shape: str, size, density: float = 1.0, hull: Hull | None = None):
    """MassProperties of one convex part in its own frame, for density (kg/m³).

    shape is add_body's name ("box", "sphere", "capsule", "cylinder", "cone", "hull"); size as
    the shapes contract: box (hx, hy, hz), sphere (r, ...), capsule, cylinder and cone
    (r, h, ...); a hull's geometry is hull (size is not used). The centre of mass is the part's
    origin except for the cone, (0, 0, -h/2), and the hull, its solid's centroid.
    """
    if shape == "hull":
        if hull is None:
            raise ValueError("part_mass_properties: shape 'hull' needs the hull")
        return hull_mass_properties(hull, density)
    size = np.asarray(size, dtype=float).reshape(-1)
    r, h = size[0], (size[1] if len(size) > 1 else 0.0)
    if shape == "box":
        volume, inertia = 8.0 * float(np.prod(size[:3])), box_inertia(1.0, size[:3])
    elif shape == "sphere":
        volume, inertia = 4.0 / 3.0 * np.pi * r**3, sphere_inertia(1.0, r)
    elif shape == "capsule":
        volume, inertia = np.pi * r * r * (2.0 * h + 4.0 / 3.0 * r), capsule_inertia(1.0, r, h)
    elif shape == "cylinder":
        volume, inertia = 2.0 * np.pi * r * r * h, cylinder_inertia(1.0, r, h)
    elif shape == "cone":
        volume, inertia = 2.0 / 3.0 * np.pi * r * r * h, cone_inertia(1.0, r, h)
    else:
        raise ValueError(f"shape must be box, sphere, capsule, cylinder, cone or hull: {shape!r}")
    mass = density * float(volume)
    centre = np.array([0.0, 0.0, -0.5 * h if shape == "cone" else 0.0])
    return MassProperties(float(volume), mass, centre, mass * inertia, True)


def hull_mass_properties(hull: Hull, density: float = 1.0) -> MassProperties:
    """A convex hull's solid, by the divergence theorem over its faces split into fans."""
    bounds, ring = hull.face_start.tolist(), hull.face_vertices.tolist()
    triangles = [
        (ring[start], ring[k], ring[k + 1])
        for start, end in pairwise(bounds)
        for k in range(start + 1, end - 1)
    ]
    return mass_properties(hull.vertices, triangles, density)


def compound_mass_properties(parts: Sequence[MassProperties], positions, orientations):
    """One rigid body from parts, each given in its own frame and placed in the body's frame.

    positions (P, 3) are the parts' origins and orientations (P, 4) their unit quaternions
    (w, x, y, z) in the body frame. Returns the total volume (overlaps count twice) and mass, the
    centre of mass in the body frame and the inertia about it in body axes: each part's
    inertia turned into body axes (R I Rᵀ) plus m (|d|² E - d dᵀ) for its offset d from the
    body's centre of mass (parallel-axis theorem).
    """
    positions = np.asarray(positions, dtype=float).reshape(-1, 3)
    orientations = np.asarray(orientations, dtype=float).reshape(-1, 4)
    if not len(parts) or len(positions) != len(parts) or len(orientations) != len(parts):
        raise ValueError("compound_mass_properties: one position and orientation per part")
    rotations = quaternion.to_matrix(quaternion.normalize(orientations))
    masses = np.array([p.mass for p in parts])
    centres = positions + np.einsum("pij,pj->pi", rotations, [p.center_of_mass for p in parts])
    mass = float(masses.sum())
    centre = masses @ centres / mass
    offsets = centres - centre
    turned = np.einsum("pij,pjk,plk->pil", rotations, [p.inertia for p in parts], rotations)
    shifts = masses[:, None, None] * (np.einsum("pk,pk->p", offsets, offsets)[:, None, None]
                                      * np.eye(3) - offsets[:, :, None] * offsets[:, None, :])
    volume = float(sum(p.volume for p in parts))
    closed = all(p.closed for p in parts)
    return MassProperties(volume, mass, centre, (turned + shifts).sum(axis=0), closed)


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
