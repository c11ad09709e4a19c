"""A triangle mesh ready for collision: checked input, face normals, active edges and its BVH.

Meshes are the ground bodies move on (terrain, bowls, ramps, walls): static or kinematic, never
dynamic, so they need no volume or inertia and may be open, with normals either way: triangles
collide on both sides (each from the side a body's centre is on, see mesh_contacts).
"""

from dataclasses import dataclass

import numpy as np

from .bvh import build_bvh
from .mesh_contacts import MAX_TRIANGLES
from .mesh_edges import active_edges

# A triangle whose area is below this fraction of the mesh's squared size is dropped as
# degenerate (its normal would be rounding noise).
DEGENERATE_AREA = 1e-12


@dataclass(frozen=True)
class Mesh:
    """A prepared mesh in its own frame; the arrays are what `mesh_contacts` takes.

    vertices (V, 3) float64; triangles (T, 3) int64 in BVH order (leaf by leaf);
    normals (T, 3) unit face normals; edges (T,) int64 active-edge flags of both sides
    (mesh_edges);
    bounds (N, 6) and links (N, 2) the BVH nodes (bvh); source (T,) each triangle's index in
    the input; dropped: how many input triangles were degenerate and left out.
    """

    vertices: np.ndarray
    triangles: np.ndarray
    normals: np.ndarray
    edges: np.ndarray
    bounds: np.ndarray
    links: np.ndarray
    source: np.ndarray
    dropped: int

    def local_box(self) -> tuple[np.ndarray, np.ndarray]:
        """(centre, half-extents) of the mesh's box in its own frame, for the broad phase (a
        posed mesh's world AABB is that of the oriented box with these)."""
        lo, hi = self.bounds[0, :3], self.bounds[0, 3:]
        return 0.5 * (lo + hi), 0.5 * (hi - lo)


def prepare_mesh(vertices, triangles) -> Mesh:
    """Check and prepare a mesh: vertices (V, 3) finite floats, triangles (T, 3) vertex indices.

    Raises ValueError naming `vertices` or `triangles` for a wrong shape, NaN or inf, an index
    out of range or not an integer, or no triangle left once degenerate ones (repeated vertices,
    zero area) are dropped; `Mesh.dropped` reports how many were.
    """
    vertices = np.asarray(vertices, dtype=np.float64)
    if vertices.ndim != 2 or vertices.shape[1] != 3 or len(vertices) < 3:
        raise ValueError(f"vertices must be a (V, 3) array with V >= 3, got shape "
                         f"{vertices.shape}")
    if not np.all(np.isfinite(vertices)):
        bad = int(np.flatnonzero(~np.all(np.isfinite(vertices), axis=1))[0])
        raise ValueError(f"vertices must be finite, vertex {bad} is {vertices[bad].tolist()}")
    raw = np.asarray(triangles)
    if raw.ndim != 2 or raw.shape[1] != 3 or len(raw) == 0:
        raise ValueError(f"triangles must be a (T, 3) array of vertex indices with T >= 1, got "
                         f"shape {raw.shape}")
    if raw.dtype.kind not in "iu" and (raw.dtype.kind != "f" or not np.all(np.isfinite(raw))
                                       or np.any(raw != np.round(raw))):
        raise ValueError(f"triangles must hold integer vertex indices, got dtype {raw.dtype}")
    if len(raw) > MAX_TRIANGLES:
        raise ValueError(f"triangles: at most {MAX_TRIANGLES} per mesh (feature ids hold 20 bits"
                         f" of triangle index), got {len(raw)}; split the mesh into several")
    indices = raw.astype(np.int64)
    if indices.min() < 0 or indices.max() >= len(vertices):
        bad = int(np.flatnonzero(np.any((indices < 0) | (indices >= len(vertices)), axis=1))[0])
        raise ValueError(f"triangles index vertices 0..{len(vertices) - 1}, triangle {bad} is "
                         f"{indices[bad].tolist()}")
    corners = vertices[indices]
    cross = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    area2 = np.linalg.norm(cross, axis=1)
    size = float(np.max(np.ptp(corners.reshape(-1, 3), axis=0)))
    keep = area2 > 2.0 * DEGENERATE_AREA * size * size
    if not np.any(keep):
        raise ValueError(f"triangles are all degenerate (zero area or repeated vertices): "
                         f"{len(indices)} given")
    source = np.flatnonzero(keep)
    bounds, links, order = build_bvh(vertices, indices[source])
    source = source[order]
    kept = np.ascontiguousarray(indices[source])
    normals = cross[source] / area2[source, None]
    return Mesh(vertices=np.ascontiguousarray(vertices), triangles=kept,
                normals=np.ascontiguousarray(normals),
                edges=active_edges(vertices, kept, normals), bounds=bounds, links=links,
                source=source, dropped=int(len(indices) - len(source)))
