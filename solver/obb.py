"""Oriented bounding boxes of meshes: PCA, refined by the smallest volume among candidate frames.

PCA (the covariance of the surface, area weighted, or of the points) gives a good frame when its
eigenvalues are distinct; the box on the input's own axes competes with it and the smaller wins.
Where eigenvalues tie (a cube, a cylinder's cross-section) the PCA axes are arbitrary, so frames
built from the mesh's largest face normals paired with its edge directions join in: they contain
the exact frame of any box- or prism-shaped mesh however it is rotated.
"""

import itertools
from dataclasses import dataclass

import numpy as np

from . import quaternion

FLAT_FRACTION = 0.01
"""An axis thinner than this fraction of the box's largest extent (or of zero size) is flat,
and is thickened to exactly this fraction: a sheet, a line or a ground plane bounds a solid,
while a 1 cm die or a 2 mm coin keeps its true size (the rule scales with the mesh).

A flat mesh given with triangles is thickened behind its faces (against their area-weighted mean
normal), so the side its faces look out of stays exactly where it was; given `up`, a sheet lying
across it keeps its upper side instead, whichever way its faces look (a ground plane's top
surface does not move). Otherwise the box grows symmetrically about its centre.
"""

MIN_HALF_EXTENT = 0.01
"""Half-extent (m) of the box of a single point, which has no size to scale a thickness by."""

# A flat box's thin axis within this angle of `up` (cosine) keeps its upper side.
_UP_COSINE = 0.5 ** 0.5

# Relative eigenvalue gap (of the largest) below which PCA axes count as tied, i.e. ill-defined.
_TIE = 0.05
# Candidate face normals and edge directions kept when breaking a tie, largest area/length first.
_MAX_NORMALS = 24
_MAX_EDGES = 32
# Bounds the work of measuring candidate frames: frames x points stays below this.
_WORK_BUDGET = 10_000_000
# Extents are padded by this fraction of the size when comparing volumes, so flat and line-like
# inputs still rank by their area or length instead of all scoring zero. It is tiny so that a
# frame tilted off a flat mesh's plane always loses (thickening first would not).
_PAD = 1e-9
# Frames whose volume is within this relative margin of the smallest count as equally small; the
# earliest (input axes, then PCA) wins, so a symmetric mesh keeps its own axes.
_VOLUME_TIE = 1e-12
# Grid (in unit-vector components) on which nearly equal candidate directions are merged.
_DIRECTION_GRID = 1e-6


@dataclass(frozen=True)
class OrientedBox:
    """Centre (3,), orientation (4,) (w, x, y, z; the box axes), half-extents (3,) along them.

    thickened is True when a flat, line-like or single-point input was given a thickness.
    """

    center: np.ndarray
    orientation: np.ndarray
    half_extents: np.ndarray
    thickened: bool


def obb_from_points(points, triangles=None, up=None) -> OrientedBox:
    """The oriented box of points (M, 3), or of a mesh when triangles (T, 3) index them.

    Every point lies inside the box; flat axes are thickened (FLAT_FRACTION), a sheet lying
    across the direction `up` (3,) downwards from its upper side. When the PCA eigenvalues tie,
    face normals and edge directions of the triangles supply the candidate frames (points alone
    offer only their own axes and PCA's). Of equally small boxes the one on the input's own axes
    is preferred, and the axes are ordered and signed to be nearest identity.
    """
    points, tri = _checked(points, triangles)
    origin, local = _centred(points)
    return _box_in_frame(origin, local, tri, _smallest_frame(local, tri), up)


def obb_frame(points, triangles=None) -> np.ndarray:
    """(3, 3) axes (columns) of obb_from_points's box before its axes are relabelled: the costly
    search. It turns with the points (but for the input-axes candidate), so a caller can search
    once per shape in the shape's own coordinates and rotate the result (obb_in_frames)."""
    points, tri = _checked(points, triangles)
    return _smallest_frame(_centred(points)[1], tri)


