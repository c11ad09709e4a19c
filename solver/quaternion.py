"""Unit quaternions in Blender's order (w, x, y, z), vectorised over any leading axes.

Orientation is kept as a quaternion rather than a matrix because it drifts less under repeated
integration and is renormalised with one division (the Croatian notes). Every function accepts
arrays of shape (..., 4) (and (..., 3) vectors) and broadcasts like numpy.
"""

import numpy as np

from .linalg import cross_rows

_CONJUGATE_SIGNS = np.array([1.0, -1.0, -1.0, -1.0])


def identity(n: int) -> np.ndarray:
    """(n, 4) identity rotations."""
    q = np.zeros((n, 4))
    q[:, 0] = 1.0
    return q


def multiply(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hamilton product p ⊗ q: the rotation q followed by p."""
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    pw, px, py, pz = np.moveaxis(p, -1, 0)
    qw, qx, qy, qz = np.moveaxis(q, -1, 0)
    return np.stack(
        [
            pw * qw - px * qx - py * qy - pz * qz,
            pw * qx + px * qw + py * qz - pz * qy,
            pw * qy - px * qz + py * qw + pz * qx,
            pw * qz + px * qy - py * qx + pz * qw,
        ],
        axis=-1,
    )


def conjugate(q: np.ndarray) -> np.ndarray:
    """The inverse rotation of a unit quaternion."""
    return np.asarray(q, dtype=float) * _CONJUGATE_SIGNS


def normalize(q: np.ndarray) -> np.ndarray:
    """Scale to unit length; a zero quaternion becomes the identity rather than NaN."""
    q = np.asarray(q, dtype=float)
    norm = np.linalg.norm(q, axis=-1, keepdims=True)
    safe = np.where(norm > 0.0, norm, 1.0)
    out = q / safe
    return np.where(norm > 0.0, out, np.array([1.0, 0.0, 0.0, 0.0]))


def rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate vectors v by unit quaternions q: v + 2w(u×v) + 2u×(u×v), without building q v q*."""
    q = np.asarray(q, dtype=float)
    v = np.asarray(v, dtype=float)
    u = q[..., 1:]
    t = 2.0 * cross_rows(u, v)
    return v + q[..., :1] * t + cross_rows(u, t)


def to_matrix(q: np.ndarray) -> np.ndarray:
    """(..., 3, 3) rotation matrices whose columns are the rotated x, y, z axes."""
    q = np.asarray(q, dtype=float)
    w, x, y, z = np.moveaxis(q, -1, 0)
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    wx, wy, wz = w * x, w * y, w * z
    m = np.empty((*q.shape[:-1], 3, 3))  # filled in place: one array, not nested stacks
    m[..., 0, 0] = 1 - 2 * (yy + zz)
    m[..., 0, 1] = 2 * (xy - wz)
    m[..., 0, 2] = 2 * (xz + wy)
    m[..., 1, 0] = 2 * (xy + wz)
    m[..., 1, 1] = 1 - 2 * (xx + zz)
    m[..., 1, 2] = 2 * (yz - wx)
    m[..., 2, 0] = 2 * (xz - wy)
    m[..., 2, 1] = 2 * (yz + wx)
    m[..., 2, 2] = 1 - 2 * (xx + yy)
    return m


def from_matrix(m: np.ndarray) -> np.ndarray:
    """Unit quaternions (w >= 0) of rotation matrices, by Shepperd's method.

    Row k of the symmetric matrix K holds 4 q_k q (its diagonal 4 q_k²), so q = K[k] / (4 |q_k|).
    The row with the largest diagonal is used, so the square root is never taken of a small,
    cancellation-prone number.
    """
    m = np.asarray(m, dtype=float)
    m00, m11, m22 = m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]
    k = np.empty((*m.shape[:-2], 4, 4))
    trace = m00 + m11 + m22
    k[..., 0, 0] = 1 + trace
    k[..., 1, 1] = 1 + m00 - m11 - m22
    k[..., 2, 2] = 1 + m11 - m00 - m22
    k[..., 3, 3] = 1 + m22 - m00 - m11
    for i, j, value in ((0, 1, m[..., 2, 1] - m[..., 1, 2]), (0, 2, m[..., 0, 2] - m[..., 2, 0]),
                        (0, 3, m[..., 1, 0] - m[..., 0, 1]), (1, 2, m[..., 0, 1] + m[..., 1, 0]),
                        (1, 3, m[..., 0, 2] + m[..., 2, 0]), (2, 3, m[..., 1, 2] + m[..., 2, 1])):
        k[..., i, j] = k[..., j, i] = value
    k = k.reshape(-1, 4, 4)
    rows = np.arange(len(k))  # indexed directly: take_along_axis costs more than the maths
    choice = np.argmax(np.diagonal(k, axis1=-2, axis2=-1), axis=-1)
    s = 2.0 * np.sqrt(np.maximum(k[rows, choice, choice], 1e-300))
    q = k[rows, choice] / s[:, None]
    q[rows, choice] = s / 4  # 4 q_k² / (4 |q_k|), rounded as |q_k| is
    norm = np.linalg.norm(q, axis=-1, keepdims=True)  # > 0: |q_k| is at least 1/2
    q /= np.where(q[:, :1] < 0.0, -norm, norm)  # unit length, w >= 0
    return q.reshape(*m.shape[:-2], 4)


def from_axis_angle(axis: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """Rotation by `angle` radians about `axis` (normalised here; a zero axis gives identity)."""
    axis = np.asarray(axis, dtype=float)
    angle = np.asarray(angle, dtype=float)
    length = np.linalg.norm(axis, axis=-1, keepdims=True)
    unit = axis / np.where(length > 0.0, length, 1.0)
    half = 0.5 * angle[..., None]
    return np.concatenate([np.cos(half), np.sin(half) * unit], axis=-1)


def integrate(q: np.ndarray, omega: np.ndarray, dt: float) -> np.ndarray:
    """Advance orientations by a world-frame angular velocity held constant over dt.

    Exact exponential map: q(t + dt) = exp(ω dt / 2) ⊗ q(t), then renormalised, so a constant
    spin about a fixed axis turns by exactly |ω| dt however large the step.
    """
    omega = np.asarray(omega, dtype=float)
    rate = np.linalg.norm(omega, axis=-1)
    step = from_axis_angle(omega, rate * dt)
    return normalize(multiply(step, q))
