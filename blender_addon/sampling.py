"""Evaluated world matrices of objects at (sub)frame times, the scene's current frame kept.

The reader samples animated bodies and start velocities with it, the key writer moving parents
and constrained objects; neither goes through the other for it.
"""

import math

import numpy as np


def world_matrices(scene, depsgraph, objects, times) -> np.ndarray:
    """(S, n, 4, 4) evaluated world matrices of `objects` at the S (sub)frame `times`."""
    saved = (scene.frame_current, scene.frame_subframe)
    out = np.empty((len(times), len(objects), 4, 4))
    try:
        for i, time in enumerate(times):
            frame = math.floor(time)
            scene.frame_set(frame, subframe=float(time - frame))
            for j, obj in enumerate(objects):
                out[i, j] = np.array(obj.evaluated_get(depsgraph).matrix_world, dtype=float)
    finally:
        scene.frame_set(saved[0], subframe=saved[1])
    return out
