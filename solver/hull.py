"""Convex hulls of point clouds: quickhull, coplanar triangles merged into polygons, a face budget.

The narrow phase wants a hull as vertices plus planar polygon faces with outward planes, and
few faces (its cost grows with faces and edges). Quickhull inserts the point farthest outside
the current hull, one at a time; taken in farthest-first order over the whole cloud, every
intermediate hull is the best greedy inner approximation with that many points, so the
simplified hull is one of them: the last one whose merged faces fit the budget. Its vertices are
input points, so a simplified body touches the ground with real points of its mesh and the
error (how far the mesh can sink into a contact) is the largest distance of an input point
outside it, which is measured and reported.

Points nearer a plane than a tolerance (1e-9 of the cloud's size) count as on it: duplicate,
coplanar and nearly coplanar points then neither add vertices nor break the construction.
"""

import heapq
from dataclasses import dataclass

import numpy as np

# Points nearer a plane than this fraction of the cloud's size lie on it.
TOLERANCE = 1e-9
_ALIVE = np.iinfo(np.int64).max


@dataclass(frozen=True, eq=False)
class Hull:
    """A convex polyhedron in the input points' frame.

    vertices (V, 3): the hull's corners (input points); planes (F, 4): unit outward normal and
    offset d, inside is n·x <= d; face f's corners are face_vertices[face_start[f]:face_start[f+1]],
    counter-clockwise seen from outside; error: the largest distance of an input point outside
    the hull (0.0 unless it was simplified to fit max_faces).
    """

    vertices: np.ndarray
    planes: np.ndarray
    face_start: np.ndarray
    face_vertices: np.ndarray
    error: float


def convex_hull(points, max_faces: int = 64) -> Hull:
    """The convex hull of points (K, 3), with at most max_faces faces (see the module docstring).

    Raises ValueError naming `points` for a wrong shape, NaN or inf, fewer than 4 points, or
    points that are all on one plane (they bound no solid); naming `max_faces` below 4.
    """
    cloud = _checked(points)
    if isinstance(max_faces, bool) or not isinstance(max_faces, int | np.integer):
        raise ValueError(f"max_faces must be an integer, got {max_faces!r}")
    if max_faces < 4:
        raise ValueError(f"max_faces must be at least 4 (a tetrahedron), got {max_faces}")
    centre = 0.5 * (cloud.min(axis=0) + cloud.max(axis=0))
    local = cloud - centre
    tol = TOLERANCE * float(np.abs(local).max())
    log = _Quickhull(local, tol)
    steps = log.steps
    faces = _merged(local, log, steps, tol)
    if len(faces) > max_faces:
        steps = _largest_fitting_step(local, log, tol, max_faces)
        faces = _merged(local, log, steps, tol)
    return _assemble(cloud, local, centre, faces, tol)


def _checked(points) -> np.ndarray:
    try:
        cloud = np.array(points, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"points must be an array of shape (K, 3) of numbers: {error}") from None
    if cloud.ndim != 2 or cloud.shape[1] != 3:
        raise ValueError(f"points must have shape (K, 3), got {cloud.shape}")
    if len(cloud) < 4:
        raise ValueError(f"points must hold at least 4 points for a solid hull, got {len(cloud)}")
    if not np.isfinite(cloud).all():
        raise ValueError("points must be finite: found NaN or inf")
    return cloud


