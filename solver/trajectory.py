"""What a simulation hands back: per-frame snapshots of the state and of the checks on it.

The statistics are the conservation checks of the source documents (energy, momentum, angular
momentum) plus contact counts and penetration, so a user can see at a glance whether a bake is
physically sound. Momenta are of the dynamic bodies only (static and kinematic ones are
infinitely heavy); angular momentum is about the world origin. The split-impulse push-out moves
overlapping bodies apart without momentum: what it lifts against gravity is counted in
push_out_work, so kinetic plus potential energy minus push_out_work never rises.
"""

from dataclasses import dataclass, fields

import numpy as np


class Cancelled(Exception):  # noqa: N818 (the public name is part of the API)
    """Raised by World.simulate when should_cancel() returned True."""


@dataclass(frozen=True)
class Snapshot:
    """The state at one frame: shape centres, orientations, velocities (of the COM) and stats."""

    frame: int
    positions: np.ndarray  # (N, 3)
    orientations: np.ndarray  # (N, 4)
    linear_velocities: np.ndarray  # (N, 3)
    angular_velocities: np.ndarray  # (N, 3)
    contact_count: int
    kinetic_energy: float
    potential_energy: float
    linear_momentum: np.ndarray  # (3,)
    angular_momentum: np.ndarray  # (3,)
    max_penetration: float
    push_out_work: float  # J put in so far by the push-out lifting bodies against gravity


@dataclass(frozen=True)
class Trajectory:
    """F + 1 rows (row 0 = the initial state) of every Snapshot field, stacked; fps frames/s.

    The poses (positions, orientations) are float32, what Blender keys hold anyway, so keys
    written from them are the same and a long bake of many bodies takes half the memory;
    velocities and the statistics stay float64 (the conservation checks need them).
    """

    positions: np.ndarray  # (F+1, N, 3) float32
    orientations: np.ndarray  # (F+1, N, 4) float32
    linear_velocities: np.ndarray  # (F+1, N, 3) float64
    angular_velocities: np.ndarray  # (F+1, N, 3) float64
    contact_count: np.ndarray  # (F+1,) int64
    kinetic_energy: np.ndarray  # (F+1,) float64, like all the statistics
    potential_energy: np.ndarray
    linear_momentum: np.ndarray  # (F+1, 3)
    angular_momentum: np.ndarray  # (F+1, 3)
    max_penetration: np.ndarray
    push_out_work: np.ndarray  # (F+1,) cumulative, J
    fps: float

    @classmethod
    def empty(cls, frames: int, bodies: int, fps: float) -> "Trajectory":
        """Rows for the initial state and `frames` steps of `bodies` bodies, to fill with
        record() as the steps are taken (stored once, never copied)."""
        rows = int(frames) + 1
        shapes = {"positions": ((bodies, 3), np.float32),
                  "orientations": ((bodies, 4), np.float32),
                  "linear_velocities": ((bodies, 3), np.float64),
                  "angular_velocities": ((bodies, 3), np.float64),
                  "contact_count": ((), np.int64), "linear_momentum": ((3,), np.float64),
                  "angular_momentum": ((3,), np.float64)}
        return cls(**{f.name: np.zeros((rows, *shapes.get(f.name, ((), np.float64))[0]),
                                       dtype=shapes.get(f.name, ((), np.float64))[1])
                      for f in fields(cls) if f.name != "fps"}, fps=float(fps))

    def record(self, row: int, snapshot: Snapshot) -> None:
        """Write a snapshot into row `row`."""
        for f in fields(self):
            if f.name != "fps":
                getattr(self, f.name)[row] = getattr(snapshot, f.name)

    @classmethod
    def from_snapshots(cls, snapshots: list[Snapshot], fps: float) -> "Trajectory":
        """Stack snapshots taken frame by frame (e.g. by a modal operator stepping a World)."""
        trajectory = cls.empty(len(snapshots) - 1, len(snapshots[0].positions), fps)
        for row, snapshot in enumerate(snapshots):
            trajectory.record(row, snapshot)
        return trajectory

    @property
    def frames(self) -> int:
        """Number of steps F (rows minus the initial state)."""
        return len(self.positions) - 1

    @property
    def times(self) -> np.ndarray:
        """(F+1,) seconds since the start of each row."""
        return np.arange(len(self.positions)) / self.fps
