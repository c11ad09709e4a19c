"""Distance and penetration of two convex parts, compiled: GJK, then EPA when they overlap.

Both work on the Minkowski difference D = A - B through the parts' support mappings (support.py):
A and B are apart by the distance from the origin to D, and overlap by the distance from the
origin to D's boundary when D contains it.

GJK (Gilbert-Johnson-Keerthi) walks a simplex of D's points towards the origin, keeping only the
sub-simplex nearest to it (Ericson's closest-point regions). Each step's support point w along
-v gives the lower bound v·w / |v| of the distance, so it stops when that bound meets |v| to a
relative GJK_TOLERANCE, or as soon as the bound exceeds a cutoff (the caller's margin: pairs
beyond it need no more work). Spheres and capsules run on their cores (point, segment), which
makes their distance and normal exact and smooth; their radii are subtracted afterwards.

EPA (expanding polytope) starts from GJK's final simplex, grown to a tetrahedron around the
origin, and repeatedly pushes the polytope's face nearest the origin out to D's support point
along its normal until that face lies on D's boundary (within EPA_TOLERANCE of the parts' size):
that face's distance is the penetration depth and its normal the direction to separate along.
For polytopes it ends exactly on a face of D; on curved parts it converges to the tolerance.

A part is a tuple (kind, size, c, R, vertices) as support.support takes it.
"""

import math

import numpy as np
from numba import njit

from . import linalg
from .sat import FACE_PREFERENCE_ABSOLUTE
from .shapes import CONE, CYLINDER
from .support import core_radius, face_gaps, support

GJK_TOLERANCE = 1e-10  # relative: stop when the lower bound is within this of |v|
# A new support point within this fraction of its length of a simplex vertex repeats it: the
# lower bound is then within that distance of |v|, and a simplex holding both would be
# degenerate (see gjk).
GJK_REPEAT = 1e-9
MAX_GJK = 64
EPA_TOLERANCE = 1e-9  # times the parts' size
MAX_EPA = 64  # expansions
_MAX_VERTICES = MAX_EPA + 4
_MAX_FACES = 4 + 8 * MAX_EPA
# Kinds whose cores are curved (EPA on them only converges to its tolerance).
CURVED = (CYLINDER, CONE)
# Below this fraction of the size of D's points (or of the parts', if larger) the GJK point
# counts as the origin (touching or overlapping cores). That point is a weighted sum of D's
# points, so its rounding grows with their size, and the normal of a distance this small is
# noise: a cone 3.5 nm from a ramp's face, D's points 13 m from the origin, had a normal 1e-6
# off and a gap 50 nm too wide (it overlapped), so its face was not preferred.
TOUCHING = 1e-8
# EPA's normal on curved parts is sharpened by this many GJK passes with B moved clear by this
# fraction of the parts' size (see _refine).
REFINE_PASSES = 2
REFINE_CLEARANCE = 1e-3


@njit(cache=True)
def part_scale(kind, size, vertices):
    """A length of the part's size (its largest half-extent or vertex spread)."""
    scale = max(size[0], size[1], size[2])
    for v in range(len(vertices)):
        for i in range(3):
            scale = max(scale, 0.5 * abs(vertices[v, i] - vertices[0, i]))
    return scale


@njit(cache=True)
def _difference(a, b, d, full, wa, wb, w, local):
    """w = wa - wb, the support of D along d: wa of A along d, wb of B along -d."""
    support(a[0], a[1], a[2], a[3], a[4], d, full, local, wa)
    for i in range(3):
        d[i] = -d[i]
    support(b[0], b[1], b[2], b[3], b[4], d, full, local, wb)
    for i in range(3):
        d[i] = -d[i]
        w[i] = wa[i] - wb[i]


@njit(cache=True)
def _dot(x, y):
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2]


@njit(cache=True)
def _sub(x, y, out):
    for i in range(3):
        out[i] = x[i] - y[i]


