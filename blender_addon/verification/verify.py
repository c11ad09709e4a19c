"""Closed-form verification: textbook scenes run through Impulse and the built-in world.

Each canonical scene (verify_scenes) goes to Impulse's solver World and to Blender's rigid body
world in a throwaway scene; the table shows where each engine agrees with the closed form. The
built-in is measured, not judged: the tolerances are Impulse's.
"""

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import bpy
import numpy as np

from ... import solver
from . import charts, report, report_html
from .builtin_world import simulate_builtin
from .compare import curve_empty
from .verify_scenes import Canonical, canonical_scenes

__all__ = ["Verification", "canonical_scenes", "run_impulse", "verify", "write_blender_outputs",
           "write_outputs"]

TEXT_NAME = "Impulse Verification"


# ---- running ----

def run_impulse(scene: Canonical):
    """The scene through Impulse's solver World (the contract API), as a Trajectory."""
    s = scene.settings
    world = solver.World(gravity=s.gravity, fps=s.fps, substeps=s.substeps,
                         iterations=s.iterations, restitution_combine=s.restitution_combine,
                         friction_combine=s.friction_combine)
    for body in scene.bodies:
        world.add_body(
            shape=body.shape,
            size=body.half_extents[0] if body.shape == "sphere" else body.half_extents,
            position=body.position, orientation=body.orientation, kind=body.kind,
            mass=body.mass if body.kind == "dynamic" else None,
            restitution=body.restitution, friction=body.friction,
            linear_velocity=body.linear_velocity, angular_velocity=body.angular_velocity)
    return world.simulate(s.frames)


@dataclass
class Verification:
    rows: list[dict]
    panels: list[charts.Panel]  # curves per scene for the chart
    failures: list[str]  # scenes that could not be built or run
    seconds: float
    scenes: list[dict] = field(default_factory=list)  # per scene run: bodies and settings

    @property
    def passed(self) -> int:
        return sum(bool(row["impulse_ok"]) for row in self.rows)

    def summary(self) -> str:
        failed = f", {len(self.failures)} scene(s) failed" if self.failures else ""
        return (f"Impulse within tolerance on {self.passed}/{len(self.rows)} checks"
                f"{failed} ({self.seconds:.1f} s)")


def _rows(scene: Canonical, impulse_run, builtin_run) -> list[dict]:
    rows = []
    for check in scene.checks:
        impulse_value, builtin_value = check.measure(impulse_run), check.measure(builtin_run)
        rows.append({
            "scene": scene.name, "quantity": check.quantity, "unit": check.unit,
            "closed_form": check.closed_form, "impulse": impulse_value,
            "impulse_error": check.error(impulse_value), "builtin": builtin_value,
            "builtin_error": check.error(builtin_value), "tolerance": check.tolerance,
            "error_kind": "relative" if check.relative else "absolute",
            "impulse_ok": check.error(impulse_value) <= check.tolerance,
        })
    return rows


SETTINGS = ("scene", "bodies", "frames", "fps", "substeps", "iterations", "gravity")


def _settings(scene: Canonical) -> dict:
    """What both engines were given, for the report's settings table."""
    s = scene.settings
    moving = sum(body.kind == "dynamic" for body in scene.bodies)
    return {"scene": scene.name, "bodies": f"{moving} moving, {len(scene.bodies) - moving} fixed",
            "frames": s.frames, "fps": s.fps, "substeps": s.substeps, "iterations": s.iterations,
            "gravity": "off" if not any(s.gravity) else f"{s.gravity[2]:g} m/s² (z)"
            if not any(s.gravity[:2]) else str(s.gravity)}


def _panel(scene: Canonical, impulse_run, builtin_run) -> charts.Panel:
    """The scene's signal over time for both engines and the closed form, when there is one."""
    times = np.arange(scene.settings.frames + 1) / scene.settings.fps
    curves = {"impulse": scene.signal(impulse_run), "builtin": scene.signal(builtin_run)}
    if scene.closed_form is not None:
        curves["closed_form"] = scene.closed_form(times)
    unit = re.search(r"\(([^()]*)\)$", scene.signal_label)
    return charts.Panel(scene.name, times, curves, "time (s)", scene.signal_label,
                        unit.group(1) if unit else "", scene.signal_span)


