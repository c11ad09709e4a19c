"""The world's collision geometry as flat tables, so compiled kernels can read every shape.

Every body is a list of parts (an ordinary body one, a compound several); a part has a kind
(solver.shapes), a size row (3,) (box half-extents, sphere (r, r, r), capsule / cylinder /
cone (r, h, 0), hull or mesh: the half-extents of its box about its origin), a pose in the
body's shape frame and, for a hull or a mesh, the index of its row in the hull or mesh tables.
Hull and mesh arrays of all bodies are concatenated, each one's rows found by start offsets.
"""

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .shapes import CAPSULE, CONE, CYLINDER


@dataclass(frozen=True)
class Part:
    """One convex part (or a mesh) of a body: kind, size (3,), position (3,) and rotation
    (3, 3) (columns = part axes) in the body's shape frame, its Hull or Mesh."""

    kind: int
    size: np.ndarray
    position: np.ndarray
    rotation: np.ndarray
    hull: object | None = None  # a solver.hull.Hull
    mesh: object | None = None  # a solver.mesh.Mesh

    @property
    def at_origin(self) -> bool:
        return bool(np.all(self.position == 0.0) and np.all(self.rotation == np.eye(3)))


class Tables(NamedTuple):
    """What the compiled narrow phase reads (see the module docstring).

    part_start (N + 1,): body n's parts are part_start[n]:part_start[n + 1]; per part kind,
    size, position, rotation, hull (row in the hull tables or -1), mesh (row or -1). Hull h's
    vertices are vertices[vertex_start[h]:vertex_start[h + 1]], likewise its planes; its
    face_start (F + 1 entries, local) starts at face_start[face_start_at[h]] and its face
    vertices (local) at face_vertices[face_vertex_at[h]:face_vertex_at[h + 1]]. face_start[0]
    is a spare 0, the empty face_start of a part without a hull. Mesh m's arrays (solver.mesh.
    Mesh, local indices) are the rows mesh_vertex_start[m]:mesh_vertex_start[m + 1] of
    mesh_vertices, triangle_start of triangles, normals and edges, node_start of bounds and
    links.
    """

    part_start: np.ndarray
    kind: np.ndarray
    size: np.ndarray
    position: np.ndarray
    rotation: np.ndarray
    hull: np.ndarray
    mesh: np.ndarray
    vertex_start: np.ndarray
    vertices: np.ndarray
    plane_start: np.ndarray
    planes: np.ndarray
    face_start_at: np.ndarray
    face_start: np.ndarray
    face_vertex_at: np.ndarray
    face_vertices: np.ndarray
    mesh_vertex_start: np.ndarray
    mesh_vertices: np.ndarray
    triangle_start: np.ndarray
    triangles: np.ndarray
    normals: np.ndarray
    edges: np.ndarray
    node_start: np.ndarray
    bounds: np.ndarray
    links: np.ndarray


def part_extents(part: Part) -> np.ndarray:
    """(3,) half-widths of the part's box about the body's shape origin, along the body axes:
    it contains the part whatever the part's rotation."""
    return np.abs(part.position) + np.abs(part.rotation) @ local_extents(part)


def local_extents(part: Part) -> np.ndarray:
    """(3,) half-widths about the part's own origin along its own axes."""
    r, h = part.size[0], part.size[1]
    if part.kind == CAPSULE:
        return np.array([r, r, h + r])
    if part.kind in (CYLINDER, CONE):
        return np.array([r, r, h])
    return part.size.copy()  # box, sphere (r, r, r), hull and mesh: their box about the origin


class Geometry:
    """The parts of every body, appended body by body; tables() packs them (cached)."""

    def __init__(self):
        self.parts: list[list[Part]] = []
        self._tables: Tables | None = None

    def __len__(self) -> int:
        return len(self.parts)

    def add(self, parts: list[Part]) -> None:
        self.parts.append(parts)
        self._tables = None

    def tables(self) -> Tables:
        if self._tables is None:
            self._tables = pack_tables(self.parts)
        return self._tables


def pack_tables(bodies: list[list[Part]]) -> Tables:
    """The flat tables of bodies' parts."""
    parts = [part for body in bodies for part in body]
    hulls = [part.hull for part in parts if part.hull is not None]
    hull_index = np.cumsum([part.hull is not None for part in parts]) - 1
    meshes = [part.mesh for part in parts if part.mesh is not None]
    mesh_index = np.cumsum([part.mesh is not None for part in parts]) - 1
    face_starts = [np.zeros(1, np.int64)] + [h.face_start.astype(np.int64) for h in hulls]
    return Tables(
        part_start=np.cumsum([0] + [len(body) for body in bodies]).astype(np.int64),
        kind=np.array([part.kind for part in parts], np.int64),
        size=np.array([part.size for part in parts], float).reshape(-1, 3),
        position=np.array([part.position for part in parts], float).reshape(-1, 3),
        rotation=np.array([part.rotation for part in parts], float).reshape(-1, 3, 3),
        hull=np.where([part.hull is not None for part in parts], hull_index, -1).astype(np.int64),
        mesh=np.where([part.mesh is not None for part in parts], mesh_index, -1).astype(np.int64),
        vertex_start=_starts([h.vertices for h in hulls]),
        vertices=_joined([h.vertices for h in hulls], (0, 3), float),
        plane_start=_starts([h.planes for h in hulls]),
        planes=_joined([h.planes for h in hulls], (0, 4), float),
        face_start_at=_starts(face_starts)[1:-1],
        face_start=np.concatenate(face_starts),
        face_vertex_at=_starts([h.face_vertices for h in hulls]),
        face_vertices=_joined([h.face_vertices for h in hulls], (0,), np.int64),
        mesh_vertex_start=_starts([m.vertices for m in meshes]),
        mesh_vertices=_joined([m.vertices for m in meshes], (0, 3), float),
        triangle_start=_starts([m.triangles for m in meshes]),
        triangles=_joined([m.triangles for m in meshes], (0, 3), np.int64),
        normals=_joined([m.normals for m in meshes], (0, 3), float),
        edges=_joined([m.edges for m in meshes], (0,), np.int64),
        node_start=_starts([m.bounds for m in meshes]),
        bounds=_joined([m.bounds for m in meshes], (0, 6), float),
        links=_joined([m.links for m in meshes], (0, 2), np.int64),
    )


def _starts(arrays: list) -> np.ndarray:
    return np.cumsum([0] + [len(a) for a in arrays]).astype(np.int64)


def _joined(arrays: list, empty: tuple, dtype) -> np.ndarray:
    if not arrays:
        return np.zeros(empty, dtype)
    return np.ascontiguousarray(np.concatenate(arrays), dtype=dtype)
