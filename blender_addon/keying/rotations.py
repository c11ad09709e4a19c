"""Rotation key values that interpolate the way the body turned, in every rotation mode.

Each rotation has many representations (q and -q, Euler angles ± 2π, axis-angle (a, θ), (-a, -θ)
and θ ± 2π); Blender interpolates the numbers, so neighbouring keys must pick the representations
that lie along the body's path. Between two keys the path is the short way round unless the
simulation says the body turned more than half a turn (angular velocity decides, frame by frame):
it is followed in steps of at most 45°, and each step takes the representation nearest the
previous one.
"""

import math

import numpy as np
from mathutils import Euler, Quaternion

from ...solver import quaternion

_STEP = math.pi / 4  # largest turn between two samples of the path
_PATHS = {"QUATERNION": "rotation_quaternion", "AXIS_ANGLE": "rotation_axis_angle"}


def path_for(mode: str) -> str:
    """The rotation property Blender animates in this rotation mode."""
    return _PATHS.get(mode, "rotation_euler")


def _relative(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Short-way angle (0..π) and unit axis of the turn from each orientation to the next
    (along the first axis of (K, ..., 4))."""
    turn = quaternion.multiply(q[1:], quaternion.conjugate(q[:-1]))
    turn = np.where(turn[..., :1] < 0.0, -turn, turn)
    sine = np.linalg.norm(turn[..., 1:], axis=-1)
    axis = turn[..., 1:] / np.where(sine > 0.0, sine, 1.0)[..., None]
    return 2.0 * np.arctan2(sine, turn[..., 0]), axis


def frame_turns(orientations: np.ndarray, angular_velocities: np.ndarray, fps: float):
    """(F, ..., 3) world rotation vectors from each simulated frame to the next (of (F + 1,
    ..., 4) orientations): the short way or the long way round, whichever is nearer the mean
    angular velocity times the frame time."""
    angle, axis = _relative(orientations)
    short = axis * angle[..., None]
    long = axis * (angle - 2.0 * math.pi)[..., None]
    expected = 0.5 * (angular_velocities[1:] + angular_velocities[:-1]) / fps
    nearer = np.linalg.norm(long - expected, axis=-1) < np.linalg.norm(short - expected, axis=-1)
    return np.where(nearer[..., None], long, short)


def key_turns(turns: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """(K - 1, ...) angles turned between keyed rows (the frame turns in between, added up)."""
    total = (np.add.reduceat(turns, rows[:-1], axis=0) if len(rows) > 1
             else np.zeros((0, *turns.shape[1:])))
    return np.linalg.norm(total, axis=-1)


def _dense_paths(quats: np.ndarray, turns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Orientations along B bodies' paths at most `_STEP` apart, body after body in one array,
    and the index of each key in it: (B, K, 4) keyed orientations and (B, K - 1) turns ->
    (D, 4), (B, K). All bodies go through numpy at once (body by body, this took a third of the
    keying of a pile of 64)."""
    bodies, count = quats.shape[:2]
    angle, axis = _relative(quats.transpose(1, 0, 2))  # (K - 1, B): key to key
    angle, axis = angle.T.ravel(), axis.transpose(1, 0, 2).reshape(-1, 3)
    angle = np.where(turns.ravel() > math.pi, angle - 2.0 * math.pi, angle)
    steps = np.maximum(1, np.ceil(np.abs(angle) / _STEP)).astype(int)
    interval = np.repeat(np.arange(len(angle)), steps)
    ends = np.cumsum(steps)
    fractions = (np.arange(len(interval)) - (ends - steps)[interval] + 1) / steps[interval]
    along = quaternion.from_axis_angle(axis[interval], angle[interval] * fractions)
    # Each body's path: its first key, then the samples of its intervals.
    keyed = np.zeros((bodies, count), dtype=int)
    keyed[:, 1:] = np.cumsum(steps.reshape(bodies, count - 1), axis=1)
    keyed += (np.arange(bodies) + np.concatenate([[0], keyed[:-1, -1].cumsum()]))[:, None]
    dense = np.empty((len(interval) + bodies, 4))
    dense[keyed[:, 0]] = quats[:, 0]
    later = np.ones(len(dense), dtype=bool)
    later[keyed[:, 0]] = False
    dense[later] = quaternion.multiply(along, quats[:, :-1].reshape(-1, 4)[interval])
    return dense, keyed


def _quaternion_chains(dense: np.ndarray, firsts: np.ndarray, references: np.ndarray):
    """Each sample of the paths starting at `firsts` signed to lie next to the one before (the
    first next to its body's reference)."""
    previous = np.empty_like(dense)
    previous[1:] = dense[:-1]
    previous[firsts] = references
    flipped = np.sum(previous * dense, axis=1) < 0.0
    flips = np.cumsum(flipped)
    before = np.repeat(flips[firsts] - flipped[firsts], np.diff([*firsts, len(dense)]))
    return dense * np.where((flips - before) % 2 == 1, -1.0, 1.0)[:, None]


def _euler_chain(dense: np.ndarray, reference: np.ndarray, mode) -> np.ndarray:
    out = np.empty((len(dense), 3))
    previous = Euler(reference.tolist(), mode)
    for i, q in enumerate(dense):
        previous = Quaternion(q.tolist()).to_euler(mode, previous)
        out[i] = previous
    return out


def _axis_angle_chain(dense: np.ndarray, reference: np.ndarray) -> np.ndarray:
    out = np.empty((len(dense), 4))
    angle = float(reference[0])
    length = float(np.linalg.norm(reference[1:]))
    axis = reference[1:] / length if length > 0.0 else np.array([0.0, 1.0, 0.0])
    sines = np.linalg.norm(dense[:, 1:], axis=1)
    if abs(math.remainder(angle, 2.0 * math.pi)) < 1e-6 and sines.max() > 1e-9:
        # Unturned at the start, so any axis was right there: take the one the body turns about.
        first = int(np.argmax(sines > 1e-9))
        axis = dense[first, 1:] / sines[first]
    turned = 2.0 * np.arctan2(sines, dense[:, 0])
    candidates = dense[:, 1:] / np.where(sines > 1e-9, sines, 1.0)[:, None]
    for i in range(len(dense)):
        if sines[i] > 1e-9:
            turn = float(turned[i])
            if float(candidates[i] @ axis) < 0.0:
                axis, turn = -candidates[i], -turn
            else:
                axis = candidates[i]
        else:
            turn = 0.0  # no turn: any axis will do, so keep the previous one
        angle = turn + 2.0 * math.pi * round((angle - turn) / (2.0 * math.pi))
        out[i] = (angle, *axis)
    return out


def channel_values(mode: str, quats: np.ndarray, turns: np.ndarray, references: np.ndarray):
    """(path, (B, K, channels) values) for B bodies' orientations `quats` (B, K, 4) keyed in
    rotation `mode`.

    `turns` (B, K - 1) are the angles each body turned between keys; `references` (B, channels)
    are each channel's values just before the first key, which the first key stays next to.
    """
    dense, keyed = _dense_paths(quats, turns)
    firsts = keyed[:, 0]
    if mode == "QUATERNION":
        values = _quaternion_chains(dense, firsts, references)
    else:
        chain = _axis_angle_chain if mode == "AXIS_ANGLE" else (
            lambda path, reference: _euler_chain(path, reference, mode))
        ends = [*firsts[1:], len(dense)]
        values = np.concatenate([chain(dense[first:end], reference) for first, end, reference
                                 in zip(firsts, ends, references, strict=True)])
    return path_for(mode), values[keyed]
