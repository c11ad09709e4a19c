"""Keys for a finished simulation: every active body, in its parent space, all or nothing.

The last step of a bake (scene -> bodies -> world -> trajectory -> keys): it needs the bodies'
links and the trajectory, and reads the scene only for what keys are relative to (moving
parents, constraints). Any failure rolls every object back to how it was before.
"""

import math

import numpy as np

from ..reading.bridge import world_matrices
from . import keyframes, parent_space, rollback, rotations

# Bodies per numpy pass over the trajectory: a pile of 1,000 bodies' arrays all at once outgrow
# the CPU's caches and take twice as long (every body's keys are computed on their own).
CHUNK = 64


def _chunks(count: int) -> list[slice]:
    return [slice(first, first + CHUNK) for first in range(0, count, CHUNK)]


def key_rows(frames: int, key_step: int) -> np.ndarray:
    """Trajectory rows to key: every `key_step`-th and the last."""
    return np.union1d(np.arange(0, frames, key_step), [frames]).astype(int)


def _turn_warning(name: str, turns: np.ndarray, frames: np.ndarray, key_step: int) -> str | None:
    if not len(turns) or turns.max() <= math.pi:
        return None
    worst = int(np.argmax(turns))
    advice = "set Key Every to 1" if key_step > 1 else "it spins over half a turn per frame; " \
        "more Substeps keep a fast spin stable"
    return (
        f"'{name}' turns {math.degrees(turns[worst]):.0f}° between the keys at frames "
        f"{frames[worst]} and {frames[worst + 1]}: in-between frames (motion blur, subframes) "
        f"may show it turning the wrong way; {advice}"
    )


def _constraint_warnings(mode: str, constrained, distances: dict) -> list[str]:
    if mode == "KEEP":
        names = ", ".join(
            f"'{obj.name}' ({', '.join(c.name for c in parent_space.active_constraints(obj))})"
            for obj in constrained
        )
        return [
            f"Object constraints change the baked motion of {names}: set Constraints to "
            "Visual Transform or Mute in the Bake panel"
        ]
    far = {name: d for name, d in distances.items() if d > 1e-4}
    muted = [f"Muted the constraints of '{obj.name}' (Clear unmutes them)" for obj in constrained]
    return (muted if mode == "MUTE" else []) + [
        f"'{name}' stays up to {d:.3g} units from the simulation: its constraints cannot follow "
        "it (e.g. Limit Rotation); set Constraints to Mute"
        for name, d in far.items()
    ]


def write_bake(scene, depsgraph, links, trajectory, frame_start: int) -> list[str]:
    """Key every dynamic body of `links` from `trajectory`; return warnings about the keys."""
    settings = scene.impulse
    rows = key_rows(trajectory.frames, settings.key_step)
    frames = rows + frame_start
    dynamic = [link for link in links if link.kind == "dynamic"]
    bodies = [link.index for link in dynamic]
    worlds, turns = {}, {}
    positions, orientations = trajectory.positions[rows], trajectory.orientations[rows]
    for part in _chunks(len(dynamic)):
        chunk, index = dynamic[part], bodies[part]
        keyed = world_matrices(chunk, positions[:, index], orientations[:, index])
        turned = rotations.key_turns(
            rotations.frame_turns(trajectory.orientations[:, index],
                                  trajectory.angular_velocities[:, index], trajectory.fps),
            rows,
        )
        for j, link in enumerate(chunk):
            worlds[link.name], turns[link.name] = keyed[:, j], turned[:, j]
    in_scene = {obj.name: obj for obj in scene.objects}  # one pass, not a search per name
    objects = [in_scene[link.name] for link in dynamic]
    journal = rollback.Journal(objects)
    try:
        basis = parent_space.bases(scene, depsgraph, links, frames, worlds,
                                   {obj.name: obj for obj in objects})

        def key(obj, matrices, parts=None) -> None:
            keyframes.write(obj, frames, matrices, turns[obj.name], settings.interpolation, parts)

        for obj in objects:
            keyframes.begin(obj, int(frames[0]), int(frames[-1]))
        parts = [values for part in _chunks(len(objects)) for values in keyframes.channel_parts(
            objects[part], [basis[obj.name] for obj in objects[part]],
            [turns[obj.name] for obj in objects[part]])]
        for obj, values in zip(objects, parts, strict=True):
            key(obj, basis[obj.name], values)
        warnings = [
            w
            for obj in objects
            if (w := _turn_warning(obj.name, turns[obj.name], frames, settings.key_step))
        ]
        constrained = [obj for obj in objects if parent_space.active_constraints(obj)]
        mode = settings.constraint_mode
        distances: dict = {}
        if constrained and mode != "KEEP":
            if mode == "MUTE":
                for obj in constrained:
                    keyframes.mute_constraints(obj, parent_space.active_constraints(obj))
            distances = parent_space.visual(
                scene, depsgraph, constrained, frames, worlds, basis, key
            )
        if constrained:
            warnings += _constraint_warnings(mode, constrained, distances)
    except BaseException:
        journal.rollback()
        raise
    return warnings
