"""Sleeping: bodies that have rested for a while stop being simulated until something touches them.

As in Box2D, a body's rest timer runs while it moves slower than the tolerances and restarts
otherwise; bodies connected through contacts (islands) sleep together, only when every body of
the island has rested long enough, so a box is never frozen while its neighbour still slides.
A sleeping body that touches an awake one is in that body's island, so it wakes with it. Everything
is decided from the state in a fixed order, so it is deterministic.
"""

import numpy as np
from numba import njit

from . import linalg
from .bodies import DYNAMIC, STATIC

LINEAR_TOLERANCE = 0.05  # m/s
ANGULAR_TOLERANCE = np.radians(2.0)  # rad/s
TIME_TO_SLEEP = 0.5  # s


@njit(cache=True)
def update_rest_time(rest_time, velocity, angular_velocity, awake, dt) -> None:
    """Advance the rest timers of awake bodies in place by dt (a frame), restart those of moving
    ones; sleeping bodies keep theirs, so their island stays asleep until something wakes it."""
    for i in range(len(rest_time)):
        if awake[i]:
            slow = (linalg.norm(linalg.row(velocity, i)) < LINEAR_TOLERANCE
                    and linalg.norm(linalg.row(angular_velocity, i)) < ANGULAR_TOLERANCE)
            rest_time[i] = rest_time[i] + dt if slow else 0.0


@njit(cache=True)
def decide(rest_time, kind, velocity, angular_velocity, points, a, b) -> np.ndarray:
    """(N,) the bodies simulated this frame (awake_bodies over the rows a-b holding points);
    a body that a moving kinematic one touches has its rest timer restarted first, and the
    dynamic bodies left asleep stand still."""
    count = len(kind)
    dynamic = np.empty(count, dtype=np.bool_)
    moving = np.empty(count, dtype=np.bool_)
    for i in range(count):
        dynamic[i] = kind[i] == DYNAMIC
        moving[i] = (kind[i] != DYNAMIC and kind[i] != STATIC
                     and linalg.norm(linalg.row(velocity, i))
                     + linalg.norm(linalg.row(angular_velocity, i)) > 0)
    held = np.flatnonzero(points > 0)
    touching_a, touching_b = a[held], b[held]
    for k in range(len(held)):
        i, j = touching_a[k], touching_b[k]
        if moving[j]:
            rest_time[i] = 0.0
        if moving[i]:
            rest_time[j] = 0.0
    awake = awake_bodies(rest_time, dynamic, touching_a, touching_b)
    for i in range(count):
        if dynamic[i] and not awake[i]:
            for k in range(3):
                velocity[i, k] = 0.0
                angular_velocity[i, k] = 0.0
    return awake


@njit(cache=True)
def awake_bodies(rest_time, dynamic, a, b) -> np.ndarray:
    """(N,) True for dynamic bodies whose island (dynamic bodies joined through contacts a-b)
    is not ready to sleep. Islands are found by union-find, each labelled by its lowest body."""
    count = len(rest_time)
    label = np.arange(count)
    for k in range(len(a)):
        if dynamic[a[k]] and dynamic[b[k]]:
            root_a, root_b = _root(label, a[k]), _root(label, b[k])
            label[max(root_a, root_b)] = min(root_a, root_b)
    ready = np.ones(count, dtype=np.bool_)
    for i in range(count):
        label[i] = _root(label, i)
        ready[label[i]] &= rest_time[i] >= TIME_TO_SLEEP
    awake = np.zeros(count, dtype=np.bool_)
    for i in range(count):
        awake[i] = dynamic[i] and not ready[label[i]]
    return awake


@njit(cache=True)
def row_islands(rows, a, b, dynamic, member) -> tuple:
    """(island, count): the island of each row of `rows` that is a `member` (bool per row), the
    rows joined through the dynamic bodies they share (the static and kinematic ones, which no
    impulse moves, join nothing), numbered from 0 in order of first row; -1 for the others."""
    parent = np.arange(len(dynamic))
    for r in range(len(rows)):
        p = rows[r]
        if member[r] and dynamic[a[p]] and dynamic[b[p]]:
            i, j = _root(parent, a[p]), _root(parent, b[p])
            parent[max(i, j)] = min(i, j)
    number = np.full(len(dynamic), -1, dtype=np.int64)  # by root
    island = np.full(len(rows), -1, dtype=np.int64)
    count = 0
    for r in range(len(rows)):
        if member[r]:
            p = rows[r]
            root = _root(parent, a[p] if dynamic[a[p]] else b[p])
            if number[root] < 0:
                number[root] = count
                count += 1
            island[r] = number[root]
    return island, count


@njit(cache=True)
def _root(label, i) -> int:
    """The island label of body i, halving the path on the way."""
    while label[i] != i:
        label[i] = label[label[i]]
        i = label[i]
    return i
