"""Sleeping: bodies that have rested for a while stop being simulated until something touches them.

As in Box2D, a body's rest timer runs while it moves slower than the tolerances and restarts
otherwise; bodies connected through contacts (islands) sleep together, only when every body of
the island has rested long enough, so a box is never frozen while its neighbour still slides.
A sleeping body that touches an awake one is in that body's island, so it wakes with it. Everything
is decided from the state with array operations in a fixed order, so it is deterministic.
"""

import numpy as np

LINEAR_TOLERANCE = 0.05  # m/s
ANGULAR_TOLERANCE = np.radians(2.0)  # rad/s
TIME_TO_SLEEP = 0.5  # s


def update_rest_time(rest_time, velocity, angular_velocity, awake, dt: float) -> None:
    """Advance the rest timers of awake bodies in place by dt (a frame), restart those of moving
    ones; sleeping bodies keep theirs, so their island stays asleep until something wakes it."""
    slow = (np.linalg.norm(velocity, axis=1) < LINEAR_TOLERANCE) & (
        np.linalg.norm(angular_velocity, axis=1) < ANGULAR_TOLERANCE)
    rest_time[awake] = np.where(slow[awake], rest_time[awake] + dt, 0.0)


def islands(count: int, a: np.ndarray, b: np.ndarray, linked: np.ndarray) -> np.ndarray:
    """(N,) island label per body (the lowest body index in it), joining a[k]-b[k] where linked.

    Labels spread along the links by repeated minimum, with pointer jumping, until stable.
    """
    label = np.arange(count)
    a, b = a[linked], b[linked]
    while True:
        before = label.copy()
        low = np.minimum(label[a], label[b])
        np.minimum.at(label, a, low)
        np.minimum.at(label, b, low)
        label = label[label]
        if np.array_equal(label, before):
            return label


def awake_bodies(rest_time, dynamic, a, b) -> np.ndarray:
    """(N,) True for dynamic bodies whose island (through contacts a-b) is not ready to sleep."""
    linked = dynamic[a] & dynamic[b]
    label = islands(len(rest_time), a, b, linked)
    ready = np.ones(len(rest_time), dtype=bool)
    np.logical_and.at(ready, label, rest_time >= TIME_TO_SLEEP)
    return dynamic & ~ready[label]
