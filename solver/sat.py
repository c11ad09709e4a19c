"""The 15-axis separating axis test for oriented boxes, batched over P pairs.

The candidate axes are the three face normals of each box and the nine cross products of their
edges (the Vietnamese thesis, section 2.1.2.2): two boxes are disjoint exactly when their
projections onto one of these axes are disjoint, i.e. when R > R0 + R1 with R the projected
centre distance and R0, R1 the projected radii. Everything is written with c_ij = Ai·Bj and the
centre offset D in box a's frame, as in the thesis's table 2.1.

Axis codes: 0-2 = face normals of a, 3-5 = face normals of b, 6 + 3i + j = Ai × Bj.
"""

from dataclasses import dataclass

import numpy as np

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


@dataclass(frozen=True)
class SatResult:
    """Per pair: `separation` = largest gap over all axes (> 0 disjoint, <= 0 touching or
    overlapping; minus the smallest penetration depth), `axis` = the code of the chosen
    contact axis, `axis_separation` = the gap along it (face axes preferred within the
    tolerances above, so it may be slightly below `separation`), `normal` (P, 3) = that axis
    as a unit world vector pointing from box a to box b."""

    separation: np.ndarray
    axis: np.ndarray
    axis_separation: np.ndarray
    normal: np.ndarray


def box_box_sat(ca, Ra, ha, cb, Rb, hb) -> SatResult:
    """Run the separating axis test on P pairs of boxes.

    ca, cb (P, 3) centres; Ra, Rb (P, 3, 3) rotations (columns = box axes); ha, hb (P, 3)
    half-extents.
    """
    C = np.matmul(Ra.transpose(0, 2, 1), Rb)  # c_ij = Ai·Bj
    absC = np.abs(C)
    D = cb - ca
    Da = np.matmul(D[:, None], Ra)[:, 0]  # Ai·D
    Db = np.matmul(D[:, None], Rb)[:, 0]  # Bj·D

    face_a = np.abs(Da) - ha - np.matmul(absC, hb[:, :, None])[:, :, 0]
    face_b = np.abs(Db) - np.matmul(ha[:, None], absC)[:, 0] - hb

    # Ai × Bj in a's frame is ei × (column j of C): components i+1 = -c_{i+2,j}, i+2 = c_{i+1,j}
    # (indices mod 3). C1, C2 hold c_{i+1,j}, c_{i+2,j} at [i, j].
    C1, C2 = np.roll(C, -1, axis=1), np.roll(C, -2, axis=1)
    length = np.sqrt(C1 * C1 + C2 * C2)
    r = np.abs(C1 * np.roll(Da, -2, axis=1)[:, :, None] - C2 * np.roll(Da, -1, axis=1)[:, :, None])
    r0 = np.roll(ha, -1, axis=1)[:, :, None] * np.abs(C2) + np.roll(ha, -2, axis=1)[
        :, :, None
    ] * np.abs(C1)
    # R1 = sum_m b_m |L·Bm|, L·Bm = c_{i+1,j} c_{i+2,m} - c_{i+2,j} c_{i+1,m}: the same vector
    # as R and R0 use, so all three see one direction even when C is not exactly orthogonal.
    in_b = C1[:, :, :, None] * C2[:, :, None, :] - C2[:, :, :, None] * C1[:, :, None, :]
    r1 = np.matmul(np.abs(in_b).reshape(-1, 9, 3), hb[:, :, None]).reshape(-1, 3, 3)
    valid = length > PARALLEL_EPSILON
    edge_sep = np.where(valid, (r - r0 - r1) / np.where(valid, length, 1.0), -np.inf)
    edge_sep = edge_sep.reshape(-1, 9)

    everything = np.concatenate([face_a, face_b, edge_sep], axis=1)
    separation = everything.max(axis=1)

    rows = np.arange(len(D))
    best_a = face_a.argmax(axis=1)
    best_b = face_b.argmax(axis=1)
    best_e = edge_sep.argmax(axis=1)
    sep_a = face_a[rows, best_a]
    sep_b = face_b[rows, best_b]
    sep_e = edge_sep[rows, best_e]
    scale = FACE_PREFERENCE_ABSOLUTE * np.minimum(ha.min(axis=1), hb.min(axis=1))

    # Pairs that are apart get no preference: the largest gap is the best estimate of their
    # distance and points at the features about to touch (for speculative contacts).
    slack = np.where(separation > 0.0, 0.0, 1.0)
    use_b = sep_b > sep_a + slack * (FACE_PREFERENCE_RELATIVE * np.abs(sep_a) + scale)
    axis = np.where(use_b, 3 + best_b, best_a)
    sep_face = np.where(use_b, sep_b, sep_a)
    use_e = sep_e > sep_face + slack * (FACE_PREFERENCE_RELATIVE * np.abs(sep_face) + scale)
    axis = np.where(use_e, 6 + best_e, axis)
    axis_separation = np.where(use_e, sep_e, sep_face)

    normal = np.where(use_b[:, None], Rb[rows, :, best_b], Ra[rows, :, best_a])
    ei, ej = np.divmod(best_e, 3)
    edge_world = np.cross(Ra[rows, :, ei], Rb[rows, :, ej])
    edge_world /= np.maximum(np.linalg.norm(edge_world, axis=1), PARALLEL_EPSILON)[:, None]
    normal = np.where(use_e[:, None], edge_world, normal)
    normal = np.where((np.sum(normal * D, axis=1) < 0.0)[:, None], -normal, normal)
    return SatResult(separation, axis, axis_separation, normal)
