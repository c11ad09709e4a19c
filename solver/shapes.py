"""Shape kinds and the single-pair shape records of the public API.

The solver itself works on structure-of-arrays (a `shape` int8 array with these codes and a
half-extents row per body, (r, r, r) for a sphere); the dataclasses are the friendly form for
users' scripts and for `collide`, which packs them into those arrays.
"""

from dataclasses import dataclass

import numpy as np

BOX = 0
SPHERE = 1


def _vector(value, length: int) -> np.ndarray:
    array = np.asarray(value, dtype=float).reshape(-1)
    if array.shape != (length,):
        raise ValueError(f"expected {length} numbers, got {array.size}")
    return array


@dataclass(frozen=True)
class Box:
    """An oriented box: centre (3,), orientation quaternion (w, x, y, z; normalised here),
    half-extents (3,) > 0."""

    center: np.ndarray
    orientation: np.ndarray
    half_extents: np.ndarray

    def __post_init__(self):
        object.__setattr__(self, "center", _vector(self.center, 3))
        q = _vector(self.orientation, 4)
        if not np.linalg.norm(q) > 0.0:
            raise ValueError("orientation must be a non-zero quaternion (w, x, y, z)")
        object.__setattr__(self, "orientation", q / np.linalg.norm(q))
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
