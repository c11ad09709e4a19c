"""Small compiled helpers for the kernels: quaternion turns, 3×3 products and the pseudo-inverse
of a manifold's 4×4 normal block (numba has no LAPACK without scipy, which Blender lacks); and
cross_rows, numpy's row-wise cross product for the Python side.

Quaternions are (w, x, y, z) rows of a float64 array; rotation matrices have the body axes as
columns, as in quaternion.py.
"""

import numpy as np
from numba import njit


def cross_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise a × b in numpy (np.cross's axis handling costs more than the product for short
    arrays: a body's offset turned as it is added, a hull's faces)."""
    return np.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
                     a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                     a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)


# Jacobi sweeps for a 4×4 symmetric matrix: it converges quadratically, so a handful of sweeps
# reach rounding; the loop stops earlier once the off-diagonal part is negligible.
_JACOBI_SWEEPS = 12
_BLOCK = 4  # a manifold's points (constraints.POINTS): a constant, so the loops unroll


@njit(cache=True)
def _matrix_entries(w, x, y, z) -> tuple:
    """The rotation matrix of the unit quaternion (w, x, y, z), row by row (9 numbers)."""
    return (1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y),
            2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x),
            2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y))


@njit(cache=True)
def to_matrix(q: np.ndarray, out: np.ndarray) -> None:
    """Write the rotation matrix of the unit quaternion q (4,) into out (3, 3)."""
    entries = _matrix_entries(q[0], q[1], q[2], q[3])
    for r in range(3):
        for c in range(3):
            out[r, c] = entries[3 * r + c]


@njit(cache=True)
def matrices(orientations: np.ndarray, out: np.ndarray) -> None:
    """Rotation matrices (N, 3, 3) of unit quaternions (N, 4), by index: a view of each row
    costs two atomic reference counts (as in sandwich)."""
    for i in range(len(orientations)):
        entries = _matrix_entries(orientations[i, 0], orientations[i, 1], orientations[i, 2],
                                  orientations[i, 3])
        for r in range(3):
            for c in range(3):
                out[i, r, c] = entries[3 * r + c]


@njit(cache=True)
def minus_rotated(points: np.ndarray, rotations: np.ndarray, offsets: np.ndarray,
                  out: np.ndarray) -> None:
    """out[i] = points[i] - rotations[i] @ offsets[i] (N, 3): the collision shapes' centres
    from the centres of mass (Bodies.shape_centers) without einsum's dispatch, in one
    summation order for the narrow phase and the snapshots alike."""
    for i in range(len(points)):
        for k in range(3):
            out[i, k] = minus_rotated_row(points, rotations, offsets, i, k)


@njit(cache=True, inline="always")
def minus_rotated_row(points, rotations, offsets, i, k) -> float:
    """Entry (i, k) of minus_rotated."""
    return points[i, k] - (rotations[i, k, 0] * offsets[i, 0] + rotations[i, k, 1] * offsets[i, 1]
                           + rotations[i, k, 2] * offsets[i, 2])


@njit(cache=True)
def turn(q: np.ndarray, wx: float, wy: float, wz: float, dt: float) -> None:
    """q <- exp(ω dt / 2) ⊗ q, renormalised: a world angular velocity held for dt (exact for a
    fixed axis, as quaternion.integrate)."""
    rate = np.sqrt(wx * wx + wy * wy + wz * wz)
    half = 0.5 * rate * dt
    s = np.sin(half) / rate if rate > 0.0 else 0.0
    pw, px, py, pz = np.cos(half), s * wx, s * wy, s * wz
    qw, qx, qy, qz = q[0], q[1], q[2], q[3]
    rw = pw * qw - px * qx - py * qy - pz * qz
    rx = pw * qx + px * qw + py * qz - pz * qy
    ry = pw * qy - px * qz + py * qw + pz * qx
    rz = pw * qz + px * qy - py * qx + pz * qw
    norm = np.sqrt(rw * rw + rx * rx + ry * ry + rz * rz)
    if norm > 0.0:
        q[0], q[1], q[2], q[3] = rw / norm, rx / norm, ry / norm, rz / norm
    else:
        q[0], q[1], q[2], q[3] = 1.0, 0.0, 0.0, 0.0


@njit(cache=True)
def rotate_vector(q: np.ndarray, v: np.ndarray) -> None:
    """v <- q v q* in place (v (3,))."""
    ux, uy, uz, w = q[1], q[2], q[3], q[0]
    tx = 2.0 * (uy * v[2] - uz * v[1])
    ty = 2.0 * (uz * v[0] - ux * v[2])
    tz = 2.0 * (ux * v[1] - uy * v[0])
    x = v[0] + w * tx + (uy * tz - uz * ty)
    y = v[1] + w * ty + (uz * tx - ux * tz)
    z = v[2] + w * tz + (ux * ty - uy * tx)
    v[0], v[1], v[2] = x, y, z


@njit(cache=True)
def cross(u: np.ndarray, v: np.ndarray, out: np.ndarray) -> None:
    """out (3,) = u × v, written in place so a kernel's loop allocates nothing."""
    out[0] = u[1] * v[2] - u[2] * v[1]
    out[1] = u[2] * v[0] - u[0] * v[2]
    out[2] = u[0] * v[1] - u[1] * v[0]