class _Quickhull:
    """Farthest-first quickhull that logs each triangle's birth and death step.

    After it runs, the hull after step k (k points inserted past the first tetrahedron) is the
    triangles born at or before k that died after k, so every intermediate hull is at hand.
    """

    def __init__(self, points: np.ndarray, tol: float):
        self.points = points
        self.tol = tol
        self.triangles: list[tuple[int, int, int]] = []
        self.neighbours: list[list[int]] = []  # neighbours[f][i]: across edge (v_i, v_i+1)
        self.normals: list[tuple[float, float, float]] = []
        self.offsets: list[float] = []
        self.areas: list[float] = []
        self.born: list[int] = []
        self.died: list[int] = []
        self.outside: list[np.ndarray | None] = []
        self.heap: list[tuple[float, int]] = []  # (-distance of the farthest outside point, face)
        self.far: dict[int, int] = {}
        self.steps = 0
        self._tetrahedron()
        while self.heap:
            _, face = heapq.heappop(self.heap)
            if self.died[face] == _ALIVE:
                self._insert(face)

    def _tetrahedron(self) -> None:
        p, tol = self.points, self.tol
        extremes = np.concatenate([p.argmin(axis=0), p.argmax(axis=0)])
        gaps = np.linalg.norm(p[extremes][:, None] - p[extremes][None], axis=2)
        i, j = np.unravel_index(np.argmax(gaps), gaps.shape)
        a, b = int(extremes[i]), int(extremes[j])
        if gaps[i, j] <= tol:
            raise ValueError("points are all at one place: they bound no solid hull")
        axis = (p[b] - p[a]) / np.linalg.norm(p[b] - p[a])
        line = np.linalg.norm(np.cross(p - p[a], axis), axis=1)
        c = int(np.argmax(line))
        if line[c] <= tol:
            raise ValueError("points are all on one line: they bound no solid hull")
        normal = np.cross(p[b] - p[a], p[c] - p[a])
        normal /= np.linalg.norm(normal)
        height = (p - p[a]) @ normal
        d = int(np.argmax(np.abs(height)))
        if abs(height[d]) <= tol:
            raise ValueError("points are all on one plane: they bound no solid hull")
        if height[d] > 0.0:
            b, c = c, b  # (a, b, c) must face away from d
        corners = [(a, b, c), (a, d, b), (b, d, c), (c, d, a)]
        ids = self._add(corners, [-1] * 4, np.setdiff1d(np.arange(len(p)), [a, b, c, d]))
        edges = {}
        for face in ids:
            tri = self.triangles[face]
            for k in range(3):
                edges[tri[k], tri[(k + 1) % 3]] = face
        for face in ids:
            tri = self.triangles[face]
            self.neighbours[face] = [edges[tri[(k + 1) % 3], tri[k]] for k in range(3)]

    def _add(self, corners, fallback, candidates: np.ndarray) -> list[int]:
        """New triangles (outward corners), their planes, and the candidates outside each.

        A sliver whose apex is within tolerance of its base line takes the normal of the face
        across its base (fallback), the plane it is flush with.
        """
        p = self.points
        tri = np.array(corners, dtype=np.int64)
        a, b, c = p[tri[:, 0]], p[tri[:, 1]], p[tri[:, 2]]
        cross = _cross(b - a, c - a)
        area = _norm(cross)
        base = _norm(b - a)
        flat = area <= self.tol * base
        normal = cross / np.where(flat, 1.0, area)[:, None]
        for k in np.flatnonzero(flat):
            normal[k] = self.normals[fallback[k]]
        offset = np.einsum("ij,ij->i", normal, (a + b + c) / 3.0)
        first = len(self.triangles)
        ids = list(range(first, first + len(tri)))
        self.triangles += [tuple(t) for t in tri.tolist()]
        self.neighbours += [[-1, -1, -1] for _ in ids]
        self.normals += [tuple(n) for n in normal.tolist()]
        self.offsets += offset.tolist()
        self.areas += (0.5 * area).tolist()
        self.born += [self.steps] * len(ids)
        self.died += [_ALIVE] * len(ids)
        self.outside += [None] * len(ids)
        if len(candidates):
            distance = p[candidates] @ normal.T - offset
            best = np.argmax(distance, axis=1)
            height = distance[np.arange(len(candidates)), best]
            keep = height > self.tol
            candidates, best, height = candidates[keep], best[keep], height[keep]
            order = np.lexsort((-height, best))  # by face, the farthest first
            bounds = np.searchsorted(best[order], np.arange(len(ids) + 1))
            first = order[np.minimum(bounds[:-1], len(order) - 1)] if len(order) else bounds[:0]
            heads, tops = candidates[first].tolist(), height[first].tolist()
            bounds = bounds.tolist()
            for k, face in enumerate(ids):
                if bounds[k] < bounds[k + 1]:
                    self.outside[face] = candidates[order[bounds[k]:bounds[k + 1]]]
                    self.far[face] = heads[k]
                    heapq.heappush(self.heap, (-tops[k], face))
        return ids

    def _insert(self, face: int) -> None:
        """Insert the farthest point outside face: replace what it sees by a cone to it."""
        eye = self.far[face]
        px, py, pz = self.points[eye].tolist()
        tol, normals, offsets, triangles = self.tol, self.normals, self.offsets, self.triangles
        seen = {face: True}
        visible, stack = [face], [face]
        horizon: dict[int, tuple[int, int]] = {}  # edge start -> (edge end, face beyond it)
        broken = False
        while stack:
            current = stack.pop()
            tri = triangles[current]
            for k, other in enumerate(self.neighbours[current]):
                sees = seen.get(other)
                if sees is None:
                    nx, ny, nz = normals[other]
                    sees = nx * px + ny * py + nz * pz - offsets[other] > tol
                    seen[other] = sees
                    if sees:
                        visible.append(other)
                        stack.append(other)
                if not sees:
                    start = tri[k]
                    broken |= start in horizon
                    horizon[start] = (tri[(k + 1) % 3], other)
        loop = self._loop(horizon) if not broken else None
        if loop is None:
            # The faces it sees do not form a disc (tolerance made the hull locally non-convex):
            # leave this point out; the final error measurement still counts it.
            self._drop_farthest(face)
            return
        self.steps += 1
        for gone in visible:
            self.died[gone] = self.steps
        pool = [self.outside[v] for v in visible if self.outside[v] is not None]
        candidates = np.concatenate(pool) if pool else np.zeros(0, np.int64)
        candidates = candidates[candidates != eye]
        corners = [(start, end, eye) for start, end, _ in loop]
        ids = self._add(corners, [beyond for _, _, beyond in loop], candidates)
        count = len(ids)
        for k, (start, end, beyond) in enumerate(loop):
            new = ids[k]
            self.neighbours[new] = [beyond, ids[(k + 1) % count], ids[k - 1]]
            tri = triangles[beyond]
            across = self.neighbours[beyond]
            for m in range(3):
                if tri[m] == end and tri[(m + 1) % 3] == start:
                    across[m] = new

    @staticmethod
    def _loop(horizon: dict[int, tuple[int, int]]):
        """The horizon edges in order as (start, end, face beyond), or None if not one loop."""
        start = next(iter(horizon))
        loop, vertex = [], start
        for _ in range(len(horizon)):
            end, beyond = horizon[vertex]
            loop.append((vertex, end, beyond))
            vertex = end
            if vertex not in horizon:
                return None
        return loop if vertex == start else None

    def _drop_farthest(self, face: int) -> None:
        rest = self.outside[face]
        rest = rest[rest != self.far[face]]
        self.outside[face] = rest if len(rest) else None
        if len(rest):
            normal = np.array(self.normals[face])
            height = self.points[rest] @ normal - self.offsets[face]
            top = int(np.argmax(height))
            self.far[face] = int(rest[top])
            heapq.heappush(self.heap, (-float(height[top]), face))

    def alive(self, step: int) -> np.ndarray:
        """Indices of the triangles of the hull after step insertions."""
        born, died = np.array(self.born), np.array(self.died)
        return np.flatnonzero((born <= step) & (died > step))