@njit(cache=True)
def _triangle_region(W, i, j, m, keep, lam):
    """Closest point of triangle W[i], W[j], W[m] to the origin (Ericson, 5.1.5): writes the
    vertices of the feature it lies on into keep, their weights into lam; returns how many."""
    ab, ac = np.empty(3), np.empty(3)
    _sub(W[j], W[i], ab)
    _sub(W[m], W[i], ac)
    d1, d2 = -_dot(ab, W[i]), -_dot(ac, W[i])
    if d1 <= 0.0 and d2 <= 0.0:
        keep[0], lam[0] = i, 1.0
        return 1
    d3, d4 = -_dot(ab, W[j]), -_dot(ac, W[j])
    if d3 >= 0.0 and d4 <= d3:
        keep[0], lam[0] = j, 1.0
        return 1
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        t = d1 / (d1 - d3)
        keep[0], keep[1], lam[0], lam[1] = i, j, 1.0 - t, t
        return 2
    d5, d6 = -_dot(ab, W[m]), -_dot(ac, W[m])
    if d6 >= 0.0 and d5 <= d6:
        keep[0], lam[0] = m, 1.0
        return 1
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        t = d2 / (d2 - d6)
        keep[0], keep[1], lam[0], lam[1] = i, m, 1.0 - t, t
        return 2
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and d4 - d3 >= 0.0 and d5 - d6 >= 0.0:
        t = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        keep[0], keep[1], lam[0], lam[1] = j, m, 1.0 - t, t
        return 2
    total = va + vb + vc
    if not total > 0.0:  # a degenerate triangle: its best edge will do
        keep[0], keep[1], lam[0], lam[1] = i, j, 0.5, 0.5
        return 2
    keep[0], keep[1], keep[2] = i, j, m
    lam[1], lam[2] = vb / total, vc / total
    lam[0] = 1.0 - lam[1] - lam[2]
    return 3


@njit(cache=True)
def _closest(W, SA, SB, count, lam, v):
    """Reduce the simplex W[:count] (with its A and B support points) to the sub-simplex whose
    hull holds the point v nearest the origin; returns the new count (4 = the origin is inside
    the tetrahedron)."""
    keep = np.empty(4, np.int64)
    weights = np.empty(4)
    kept = 0
    if count == 1:
        keep[0], weights[0] = 0, 1.0
        kept = 1
    elif count == 2:
        e = np.empty(3)
        _sub(W[1], W[0], e)
        ee = _dot(e, e)
        t = -_dot(W[0], e) / ee if ee > 0.0 else 0.0
        if t <= 0.0:
            keep[0], weights[0], kept = 0, 1.0, 1
        elif t >= 1.0:
            keep[0], weights[0], kept = 1, 1.0, 1
        else:
            keep[0], keep[1], weights[0], weights[1], kept = 0, 1, 1.0 - t, t, 2
    elif count == 3:
        kept = _triangle_region(W, np.int64(0), np.int64(1), np.int64(2), keep, weights)
    else:
        # the origin is outside a face when it lies on the other side of it from the 4th vertex
        best = math.inf
        face_keep, face_w = np.empty(4, np.int64), np.empty(4)
        e1, e2, nrm, point = np.empty(3), np.empty(3), np.empty(3), np.empty(3)
        outside_any = False
        for f in range(4):
            i, j, m, o = (f + 1) % 4, (f + 2) % 4, (f + 3) % 4, f
            _sub(W[j], W[i], e1)
            _sub(W[m], W[i], e2)
            linalg.cross(e1, e2, nrm)
            side_origin = -_dot(nrm, W[i])
            side_other = _dot(nrm, W[o]) - _dot(nrm, W[i])
            if side_origin * side_other >= 0.0 and side_other != 0.0:
                continue
            outside_any = True
            n_face = _triangle_region(W, i, j, m, face_keep, face_w)
            for c in range(3):
                point[c] = 0.0
                for q in range(n_face):
                    point[c] += face_w[q] * W[face_keep[q], c]
            dist = _dot(point, point)
            if dist < best:
                best = dist
                kept = n_face
                for q in range(n_face):
                    keep[q], weights[q] = face_keep[q], face_w[q]
        if not outside_any:
            for c in range(3):
                v[c] = 0.0
            return 4
    scratch = np.empty((kept, 3, 3))
    for q in range(kept):
        for c in range(3):
            scratch[q, 0, c] = W[keep[q], c]
            scratch[q, 1, c] = SA[keep[q], c]
            scratch[q, 2, c] = SB[keep[q], c]
    for c in range(3):
        v[c] = 0.0
    for q in range(kept):
        lam[q] = weights[q]
        for c in range(3):
            W[q, c], SA[q, c], SB[q, c] = scratch[q, 0, c], scratch[q, 1, c], scratch[q, 2, c]
            v[c] += weights[q] * W[q, c]
    return kept


