"""The JSON reports of the command line: one per file, one summary, written whole or not at all.

A report carries the frame range, the timings and a hash of the baked keys, so two bakes of the
same file (on two workers of a farm, or a farm and this machine) can be checked to be identical.
"""

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from ..baking.job import BakeReport
from .blend_io import temporary_name

Result = dict[str, Any]
"""One file's JSON report: input, output, ok, and either the bake's numbers or `error`."""

KEYED_PATHS = ("location", "rotation_euler", "rotation_quaternion", "rotation_axis_angle")


def statistics(report: BakeReport) -> Result:
    """The JSON-ready numbers of a bake (everything but the trajectory)."""
    trajectory: Any = report.trajectory
    energy = trajectory.kinetic_energy + trajectory.potential_energy
    return {
        "bodies": report.bodies,
        "frames": report.frames,
        "seconds": report.seconds,
        "timings": dict(report.timings),  # seconds per phase: read, compile, simulate, write
        "peak_contacts": report.contacts,
        "max_penetration": report.max_penetration,
        "energy_start": float(energy[0]),
        "energy_end": float(energy[-1]),
        "warnings": list(report.warnings),
        "objects": list(report.objects),
    }


def _curves(obj) -> list:
    """The object's F-curves in its assigned action slot (layered actions, Blender 4.4+)."""
    animation = obj.animation_data
    if animation is None or animation.action is None or animation.action_slot is None:
        return []
    curves = []
    for layer in animation.action.layers:
        for strip in layer.strips:
            channelbag = strip.channelbag(animation.action_slot)
            if channelbag is not None:
                curves.extend(channelbag.fcurves)
    return curves


def key_hash(scene, names: list[str]) -> str:
    """SHA-256 of the location and rotation keys (frame, value) of the named objects."""
    digest = hashlib.sha256()
    in_scene = {obj.name: obj for obj in scene.objects}  # one pass, not a search per name
    for name in sorted(names):
        curves = [c for c in _curves(in_scene[name]) if c.data_path in KEYED_PATHS]
        for curve in sorted(curves, key=lambda c: (c.data_path, c.array_index)):
            co = np.empty(len(curve.keyframe_points) * 2, dtype=np.float32)
            curve.keyframe_points.foreach_get("co", co)
            digest.update(f"{name}\0{curve.data_path}\0{curve.array_index}\0".encode())
            digest.update(co.tobytes())
    return digest.hexdigest()


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to a temporary name beside `path`, then rename: never a half-written file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = temporary_name(path)
    try:
        partial.write_bytes(data)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def write_json(path: Path, data: Result) -> None:
    """Strict JSON: readers in other languages reject NaN, so it must never get this far."""
    write_atomically(path, (json.dumps(data, indent=2, allow_nan=False) + "\n").encode())
