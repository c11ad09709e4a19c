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
    """F + 1 rows (row 0 = the initial state) of every Snapshot field, stacked; fps frames/s."""

    positions: np.ndarray  # (F+1, N, 3)
    orientations: np.ndarray  # (F+1, N, 4)
    linear_velocities: np.ndarray  # (F+1, N, 3)
    angular_velocities: np.ndarray  # (F+1, N, 3)
    contact_count: np.ndarray  # (F+1,)
    kinetic_energy: np.ndarray
    potential_energy: np.ndarray
    linear_momentum: np.ndarray  # (F+1, 3)
    angular_momentum: np.ndarray  # (F+1, 3)
    max_penetration: np.ndarray
    push_out_work: np.ndarray  # (F+1,) cumulative, J
    fps: float

    @classmethod
    def from_snapshots(cls, snapshots: list[Snapshot], fps: float) -> "Trajectory":
        """Stack snapshots taken frame by frame (e.g. by a modal operator stepping a World)."""
        names = [f.name for f in fields(cls) if f.name != "fps"]
        return cls(**{n: np.array([getattr(s, n) for s in snapshots]) for n in names},
                   fps=float(fps))

    @property
    def frames(self) -> int:
        """Number of steps F (rows minus the initial state)."""
        return len(self.positions) - 1

    @property
    def times(self) -> np.ndarray:
        """(F+1,) seconds since the start of each row."""
        return np.arange(len(self.positions)) / self.fps