def _largest_fitting_step(points: np.ndarray, log: _Quickhull, tol: float, budget: int) -> int:
    """The last step whose merged hull has at most budget faces (assuming counts mostly grow).

    Merged faces never outnumber triangles, so the last step with few enough triangles fits;
    from there, gallop and bisect on the merged count (coplanar-rich clouds fit many more).
    """
    counts = np.bincount(np.array(log.born), minlength=log.steps + 1)
    counts = np.cumsum(counts) - np.cumsum(np.bincount(
        np.minimum(np.array(log.died), log.steps + 1), minlength=log.steps + 2))[:-1]
    fits = np.flatnonzero(counts <= budget)
    good, stride = int(fits.max()), 1
    bad = log.steps  # the full hull does not fit, or we would not be here
    while good + stride < bad:
        if len(_merged(points, log, good + stride, tol)) <= budget:
            good, stride = good + stride, 2 * stride
        else:
            bad = good + stride
            break
    while bad - good > 1:
        middle = (good + bad) // 2
        if len(_merged(points, log, middle, tol)) <= budget:
            good = middle
        else:
            bad = middle
    return good


def _merged(points: np.ndarray, log: _Quickhull, step: int, tol: float) -> list[list[int]]:
    """The hull after step as polygons: coplanar neighbouring triangles joined, CCW from outside.

    A region grows from its largest triangle over shared edges while every corner stays within
    tol of the seed's plane; on a convex surface such a region is a disc, so its boundary is one
    loop (if rounding ever says otherwise, the region stays as separate triangles). Corners left
    in the middle of a straight polygon edge (points on the hull's edges) are then removed.
    """
    ids = log.alive(step)
    tri = np.array([log.triangles[i] for i in ids], dtype=np.int64).reshape(-1, 3)
    normals = np.array([log.normals[i] for i in ids]).reshape(-1, 3)
    offsets = np.array([log.offsets[i] for i in ids])
    areas = np.array([log.areas[i] for i in ids])
    n = len(points)
    starts, ends = tri.reshape(-1), tri[:, [1, 2, 0]].reshape(-1)
    keys = starts * n + ends
    order = np.argsort(keys)
    across = order[np.searchsorted(keys[order], ends * n + starts)] // 3  # (3T,) neighbour
    neighbours = across.reshape(-1, 3).tolist()
    planes, offsets_, corners = normals.tolist(), offsets.tolist(), points[tri].tolist()
    merged = [False] * len(tri)
    polygons: list[list[int]] = []
    for seed in np.argsort(-areas, kind="stable").tolist():
        if merged[seed]:
            continue
        merged[seed] = True
        nx, ny, nz = planes[seed]
        d = offsets_[seed]
        members, stack = [seed], [seed]
        while stack:
            for other in neighbours[stack.pop()]:
                if merged[other]:
                    continue
                ox, oy, oz = planes[other]
                if ox * nx + oy * ny + oz * nz <= 0.0:
                    continue
                if all(abs(x * nx + y * ny + z * nz - d) <= tol for x, y, z in corners[other]):
                    merged[other] = True
                    members.append(other)
                    stack.append(other)
        loop = _boundary(tri[members]) if len(members) > 1 else tri[seed].tolist()
        if loop is None:
            polygons += [tri[m].tolist() for m in members]
        else:
            polygons.append(loop)
    return _without_edge_points(points, polygons, tol)