def obb_in_frames(points, frames, triangles=None, up=None) -> OrientedBox:
    """obb_from_points's box on the axes of whichever of `frames` (F, 3, 3), rotations, gives
    the smallest box (the earliest of equally small ones): every point inside, flat axes
    thickened, axes relabelled nearest identity. The search is skipped."""
    points, tri = _checked(points, triangles)
    frames = np.asarray(frames, dtype=float).reshape(-1, 3, 3)
    origin, local = _centred(points)
    lo, hi = _extents(local, frames.transpose(0, 2, 1).reshape(-1, 3))
    return _box_in_frame(origin, local, tri, frames[_smallest(lo.reshape(-1, 3),
                                                              hi.reshape(-1, 3))], up)


def _checked(points, triangles) -> tuple[np.ndarray, np.ndarray | None]:
    points = np.asarray(points, dtype=float).reshape(-1, 3)
    if len(points) == 0:
        raise ValueError("obb_from_points: no points given; a box needs at least one point")
    if not np.all(np.isfinite(points)):
        raise ValueError("obb_from_points: points contain NaN or infinity")
    tri = None if triangles is None else np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    if tri is not None and len(tri) and (tri.min() < 0 or tri.max() >= len(points)):
        raise ValueError("obb_from_points: a triangle indexes a point that does not exist")
    return points, tri


