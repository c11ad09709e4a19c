"""Rigid-body state as a structure of arrays: one numpy array per quantity, all bodies at once.

The state of a body is its centre of mass x, orientation q, linear velocity v and world-frame
angular velocity ω (the Croatian notes); the mass properties are kept inverted (1/m and the
body-frame I⁻¹) because that is what every impulse needs, and static or kinematic bodies are
simply infinitely heavy (zero inverses). The collision shape is centred at x - R c, where c is
the centre-of-mass offset in the shape frame.
"""

import numpy as np

from . import linalg, quaternion
from .geometry import Part, part_extents
from .mass import box_inertia, compound_mass_properties, part_mass_properties, sphere_inertia
from .shapes import BOX, CAPSULE, COMPOUND, CONE, CYLINDER, HULL, MESH, SPHERE

DYNAMIC, STATIC, KINEMATIC = 0, 1, 2
KINDS = {"dynamic": DYNAMIC, "static": STATIC, "kinematic": KINEMATIC}
CONVEX = {"box": BOX, "sphere": SPHERE, "capsule": CAPSULE, "cylinder": CYLINDER, "cone": CONE,
          "hull": HULL}
SHAPES = {**CONVEX, "mesh": MESH, "compound": COMPOUND}
_NAMES = {code: name for name, code in CONVEX.items()}
DEFAULT_DENSITY = 1000.0  # water, kg/m³


# Per-body quantities: name -> (shape of one row, dtype).
_COLUMNS = {
    "shape": ((), np.int8),
    "kind": ((), np.int8),
    "half_extents": ((3,), float),
    "inverse_mass": ((), float),
    "mass": ((), float),
    "inertia": ((3, 3), float),
    "inverse_inertia": ((3, 3), float),
    "com_offset": ((3,), float),
    "position": ((3,), float),
    "orientation": ((4,), float),
    "velocity": ((3,), float),
    "angular_velocity": ((3,), float),
    "restitution": ((), float),
    "friction": ((), float),
    "drag": ((), float),
    "lift": ((), float),
    "linear_damping": ((), float),
    "angular_damping": ((), float),
    "rolling_resistance": ((), float),
    "rest_time": ((), float),
    "thickness": ((), float),  # the smallest half-width, for size-scaled tolerances
}


class Bodies:
    """All bodies of a World; rows are body indices in the order they were added.

    Each column is the first len(self) rows of a larger buffer that doubles when full, so adding
    N bodies copies O(N) rows, not the O(N²) of growing every column by one row each time.
    """

    def __init__(self):
        self._buffers: dict[str, np.ndarray] = {}
        for name, (tail, dtype) in _COLUMNS.items():
            setattr(self, name, np.zeros((0, *tail), dtype))
        self.paths: dict[int, tuple[np.ndarray, np.ndarray, int]] = {}

    def __len__(self) -> int:
        return len(self.kind)

    def append(self, **row) -> int:
        """Add one body; quantities not given are zero (e.g. the inverses of a static body)."""
        n = len(self)
        for name, (tail, dtype) in _COLUMNS.items():
            column, buffer = getattr(self, name), self._buffers.get(name)
            if buffer is None or column.base is not buffer or len(buffer) == n:
                buffer = np.zeros((max(8, 2 * n), *tail), dtype)  # full, or a column replaced
                buffer[:n] = column
                self._buffers[name] = buffer
            buffer[n] = np.asarray(row.get(name, 0), dtype=dtype)
            setattr(self, name, buffer[: n + 1])
        return n

    def __getstate__(self) -> dict:
        """Pickled without the spare rows (each column pickles as its own array)."""
        return {name: value for name, value in vars(self).items() if name != "_buffers"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, _buffers={})

    @property
    def dynamic(self) -> np.ndarray:
        return self.kind == DYNAMIC

    def rotations(self) -> np.ndarray:
        return quaternion.to_matrix(self.orientation)

    def shape_centers(self, rotations: np.ndarray) -> np.ndarray:
        """Collision-shape centres (and what the user sees as the position): x - R c."""
        centers = np.empty_like(self.position)
        linalg.minus_rotated(self.position, rotations, self.com_offset, centers)
        return centers

    def world_inverse_inertia(self, rotations: np.ndarray) -> np.ndarray:
        """R I⁻¹ Rᵀ: the inverse inertia in world axes, for the current orientations."""
        return rotations @ self.inverse_inertia @ np.swapaxes(rotations, 1, 2)


