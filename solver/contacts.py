"""Narrow phase for a whole world: one compiled loop over the candidate pairs.

Boxes and spheres (the one-part bodies of those kinds) keep their exact kernels (manifold);
every other pair is collided part by part: two convex parts through the convex narrow phase
(convex_contacts), a convex part and a mesh through mesh_contacts, and the points of all part
pairs merged and reduced to four per body pair.

The one-caller steps of that path (parts_contacts, part_pair_contacts, bodies_gap,
part_pair_gap, mesh_gap) are inlined into their caller (inline="always"): numba links a kernel's
callees into its own module and optimises and emits them again, so each such level was another
compile of the whole narrow phase beneath it (benchmarks/compile.py).
"""

from dataclasses import dataclass

import numpy as np
from numba import njit

from . import manifold
from .bvh import query
from .convex_manifold import convex_contacts, convex_gap
from .geometry import Tables
from .mesh_contacts import mesh_contacts, reduce_points
from .shapes import BOX, CAPSULE, MESH, SPHERE, TRIANGLE

# Feature ids: (part pair << PART_SHIFT) | (triangle << 24) | local (SHAPES.md); the part pair
# is part of a * (parts of b) + part of b.
PART_SHIFT = 44
# Depths within this fraction of the pair's size tie when the merged points are reduced to 4.
TIE = 1e-6


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


def find_contacts(shape, centers, rotations, half_extents, pairs, margin: float = 0.0,
                  tables: Tables | None = None) -> Contacts:
    """Contacts of all candidate pairs (typically from the broad phase).

    shape (N,) int (the per-body codes of solver.shapes); centers (N, 3) shape centres;
    rotations (N, 3, 3), columns = body axes; half_extents (N, 3), a sphere's row is (r, r, r);
    pairs (P, 2) int; tables: the world's part tables (solver.geometry), needed once any
    shape is not a box or sphere. A pair gives up to 4 points (box-sphere, sphere-sphere one).
    Pairs with a gap up to `margin` get speculative contacts (negative depth), which lets the
    solver stop fast bodies before they overlap.
    """
    shape = np.ascontiguousarray(shape, dtype=np.int64).reshape(-1)
    centers = np.ascontiguousarray(centers, dtype=np.float64).reshape(-1, 3)
    rotations = np.ascontiguousarray(rotations, dtype=np.float64).reshape(-1, 3, 3)
    half_extents = np.ascontiguousarray(half_extents, dtype=np.float64).reshape(-1, 3)
    pairs = np.ascontiguousarray(pairs, dtype=np.int64).reshape(-1, 2)
    if shape.max(initial=BOX) > SPHERE and tables is None:
        raise ValueError("find_contacts: tables (solver.geometry) are needed for shapes "
                         "other than boxes and spheres")
    return narrow_phase(shape, centers, rotations, half_extents, pairs, float(margin),
                        np.full(len(pairs), np.inf), tables, Scratch())[0]


class Scratch:
    """The narrow phase's output rows, kept between calls and grown by doubling: a world's
    substeps collide a few rows each, and allocating the rows every time cost more than
    colliding them. A call's Contacts are views into them, valid until the next call."""

    def __init__(self):
        self.a = np.empty(0, np.int64)
        self.b = np.empty(0, np.int64)
        self.point = np.empty((0, 3))
        self.normal = np.empty((0, 3))
        self.depth = np.empty(0)
        self.feature = np.empty(0, np.int64)

    def rows(self, capacity: int) -> tuple:
        """(a, b, point, normal, depth, feature) with room for `capacity` contacts."""
        if len(self.depth) < capacity:
            size = max(capacity, 2 * len(self.depth))
            self.a, self.b = np.empty(size, np.int64), np.empty(size, np.int64)
            self.point, self.normal = np.empty((size, 3)), np.empty((size, 3))
            self.depth, self.feature = np.empty(size), np.empty(size, np.int64)
        return self.a, self.b, self.point, self.normal, self.depth, self.feature


