"""`collide(a, b)`: the single-pair public entry to the narrow phase, for users' scripts."""

from dataclasses import dataclass

import numpy as np

from . import quaternion
from .body_shapes import pack_records
from .contacts import find_contacts


@dataclass(frozen=True)
class Manifold:
    """Where two shapes touch: normal (3,) unit from a to b (zero when apart), points (K, 3)
    in world space midway between the surfaces, depths (K,) penetration (>= 0). K = 0 when the
    shapes are apart; touching counts as contact with depth 0."""

    normal: np.ndarray
    points: np.ndarray
    depths: np.ndarray


def collide(a, b) -> Manifold:
    """Contact manifold of two shape records (solver.shapes: Box, Sphere, Capsule, Cylinder,
    Cone, ConvexHull): up to 4 points, 1 where a sphere touches."""
    kind, centers, orientations, half, tables = pack_records([a, b])
    found = find_contacts(kind, centers, quaternion.to_matrix(orientations), half,
                          np.array([[0, 1]]), tables=tables)
    normal = found.normal[0] if len(found) else np.zeros(3)
    return Manifold(normal, found.point, found.depth)
