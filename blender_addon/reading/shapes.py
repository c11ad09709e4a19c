"""Collision shapes measured from Blender meshes: the evaluated mesh, in world space.

Modifiers, parents and non-uniform or negative scale all change what collides, so the shape is
fitted to the evaluated vertices after the full world matrix, never to the raw mesh data.

Every shape starts from the mesh's PCA box (solver.obb_from_points): its centre and axes are the
frame of a box, a sphere, a convex hull's points and a triangle mesh's vertices. A capsule,
cylinder or cone lies along one of the box's or the vertices' principal axes: the one whose
enclosing shape is smallest, which is the mesh's axis of symmetry (a cylinder as tall as it is
wide included, where the box's extents alone cannot tell). Each fit encloses every vertex.
"""

import hashlib
import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from mathutils import Matrix

from ... import solver
from ...solver import quaternion
from ...solver.hull import Hull, convex_hull

# Object.impulse.shape -> the solver's shape name.
KINDS = {
    "BOX": "box",
    "SPHERE": "sphere",
    "CAPSULE": "capsule",
    "CYLINDER": "cylinder",
    "CONE": "cone",
    "CONVEX_HULL": "hull",
    "MESH": "mesh",
    "COMPOUND": "compound",
}
AXIAL = ("capsule", "cylinder", "cone")  # round about local z: size (radius, half-height)
CONVEX = ("box", "sphere", *AXIAL, "hull")  # what a compound's parts may be
# A cone's slope is measured no closer to its apex than this fraction of its half-height, so
# float32 rounding of an apex vertex cannot blow the radius up.
_APEX_GAP = 1e-3
_CONE_LENGTHS = 25  # apex heights tried for a cone (a cone-shaped mesh's is the first)
# A matrix whose columns are this close (relative) to orthogonal and of equal length is a
# rotation times a uniform scale; float32 object matrices are good to about 1e-7.
_SIMILAR = 1e-6


@dataclass(frozen=True)
class MeshPoints:
    """World-space triangles of one object's evaluated mesh, scaled to metres.

    local and placement, when known, are the mesh's own vertex coordinates and the (4, 4)
    matrix (in metres) that places them, and digest is `mesh_digest` of local and triangles:
    fit_cache shares fits between objects by them.
    """

    vertices: np.ndarray  # (M, 3)
    triangles: np.ndarray  # (T, 3) int
    local: np.ndarray | None = None  # (M, 3)
    placement: np.ndarray | None = None  # (4, 4)
    digest: bytes = b""

    @cached_property
    def fit_space(self) -> tuple[np.ndarray, np.ndarray | None, bytes]:
        """(coordinates to fit, the rotation from them to world axes or None, their memo key),
        for fit_cache (its box and its solid both need it: worked out once).

        A similarity fits the mesh's own coordinates (the rotation then takes the frame to world
        axes); anything else fits the coordinates with the object's linear map applied.
        """
        assert self.local is not None and self.placement is not None
        linear = self.placement[:3, :3]
        digest = self.digest or mesh_digest(self.local, self.triangles)
        det = determinant(linear)
        scale = abs(det) ** (1.0 / 3.0)
        turn = linear / scale if det > 0.0 else None
        if turn is not None and np.abs(turn.T @ turn - np.eye(3)).max() <= _SIMILAR:
            return self.local, turn, digest + b"own"
        return self.local @ linear.T, None, digest + linear.tobytes()