def narrow_phase(shape, centers, rotations, half_extents, pairs, margin: float, keep_within,
                 tables: Tables | None, scratch: Scratch) -> tuple[Contacts, np.ndarray]:
    """find_contacts on arrays of the right types, keeping of pair p's points those with a
    gap up to keep_within[p] (<= margin; inf keeps all), written into `scratch`; also returns
    starts (P + 1,): pair p's contacts are starts[p]:starts[p + 1]."""
    shape = shape.astype(np.int64, copy=False)  # Bodies keep int8: one compiled variant
    rows = scratch.rows(manifold.MAX_MANIFOLD * len(pairs))
    starts = np.empty(len(pairs) + 1, np.int64)
    if shape.max(initial=BOX) <= SPHERE:  # boxes and spheres only: the parts kernel not needed
        count = contacts_of_pairs(shape, centers, rotations, half_extents, pairs, margin,
                                  keep_within, *rows, starts)
    else:
        count = contacts_of_parts(shape, centers, rotations, half_extents, pairs, margin,
                                  keep_within, tables, *rows, starts)
    a, b, point, normal, depth, feature = rows
    return Contacts(a[:count], b[:count], point[:count], normal[:count], depth[:count],
                    feature[:count]), starts


@njit(cache=True)
def contacts_of_pairs(shape, centers, rotations, half_extents, pairs, margin, keep_within,
                      a, b, point, normal, depth, feature, starts):
    """The compiled `narrow_phase` of boxes and spheres: writes the kept contacts of every
    pair in order into the preallocated rows (room for MAX_MANIFOLD per pair) and their
    starts, and returns how many it wrote."""
    k = np.int64(0)  # not the literal 0, which numba would compile a second variant for
    for p in range(len(pairs)):
        i, j = pairs[p, 0], pairs[p, 1]
        found = contacts_of_pair(shape, centers, rotations, half_extents, i, j, margin,
                                 point, normal, depth, feature, k)
        starts[p] = k
        k = _keep(i, j, k, found, keep_within[p], a, b, point, normal, depth, feature)
    starts[len(pairs)] = k
    return k


@njit(cache=True)
def contacts_of_parts(shape, centers, rotations, half_extents, pairs, margin, keep_within,
                      tables, a, b, point, normal, depth, feature, starts):
    """`contacts_of_pairs` for worlds with other shapes: box and sphere pairs as there, the
    others part by part."""
    k = np.int64(0)
    for p in range(len(pairs)):
        i, j = pairs[p, 0], pairs[p, 1]
        if shape[i] <= SPHERE and shape[j] <= SPHERE:
            found = contacts_of_pair(shape, centers, rotations, half_extents, i, j, margin,
                                     point, normal, depth, feature, k)
        else:
            found = parts_contacts(tables, centers, rotations, i, j, margin, point, normal,
                                   depth, feature, k)
        starts[p] = k
        k = _keep(i, j, k, found, keep_within[p], a, b, point, normal, depth, feature)
    starts[len(pairs)] = k
    return k


@njit(cache=True)
def _keep(i, j, k, found, within, a, b, point, normal, depth, feature):
    """Of the `found` contacts of bodies i and j written from row k, move those with a gap up
    to `within` to the front, label them with the pair and return the row after them."""
    kept = k
    for q in range(k, k + found):
        if depth[q] >= -within:
            for m in range(3):  # by element: a view of each row costs two atomic counts
                point[kept, m], normal[kept, m] = point[q, m], normal[q, m]
            depth[kept], feature[kept] = depth[q], feature[q]
            a[kept], b[kept] = i, j
            kept += 1
    return kept


@njit(cache=True)
def contacts_of_pair(shape, centers, rotations, half_extents, i, j, margin,
                     point, normal, depth, feature, k):
    """Contacts of box or sphere bodies i and j (normal from i to j) written from row k;
    returns how many."""
    return box_sphere_contacts(shape[i], centers[i], rotations[i], half_extents[i], shape[j],
                               centers[j], rotations[j], half_extents[j], margin, point, normal,
                               depth, feature, k)


@njit(cache=True)
def box_sphere_contacts(kind_a, ca, Ra, ha, kind_b, cb, Rb, hb, margin, point, normal, depth,
                        feature, k):
    """Contacts of two boxes or spheres (today's exact kernels), normal from a to b."""
    if kind_a == BOX and kind_b == BOX:
        return manifold.box_box(ca, Ra, ha, cb, Rb, hb, margin, point, normal, depth, feature, k)
    if kind_a == SPHERE and kind_b == SPHERE:
        return manifold.sphere_sphere(ca, ha[0], cb, hb[0], margin, point, normal, depth,
                                      feature, k)
    if kind_a == BOX:
        return manifold.box_sphere(ca, Ra, ha, cb, hb[0], margin, point, normal, depth, feature,
                                   k)
    found = manifold.box_sphere(cb, Rb, hb, ca, ha[0], margin, point, normal, depth, feature, k)
    if found:  # the sphere comes first: the normal runs from it to the box
        for m in range(3):
            normal[k, m] = -normal[k, m]
    return found