def _boundary(triangles: np.ndarray) -> list[int] | None:
    """The boundary loop of a patch of consistently wound triangles, or None if not one loop."""
    edges = set()
    for a, b, c in triangles.tolist():
        edges.update(((a, b), (b, c), (c, a)))
    following = {}
    for a, b in edges:
        if (b, a) not in edges:
            if a in following:
                return None
            following[a] = b
    start = next(iter(following))
    loop, vertex = [start], following[start]
    while vertex != start:
        if len(loop) >= len(following) or vertex not in following:
            return None
        loop.append(vertex)
        vertex = following[vertex]
    return loop if len(loop) == len(following) else None


def _without_edge_points(points: np.ndarray, polygons: list[list[int]], tol: float):
    """Remove corners lying on the straight edge between exactly two faces (not real corners)."""
    ring = np.concatenate([np.array(p, dtype=np.int64) for p in polygons])
    face_start = np.concatenate([[0], np.cumsum([len(p) for p in polygons])])
    before, after = _ring_steps(face_start)
    chord = points[ring[after]] - points[ring[before]]
    offset = _norm(_cross(points[ring] - points[ring[before]], chord))
    straight = np.bincount(ring[offset <= tol * _norm(chord)], minlength=len(points))
    drop = (straight == 2) & (np.bincount(ring, minlength=len(points)) == 2)
    return [[v for v in polygon if not drop[v]] for polygon in polygons]