@dataclass(frozen=True)
class Shape:
    """A fitted shape: its frame (centre, orientation) and what the solver needs of it.

    half_extents bound the shape in its own frame (a box's own, (r, r, r) for a sphere, (r, r,
    h + r) for a capsule); size is what add_body takes (box half-extents, (radius, half-height)
    of a capsule, cylinder or cone); points are a hull's points or a mesh's vertices in the
    shape frame; parts are a compound's shapes, their centres and orientations in its frame.
    """

    kind: str  # a value of KINDS
    center: np.ndarray  # (3,)
    orientation: np.ndarray  # (4,) w, x, y, z
    half_extents: np.ndarray  # (3,)
    thickened: bool
    size: tuple[float, ...] = ()
    points: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    triangles: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.int64))
    parts: tuple["Shape", ...] = ()

    @cached_property
    def rotation(self) -> np.ndarray:
        """(3, 3) rotation of the shape frame, made once: the reader needs it several times."""
        return quaternion.to_matrix(self.orientation)

    @property
    def radius(self) -> float:
        """A sphere's, capsule's, cylinder's or cone's radius."""
        return float(self.half_extents[0])

    def solver_arguments(self) -> dict:
        """add_body's (or a compound part's) shape keywords."""
        if self.kind == "sphere":
            return {"shape": "sphere", "size": self.radius}
        if self.kind == "hull":
            return {"shape": "hull", "points": self.points}
        if self.kind == "mesh":
            return {"shape": "mesh", "vertices": self.points, "triangles": self.triangles}
        if self.kind == "compound":
            parts = [{**part.solver_arguments(), "position": tuple(part.center),
                      "orientation": tuple(part.orientation)} for part in self.parts]
            return {"shape": "compound", "parts": parts}
        return {"shape": self.kind, "size": self.size}

    def volume(self) -> float:
        """The solid's volume in m³ (a compound's parts added up, overlaps twice)."""
        if self.kind == "box":
            return float(8.0 * np.prod(self.half_extents))
        if self.kind == "sphere":
            return 4.0 / 3.0 * math.pi * self.radius**3
        if self.kind in AXIAL:
            return axial_volume(self.kind, self.radius, float(self.size[1]))
        if self.kind == "hull":
            return hull_volume(self.points)
        if self.kind == "mesh":
            return float(solver.mass_properties(self.points, self.triangles).volume)
        return sum(part.volume() for part in self.parts)


def axial_volume(kind: str, radius: float, height: float) -> float:
    """Volume of a capsule, cylinder or cone of `radius` and half-height `height`."""
    disc = math.pi * radius * radius
    if kind == "capsule":
        return 2.0 * disc * height + 4.0 / 3.0 * disc * radius
    return 2.0 * disc * height / (3.0 if kind == "cone" else 1.0)


def matrix_array(matrix) -> np.ndarray:
    """A mathutils Matrix as a (4, 4) float array (rows as in Blender)."""
    return np.array(matrix, dtype=float)


def determinant(m: np.ndarray) -> float:
    """det of a 3 x 3 matrix, in plain floats (np.linalg's LAPACK call is slow in Blender)."""
    (a, b, c), (d, e, f), (g, h, i) = m.tolist()
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)


def inverse(matrix: np.ndarray) -> np.ndarray:
    """Inverse of one 4 x 4 matrix through mathutils: numpy's LAPACK call competes with
    Blender's worker threads and can take a millisecond instead of microseconds."""
    return matrix_array(Matrix(matrix.tolist()).inverted())


def up_direction(gravity) -> np.ndarray:
    """Against gravity (world +Z when weightless): the side of a flat ground that stays put."""
    gravity = np.asarray(gravity, dtype=float)
    length = float(np.linalg.norm(gravity))
    if not math.isfinite(length):
        raise ValueError("gravity is not a number (NaN or infinite)")
    return -gravity / length if length > 0.0 else np.array([0.0, 0.0, 1.0])


def mesh_points(obj, depsgraph, unit_scale: float = 1.0, read: dict | None = None,
                ) -> MeshPoints:
    """Read the evaluated mesh (with modifiers) and move it to world space in metres.

    read: a dict kept for one reading of the scene (one depsgraph state), in which objects
    that show their mesh as it is (no modifiers, no shape keys: every box of a pile) share
    what is read of that mesh instead of evaluating it once each.
    """
    evaluated = obj.evaluated_get(depsgraph)
    shared = read if not obj.modifiers and obj.data.shape_keys is None else None
    key = obj.data.as_pointer()
    if shared is not None and key in shared:
        local, triangles, digest = shared[key]
    else:
        local, triangles = _evaluated_mesh(evaluated)
        digest = mesh_digest(local, triangles)
        if shared is not None:
            shared[key] = local, triangles, digest
    world = matrix_array(evaluated.matrix_world)
    vertices = local @ world[:3, :3].T + world[:3, 3]
    placement = world * np.array([[unit_scale], [unit_scale], [unit_scale], [1.0]])
    return MeshPoints(vertices * unit_scale, triangles, local, placement, digest)