@njit(cache=True)
def part_pose(tables, part, centre, rotation, c, R) -> None:
    """c (3,), R (3, 3) = the world centre and rotation of a part of the body whose shape
    centre and rotation are `centre` (3,), `rotation` (3, 3)."""
    for i in range(3):
        c[i] = centre[i]
        for m in range(3):
            c[i] += rotation[i, m] * tables.position[part, m]
        for j in range(3):
            total = 0.0
            for m in range(3):
                total += rotation[i, m] * tables.rotation[part, m, j]
            R[i, j] = total


@njit(cache=True, inline="always")
def parts_contacts(tables, centers, rotations, i, j, margin, point, normal, depth, feature, k):
    """Contacts of bodies i and j part by part (convex pairs, or a convex part against a mesh),
    feature ids tagged with the part pair, merged and reduced to MAX_MANIFOLD points."""
    first_i, end_i = tables.part_start[i], tables.part_start[i + 1]
    first_j, end_j = tables.part_start[j], tables.part_start[j + 1]
    room = manifold.MAX_MANIFOLD * (end_i - first_i) * (end_j - first_j)
    cp, cn = np.empty((room, 3)), np.empty((room, 3))
    cd, cf = np.empty(room), np.empty(room, np.int64)
    ci, cj = np.empty(3), np.empty(3)
    Ri, Rj = np.empty((3, 3)), np.empty((3, 3))
    held = np.int64(0)
    for pa in range(first_i, end_i):
        part_pose(tables, pa, centers[i], rotations[i], ci, Ri)
        for pb in range(first_j, end_j):
            part_pose(tables, pb, centers[j], rotations[j], cj, Rj)
            found = part_pair_contacts(tables, pa, ci, Ri, pb, cj, Rj, margin, cp, cn, cd, cf,
                                       held)
            tag = np.int64((pa - first_i) * (end_j - first_j) + pb - first_j) << PART_SHIFT
            for q in range(held, held + found):
                cf[q] |= tag
            held += found
    keep = np.ones(held, np.bool_)
    if held > manifold.MAX_MANIFOLD:
        reduce_points(cp[:held], cn[:held], cd[:held], keep, TIE * _scale(tables, i, j))
    written = 0
    for q in range(held):
        if keep[q]:
            row = k + written
            for m in range(3):
                point[row, m], normal[row, m] = cp[q, m], cn[q, m]
            depth[row], feature[row] = cd[q], cf[q]
            written += 1
    return written


@njit(cache=True)
def _scale(tables, i, j):
    """The largest size entry of the convex parts of bodies i and j (the pair's length
    scale; a mesh's extent would be a terrain's)."""
    largest = 0.0
    for body in (i, j):
        for part in range(tables.part_start[body], tables.part_start[body + 1]):
            for m in range(3 if tables.kind[part] != MESH else 0):
                largest = max(largest, tables.size[part, m])
    return largest


@njit(cache=True)
def hull_of(tables, part):
    """(vertices, planes, face_start, face_vertices) of a part's hull (empty if it has none)."""
    h = tables.hull[part]
    if h < 0:
        return (tables.vertices[:0], tables.planes[:0], tables.face_start[:1],
                tables.face_vertices[:0])
    fs = tables.face_start_at[h]
    count = tables.plane_start[h + 1] - tables.plane_start[h]
    return (tables.vertices[tables.vertex_start[h]:tables.vertex_start[h + 1]],
            tables.planes[tables.plane_start[h]:tables.plane_start[h + 1]],
            tables.face_start[fs:fs + count + 1],
            tables.face_vertices[tables.face_vertex_at[h]:tables.face_vertex_at[h + 1]])