@njit(cache=True)
def row(vectors: np.ndarray, i) -> tuple:
    """Row i of an (N, 3) array as a tuple (see crossed)."""
    return (vectors[i, 0], vectors[i, 1], vectors[i, 2])


@njit(cache=True)
def crossed(u, v) -> tuple:
    """u × v of two 3-tuples (or rows) as a tuple: no array, so no view to reference-count."""
    return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])


@njit(cache=True)
def norm(v: np.ndarray) -> float:
    """|v| of a 3-vector."""
    return np.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])


@njit(cache=True)
def sandwich(rotations: np.ndarray, bodies: np.ndarray, i, out: np.ndarray, j) -> None:
    """out[j] = R B Rᵀ (a body-frame tensor in world axes) of R = rotations[i], B = bodies[i],
    all (3, 3) rows of stacked arrays, taken by index: a view of each costs two atomic
    reference counts, per body per substep."""
    for r in range(3):
        for c in range(3):
            total = 0.0
            for k in range(3):
                for m in range(3):
                    total += rotations[i, r, k] * bodies[i, k, m] * rotations[i, c, m]
            out[j, r, c] = total


@njit(cache=True)
def pseudo_inverse(block: np.ndarray, held: np.ndarray, cutoff: float, out: np.ndarray,
                   work: np.ndarray, vectors: np.ndarray) -> int:
    """out (4, 4) = pseudo-inverse of the symmetric block restricted to the `held` points (zero
    rows and columns elsewhere); eigenvalues at most `cutoff` times the largest count as zero.
    work is (4, 4) scratch; vectors (4, 4) ends as the eigenvectors. Cyclic Jacobi rotations
    diagonalise the block, from the identity; returns the sweeps they took."""
    size = _BLOCK
    for i in range(size):
        for j in range(size):
            work[i, j] = block[i, j] if held[i] and held[j] else 0.0
            vectors[i, j] = 1.0 if i == j else 0.0
    return _diagonalised_inverse(work, vectors, cutoff, out)


@njit(cache=True)
def pseudo_inverse_from(block: np.ndarray, cutoff: float, out: np.ndarray, work: np.ndarray,
                        vectors: np.ndarray) -> int:
    """pseudo_inverse of the whole block, its rotations starting from the orthonormal columns
    `vectors` holds (a nearby block's eigenvectors, such as the same manifold's a substep ago)
    instead of the identity: Vᵀ A V is then nearly diagonal, and the rotations, whose error
    falls quadratically, end in about two sweeps instead of four or five."""
    size = _BLOCK
    for i in range(size):  # out = A V for a moment, then work = Vᵀ A V (one triangle)
        for j in range(size):
            total = 0.0
            for k in range(size):
                total += block[i, k] * vectors[k, j]
            out[i, j] = total
    for i in range(size):
        for j in range(i, size):
            total = 0.0
            for k in range(size):
                total += vectors[k, i] * out[k, j]
            work[i, j] = total
            work[j, i] = total
    return _diagonalised_inverse(work, vectors, cutoff, out)


@njit(cache=True, inline="always")  # the two entries' common part, in each
def _diagonalised_inverse(work: np.ndarray, vectors: np.ndarray, cutoff: float,
                          out: np.ndarray) -> int:
    """Jacobi rotations until work (4, 4, symmetric) is diagonal, applied to the columns of
    vectors too; out = V diag(1/value) Vᵀ over the values above cutoff times the largest.
    Returns the sweeps taken."""
    size = _BLOCK
    sweeps = 0
    while sweeps < _JACOBI_SWEEPS:
        off, diag = 0.0, 0.0
        for i in range(size):
            diag += work[i, i] * work[i, i]
            for j in range(i + 1, size):
                off += work[i, j] * work[i, j]
        if off <= 1e-34 * diag:
            break
        sweeps += 1
        for p in range(size):
            for r in range(p + 1, size):
                if work[p, r] == 0.0:
                    continue
                theta = (work[r, r] - work[p, p]) / (2.0 * work[p, r])
                t = (1.0 if theta >= 0.0 else -1.0) / (abs(theta) + np.sqrt(theta * theta + 1.0))
                c = 1.0 / np.sqrt(t * t + 1.0)
                s = t * c
                for k in range(size):
                    kp, kr = work[k, p], work[k, r]
                    work[k, p], work[k, r] = c * kp - s * kr, s * kp + c * kr
                for k in range(size):
                    pk, rk = work[p, k], work[r, k]
                    work[p, k], work[r, k] = c * pk - s * rk, s * pk + c * rk
                for k in range(size):
                    kp, kr = vectors[k, p], vectors[k, r]
                    vectors[k, p], vectors[k, r] = c * kp - s * kr, s * kp + c * kr
    largest = 0.0
    for k in range(size):
        largest = max(largest, work[k, k])
    # V diag(1/value) Vᵀ is symmetric term by term (a b / v = b a / v), so one triangle summed
    # in the same order of k and mirrored gives the same bits with 40 divisions instead of 64
    for i in range(size):
        for j in range(i, size):
            total = 0.0
            for k in range(size):
                value = work[k, k]
                if value > cutoff * largest and value > 0.0:
                    total += vectors[i, k] * vectors[j, k] / value
            out[i, j] = total
            out[j, i] = total
    return sweeps
