"""Narrow phase for a whole world: one compiled loop over the candidate pairs."""

from dataclasses import dataclass

import numpy as np
from numba import njit

from . import manifold
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
    shape = np.ascontiguousarray(shape, dtype=np.int64).reshape(-1)
    centers = np.ascontiguousarray(centers, dtype=np.float64).reshape(-1, 3)
    rotations = np.ascontiguousarray(rotations, dtype=np.float64).reshape(-1, 3, 3)
    half_extents = np.ascontiguousarray(half_extents, dtype=np.float64).reshape(-1, 3)
    pairs = np.ascontiguousarray(pairs, dtype=np.int64).reshape(-1, 2)
    capacity = manifold.MAX_MANIFOLD * len(pairs)
    a, b = np.empty(capacity, np.int64), np.empty(capacity, np.int64)
    point, normal = np.empty((capacity, 3)), np.empty((capacity, 3))
    depth, feature = np.empty(capacity), np.empty(capacity, np.int64)
    count = contacts_of_pairs(shape, centers, rotations, half_extents, pairs, float(margin),
                              a, b, point, normal, depth, feature)
    return Contacts(a[:count], b[:count], point[:count], normal[:count], depth[:count],
                    feature[:count])


@njit(cache=True)
def contacts_of_pairs(shape, centers, rotations, half_extents, pairs, margin,
                      a, b, point, normal, depth, feature):
    """The compiled `find_contacts`: writes the contacts of every pair in order into the
    preallocated rows (room for MAX_MANIFOLD per pair) and returns how many it wrote."""
    k = np.int64(0)  # not the literal 0, which numba would compile a second variant for
    for p in range(len(pairs)):
        i, j = pairs[p, 0], pairs[p, 1]
        found = contacts_of_pair(shape, centers, rotations, half_extents, i, j, margin,
                                 point, normal, depth, feature, k)
        a[k:k + found] = i
        b[k:k + found] = j
        k += found
    return k


@njit(cache=True)
def contacts_of_pair(shape, centers, rotations, half_extents, i, j, margin,
                     point, normal, depth, feature, k):
    """Contacts of bodies i and j (normal from i to j) written from row k; returns how many."""
    if shape[i] == BOX and shape[j] == BOX:
        return manifold.box_box(centers[i], rotations[i], half_extents[i], centers[j],
                                rotations[j], half_extents[j], margin,
                                point, normal, depth, feature, k)
    if shape[i] == SPHERE and shape[j] == SPHERE:
        return manifold.sphere_sphere(centers[i], half_extents[i, 0], centers[j],
                                      half_extents[j, 0], margin, point, normal, depth,
                                      feature, k)
    box, ball = (i, j) if shape[i] == BOX else (j, i)
    found = manifold.box_sphere(centers[box], rotations[box], half_extents[box], centers[ball],
                                half_extents[ball, 0], margin, point, normal, depth, feature, k)
    if found and box == j:  # the sphere comes first: the normal runs from it to the box
        for m in range(3):
            normal[k, m] = -normal[k, m]
    return found