@njit(cache=True, inline="always")
def part_pair_contacts(tables, pa, ca, Ra, pb, cb, Rb, margin, point, normal, depth, feature, k):
    """Contacts of two parts (normal from a to b) written from row k; returns how many."""
    kind_a, kind_b = tables.kind[pa], tables.kind[pb]
    if kind_a == MESH and kind_b == MESH:
        return 0
    if kind_a == MESH or kind_b == MESH:
        mesh, part = (pa, pb) if kind_a == MESH else (pb, pa)
        cm, Rm, c, R = (ca, Ra, cb, Rb) if kind_a == MESH else (cb, Rb, ca, Ra)
        m = tables.mesh[mesh]
        v0, v1 = tables.mesh_vertex_start[m], tables.mesh_vertex_start[m + 1]
        t0, t1 = tables.triangle_start[m], tables.triangle_start[m + 1]
        n0, n1 = tables.node_start[m], tables.node_start[m + 1]
        hv, hp, fs, fv = hull_of(tables, part)
        found = mesh_contacts(tables.mesh_vertices[v0:v1], tables.triangles[t0:t1],
                              tables.normals[t0:t1], tables.edges[t0:t1], tables.bounds[n0:n1],
                              tables.links[n0:n1], cm, Rm, tables.kind[part], tables.size[part],
                              c, R, hv, hp, fs, fv, margin, point, normal, depth, feature, k)
        if kind_b == MESH:  # the part comes first: the normal runs from it to the mesh
            for q in range(k, k + found):
                for m in range(3):
                    normal[q, m] = -normal[q, m]
        return found
    va, pla, fsa, fva = hull_of(tables, pa)
    vb, plb, fsb, fvb = hull_of(tables, pb)
    return convex_contacts(kind_a, tables.size[pa], ca, Ra, va, pla, fsa, fva,
                           kind_b, tables.size[pb], cb, Rb, vb, plb, fsb, fvb,
                           margin, point, normal, depth, feature, k)



@njit(cache=True)
def closing_speed(n, relative_velocity, wa, ra, wb, rb):
    """How fast a gap along the fixed unit direction n can shrink: |n·(v_b - v_a)| plus
    |n × ω| r for each body (its support along n moves at most that fast when it turns)."""
    along = abs(n[0] * relative_velocity[0] + n[1] * relative_velocity[1]
                + n[2] * relative_velocity[2])
    return along + _cross_length(n, wa) * ra + _cross_length(n, wb) * rb


@njit(cache=True)
def _cross_length(a, b):
    """|a × b|."""
    return np.sqrt((a[1] * b[2] - a[2] * b[1]) ** 2 + (a[2] * b[0] - a[0] * b[2]) ** 2
                   + (a[0] * b[1] - a[1] * b[0]) ** 2)


@njit(cache=True, inline="always")
def bodies_gap(tables, i, ci, Ri, j, cj, Rj, reach, target, relative_velocity, wi, ri, wj, rj,
               step):
    """Conservative advancement of bodies i and j (shape centres ci, cj, rotations Ri, Rj) over
    their part pairs, for CCD: returns the smallest gap less `target` (convex_gap: > 0 apart, a
    lower bound of the distance; < 0 minus the penetration depth) and writes step[0] = the
    longest time none of the part pairs can close its own gap to `target` in (each along its
    own direction, at closing_speed; velocities relative, spins and bounding radii per body).
    A mesh's triangles count only within `reach` (how far the pair may close in the time asked
    about) of the part's box: farther ones cannot be met then. inf when nothing is in reach."""
    best = np.inf
    step[0] = np.inf
    n = np.empty(3)
    ca, cb = np.empty(3), np.empty(3)
    Ra, Rb = np.empty((3, 3)), np.empty((3, 3))
    for pa in range(tables.part_start[i], tables.part_start[i + 1]):
        part_pose(tables, pa, ci, Ri, ca, Ra)
        for pb in range(tables.part_start[j], tables.part_start[j + 1]):
            part_pose(tables, pb, cj, Rj, cb, Rb)
            best = min(best, part_pair_gap(tables, pa, ca, Ra, pb, cb, Rb, reach, target,
                                           relative_velocity, wi, ri, wj, rj, step, n))
    return best


