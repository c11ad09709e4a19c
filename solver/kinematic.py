"""Kinematic bodies follow a path of sampled poses; their velocity is the path's own.

A path is (positions (S, 3), orientations (S, 4)) of the shape centre, sampled
`samples_per_frame` times per frame from frame 0, and held at the last sample after its end.
Between samples positions are interpolated linearly and orientations by slerp. Over a substep a
kinematic body moves exactly from one path pose to the next, with the constant linear and
angular velocity that does that, which is what it pushes dynamic bodies with.
"""

import numpy as np

from . import quaternion


def slerp(q0: np.ndarray, q1: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Constant-rate rotation from q0 to q1 (shortest way), t in [0, 1]."""
    q1 = np.where(np.sum(q0 * q1, axis=-1, keepdims=True) < 0.0, -q1, q1)
    cos = np.clip(np.sum(q0 * q1, axis=-1, keepdims=True), -1.0, 1.0)
    angle = np.arccos(cos)
    sin = np.sin(angle)
    t = np.asarray(t, dtype=float)[..., None]
    near = sin < 1e-9
    safe = np.where(near, 1.0, sin)
    w0 = np.where(near, 1.0 - t, np.sin((1.0 - t) * angle) / safe)
    w1 = np.where(near, t, np.sin(t * angle) / safe)
    return quaternion.normalize(w0 * q0 + w1 * q1)


class Paths:
    """The paths of all kinematic bodies, padded to a common length (last pose repeated)."""

    def __init__(self):
        self.bodies = np.zeros(0, dtype=np.int64)
        self.positions = np.zeros((0, 1, 3))
        self.orientations = np.zeros((0, 1, 4))
        self.samples_per_frame = np.zeros(0)
        self.lengths = np.zeros(0, dtype=np.int64)

    def add(self, body: int, positions, orientations, samples_per_frame: int) -> None:
        positions = np.asarray(positions, dtype=float).reshape(-1, 3)
        orientations = quaternion.normalize(np.asarray(orientations, dtype=float).reshape(-1, 4))
        if len(positions) == 0 or len(positions) != len(orientations):
            raise ValueError("a path needs as many positions as orientations, at least one")
        if samples_per_frame < 1:
            raise ValueError("path_samples_per_frame must be at least 1")
        longest = max(self.positions.shape[1], len(positions))
        self.positions = _pad(self.positions, longest)
        self.orientations = _pad(self.orientations, longest)
        self.positions = np.concatenate([self.positions, _pad(positions[None], longest)])
        self.orientations = np.concatenate([self.orientations, _pad(orientations[None], longest)])
        self.bodies = np.append(self.bodies, body)
        self.samples_per_frame = np.append(self.samples_per_frame, float(samples_per_frame))
        self.lengths = np.append(self.lengths, len(positions))

    def __len__(self) -> int:
        return len(self.bodies)

    def poses(self, frame: float):
        """((K, 3) positions, (K, 4) orientations) of the shape centres at a fractional frame."""
        u = np.clip(frame * self.samples_per_frame, 0.0, self.lengths - 1.0)
        i = np.minimum(np.floor(u).astype(np.int64), np.maximum(self.lengths - 2, 0))
        j = np.minimum(i + 1, self.lengths - 1)
        t = u - i
        k = np.arange(len(self))
        position = (1.0 - t)[:, None] * self.positions[k, i] + t[:, None] * self.positions[k, j]
        return position, slerp(self.orientations[k, i], self.orientations[k, j], t)


def _pad(samples: np.ndarray, length: int) -> np.ndarray:
    """Repeat the last sample of (M, S, d) paths up to S = length."""
    if samples.shape[1] >= length or samples.shape[0] == 0:
        return np.zeros((0, length, samples.shape[2])) if samples.shape[0] == 0 else samples
    extra = np.repeat(samples[:, -1:], length - samples.shape[1], axis=1)
    return np.concatenate([samples, extra], axis=1)


def rotation_rate(q0: np.ndarray, q1: np.ndarray, h: float) -> np.ndarray:
    """World angular velocity turning q0 into q1 in h seconds at a constant rate."""
    delta = quaternion.multiply(q1, quaternion.conjugate(q0))
    delta = np.where(delta[..., :1] < 0.0, -delta, delta)
    sin_half = np.linalg.norm(delta[..., 1:], axis=-1, keepdims=True)
    angle = 2.0 * np.arctan2(sin_half, delta[..., :1])
    axis = delta[..., 1:] / np.where(sin_half > 0.0, sin_half, 1.0)
    return axis * angle / h