def verify(scenes: list[Canonical] | None = None,
           progress: Callable[[str], None] | None = None) -> Verification:
    """Run every scene through both engines; a scene that fails is reported, not raised."""
    started = time.perf_counter()
    result = Verification([], [], [], 0.0)
    scenes = canonical_scenes() if scenes is None else scenes
    for index, scene in enumerate(scenes, start=1):
        try:
            impulse_run = run_impulse(scene)
            builtin_run = simulate_builtin(scene.bodies, scene.settings, copy="NEW")
            rows = _rows(scene, impulse_run, builtin_run)
        except Exception as error:  # one bad scene must not hide the others' results
            line = f"{scene.name}: could not be run ({type(error).__name__}: {error})"
            result.failures.append(line)
        else:
            result.rows += rows
            result.scenes.append(_settings(scene))
            result.panels.append(_panel(scene, impulse_run, builtin_run))
            line = scene.name + ": " + "; ".join(
                f"{r['quantity']} {r['closed_form']:.4g} | Impulse {r['impulse']:.4g} | "
                f"built-in {r['builtin']:.4g}" for r in rows)
        if progress is not None:
            progress(f"[{index}/{len(scenes)}] {line}")
    result.seconds = time.perf_counter() - started
    return result


NOTES = (
    "Closed form: the textbook result for each scene; tolerances are those of Impulse's "
    "validation suite. The built-in world (Bullet) runs the same bodies with zero damping and is "
    "measured, not judged.",
    "Error: |value - closed form| in the row's unit, or divided by the closed form where the "
    "error kind is relative; rows outside Impulse's tolerance are red.",
    "The built-in world can give different results for identical runs in one session (measured: "
    "Newton's cradle, last ball at 1.0 or 1.175 times the first ball's speed): its columns are "
    "one sample.",
)


def write_outputs(result: Verification, directory: Path) -> list[Path]:
    """verify.json, verify.csv, two PNG charts and report.html (all of it on one page) in
    `directory`; RuntimeError if the charts cannot be drawn, OSError if it is not writable."""
    directory.mkdir(parents=True, exist_ok=True)
    files = [
        report.write_json(result.rows, directory / "verify.json", summary=result.summary(),
                          failures=result.failures, scenes=result.scenes),
        report.write_csv(result.rows, directory / "verify.csv"),
    ]
    if result.rows:
        files.append(charts.error_chart(result.rows, directory / "verify_errors.png",
                                        "Error of each check relative to its tolerance"))
    if result.panels:
        files.append(charts.curve_chart(result.panels, directory / "verify_curves.png",
                                        "Each scene over time: Impulse, built-in, closed form"))
    section = report_html.Section(
        "Closed-form checks", result.rows, report.COLUMNS, [*result.failures, *NOTES],
        [f for f in files if f.suffix == ".png"], [not r["impulse_ok"] for r in result.rows])
    scenes = report_html.Section("What each scene gives both engines", result.scenes, SETTINGS,
                                 ["Built-in: Blender's rigid body world on a temporary scene, "
                                  "damping zero, the same substeps and iterations."])
    files.append(report_html.write_page(
        directory / "report.html", "Impulse verification",
        f"{result.summary()} · Blender {bpy.app.version_string}", [section, scenes]))
    return files


def write_blender_outputs(result: Verification, scene):
    """The table as a Text datablock and each scene's curves on an empty (Graph Editor)."""
    text = bpy.data.texts.get(TEXT_NAME) or bpy.data.texts.new(TEXT_NAME)
    text.from_string("\n".join([result.summary(), *result.failures, "",
                                report.format_table(result.rows)]) + "\n")
    curves = {re.sub(r"\W+", "_", f"{panel.title} {engine}"): values
              for panel in result.panels for engine, values in panel.curves.items()}
    return text, curve_empty(scene, TEXT_NAME, 0, curves)