@njit(cache=True, inline="always")
def part_pair_gap(tables, pa, ca, Ra, pb, cb, Rb, reach, target, relative_velocity, wi, ri, wj,
                  rj, step, n):
    """bodies_gap for one pair of parts (a mesh: each triangle in reach a piece of its own)."""
    kind_a, kind_b = tables.kind[pa], tables.kind[pb]
    if kind_a == MESH and kind_b == MESH:
        return np.inf
    if kind_a == MESH or kind_b == MESH:
        return mesh_gap(tables, pa, ca, Ra, pb, cb, Rb, kind_a == MESH, reach, target,
                        relative_velocity, wi, ri, wj, rj, step, n)
    va, pla, fsa, fva = hull_of(tables, pa)
    vb, plb, fsb, fvb = hull_of(tables, pb)
    gap = convex_gap(kind_a, tables.size[pa], ca, Ra, va, pla, fsa, fva,
                     kind_b, tables.size[pb], cb, Rb, vb, plb, fsb, fvb, n) - target
    _advance(gap, n, relative_velocity, wi, ri, wj, rj, step)
    return gap


@njit(cache=True)
def _advance(gap, n, relative_velocity, wi, ri, wj, rj, step) -> None:
    """step[0] = min(step[0], the time a piece's gap along n takes to close at most)."""
    closing = closing_speed(n, relative_velocity, wi, ri, wj, rj)
    if closing > 0.0:
        step[0] = min(step[0], max(gap, 0.0) / closing)


@njit(cache=True, inline="always")
def mesh_gap(tables, pa, ca, Ra, pb, cb, Rb, mesh_first, reach, target, relative_velocity, wi,
             ri, wj, rj, step, n):
    """part_pair_gap of a part and the triangles of a mesh within reach of it (each triangle a
    TRIANGLE part about its centroid, in the mesh's axes); inf if there are none."""
    mesh, part = (pa, pb) if mesh_first else (pb, pa)
    cm, Rm, c = (ca, Ra, cb) if mesh_first else (cb, Rb, ca)
    R = Rb if mesh_first else Ra
    m = tables.mesh[mesh]
    v0, v1 = tables.mesh_vertex_start[m], tables.mesh_vertex_start[m + 1]
    t0, t1 = tables.triangle_start[m], tables.triangle_start[m + 1]
    n0, n1 = tables.node_start[m], tables.node_start[m + 1]
    vertices, triangles = tables.mesh_vertices[v0:v1], tables.triangles[t0:t1]
    size = tables.size[part]
    grow = reach + np.sqrt(size[0] ** 2 + size[1] ** 2 + size[2] ** 2)  # + the part's radius
    if tables.kind[part] == CAPSULE:
        grow += size[0]
    lo, hi = np.empty(3), np.empty(3)
    for i in range(3):
        local = (Rm[0, i] * (c[0] - cm[0]) + Rm[1, i] * (c[1] - cm[1])
                 + Rm[2, i] * (c[2] - cm[2]))
        lo[i], hi[i] = local - grow, local + grow
    near = np.empty(64, np.int64)
    found = query(tables.bounds[n0:n1], tables.links[n0:n1], vertices, triangles, lo, hi, near)
    if found > len(near):
        near = np.empty(found, np.int64)
        query(tables.bounds[n0:n1], tables.links[n0:n1], vertices, triangles, lo, hi, near)
    hv, hp, fs, fv = hull_of(tables, part)
    corners, centre = np.empty((3, 3)), np.empty(3)
    flat = np.zeros(3)
    triangle = np.int64(TRIANGLE)  # not the literal, which would compile convex_gap twice more
    best = np.inf
    for q in range(found):
        t = near[q]
        for i in range(3):
            middle = (vertices[triangles[t, 0], i] + vertices[triangles[t, 1], i]
                      + vertices[triangles[t, 2], i]) / 3.0
            for v in range(3):
                corners[v, i] = vertices[triangles[t, v], i] - middle
            centre[i] = middle
        world = np.empty(3)
        for i in range(3):
            world[i] = cm[i] + Rm[i, 0] * centre[0] + Rm[i, 1] * centre[1] + Rm[i, 2] * centre[2]
        if mesh_first:
            gap = convex_gap(triangle, flat, world, Rm, corners, hp[:0], fs[:1], fv[:0],
                             tables.kind[part], size, c, R, hv, hp, fs, fv, n)
        else:
            gap = convex_gap(tables.kind[part], size, c, R, hv, hp, fs, fv,
                             triangle, flat, world, Rm, corners, hp[:0], fs[:1], fv[:0], n)
        gap -= target
        _advance(gap, n, relative_velocity, wi, ri, wj, rj, step)
        best = min(best, gap)
    return best
