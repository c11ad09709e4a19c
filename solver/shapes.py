"""Shape kinds and the single-pair shape records of the public API.

The solver itself works on structure-of-arrays (a `shape` int8 array with these codes and a
half-extents row per body, (r, r, r) for a sphere, plus the part tables of solver.geometry for
the other kinds); the dataclasses are the friendly form for users' scripts and for `collide`,
which packs them into those arrays. Capsule, cylinder and cone have their axis on local z.
"""

from dataclasses import dataclass

import numpy as np

BOX = 0
SPHERE = 1
CAPSULE = 2  # size (r, h, 0): the segment z in [-h, h] swept by a ball of radius r
CYLINDER = 3  # size (r, h, 0): z in [-h, h]
CONE = 4  # size (r, h, 0): base disc of radius r at z = -h, apex at z = +h
HULL = 5  # a convex hull of points (solver.hull)
MESH = 6  # a triangle mesh: static or kinematic bodies only
TRIANGLE = 7  # one triangle of a mesh, inside the narrow phase only
# A body of several parts (or one part away from the body's frame) has this code in the
# per-body shape column; its parts carry the codes above. Never a part's kind.
COMPOUND = 8
ROUND = (SPHERE, CAPSULE, CYLINDER, CONE)


def _vector(value, length: int) -> np.ndarray:
    array = np.asarray(value, dtype=float).reshape(-1)
    if array.shape != (length,):
        raise ValueError(f"expected {length} numbers, got {array.size}")
    return array


def _unit_quaternion(value) -> np.ndarray:
    """A record's orientation (w, x, y, z), normalised; a zero quaternion is an error."""
    q = _vector(value, 4)
    if not np.linalg.norm(q) > 0.0:
        raise ValueError("orientation must be a non-zero quaternion (w, x, y, z)")
    return q / np.linalg.norm(q)


@dataclass(frozen=True)
class Box:
    """An oriented box: centre (3,), orientation quaternion (w, x, y, z; normalised here),
    half-extents (3,) > 0."""

    center: np.ndarray
    orientation: np.ndarray
    half_extents: np.ndarray

    def __post_init__(self):
        object.__setattr__(self, "center", _vector(self.center, 3))
        object.__setattr__(self, "orientation", _unit_quaternion(self.orientation))
        half = _vector(self.half_extents, 3)
        if not np.all(half > 0.0):
            raise ValueError(f"half-extents must be positive, got {half.tolist()}")
        object.__setattr__(self, "half_extents", half)


@dataclass(frozen=True)
class Sphere:
    """A sphere: centre (3,) and radius > 0."""

    center: np.ndarray
    radius: float

    def __post_init__(self):
        object.__setattr__(self, "center", _vector(self.center, 3))
        if not float(self.radius) > 0.0:
            raise ValueError(f"radius must be positive, got {self.radius}")
        object.__setattr__(self, "radius", float(self.radius))


def _positive(name: str, value) -> float:
    if not float(value) > 0.0:
        raise ValueError(f"{name} must be positive, got {value}")
    return float(value)


@dataclass(frozen=True)
class _Axial:
    """A shape about its local z axis: centre (3,), orientation (w, x, y, z; normalised here),
    radius > 0 and half_height > 0."""

    center: np.ndarray
    orientation: np.ndarray
    radius: float
    half_height: float

    def __post_init__(self):
        object.__setattr__(self, "center", _vector(self.center, 3))
        object.__setattr__(self, "orientation", _unit_quaternion(self.orientation))
        object.__setattr__(self, "radius", _positive("radius", self.radius))
        object.__setattr__(self, "half_height", _positive("half_height", self.half_height))


class Capsule(_Axial):
    """A capsule: the segment z in [-half_height, half_height] grown by radius."""


class Cylinder(_Axial):
    """A solid cylinder: z in [-half_height, half_height], radius."""


class Cone(_Axial):
    """A solid cone: base disc of radius at z = -half_height, apex at z = +half_height."""


@dataclass(frozen=True)
class ConvexHull:
    """The convex hull of points (K, 3) given in its own frame, placed at centre (3,) with
    orientation (w, x, y, z; normalised here)."""

    center: np.ndarray
    orientation: np.ndarray
    points: np.ndarray

    def __post_init__(self):
        object.__setattr__(self, "center", _vector(self.center, 3))
        object.__setattr__(self, "orientation", _unit_quaternion(self.orientation))
        points = np.asarray(self.points, dtype=float)
        if points.ndim != 2 or points.shape[1] != 3 or not np.all(np.isfinite(points)):
            raise ValueError(f"points must be a finite (K, 3) array, got shape {points.shape}")
        object.__setattr__(self, "points", points)


def pack(shapes) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Box / Sphere records as the solver's arrays: shape, centres, orientations (w, x, y, z),
    half-extents (a sphere's row is (r, r, r))."""
    kind = np.array([SPHERE if isinstance(s, Sphere) else BOX for s in shapes], np.int8)
    centers = np.array([s.center for s in shapes])
    orientations = np.array(
        [[1.0, 0.0, 0.0, 0.0] if isinstance(s, Sphere) else s.orientation for s in shapes]
    )
    half = np.array(
        [np.full(3, s.radius) if isinstance(s, Sphere) else s.half_extents for s in shapes]
    )
    return kind, centers, orientations, half