def _evaluated_mesh(evaluated) -> tuple[np.ndarray, np.ndarray]:
    """(local vertices (M, 3), canonical triangles (T, 3)) of an evaluated object's mesh."""
    mesh = evaluated.to_mesh()
    try:
        local = np.empty(len(mesh.vertices) * 3)
        mesh.vertices.foreach_get("co", local)
        mesh.calc_loop_triangles()
        triangles = np.empty(len(mesh.loop_triangles) * 3, dtype=np.int64)
        mesh.loop_triangles.foreach_get("vertices", triangles)
    finally:
        evaluated.to_mesh_clear()
    return local.reshape(-1, 3), canonical_triangles(triangles.reshape(-1, 3))


def mesh_digest(local: np.ndarray, triangles: np.ndarray) -> bytes:
    """A hash of exactly what a mesh's fits are computed from (fit_cache's key)."""
    digest = hashlib.blake2b(local.tobytes(), digest_size=16)
    digest.update(np.ascontiguousarray(triangles).tobytes())
    return digest.digest()


def canonical_triangles(triangles: np.ndarray) -> np.ndarray:
    """The same triangles in an order fixed by their vertex indices alone: each starts at its
    smallest index (its winding kept) and the rows are sorted.

    Blender may store one mesh's faces in another order in another session (bmesh's
    create_uvsphere does), and every sum over the triangles (volume, inertia, the PCA box)
    rounds with their order: a bake of the same scene would differ in the last bit, which a
    chaotic scene grows to metres. Sorted, the bake is a function of the geometry alone.
    """
    turn = (np.argmin(triangles, axis=1)[:, None] + np.arange(3)) % 3
    turned = np.take_along_axis(triangles, turn, axis=1)
    return turned[np.lexsort(turned.T[::-1])]


def hull_volume(points: np.ndarray) -> float:
    """Volume of the convex hull the solver builds from `points`."""
    return hull_solid_volume(convex_hull(points))


def hull_solid_volume(hull: Hull) -> float:
    """Volume of a solver Hull (its faces fanned out into triangles)."""
    starts = hull.face_start
    triangles = [(face[0], face[i], face[i + 1])
                 for f in range(len(starts) - 1)
                 for face in [hull.face_vertices[starts[f]:starts[f + 1]]]
                 for i in range(1, len(face) - 1)]
    return float(solver.mass_properties(hull.vertices, np.array(triangles)).volume)


def fit_shape(points: MeshPoints, kind: str, up=None, box=None) -> Shape:
    """The shape `kind` (a value of KINDS but "compound") fitted to one mesh.

    Only a flat axis (under 1 % of the largest extent) is thickened; with `up` (3,), a sheet
    lying across it keeps its upper side, as a passive ground should. box: the mesh's
    solver.obb_from_points with that `up`, when already known.
    """
    if box is None:
        box = solver.obb_from_points(points.vertices, points.triangles, up)
    center = np.asarray(box.center, dtype=float)
    orientation = np.asarray(box.orientation, dtype=float)
    half = np.asarray(box.half_extents, dtype=float)
    thickened = bool(box.thickened)
    rotation = quaternion.to_matrix(orientation)
    local = (points.vertices - center) @ rotation  # the vertices in the box frame
    if kind == "sphere":
        radius = max(float(np.linalg.norm(local, axis=1).max()), half.max())
        return Shape(kind, center, orientation, np.full(3, radius), thickened, (radius,))
    if kind in AXIAL:
        return _axial(kind, points.vertices, rotation, half, thickened)
    if kind == "hull":
        return Shape(kind, center, orientation, half, thickened, tuple(half),
                     np.unique(local, axis=0))
    if kind == "mesh":
        return Shape(kind, center, orientation, half, thickened, tuple(half), local,
                     points.triangles)
    return Shape(kind, center, orientation, half, thickened, tuple(half))


