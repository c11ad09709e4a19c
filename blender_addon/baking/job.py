"""Bake a scene: build the world, step it, write keyframes; and clear bakes again.

`BakeJob` steps one frame at a time so the modal operator can show progress and cancel; nothing
in the scene changes until `finish()`, so cancelling is simply not finishing. `bake_scene` runs a
job to the end for scripts, the command line and verification.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ... import solver
from ..keying import bake_keys, keyframes
from ..reading.bridge import BakeError, build_world, evaluated_depsgraph, frame_range
from ..units import length_text
from . import checks, kernels

__all__ = ["BakeError", "BakeJob", "BakeReport", "bake_scene", "clear_bake"]


@dataclass
class BakeReport:
    """What a bake did, for the Bake panel, the command line's JSON and verification."""

    bodies: int
    frames: int  # frames keyed, the start and the end included
    seconds: float
    contacts: int  # peak contact points in one frame
    max_penetration: float  # metres
    trajectory: solver.Trajectory
    warnings: list[str] = field(default_factory=list)
    objects: list[str] = field(default_factory=list)  # object names in body order
    # Seconds per phase: "read" (scene to bodies), "compile" (kernels compiled or loaded from the
    # JIT cache, in any phase; 0 once this session has them), "simulate", "write" (trajectory
    # and keys).
    timings: dict[str, float] = field(default_factory=dict)


class BakeJob:
    """One bake in progress. Construction validates and raises BakeError, changing nothing."""

    def __init__(self, scene, depsgraph=None, frame_start=None, frame_end=None):
        self._started = time.perf_counter()
        self.timings = dict.fromkeys(("read", "compile", "simulate", "write"), 0.0)
        with kernels.timed(self.timings, "read"):
            self.scene = scene
            self.frame_start, self.frame_end = frame_range(scene, frame_start, frame_end)
            if depsgraph is None:
                depsgraph = evaluated_depsgraph(scene)
            self._depsgraph = depsgraph
            self.world, self.links, self.warnings = build_world(
                scene, depsgraph, self.frame_start, self.frame_end
            )
            self._snapshots = [self.world.snapshot()]
        self._cancelled = False

    @property
    def total_frames(self) -> int:
        return self.frame_end - self.frame_start

    @property
    def done_frames(self) -> int:
        return len(self._snapshots) - 1

    def compile(self, announce: Callable[[str], None] | None = None) -> None:
        """Compile the solver's kernels if the JIT cache lacks them, else leave them to load on
        their first calls (see kernels); `step` does this itself, so call it first only to
        announce a compile."""
        self.timings["compile"] += kernels.make_ready(announce, self.world.other_shapes,
                                                      load=False)

    def step(self) -> bool:
        """Simulate one more frame; False once the whole range is simulated."""
        if self._cancelled:
            raise solver.Cancelled("the bake was cancelled")
        if self.done_frames < self.total_frames:
            self.compile()
            with kernels.timed(self.timings, "simulate"):
                self.world.step()
                self._snapshots.append(self.world.snapshot())
        return self.done_frames < self.total_frames

    def cancel(self) -> None:
        """Drop the simulation; no keys were written, so the scene is exactly as it was."""
        self._cancelled = True
        self._snapshots = []

    def finish(self) -> BakeReport:
        """Write the keys of every active body and the scene's last-bake statistics."""
        while self.step():
            pass
        with kernels.timed(self.timings, "write"):
            fps = self.scene.render.fps / self.scene.render.fps_base
            trajectory = solver.Trajectory.from_snapshots(self._snapshots, fps)
            self.warnings += bake_keys.write_bake(
                self.scene, self._depsgraph, self.links, trajectory, self.frame_start
            )
        explained = checks.bake_warnings(
            trajectory, self.links, self.world, self.frame_start,
            lambda metres: length_text(self.scene, metres),
        )
        report = BakeReport(
            bodies=len(self.links),
            frames=self.total_frames + 1,
            seconds=time.perf_counter() - self._started,
            contacts=int(np.max(trajectory.contact_count)),
            max_penetration=float(np.max(trajectory.max_penetration)),
            warnings=[*self.warnings, *explained],
            trajectory=trajectory,
            objects=[link.name for link in self.links],
            timings=dict(self.timings),
        )
        _store_statistics(self.scene, report)
        return report


def _store_statistics(scene, report: BakeReport) -> None:
    stats = scene.impulse
    stats.last_bodies = report.bodies
    stats.last_frames = report.frames
    stats.last_seconds = report.seconds
    stats.last_contacts = report.contacts
    stats.last_penetration = report.max_penetration / scene.unit_settings.scale_length
    for phase, seconds in report.timings.items():
        setattr(stats, f"last_{phase}_seconds", seconds)


def bake_scene(
    scene,
    frame_start=None,
    frame_end=None,
    progress: Callable[[int, int], None] | None = None,
    announce: Callable[[str], None] | None = None,
) -> BakeReport:
    """Bake to the end (scripts, command line): progress(done, total) is called per frame;
    announce(line) gets kernels.FIRST_USE before a first-use compile and its time after."""
    job = BakeJob(scene, frame_start=frame_start, frame_end=frame_end)
    job.compile(announce)
    while job.step():
        if progress is not None:
            progress(job.done_frames, job.total_frames)
    if progress is not None:
        progress(job.done_frames, job.total_frames)
    return job.finish()


def clear_bake(scene, objects=None) -> int:
    """Remove Impulse's keys and restore previous actions and transforms; return the count."""
    candidates = scene.objects if objects is None else objects
    baked = [obj for obj in candidates if obj.impulse.bake_state.baked]
    for obj in baked:
        keyframes.restore(obj)
    return len(baked)