def mass_and_inertia(shape: int, half_extents: np.ndarray, mass, density, inertia):
    """(mass, body-frame inertia) from what the user gave; density 1000 when neither is given."""
    volume = (
        8.0 * np.prod(half_extents) if shape == BOX else 4.0 / 3.0 * np.pi * half_extents[0] ** 3
    )
    if mass is None:
        mass = (DEFAULT_DENSITY if density is None else float(density)) * volume
    mass = float(mass)
    if not mass > 0.0:
        raise ValueError(f"a dynamic body needs a positive mass, got {mass}")
    if inertia is None:
        if shape == BOX:
            inertia = box_inertia(mass, half_extents)
        else:
            inertia = sphere_inertia(mass, half_extents[0])
    inertia = np.asarray(inertia, dtype=float)
    if inertia.shape == (3,):
        inertia = np.diag(inertia)
    if inertia.shape != (3, 3) or not positive_definite(0.5 * (inertia + inertia.T)):
        raise ValueError("inertia must be a positive definite (3, 3) matrix or 3 positive values")
    return mass, inertia


# A body's 3 x 3 matrices in closed form rather than through LAPACK (np.linalg), whose calls
# cost milliseconds each inside Blender (its thread pool), a few per body as a bake reads them.

def positive_definite(m: np.ndarray) -> bool:
    """Whether a symmetric 3 x 3 matrix is positive definite (Sylvester: its leading
    principal minors are positive)."""
    (a, b, c), (d, e, f), (g, h, i) = m.tolist()
    return a > 0.0 and a * e - b * d > 0.0 and (
        a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)) > 0.0


def inverse3(m: np.ndarray) -> np.ndarray:
    """The inverse of an invertible 3 x 3 matrix: its adjugate over its determinant."""
    (a, b, c), (d, e, f), (g, h, i) = m.tolist()
    cofactors = (e * i - f * h, f * g - d * i, d * h - e * g)
    determinant = a * cofactors[0] + b * cofactors[1] + c * cofactors[2]
    return np.array([[cofactors[0], c * h - b * i, b * f - c * e],
                     [cofactors[1], a * i - c * g, c * d - a * f],
                     [cofactors[2], b * g - a * h, a * e - b * d]]) / determinant


def half_extents_of(shape: int, size) -> np.ndarray:
    """The half-extents row of a box (hx, hy, hz) or a sphere (r, r, r)."""
    size = np.asarray(size, dtype=float).reshape(-1)
    if shape == SPHERE:
        if size.size != 1:
            raise ValueError("a sphere's size is its radius, one number")
        size = np.repeat(size, 3)
    elif size.size != 3:
        raise ValueError("a box's size is its three half-extents (hx, hy, hz)")
    if not np.all(size > 0.0):
        raise ValueError(f"sizes must be positive, got {size.tolist()}")
    return size


def body_code(shape: str, parts: list[Part]) -> int:
    """The per-body shape code: the kind of a body's one part at its origin, else COMPOUND."""
    if shape != "compound" and len(parts) == 1 and parts[0].at_origin:
        return parts[0].kind
    return COMPOUND


def extents_of(parts: list[Part]) -> np.ndarray:
    """(3,) the half-extents row of a body: its box about the shape origin, in body axes
    (a box's own half-extents, (r, r, r) for a sphere)."""
    return np.max([part_extents(part) for part in parts], axis=0)


def thickness_of(parts: list[Part]) -> float:
    """The smallest half-width of a body's parts, which scales its tolerances (slop,
    speculative distance, CCD); a mesh's is unbounded (it never limits its partner's)."""
    smallest = np.inf
    for part in parts:
        if part.kind == MESH:
            continue
        if part.kind == HULL:
            width = 0.5 * np.ptp(part.hull.vertices, axis=0).min()
        elif part.kind == CAPSULE:
            width = part.size[0]
        elif part.kind in (CYLINDER, CONE):
            width = part.size[:2].min()
        else:
            width = part.size.min()
        smallest = min(smallest, float(width))
    return smallest


def solid_mass(parts: list[Part], mass, density):
    """(mass, centre of mass (3,), inertia (3, 3) about it) of a body of convex parts in its
    shape frame: density 1000 when neither mass nor density is given."""
    rho = DEFAULT_DENSITY if density is None else float(density)
    solids = [part_mass_properties(_NAMES[part.kind], part.size, rho, part.hull)
              for part in parts]
    if len(parts) == 1 and parts[0].at_origin:
        whole = solids[0]
    else:
        whole = compound_mass_properties(
            solids, np.array([part.position for part in parts]),
            quaternion.from_matrix(np.array([part.rotation for part in parts])))
    if mass is not None:
        whole = whole.with_mass(float(mass))
    return whole.mass, np.asarray(whole.center_of_mass, float), np.asarray(whole.inertia, float)