@njit(cache=True)
def gjk(a, b, full, cutoff, scale, W, SA, SB, wa, wb):
    """GJK on parts a and b (cores unless full). Returns (distance, count): distance > 0 with
    the closest points wa on A and wb on B, or 0 when the parts touch or overlap, with the
    simplex W (4, 3) of D = A - B (SA, SB its points on A and B) in its first `count` rows for
    EPA; or, once the lower bound of the distance exceeds cutoff, that bound (count 0)."""
    lam = np.empty(4)
    d, v, w, local = np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    pa, pb = np.empty(3), np.empty(3)
    for i in range(3):
        d[i] = b[2][i] - a[2][i]
    if _dot(d, d) == 0.0:
        d[0] = 1.0
    _difference(a, b, d, full, SA[0], SB[0], W[0], local)
    count = 1
    lam[0] = 1.0
    for i in range(3):
        v[i] = W[0, i]
    size = max(scale * scale, _dot(W[0], W[0]))  # squared, of the parts or D's points
    for _ in range(MAX_GJK):
        vv = _dot(v, v)
        if vv <= TOUCHING * TOUCHING * size:
            return 0.0, count
        for i in range(3):
            d[i] = -v[i]
        _difference(a, b, d, full, pa, pb, w, local)
        size = max(size, _dot(w, w))
        vw = _dot(v, w)
        if vw > 0.0 and vw * vw > cutoff * cutoff * vv:
            return vw / math.sqrt(vv), 0
        if vv - vw <= GJK_TOLERANCE * vv:
            break
        # A point repeating a vertex (to GJK_REPEAT) adds nothing: the lower bound is within
        # that distance of |v|. Kept, it makes a sliver simplex whose inside test is noise: a
        # cylinder's side line 0.7 µm above a face (D's face flat, its support points creeping
        # along the rim 2e-9 m a step) once gave a flat tetrahedron taken to hold the origin,
        # and EPA then an overlap of 1.6 m along the face's inward normal.
        near = (GJK_REPEAT * GJK_REPEAT) * _dot(w, w)
        duplicate = False
        for q in range(count):
            apart = (W[q, 0] - w[0]) ** 2 + (W[q, 1] - w[1]) ** 2 + (W[q, 2] - w[2]) ** 2
            if apart <= near:
                duplicate = True
        if duplicate:
            break
        for i in range(3):
            W[count, i], SA[count, i], SB[count, i] = w[i], pa[i], pb[i]
        count = _closest(W, SA, SB, count + 1, lam, v)
        if count == 4:
            return 0.0, 4
    for i in range(3):
        wa[i], wb[i] = 0.0, 0.0
        for q in range(count):
            wa[i] += lam[q] * SA[q, i]
            wb[i] += lam[q] * SB[q, i]
    return math.sqrt(_dot(v, v)), count