def _axial(kind: str, vertices: np.ndarray, rotation: np.ndarray, half: np.ndarray,
           thickened: bool) -> Shape:
    """The smallest capsule, cylinder or cone (either way) about a candidate axis through the
    vertices' mean: the PCA box's axes and the vertices' principal axes (the box of a cone or
    a short cylinder can be tilted off its axis; PCA is not)."""
    mean = vertices.mean(axis=0)
    offsets = vertices - mean
    _, principal = np.linalg.eigh(offsets.T @ offsets)
    # A flat or line-like mesh keeps the box's thickness (only then: a tilted box's thinnest
    # side can be thicker than the mesh along its axis).
    thinnest = float(half.min()) if thickened else 0.0
    best: tuple[float, float, float, np.ndarray, np.ndarray] | None = None
    for axis in np.concatenate([rotation.T, principal.T]):
        along = offsets @ axis
        low, high = float(along.min()), float(along.max())
        z = along - 0.5 * (low + high)
        rho = np.linalg.norm(offsets - np.outer(along, axis), axis=1)
        for sign in (1.0, -1.0) if kind == "cone" else (1.0,):
            radius, height, middle = _axial_size(kind, sign * z, rho,
                                                 max(0.5 * (high - low), thinnest))
            radius = max(radius, thinnest)
            volume = axial_volume(kind, radius, height)
            if best is None or volume < best[0] * (1.0 - 1e-9):
                center = mean + (0.5 * (low + high) + sign * middle) * axis
                best = (volume, radius, height, center, sign * axis)
    assert best is not None
    _volume, radius, height, center, axis = best
    bound = height + radius if kind == "capsule" else height
    return Shape(kind, center, quaternion.from_matrix(_frame_about(axis, rotation)),
                 np.array([radius, radius, bound]), thickened, (radius, height))


def _frame_about(axis: np.ndarray, rotation: np.ndarray) -> np.ndarray:
    """A proper rotation whose third column is `axis`, its first near the box axis most across."""
    across = rotation[:, int(np.argmin(np.abs(rotation.T @ axis)))]
    x = across - (across @ axis) * axis
    x /= np.linalg.norm(x)
    return np.stack([x, np.cross(axis, x), axis], axis=1)


def _axial_size(kind: str, z: np.ndarray, rho: np.ndarray,
                half: float) -> tuple[float, float, float]:
    """(radius, half-height, centre on the axis) enclosing points at height z in [-half, half]
    and distance rho from the axis."""
    if kind == "cylinder":
        return float(rho.max()), half, 0.0
    if kind == "capsule":
        radius = float(rho.max())
        cap = np.sqrt(np.maximum(radius * radius - rho * rho, 0.0))
        return radius, max(float((np.abs(z) - cap).max()), 0.0), 0.0
    # Cone: base at z = -half, apex at -half + L, L >= 2 half. A point at height s above the base
    # fits if rho <= r (L - s) / L; the smallest volume r² L is at L = 2 half for a cone, at
    # 3 x the height for a cylinder: try lengths from one to four times the mesh's height.
    above = z + half
    best = (math.inf, 0.0, 0.0)
    for length in 2.0 * half * np.geomspace(1.0, 4.0, _CONE_LENGTHS):
        gap = np.maximum(length - above, _APEX_GAP * length)
        radius = float((length * rho / gap).max())
        if radius * radius * length < best[0]:
            best = (radius * radius * length, radius, float(length))
    _volume, radius, length = best
    return radius, 0.5 * length, 0.5 * length - half


def compound_shape(frame: np.ndarray, parts: list[Shape]) -> Shape:
    """One body of convex parts (world-fitted shapes) in `frame`, a (4, 4) rigid world matrix
    in metres: each part's centre and orientation become relative to it."""
    rotation = frame[:3, :3]
    q = quaternion.from_matrix(rotation)
    inside = []
    corners = []
    for part in parts:
        center = (part.center - frame[:3, 3]) @ rotation
        orientation = quaternion.multiply(quaternion.conjugate(q), part.orientation)
        signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
        corners.append(center + (signs * part.half_extents) @ quaternion.to_matrix(orientation).T)
        inside.append(Shape(part.kind, center, orientation, part.half_extents, part.thickened,
                            part.size, part.points, part.triangles))
    bound = np.abs(np.concatenate(corners)).max(axis=0)
    return Shape("compound", frame[:3, 3].copy(), q, bound, any(p.thickened for p in parts),
                 tuple(bound), parts=tuple(inside))
