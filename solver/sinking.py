"""Continuous collision for pairs that start a substep already overlapping.

CCD holds a fast body at its time of first contact, measured to a gap of minus the slop. A
pair already that deep has no such time, and was left to the contacts alone: a small body
pressed into a slab by a fast heavy one then got the heavy one's speed and left through the
slab's far side within a substep (a 1 cm box under a 1,000 kg box at 50 m/s went 9 m through a
10 cm slab). Such a pair is held instead at the time it would sink a slop deeper than its
deepest point is now; a body that only slides or turns in place, or moves out, is not held.
"""

import numpy as np

from .constraints import Manifolds


def sinking_targets(contacts: Manifolds, rows: np.ndarray, slop: np.ndarray) -> np.ndarray:
    """(len(rows),) target gaps for the CCD of contact rows `rows` that are already within
    their slop: a slop deeper than the deepest point now (than the slop, where a row holds no
    points)."""
    separation = np.where(contacts.mask[rows], contacts.separation[rows], np.inf).min(axis=1)
    return np.minimum(np.where(np.isfinite(separation), separation, 0.0), -slop) - slop
