"""The 15-axis separating axis test for two oriented boxes, compiled, one pair per call.

The candidate axes are the three face normals of each box and the nine cross products of their
edges (the Vietnamese thesis, section 2.1.2.2): two boxes are disjoint exactly when their
projections onto one of these axes are disjoint, i.e. when R > R0 + R1 with R the projected
centre distance and R0, R1 the projected radii. Everything is written with c_ij = Ai·Bj and the
centre offset D in box a's frame, as in the thesis's table 2.1.

Axis codes: 0-2 = face normals of a, 3-5 = face normals of b, 6 + 3i + j = Ai × Bj.
"""

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

# Below this length of Ai × Bj (the sine of the angle between the edges) the cross product is
# rounding noise of c_ij (~1e-16) and its direction meaningless. Skipping such an axis is safe:
# for exactly parallel edges the face axes already cover every separating direction, and for
# nearly parallel ones the gap only that axis would see is at most this sine times the edge length.
PARALLEL_EPSILON = 1e-12

# Resting contact must not flip between features from one substep to the next when two axes
# penetrate almost equally. A face axis of b must beat the best face of a, and an edge axis must
# beat the best face, by this fraction of the penetration plus this fraction of the smaller box.
FACE_PREFERENCE_RELATIVE = 0.05
FACE_PREFERENCE_ABSOLUTE = 1e-4


