"""Unit quaternions in Blender's order (w, x, y, z), vectorised over any leading axes.

Orientation is kept as a quaternion rather than a matrix because it drifts less under repeated
integration and is renormalised with one division (the Croatian notes). Every function accepts
arrays of shape (..., 4) (and (..., 3) vectors) and broadcasts like numpy.
"""

import numpy as np

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
    t = 2.0 * np.cross(u, v)
    return v + q[..., :1] * t + np.cross(u, t)


def to_matrix(q: np.ndarray) -> np.ndarray:
    """(..., 3, 3) rotation matrices whose columns are the rotated x, y, z axes."""
    q = np.asarray(q, dtype=float)
    w, x, y, z = np.moveaxis(q, -1, 0)
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    wx, wy, wz = w * x, w * y, w * z
    rows = [
        [1 - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy)],
        [2 * (xy + wz), 1 - 2 * (xx + zz), 2 * (yz - wx)],
        [2 * (xz - wy), 2 * (yz + wx), 1 - 2 * (xx + yy)],
    ]
    return np.stack([np.stack(r, axis=-1) for r in rows], axis=-2)


def from_matrix(m: np.ndarray) -> np.ndarray:
    """Unit quaternions (w >= 0) of rotation matrices, by Shepperd's method.

    The largest of the trace and the three diagonal entries picks the formula, so the square root
    is never taken of a small, cancellation-prone number.
    """
    m = np.asarray(m, dtype=float)
    m00, m11, m22 = m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]
    d10 = m[..., 1, 0] - m[..., 0, 1]
    d02 = m[..., 0, 2] - m[..., 2, 0]
    d21 = m[..., 2, 1] - m[..., 1, 2]
    s01 = m[..., 0, 1] + m[..., 1, 0]
    s02 = m[..., 0, 2] + m[..., 2, 0]
    s12 = m[..., 1, 2] + m[..., 2, 1]
    trace = m00 + m11 + m22
    pivots = np.stack([1 + trace, 1 + m00 - m11 - m22, 1 + m11 - m00 - m22, 1 + m22 - m00 - m11])
    s = 2.0 * np.sqrt(np.maximum(pivots, 1e-300))
    candidates = np.stack(
        [
            np.stack([s[0] / 4, d21 / s[0], d02 / s[0], d10 / s[0]], axis=-1),
            np.stack([d21 / s[1], s[1] / 4, s01 / s[1], s02 / s[1]], axis=-1),
            np.stack([d02 / s[2], s01 / s[2], s[2] / 4, s12 / s[2]], axis=-1),
            np.stack([d10 / s[3], s02 / s[3], s12 / s[3], s[3] / 4], axis=-1),
        ]
    )
    choice = np.argmax(pivots, axis=0)
    q = np.take_along_axis(candidates, choice[None, ..., None], axis=0)[0]
    q = np.where(q[..., :1] < 0.0, -q, q)
    return normalize(q)


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