@njit(cache=True)
def _grow_simplex(a, b, scale, W, SA, SB, count):
    """Grow GJK's simplex (which holds or touches the origin) to a tetrahedron of D's support
    points; returns the new count (below 4 when D is flat, as for two coplanar triangles)."""
    d, e, f, local = np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    w, pa, pb = np.empty(3), np.empty(3), np.empty(3)
    eps = 1e-9 * scale
    for _ in range(6):  # each pass tries to add one vertex
        if count == 4:
            break
        added = False
        for attempt in range(6):
            if count == 1:
                for i in range(3):
                    d[i] = 0.0
                d[attempt // 2] = 1.0 if attempt % 2 == 0 else -1.0
            elif count == 2:
                _sub(W[1], W[0], e)
                axis = 0
                for i in range(3):
                    if abs(e[i]) < abs(e[axis]):
                        axis = i
                for i in range(3):
                    f[i] = 1.0 if i == axis else 0.0
                linalg.cross(e, f, d)  # perpendicular to the segment, turned by 60° each attempt
                linalg.cross(e, d, f)
                length_d, length_f = math.sqrt(_dot(d, d)), math.sqrt(_dot(f, f))
                angle = math.pi * attempt / 3.0
                for i in range(3):
                    d[i] = math.cos(angle) * d[i] / length_d + math.sin(angle) * f[i] / length_f
            else:
                _sub(W[1], W[0], e)
                _sub(W[2], W[0], f)
                linalg.cross(e, f, d)
                if attempt % 2 == 1:
                    for i in range(3):
                        d[i] = -d[i]
            _difference(a, b, d, np.bool_(False), pa, pb, w, local)
            # accept w if it leaves the affine hull of the simplex
            for i in range(3):
                e[i] = w[i] - W[0, i]
            if count == 1:
                off = math.sqrt(_dot(e, e))
            elif count == 2:
                _sub(W[1], W[0], f)
                linalg.cross(f, e, local)
                off = math.sqrt(_dot(local, local) / max(_dot(f, f), 1e-300))
            else:
                _sub(W[1], W[0], f)
                _sub(W[2], W[0], local)
                linalg.cross(f, local, d)
                off = abs(_dot(d, e)) / max(math.sqrt(_dot(d, d)), 1e-300)
            if off > eps:
                for i in range(3):
                    W[count, i], SA[count, i], SB[count, i] = w[i], pa[i], pb[i]
                count += 1
                added = True
                break
        if not added:
            break
    return count


@njit(cache=True)
def epa(a, b, scale, W0, SA0, SB0, count, stop, normal, wa, wb):
    """Penetration depth of the cores of parts that overlap (GJK returned 0 with its simplex):
    returns the depth and writes the unit normal from a to b along which B's core leaves A's by
    that depth, and the deepest core points wa on A and wb on B. Returns -1 for a flat
    difference (no tetrahedron). The whole parts overlap by that plus their radii along the
    same normal (D's boundary is the cores' moved out by the sum of the radii), so a sphere or
    capsule needs no EPA on its curved surface. Stops early, returning -2, once the depth is
    known to be at least `stop` (the nearest face's distance is a lower bound of it).

    The depth is never below 0: parts that touch put the origin on D's boundary, where the
    nearest face can lie a rounding error beyond it. That face's normal is the right one; a
    negative depth would read as the -1 above, and the centres' direction would be taken
    instead (a cylinder resting exactly on a ramp got a normal 55 degrees off, so how far it
    rolled depended on how it was turned about its own axis)."""
    W, SA, SB = np.empty((_MAX_VERTICES, 3)), np.empty((_MAX_VERTICES, 3)), np.empty(
        (_MAX_VERTICES, 3))
    for q in range(count):
        for i in range(3):
            W[q, i], SA[q, i], SB[q, i] = W0[q, i], SA0[q, i], SB0[q, i]
    count = _grow_simplex(a, b, scale, W, SA, SB, count)
    if count < 4:
        return -1.0
    inner = np.zeros(3)  # a point inside every polytope (the first tetrahedron's centroid)
    for q in range(4):
        for i in range(3):
            inner[i] += 0.25 * W[q, i]
    faces = np.empty((_MAX_FACES, 3), np.int64)
    normals = np.empty((_MAX_FACES, 3))
    dist = np.empty(_MAX_FACES)
    alive = np.zeros(_MAX_FACES, np.bool_)
    visible = np.zeros(_MAX_FACES, np.bool_)
    n_faces = np.int64(0)
    for f in range(4):
        n_faces = _add_face(W, inner, (f + 1) % 4, (f + 2) % 4, (f + 3) % 4, faces, normals,
                            dist, alive, n_faces)
    edges = np.empty((3 * _MAX_FACES, 2), np.int64)
    d, w, pa, pb, local = np.empty(3), np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    tolerance = EPA_TOLERANCE * scale
    best = 0
    n_vertices = np.int64(4)
    for _ in range(MAX_EPA + 1):
        best, best_dist = -1, math.inf
        for f in range(n_faces):
            if alive[f] and dist[f] < best_dist:
                best, best_dist = f, dist[f]
        if best_dist >= stop:
            return -2.0
        for i in range(3):
            d[i] = normals[best, i]
        _difference(a, b, d, np.bool_(False), pa, pb, w, local)
        if _dot(d, w) - best_dist <= tolerance or n_vertices == _MAX_VERTICES:
            break
        # the faces that see the new vertex go; the edges bounding them (the horizon) each
        # make a new face with it
        n_edges = 0
        for f in range(n_faces):
            visible[f] = alive[f] and (
                normals[f, 0] * (w[0] - W[faces[f, 0], 0])
                + normals[f, 1] * (w[1] - W[faces[f, 0], 1])
                + normals[f, 2] * (w[2] - W[faces[f, 0], 2]) > 0.0)
            if not visible[f]:
                continue
            for s in range(3):
                p, q = faces[f, s], faces[f, (s + 1) % 3]
                shared = -1
                for e in range(n_edges):
                    if edges[e, 0] == q and edges[e, 1] == p:
                        shared = e
                        break
                if shared >= 0:
                    n_edges -= 1
                    edges[shared, 0], edges[shared, 1] = edges[n_edges, 0], edges[n_edges, 1]
                else:
                    edges[n_edges, 0], edges[n_edges, 1] = p, q
                    n_edges += 1
        kept = 0
        for f in range(n_faces):
            kept += alive[f] and not visible[f]
        if kept + n_edges > _MAX_FACES:
            break  # no room (never for polytopes): the nearest face so far is the answer
        kept = np.int64(0)  # not the literal 0: it becomes n_faces, an argument of _add_face
        for f in range(n_faces):  # compact the faces that stay
            if alive[f] and not visible[f]:
                for c in range(3):
                    faces[kept, c], normals[kept, c] = faces[f, c], normals[f, c]
                dist[kept], alive[kept] = dist[f], True
                kept += 1
        n_faces = kept
        for i in range(3):
            W[n_vertices, i], SA[n_vertices, i], SB[n_vertices, i] = w[i], pa[i], pb[i]
        for e in range(n_edges):
            n_faces = _add_face(W, inner, edges[e, 0], edges[e, 1], n_vertices, faces, normals,
                                dist, alive, n_faces)
        n_vertices += 1
    # the origin's projection onto the nearest face, in barycentric weights of its vertices
    i, j, m = faces[best, 0], faces[best, 1], faces[best, 2]
    keep, lam = np.empty(4, np.int64), np.empty(4)
    shifted = np.empty((3, 3))
    for c in range(3):
        for q, vertex in enumerate((i, j, m)):
            shifted[q, c] = W[vertex, c] - best_dist * normals[best, c]
    kept = _triangle_region(shifted, np.int64(0), np.int64(1), np.int64(2), keep, lam)
    for c in range(3):
        normal[c] = normals[best, c]
        wa[c], wb[c] = 0.0, 0.0
        for q in range(kept):
            vertex = (i, j, m)[keep[q]]
            wa[c] += lam[q] * SA[vertex, c]
            wb[c] += lam[q] * SB[vertex, c]
    return max(best_dist, 0.0)


@njit(cache=True)
def _add_face(W, inner, i, j, m, faces, normals, dist, alive, n_faces):
    """Append face (i, j, m) turned to face away from `inner`, with its unit normal and its
    distance from the origin."""
    e1, e2, n = np.empty(3), np.empty(3), np.empty(3)
    _sub(W[j], W[i], e1)
    _sub(W[m], W[i], e2)
    linalg.cross(e1, e2, n)
    length = math.sqrt(_dot(n, n))
    if not length > 0.0:
        return n_faces  # a sliver: its neighbours close the polytope to rounding
    if n[0] * (W[i, 0] - inner[0]) + n[1] * (W[i, 1] - inner[1]) + n[2] * (
            W[i, 2] - inner[2]) < 0.0:
        j, m = m, j
        length = -length
    faces[n_faces, 0], faces[n_faces, 1], faces[n_faces, 2] = i, j, m
    for c in range(3):
        normals[n_faces, c] = n[c] / length
    dist[n_faces] = _dot(normals[n_faces], W[i])
    alive[n_faces] = True
    return n_faces + 1


@njit(cache=True)
def _core_distance(a, b, cutoff, scale, W, SA, SB, normal, wa, wb):
    """(distance, count) of GJK on the cores, the radii taken off: the distance of the whole
    parts when count > 0 and the cores are apart (normal, wa, wb written on the surfaces)."""
    ra, rb = core_radius(a[0], a[1]), core_radius(b[0], b[1])
    distance, count = gjk(a, b, np.bool_(False), cutoff + ra + rb, scale, W, SA, SB, wa, wb)
    if count > 0 and distance > 0.0:
        for i in range(3):
            normal[i] = (wb[i] - wa[i]) / distance
            wa[i] += ra * normal[i]
            wb[i] -= rb * normal[i]
    return distance - ra - rb, count


@njit(cache=True)
def farther_than(a, b, cutoff) -> bool:
    """Whether parts a and b are more than cutoff apart: GJK alone, no EPA (an overlap ends
    GJK as soon as its simplex holds the origin)."""
    scale = min(part_scale(a[0], a[1], a[4]), part_scale(b[0], b[1], b[4]))
    W, SA, SB = np.empty((4, 3)), np.empty((4, 3)), np.empty((4, 3))
    normal, wa, wb = np.empty(3), np.empty(3), np.empty(3)
    return _core_distance(a, b, cutoff, scale, W, SA, SB, normal, wa, wb)[0] > cutoff


@njit(cache=True)
def separation(a, b, cutoff, preference, pa, pb, normal, wa, wb):
    """Signed distance of parts a and b: > 0 apart (exact to GJK_TOLERANCE), < 0 minus the
    penetration depth; writes the unit normal from a to b and the closest (or deepest) points
    wa on A's surface and wb on B's. Pairs further apart than cutoff return a lower bound above
    it and nothing else. pa, pb are the parts' face planes (hulls).

    Overlapping parts first measure the overlap along two candidate faces (A's facing B's
    centre, B's facing A's): once EPA's lower bound shows that no direction beats the better
    one by more than `preference` (sat.py's face tolerance, as a fraction; 0 = to EPA's
    tolerance), that face is the answer, so resting contact on a face costs a few EPA steps."""
    scale = min(part_scale(a[0], a[1], a[4]), part_scale(b[0], b[1], b[4]))
    W, SA, SB = np.empty((4, 3)), np.empty((4, 3)), np.empty((4, 3))
    distance, count = _core_distance(a, b, cutoff, scale, W, SA, SB, normal, wa, wb)
    ra, rb = core_radius(a[0], a[1]), core_radius(b[0], b[1])
    if count == 0 or distance + ra + rb > 0.0:
        return distance
    face, face_a, face_b = np.empty(3), np.empty(3), np.empty(3)
    for i in range(3):
        face[i] = b[2][i] - a[2][i]
    length = math.sqrt(_dot(face, face))
    for i in range(3):
        face[i] = face[i] / length if length > 0.0 else (1.0 if i == 2 else 0.0)
    gap_a, gap_b = face_gaps(a, pa, b, pb, face, face_a, face_b)
    target = -max(gap_a, gap_b)  # the smaller overlap along the two faces
    for i in range(3):
        face[i] = face_a[i] if gap_a >= gap_b else -face_b[i]
    slack = EPA_TOLERANCE * scale
    if preference > 0.0:
        slack += preference * target + FACE_PREFERENCE_ABSOLUTE * scale
    depth = epa(a, b, scale, W, SA, SB, count, target - ra - rb - slack, normal, wa, wb)
    if depth == -2.0:
        local = np.empty(3)
        for i in range(3):
            normal[i] = face[i]
        support(a[0], a[1], a[2], a[3], a[4], face, np.bool_(True), local, wa)
        for i in range(3):
            face[i] = -face[i]
        support(b[0], b[1], b[2], b[3], b[4], face, np.bool_(True), local, wb)
        return -target
    if depth == -1.0:  # D is flat: touching in a plane; the centres give the direction
        depth = 0.0
        for i in range(3):
            normal[i] = b[2][i] - a[2][i]
            wa[i], wb[i] = SA[0, i], SB[0, i]
        length = math.sqrt(_dot(normal, normal))
        for i in range(3):
            normal[i] = normal[i] / length if length > 0.0 else (1.0 if i == 2 else 0.0)
    elif a[0] in CURVED or b[0] in CURVED:
        depth = _refine(a, b, scale, normal, wa, wb, depth)
    for i in range(3):
        wa[i] += ra * normal[i]
        wb[i] -= rb * normal[i]
    return -(depth + ra + rb)


@njit(cache=True)
def _refine(a, b, scale, normal, wa, wb, depth):
    """Sharpen EPA's normal on curved cores (cylinder, cone), where EPA only reaches its
    tolerance (a normal off by ~1e-5): move B out along the normal n by the cores' overlap
    along n plus a little, so they are apart, and take GJK's exact normal of that pair. Moved
    by s n, the pair's separation is max over m of (s m·n - overlap(m)), which is stationary at
    the penetration normal, so on smooth parts each pass shrinks the normal's error by about s
    over their curvature radii. A pass is kept only if the overlap along its normal is no larger
    than along the last one (at corners the maximiser can jump away); returns the overlap along
    the normal kept, or EPA's depth if none is."""
    W, SA, SB = np.empty((4, 3)), np.empty((4, 3)), np.empty((4, 3))
    moved, w, pa, pb, local = np.empty(3), np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    for i in range(3):
        w[i] = normal[i]
    _difference(a, b, w, np.bool_(False), pa, pb, moved, local)
    best = _dot(w, moved)  # the cores' overlap along EPA's normal
    result = depth
    for _ in range(REFINE_PASSES):
        shift = best + REFINE_CLEARANCE * scale
        for i in range(3):
            moved[i] = b[2][i] + shift * normal[i]
        distance, count = gjk(a, (b[0], b[1], moved, b[3], b[4]), np.bool_(False), math.inf, scale,
                              W, SA, SB, pa, pb)
        if count == 0 or not distance > 0.0:
            break
        for i in range(3):
            w[i] = (pb[i] - pa[i]) / distance
        _difference(a, b, w, np.bool_(False), pa, pb, moved, local)
        overlap = _dot(w, moved)  # measured, not taken from GJK's distance, which may stop short
        if not overlap <= best:
            break
        best, result = overlap, overlap
        for i in range(3):
            wa[i], wb[i] = pa[i], pb[i]
            normal[i] = w[i]
    return result