@njit(cache=True)
def sat_pair(ca, Ra, ha, cb, Rb, hb, normal, preference):
    """(separation, axis, axis_separation) of one box pair; writes the contact normal (3,).

    ca, cb (3,) centres; Ra, Rb (3, 3) rotations (columns = box axes); ha, hb (3,) half-extents.
    separation = the largest gap over all axes (> 0 disjoint, <= 0 touching or overlapping:
    minus the smallest penetration depth); axis = the code of the chosen contact axis;
    axis_separation = the gap along it (face axes preferred within the tolerances above, so it
    may be slightly below separation); normal = that axis as a unit world vector from a to b.
    preference scales those tolerances: 1.0 as stated, 0.0 picks the largest gap, so that
    axis_separation = separation (a float, not a flag: numba compiles one variant for both).
    """
    # rows 0-2: c_ij = Ai·Bj; row 3: Ai·D; row 4: Bj·D (one allocation for all three)
    work = np.empty((5, 3))
    C, Da, Db = work[:3], work[3], work[4]
    dx, dy, dz = cb[0] - ca[0], cb[1] - ca[1], cb[2] - ca[2]
    for i in range(3):
        Da[i] = Ra[0, i] * dx + Ra[1, i] * dy + Ra[2, i] * dz
        Db[i] = Rb[0, i] * dx + Rb[1, i] * dy + Rb[2, i] * dz
        for j in range(3):
            C[i, j] = Ra[0, i] * Rb[0, j] + Ra[1, i] * Rb[1, j] + Ra[2, i] * Rb[2, j]

    # face axes of a, then of b: R - R0 - R1
    best_a, sep_a = 0, -math.inf
    best_b, sep_b = 0, -math.inf
    for i in range(3):
        gap = abs(Da[i]) - ha[i]
        for j in range(3):
            gap -= abs(C[i, j]) * hb[j]
        if gap > sep_a:
            best_a, sep_a = i, gap
    for j in range(3):
        gap = abs(Db[j]) - hb[j]
        for i in range(3):
            gap -= ha[i] * abs(C[i, j])
        if gap > sep_b:
            best_b, sep_b = j, gap

    # edge axes: Ai × Bj in a's frame is ei × (column j of C), with components
    # i+1 = -c_{i+2,j} and i+2 = c_{i+1,j} (indices mod 3).
    best_e, sep_e = 0, -math.inf
    for i in range(3):
        i1, i2 = (i + 1) % 3, (i + 2) % 3
        for j in range(3):
            c1, c2 = C[i1, j], C[i2, j]
            length = math.sqrt(c1 * c1 + c2 * c2)
            if not length > PARALLEL_EPSILON:
                continue
            r = abs(c1 * Da[i2] - c2 * Da[i1])
            r0 = ha[i1] * abs(c2) + ha[i2] * abs(c1)
            # R1 = sum_m b_m |L·Bm|, L·Bm = c_{i+1,j} c_{i+2,m} - c_{i+2,j} c_{i+1,m}: the same
            # vector as R and R0 use, so all three see one direction even when C is not exactly
            # orthogonal.
            r1 = 0.0
            for m in range(3):
                r1 += hb[m] * abs(c1 * C[i2, m] - c2 * C[i1, m])
            gap = (r - r0 - r1) / length
            if gap > sep_e:
                best_e, sep_e = 3 * i + j, gap

    separation = max(sep_a, sep_b, sep_e)
    scale = FACE_PREFERENCE_ABSOLUTE * min(ha[0], ha[1], ha[2], hb[0], hb[1], hb[2])
    # Pairs that are apart get only the absolute preference: the largest gap is the best
    # estimate of their distance and points at the features about to touch (for speculative
    # contacts), but an edge lying almost flat on a face (a toppling domino's top edge closing
    # on the next one's face) must not flip to the edge axis on rounding: its single point
    # lets the edge twist about it and the other end sink (7 mm of an 8 cm domino in a
    # substep), where the face gives both ends.
    relative = 0.0 if separation > 0.0 else FACE_PREFERENCE_RELATIVE
    axis, sep_face = best_a, sep_a
    if sep_b > sep_a + preference * (relative * abs(sep_a) + scale):
        axis, sep_face = 3 + best_b, sep_b
    axis_separation = sep_face
    if sep_e > sep_face + preference * (relative * abs(sep_face) + scale):
        axis, axis_separation = 6 + best_e, sep_e

    if axis < 3:
        for k in range(3):
            normal[k] = Ra[k, axis]
    elif axis < 6:
        for k in range(3):
            normal[k] = Rb[k, axis - 3]
    else:
        ei, ej = (axis - 6) // 3, (axis - 6) % 3
        normal[0] = Ra[1, ei] * Rb[2, ej] - Ra[2, ei] * Rb[1, ej]
        normal[1] = Ra[2, ei] * Rb[0, ej] - Ra[0, ei] * Rb[2, ej]
        normal[2] = Ra[0, ei] * Rb[1, ej] - Ra[1, ei] * Rb[0, ej]
        length = max(math.sqrt(normal[0] ** 2 + normal[1] ** 2 + normal[2] ** 2), PARALLEL_EPSILON)
        for k in range(3):
            normal[k] /= length
    if normal[0] * dx + normal[1] * dy + normal[2] * dz < 0.0:
        for k in range(3):
            normal[k] = -normal[k]
    return separation, axis, axis_separation


@dataclass(frozen=True)
class SatResult:
    """Per pair, as `sat_pair` returns them: separation, axis, axis_separation (P,) and
    normal (P, 3)."""

    separation: np.ndarray
    axis: np.ndarray
    axis_separation: np.ndarray
    normal: np.ndarray


def box_box_sat(ca, Ra, ha, cb, Rb, hb) -> SatResult:
    """Run the separating axis test on P pairs of boxes: ca, cb (P, 3) centres; Ra, Rb (P, 3, 3)
    rotations (columns = box axes); ha, hb (P, 3) half-extents."""
    args = [np.ascontiguousarray(x, dtype=np.float64) for x in (ca, Ra, ha, cb, Rb, hb)]
    p = len(args[0])
    result = SatResult(np.empty(p), np.empty(p, np.int64), np.empty(p), np.empty((p, 3)))
    _sat_all(*args, result.separation, result.axis, result.axis_separation, result.normal)
    return result


@njit(cache=True)
def _sat_all(ca, Ra, ha, cb, Rb, hb, separation, axis, axis_separation, normal):
    for p in range(len(ca)):
        separation[p], axis[p], axis_separation[p] = sat_pair(
            ca[p], Ra[p], ha[p], cb[p], Rb[p], hb[p], normal[p], 1.0
        )