def _ring_steps(face_start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each position in the concatenated polygons, the positions before and after it."""
    sizes = np.diff(face_start)
    start = np.repeat(face_start[:-1], sizes)
    size = np.repeat(sizes, sizes)
    position = np.arange(face_start[-1]) - start
    return start + (position - 1) % size, start + (position + 1) % size


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise a × b (np.cross's axis handling costs more than the product for short arrays)."""
    return np.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
                     a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                     a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)


def _norm(a: np.ndarray) -> np.ndarray:
    return np.sqrt(np.einsum("...k,...k->...", a, a))


def _assemble(cloud, local, centre, polygons, tol: float) -> Hull:
    """Hull arrays in the input frame; the error measured over every input point."""
    corners = np.unique(np.concatenate([np.array(p) for p in polygons]))
    remap = np.full(len(cloud), -1, dtype=np.int64)
    remap[corners] = np.arange(len(corners))
    sizes = np.array([len(p) for p in polygons], dtype=np.int64)
    face_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    ring = np.concatenate([np.array(p) for p in polygons])
    # Newell's normal: exact for a planar polygon, an average for a nearly planar one.
    _, after = _ring_steps(face_start)
    a = local[ring]
    newell = np.add.reduceat(_cross(a, a[after]), face_start[:-1], axis=0)
    normals = newell / _norm(newell)[:, None]
    heights = np.einsum("ij,ij->i", np.repeat(normals, sizes, axis=0), a)
    offsets = np.maximum.reduceat(heights, face_start[:-1])
    error = _error(local, local[corners], normals, offsets, remap[ring], face_start, tol)
    planes = np.column_stack([normals, offsets + normals @ centre])
    return Hull(cloud[corners].copy(), planes, face_start, remap[ring], error)


def _error(points, vertices, normals, offsets, ring, face_start, tol: float) -> float:
    """The largest Euclidean distance of a point outside the polytope (points within tol: 0).

    An outside point's nearest hull point is on a face's interior (the projection falls inside
    that polygon: distance = plane distance) or on an edge (point-segment distance).
    """
    planes = points @ normals.T - offsets
    outside = points[planes.max(axis=1) > tol]
    if not len(outside):
        return 0.0
    planes = planes[planes.max(axis=1) > tol]
    sizes = np.diff(face_start)
    face_of = np.repeat(np.arange(len(sizes)), sizes)
    _, after = _ring_steps(face_start)
    a, b = vertices[ring], vertices[ring[after]]
    edge = b - a
    rel = outside[:, None, :] - a[None]  # (P, E, 3)
    along = np.clip(np.einsum("pek,ek->pe", rel, edge) / np.einsum("ek,ek->e", edge, edge), 0, 1)
    segment = _norm(rel - along[..., None] * edge).min(axis=1)
    inward = np.einsum("pek,ek->pe", rel, _cross(normals[face_of], edge))
    inside = np.minimum.reduceat(inward, face_start[:-1], axis=1) >= 0.0
    face = np.where(inside, np.abs(planes), np.inf).min(axis=1)
    return float(np.minimum(segment, face).max())