def _centred(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the points' mean, the points less it): the origin every frame is measured about."""
    origin = points.mean(axis=0)
    return origin, points - origin


def _smallest_frame(local: np.ndarray, tri: np.ndarray | None) -> np.ndarray:
    """The frame of the smallest box among the candidates (input axes, PCA, faces and edges)
    of centred points."""
    faces = _faces(local, tri)
    covariance = np.cov(local.T, bias=True).reshape(3, 3) if faces is None else _covariance(*faces)
    eigenvalues, pca = np.linalg.eigh(covariance)
    directions = np.concatenate([np.eye(3), pca.T])
    primary, secondary = directions, directions
    if faces is not None and _tied(eigenvalues):
        normals, edges = _face_directions(*faces)
        primary = np.concatenate([directions, normals])
        secondary = np.concatenate([directions, normals, edges])
    frames, first = _frames(primary, secondary, len(local))
    # Each frame's first axis is a primary direction: measured once per direction, not per frame
    # (a column of a matrix product has the same bits whichever columns are beside it).
    n, f = len(primary), len(frames)
    lo, hi = _extents(local, np.concatenate([primary, frames[:, :, 1], frames[:, :, 2]]))
    return frames[_smallest(np.stack([lo[first], lo[n : n + f], lo[n + f :]], axis=1),
                            np.stack([hi[first], hi[n : n + f], hi[n + f :]], axis=1))]


def _smallest(lo: np.ndarray, hi: np.ndarray) -> int:
    """Index of the frame whose box (lowest and highest coordinates (F, 3) along its axes) is
    smallest, the earliest of equally small ones."""
    volume = np.prod(hi - lo + _PAD * np.max(hi - lo), axis=1)
    return int(np.argmax(volume <= volume.min() * (1.0 + _VOLUME_TIE)))


def _box_in_frame(origin: np.ndarray, local: np.ndarray, tri: np.ndarray | None,
                  rotation: np.ndarray, up) -> OrientedBox:
    projected = local @ rotation
    lo, hi = projected.min(axis=0), projected.max(axis=0)
    lo, hi, thickened = _thicken(lo, hi, rotation, local, tri, _unit_or_none(up))
    rotation, lo, hi = _nearest_identity(rotation, lo, hi)
    return OrientedBox(
        center=origin + rotation @ (0.5 * (lo + hi)),
        orientation=quaternion.from_matrix(rotation),
        half_extents=0.5 * (hi - lo),
        thickened=thickened,
    )


def _faces(local: np.ndarray, tri: np.ndarray | None):
    """(a, b, c, cross) of the triangles with non-zero area, or None when there are none."""
    if tri is None or len(tri) == 0:
        return None
    a, b, c = (local[tri[:, k]] for k in range(3))
    cross = np.cross(b - a, c - a)
    keep = np.any(cross != 0.0, axis=1)
    if not np.any(keep):
        return None
    return a[keep], b[keep], c[keep], cross[keep]


def _covariance(a: np.ndarray, b: np.ndarray, c: np.ndarray, cross: np.ndarray) -> np.ndarray:
    """Covariance of the surface, area weighted: ∫ x xᵀ dA over a triangle is A/12 (Σ v vᵀ + s sᵀ).

    Weighting by area makes the frame independent of how finely or unevenly a face is cut.
    """
    area = 0.5 * np.linalg.norm(cross, axis=1)
    s = a + b + c
    total = area.sum()
    mean = (area @ s) / (3.0 * total)
    second = sum((area[:, None] * v).T @ v for v in (a, b, c, s)) / 12.0
    return second / total - np.outer(mean, mean)


def _tied(eigenvalues: np.ndarray) -> bool:
    """True when two eigenvalues are so close that their axes are set by noise, not shape."""
    return bool(np.min(np.diff(eigenvalues)) < _TIE * max(eigenvalues[-1], 0.0))


def _face_directions(a: np.ndarray, b: np.ndarray, c: np.ndarray, cross: np.ndarray):
    """The largest face normals and the directions of the edges of those faces.

    A box- or prism-shaped mesh has its exact frame among (face normal, edge of that face).
    """
    double_area = np.linalg.norm(cross, axis=1)
    groups, normals = _distinct_directions(cross / double_area[:, None], double_area, _MAX_NORMALS)
    on_top = np.tile(groups < len(normals), 3)
    sides = np.concatenate([b - a, c - b, a - c])[on_top]
    lengths = np.linalg.norm(sides, axis=1)
    _, edges = _distinct_directions(sides / lengths[:, None], lengths, _MAX_EDGES)
    return normals, edges


def _distinct_directions(unit: np.ndarray, weight: np.ndarray, keep: int):
    """Group unit vectors equal up to sign; return each vector's group rank and the top `keep`.

    Groups are ranked by total weight; each group is represented by its heaviest member (the most
    accurately computed one, not an average that would blur an exact box face).
    """
    sign = np.sign(unit[np.arange(len(unit)), np.argmax(np.abs(unit), axis=1)])
    canonical = unit * sign[:, None]
    cells = np.round(canonical / _DIRECTION_GRID).astype(np.int64) + round(1 / _DIRECTION_GRID)
    side = 2 * round(1 / _DIRECTION_GRID) + 1
    key = (cells[:, 0] * side + cells[:, 1]) * side + cells[:, 2]
    _, group = np.unique(key, return_inverse=True)
    totals = np.bincount(group, weights=weight)
    rank_of_group = np.empty(len(totals), dtype=np.int64)
    rank_of_group[np.argsort(-totals, kind="stable")] = np.arange(len(totals))
    rank = rank_of_group[group]
    heaviest = np.lexsort((-weight, rank))
    first = heaviest[np.r_[True, np.diff(rank[heaviest]) != 0]]
    return rank, canonical[first[:keep]]


def _frames(primary: np.ndarray, secondary: np.ndarray,
            n_points: int) -> tuple[np.ndarray, np.ndarray]:
    """(F, 3, 3) right-handed frames (columns = axes), most preferred first, and (F,) the index
    in `primary` of each one's first axis.

    Each frame takes a primary axis and a second axis from any candidate direction projected
    perpendicular to it; the third completes the frame. Pairs are ordered by the sum of their
    ranks, and cut to the work budget for very large meshes.
    """
    rank_p, rank_s = np.meshgrid(np.arange(len(primary)), np.arange(len(secondary)), indexing="ij")
    order = np.argsort((rank_p + rank_s).reshape(-1), kind="stable")
    index = rank_p.reshape(-1)[order]
    first = primary[index]
    second = secondary[rank_s.reshape(-1)[order]]
    second = second - np.einsum("ij,ij->i", second, first)[:, None] * first
    length = np.linalg.norm(second, axis=1)
    usable = length > 1e-3
    first, second = first[usable], second[usable] / length[usable, None]
    frames = np.stack([first, second, np.cross(first, second)], axis=2)
    kept = max(36, _WORK_BUDGET // (3 * n_points))
    return frames[:kept], index[usable][:kept]


def _extents(local: np.ndarray, axes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(A,) lowest and highest coordinates of the points along each of axes (A, 3)."""
    lo = np.empty(len(axes))
    hi = np.empty(len(axes))
    chunk = max(1, 4_000_000 // len(local))
    for start in range(0, len(axes), chunk):
        projected = local @ axes[start : start + chunk].T
        lo[start : start + chunk] = projected.min(axis=0)
        hi[start : start + chunk] = projected.max(axis=0)
    return lo, hi


def _unit_or_none(up) -> np.ndarray | None:
    if up is None:
        return None
    up = np.asarray(up, dtype=float).reshape(3)
    length = float(np.linalg.norm(up))
    if not np.isfinite(length):
        raise ValueError("obb_from_points: up contains NaN or infinity")
    return up / length if length > 0.0 else None


def _thicken(lo: np.ndarray, hi: np.ndarray, rotation: np.ndarray, local: np.ndarray,
             tri: np.ndarray | None, up):
    """Grow flat axes to FLAT_FRACTION of the largest extent (a point to MIN_HALF_EXTENT).

    A sheet lying across `up` keeps its upper side and grows down; one whose faces mostly look
    one way (by area) has a front: the box keeps that side and grows away from it. A two-sided
    sheet, a line or a point grows symmetrically.
    """
    extent = hi - lo
    largest = float(extent.max())
    thickness = FLAT_FRACTION * largest if largest > 0.0 else 2.0 * MIN_HALF_EXTENT
    thin = extent < thickness
    if not np.any(thin):
        return lo, hi, False
    lo, hi = lo.copy(), hi.copy()
    front = np.zeros(3)
    if thin.sum() == 1:
        k = int(np.flatnonzero(thin)[0])
        along = 0.0 if up is None else float(rotation[:, k] @ up)
        if abs(along) >= _UP_COSINE:
            front[k] = np.sign(along)
        elif (faces := _faces(local, tri)) is not None:
            cross = faces[3]
            vector_area = rotation.T @ cross.sum(axis=0)
            one_sided = np.abs(vector_area) > 0.5 * np.linalg.norm(cross, axis=1).sum()
            front = np.sign(vector_area) * one_sided
    for k in np.flatnonzero(thin):
        if front[k] > 0.0:
            lo[k] = hi[k] - thickness
        elif front[k] < 0.0:
            hi[k] = lo[k] + thickness
        else:
            middle = 0.5 * (lo[k] + hi[k])
            lo[k], hi[k] = middle - 0.5 * thickness, middle + 0.5 * thickness
    return lo, hi, True


def _nearest_identity(rotation: np.ndarray, lo: np.ndarray, hi: np.ndarray):
    """Reorder and re-sign the box axes (24 proper ways) to the frame closest to identity."""
    # trace(rotation @ g), summed in np.trace's order: g picks one signed column per diagonal.
    diagonal = rotation[_ROWS, _CUBE_COLUMNS] * _CUBE_SIGNS
    best = _CUBE_ROTATIONS[int(np.argmax((diagonal[:, 0] + diagonal[:, 1]) + diagonal[:, 2]))]
    signed = np.stack([lo, hi]) @ best
    return rotation @ best, signed.min(axis=0), signed.max(axis=0)


def _cube_rotations() -> list[np.ndarray]:
    """The 24 signed permutation matrices with determinant +1 (the cube's rotation group)."""
    out = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((1.0, -1.0), repeat=3):
            g = np.zeros((3, 3))
            g[perm, range(3)] = signs
            if np.linalg.det(g) > 0:
                out.append(g)
    return out


_CUBE_ROTATIONS = _cube_rotations()
# Column i of a cube rotation g has its one non-zero entry, a sign, in row _CUBE_COLUMNS[., i].
_CUBE_COLUMNS = np.array([np.argmax(np.abs(g), axis=0) for g in _CUBE_ROTATIONS])
_CUBE_SIGNS = np.array([g[np.argmax(np.abs(g), axis=0), range(3)] for g in _CUBE_ROTATIONS])
_ROWS = np.arange(3)
