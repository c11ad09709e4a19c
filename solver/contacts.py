"""Narrow phase for a whole world: contacts of every candidate pair, batched by pair type."""

from dataclasses import dataclass

import numpy as np

from . import manifold
from .sat import box_box_sat
from .shapes import BOX, SPHERE


@dataclass(frozen=True)
class Contacts:
    """K contact points as flat arrays, sorted by pair (pairs keep their input order).

    a, b (K,) body indices as in the pair; point (K, 3) world, midway between the surfaces;
    normal (K, 3) unit, from a to b; depth (K,) > 0 penetration, < 0 a gap (speculative,
    >= -margin); feature (K,) int64, the same while the same features touch, so (a, b, feature)
    identifies a contact across substeps for warm starting.
    """

    a: np.ndarray
    b: np.ndarray
    point: np.ndarray
    normal: np.ndarray
    depth: np.ndarray
    feature: np.ndarray

    def __len__(self) -> int:
        return len(self.depth)


def find_contacts(shape, centers, rotations, half_extents, pairs, margin: float = 0.0) -> Contacts:
    """Contacts of all candidate pairs (typically from the broad phase).

    shape (N,) int (BOX / SPHERE); centers (N, 3); rotations (N, 3, 3), columns = body axes;
    half_extents (N, 3), a sphere's row is (r, r, r); pairs (P, 2) int. A box pair gives up to 4
    points, a pair with a sphere one. Pairs with a gap up to `margin` get speculative contacts
    (negative depth), which lets the solver stop fast bodies before they overlap.
    """
    shape = np.asarray(shape)
    centers = np.asarray(centers, dtype=float)
    rotations = np.asarray(rotations, dtype=float)
    half_extents = np.asarray(half_extents, dtype=float)
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    i, j = pairs[:, 0], pairs[:, 1]
    kind_i, kind_j = shape[i], shape[j]

    parts = []
    boxes = np.flatnonzero((kind_i == BOX) & (kind_j == BOX))
    if len(boxes):
        a, b = i[boxes], j[boxes]
        args = (
            centers[a],
            rotations[a],
            half_extents[a],
            centers[b],
            rotations[b],
            half_extents[b],
        )
        found = manifold.box_box(*args, box_box_sat(*args), margin)
        parts.append(_reindex(found, boxes))
    balls = np.flatnonzero((kind_i == SPHERE) & (kind_j == SPHERE))
    if len(balls):
        a, b = i[balls], j[balls]
        found = manifold.sphere_sphere(
            centers[a], half_extents[a, 0], centers[b], half_extents[b, 0], margin
        )
        parts.append(_reindex(found, balls))
    mixed = np.flatnonzero(kind_i != kind_j)
    if len(mixed):
        sphere_first = kind_i[mixed] == SPHERE
        box = np.where(sphere_first, j[mixed], i[mixed])
        ball = np.where(sphere_first, i[mixed], j[mixed])
        found = manifold.box_sphere(
            centers[box],
            rotations[box],
            half_extents[box],
            centers[ball],
            half_extents[ball, 0],
            margin,
        )
        flip = np.where(sphere_first[found.pair], -1.0, 1.0)[:, None]
        parts.append(
            _reindex(
                manifold.PairContacts(
                    found.pair, found.point, found.normal * flip, found.depth, found.feature
                ),
                mixed,
            )
        )

    found = manifold.concatenate(parts) if parts else manifold.empty_contacts()
    order = np.argsort(found.pair, kind="stable")
    pair = found.pair[order]
    return Contacts(
        i[pair],
        j[pair],
        found.point[order],
        found.normal[order],
        found.depth[order],
        found.feature[order],
    )


def _reindex(found: manifold.PairContacts, batch: np.ndarray) -> manifold.PairContacts:
    """Map a sub-batch's pair indices back to indices into the full pair list."""
    return manifold.PairContacts(
        batch[found.pair], found.point, found.normal, found.depth, found.feature
    )
