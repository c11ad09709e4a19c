"""`collide(a, b)`: the single-pair public entry to the narrow phase, for users' scripts."""

from dataclasses import dataclass

import numpy as np

from . import quaternion
from .contacts import find_contacts
from .shapes import Box, Sphere, pack


@dataclass(frozen=True)
class Manifold:
    """Where two shapes touch: normal (3,) unit from a to b (zero when apart), points (K, 3)
    in world space midway between the surfaces, depths (K,) penetration (>= 0). K = 0 when the
    shapes are apart; touching counts as contact with depth 0."""

    normal: np.ndarray
    points: np.ndarray
    depths: np.ndarray


def collide(a: Box | Sphere, b: Box | Sphere) -> Manifold:
    """Contact manifold of two shapes (box-box: up to 4 points; with a sphere: 1)."""
    kind, centers, orientations, half = pack([a, b])
    found = find_contacts(
        kind, centers, quaternion.to_matrix(orientations), half, np.array([[0, 1]])
    )
    normal = found.normal[0] if len(found) else np.zeros(3)
    return Manifold(normal, found.point, found.depth)
