"""Compare an Impulse simulation of the user's scene with Blender's built-in rigid body world.

Impulse's side goes through the real Blender-object path (the bridge builds the World from the
scene, nothing is keyed); the built-in side mirrors exactly those bodies (see builtin_world).
Results go to a Text datablock, F-curves on an "Impulse Report" empty and, optionally, wireframe
ghosts keyed with the built-in trajectories. Only these outputs are added to the file.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import bpy
import numpy as np

from ... import solver
from ...solver import quaternion as quat
from ...solver.geometry import local_extents
from ..reading.bridge import build_world, frame_range
from . import charts, report, report_html
from .builtin_world import (
    MirrorBody,
    MirrorPart,
    MirrorSettings,
    origin_offset,
    simulate_builtin,
    write_keys,
)

TEXT_NAME = "Impulse vs Built-in"
REPORT_NAME = "Impulse Report"
GHOSTS_NAME = "Impulse Ghosts"
CONTACT_ACCELERATION = 0.5  # m/s² away from gravity that marks a body's first contact


PART_SHAPES = {solver.BOX: "box", solver.SPHERE: "sphere", solver.CAPSULE: "capsule",
               solver.CYLINDER: "cylinder", solver.CONE: "cone", solver.HULL: "hull",
               solver.MESH: "mesh"}


def shape_inertia(body: MirrorBody) -> np.ndarray:
    """Body-frame inertia the built-in derives from the shape: exact for a box, a solid sphere
    and a cylinder; for the others Bullet takes the box of the shape's bounds."""
    parts = body.mirror_parts()
    if not body.is_compound() and parts[0].shape == "sphere":
        return solver.sphere_inertia(body.mass, body.half_extents[0])
    if not body.is_compound() and parts[0].shape == "cylinder":
        r, h = body.half_extents[0], body.half_extents[2]
        across = body.mass * (r * r / 4.0 + h * h / 3.0)
        return np.diag([across, across, body.mass * r * r / 2.0])
    corners = np.concatenate([quat.rotate(np.asarray(p.orientation, dtype=float), p.points())
                              + p.position for p in parts])
    half = 0.5 * (corners.max(axis=0) - corners.min(axis=0))
    return solver.box_inertia(body.mass, half)


def momenta(run, bodies) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Kinetic energy (F+1,), linear momentum and angular momentum about the origin (F+1, 3).

    An Impulse run carries them, worked out in double precision from the solver's own state;
    its stored poses are float32 (what keys hold), too coarse for checks at 1e-9."""
    if isinstance(run, solver.Trajectory):
        return run.kinetic_energy, run.linear_momentum, run.angular_momentum
    dynamic = np.array([b.kind == "dynamic" for b in bodies])
    mass = np.array([b.mass for b in bodies])[dynamic]
    inertia = np.array([shape_inertia(b) for b in bodies]).reshape(-1, 3, 3)[dynamic]
    offsets = np.stack([origin_offset(b, run.orientations[:, j]) for j, b in enumerate(bodies)],
                       axis=1)[:, dynamic]  # shape centres -> centres of mass
    w = run.angular_velocities[:, dynamic]
    x = run.positions[:, dynamic] + offsets
    v = run.linear_velocities[:, dynamic] + np.cross(w, offsets)
    r = quat.to_matrix(run.orientations[:, dynamic])
    spin = np.einsum("fnij,njk,fnlk,fnl->fni", r, inertia, r, w)
    energy = 0.5 * (np.einsum("n,fni,fni->f", mass, v, v) + np.einsum("fni,fni->f", w, spin))
    linear = np.einsum("n,fni->fi", mass, v)
    angular = (mass[None, :, None] * np.cross(x, v) + spin).sum(axis=1)
    return energy, linear, angular


def first_contact(positions: np.ndarray, gravity: np.ndarray, fps: float) -> np.ndarray:
    """Per body, the first row whose acceleration is not gravity's (-1: never touched).

    Central second differences of the per-frame samples are exactly g in free flight for both
    engines' integrators, so any departure is a contact (found to within a frame).
    """
    if len(positions) < 3:
        return np.full(positions.shape[1], -1)
    acceleration = (positions[2:] - 2 * positions[1:-1] + positions[:-2]) * fps**2
    touched = np.linalg.norm(acceleration - gravity, axis=-1) > CONTACT_ACCELERATION
    return np.where(touched.any(axis=0), touched.argmax(axis=0) + 1, -1)


@dataclass
class BodyComparison:
    name: str
    kind: str
    position_rms: float  # metres
    position_max: float
    orientation_max: float  # degrees
    first_contact_impulse: int | None  # scene frame
    first_contact_builtin: int | None


@dataclass
class Comparison:
    scene: str
    frame_start: int
    frames: int
    fps: float
    bodies: list[BodyComparison]
    curves: dict[str, np.ndarray]  # per frame: "<engine>_<quantity>"
    notes: list[str] = field(default_factory=list)
    ghost_matrices: dict[str, np.ndarray] = field(default_factory=dict)  # name -> (F+1, 4, 4)

    def rows(self) -> list[dict]:
        return [vars(body).copy() for body in self.bodies]

    def summary(self) -> str:
        moving = [b for b in self.bodies if b.kind == "dynamic"]
        worst = max(moving, key=lambda b: b.position_max, default=None)
        if worst is None:
            return "No dynamic bodies to compare"
        return (f"{len(moving)} bodies, {self.frames} frames: largest difference "
                f"{worst.position_max:.3g} m ({worst.name})")

    def text(self) -> str:
        """The Text datablock's content: settings, per-body table, sampled scene totals."""
        lines = [f"Impulse vs Built-in: scene '{self.scene}', frames {self.frame_start}-"
                 f"{self.frame_start + self.frames} at {self.fps:g} fps", *self.notes, ""]
        lines += [report.format_table(self.rows(), list(vars(self.bodies[0])) if self.bodies
                                      else ["name"]), ""]
        stride = max(1, math.ceil((self.frames + 1) / 40))
        totals = [{"frame": self.frame_start + f, **{
            key: float(np.linalg.norm(values[f])) for key, values in self.curves.items()}}
            for f in range(0, self.frames + 1, stride)]
        lines += ["Scene totals (|vector| for momenta)", report.format_table(
            totals, ["frame", *self.curves])]
        return "\n".join(lines) + "\n"


def _mirror_parts(parts) -> tuple[MirrorPart, ...]:
    """The solver's parts of one body (world.geometry), in its shape frame, for Bullet."""
    return tuple(MirrorPart(
        shape=PART_SHAPES[part.kind],
        half_extents=tuple(local_extents(part).tolist()),
        position=tuple(np.asarray(part.position, dtype=float).tolist()),
        orientation=tuple(quat.from_matrix(np.asarray(part.rotation, dtype=float)).tolist()),
        vertices=part.hull.vertices if part.hull is not None else
        part.mesh.vertices if part.mesh is not None else None,
        triangles=part.mesh.triangles if part.mesh is not None else None) for part in parts)


def _mirror_bodies(world, links, trajectory) -> list[MirrorBody]:
    """The bodies Impulse built, in the World's order, as the built-in should see them: the
    solver's own parts (a hull as simplified), the centre of mass where the solver has it.

    The initial velocity is the shape centre's, v + ω × (centre - com).
    """
    state = world.bodies
    offsets = quat.rotate(trajectory.orientations[0], state.com_offset)
    velocities = trajectory.linear_velocities[0] - np.cross(
        trajectory.angular_velocities[0], offsets)
    kinds = {link.index: (link.name, link.kind) for link in links}
    bodies = []
    for i in range(len(state)):
        name, kind = kinds[i]
        parts = _mirror_parts(world.geometry.parts[i])
        bodies.append(MirrorBody(
            name=name,
            shape=parts[0].shape if len(parts) == 1 else "compound",
            half_extents=tuple(state.half_extents[i].tolist()),
            position=tuple(trajectory.positions[0, i].tolist()),
            orientation=tuple(trajectory.orientations[0, i].tolist()),
            kind=kind,
            mass=float(state.mass[i]) if kind == "dynamic" else 1.0,
            restitution=float(state.restitution[i]),
            friction=float(state.friction[i]),
            linear_damping=float(state.linear_damping[i]),
            angular_damping=float(state.angular_damping[i]),
            linear_velocity=tuple(velocities[i].tolist()),
            angular_velocity=tuple(trajectory.angular_velocities[0, i].tolist()),
            path=(trajectory.positions[:, i], trajectory.orientations[:, i])
            if kind == "kinematic" else None,
            parts=parts,
            center_of_mass=tuple(state.com_offset[i].tolist())))
    return bodies


def _inertia_notes(bodies: Sequence[MirrorBody]) -> list[str]:
    """Bullet derives a body's inertia from its collision shape, not from the mesh."""
    rough = [b.name for b in bodies if b.kind == "dynamic" and (
        b.is_compound() or b.mirror_parts()[0].shape not in ("box", "sphere", "cylinder"))]
    if not rough:
        return []
    named = ", ".join(rough[:3]) + (f" and {len(rough) - 3} more" if len(rough) > 3 else "")
    return [f"Note: the built-in gives {named} the inertia of the box around the shape (its "
            "approximation for capsules, cones, hulls and compounds, about the centre of mass); "
            "Impulse the closed mesh's, or the shape's exact one"]


def _body_rows(bodies, impulse, builtin, gravity, start) -> list[BodyComparison]:
    distance = np.linalg.norm(impulse.positions - builtin.positions, axis=-1)
    dots = np.abs(np.sum(impulse.orientations * builtin.orientations, axis=-1))
    angle = np.degrees(2 * np.arccos(np.clip(dots, 0.0, 1.0)))
    contact_i = first_contact(impulse.positions, gravity, impulse.fps)
    contact_b = first_contact(builtin.positions, gravity, builtin.fps)
    return [BodyComparison(
        name=body.name, kind=body.kind,
        position_rms=float(np.sqrt(np.mean(distance[:, j] ** 2))),
        position_max=float(distance[:, j].max()),
        orientation_max=float(angle[:, j].max()),
        first_contact_impulse=_frame(start, contact_i[j], body),
        first_contact_builtin=_frame(start, contact_b[j], body))
        for j, body in enumerate(bodies)]


def _frame(start: int, index: int, body: MirrorBody) -> int | None:
    """Scene frame of a first contact; None when it never touched or does not move freely."""
    return int(start + index) if index >= 0 and body.kind == "dynamic" else None


def compare_scene(scene, depsgraph=None, frame_start=None, frame_end=None,
                  blender_damping: bool = False) -> Comparison:
    """Simulate the scene with Impulse and with the built-in world; raises BakeError on bad
    input. The scene and its objects are not changed."""
    start, end = frame_range(scene, frame_start, frame_end)
    depsgraph = depsgraph or bpy.context.evaluated_depsgraph_get()
    world, links, warnings = build_world(scene, depsgraph, start, end)
    impulse = world.simulate(end - start)
    bodies = _mirror_bodies(world, links, impulse)
    settings = scene.impulse
    gravity = np.asarray(world.gravity, dtype=float)
    mirror = MirrorSettings(
        frames=end - start, fps=impulse.fps, gravity=tuple(gravity),
        substeps=settings.substeps, iterations=settings.iterations,
        restitution_combine=settings.restitution_combine,
        friction_combine=settings.friction_combine, blender_damping=blender_damping)
    builtin = simulate_builtin(bodies, mirror, source=scene)
    energy, linear, angular = momenta(builtin, bodies)
    curves = {
        "impulse_kinetic_energy": np.asarray(impulse.kinetic_energy),
        "builtin_kinetic_energy": energy,
        "impulse_linear_momentum": np.asarray(impulse.linear_momentum),
        "builtin_linear_momentum": linear,
        "impulse_angular_momentum": np.asarray(impulse.angular_momentum),
        "builtin_angular_momentum": angular,
        "position_difference_max": np.linalg.norm(
            impulse.positions - builtin.positions, axis=-1).max(axis=1),
    }
    notes = [f"Warning: {w}" for w in warnings]
    notes += [f"Note: the built-in multiplies {k} pair values; per-body values were fitted to "
              f"Impulse's rule, worst pair off by {v:.3g}" for k, v in builtin.pair_mismatch.items()
              if v > 1e-9]
    notes.append("Damping: Blender's defaults" if blender_damping else "Damping: zero in both")
    notes += _inertia_notes(bodies)
    notes.append("Units: m, degrees, J, kg m/s, kg m²/s (about the origin); first contact: the "
                 "frame whose acceleration departs from gravity")
    ghosts = {link.name: link.world_matrices(builtin.positions[:, link.index],
                                             builtin.orientations[:, link.index])
              for link in links if link.kind == "dynamic"}
    return Comparison(scene.name, start, end - start, impulse.fps,
                      _body_rows(bodies, impulse, builtin, gravity, start), curves, notes,
                      ghosts)


# ---- outputs in the file ----

def write_text(comparison: Comparison):
    text = bpy.data.texts.get(TEXT_NAME) or bpy.data.texts.new(TEXT_NAME)
    text.from_string(comparison.text())
    return text


def own_collection(scene, name: str):
    collection = bpy.data.collections.get(name) or bpy.data.collections.new(name)
    if collection.name not in scene.collection.children:
        scene.collection.children.link(collection)
    return collection


def remove_objects(objects) -> None:
    """Objects with the actions and data only they use (ghosts share the user's meshes)."""
    for obj in list(objects):
        action = obj.animation_data.action if obj.animation_data else None
        bpy.data.objects.remove(obj)
        if action is not None and action.users == 0:
            bpy.data.actions.remove(action)


def curve_empty(scene, name: str, frame_start: int, curves: dict[str, np.ndarray]):
    """An empty (replacing one of that name) whose custom properties carry the curves, keyed
    one value per frame from frame_start, so they can be read in the Graph Editor."""
    old = bpy.data.objects.get(name)
    if old is not None:
        remove_objects([old])
    empty = bpy.data.objects.new(name, None)
    own_collection(scene, REPORT_NAME).objects.link(empty)
    for key, values in curves.items():
        values = np.asarray(values, dtype=float).reshape(len(values), -1)
        empty[key] = values[0].tolist() if values.shape[1] > 1 else float(values[0, 0])
        write_keys(empty, f'["{key}"]', frame_start + np.arange(len(values)), values)
    return empty


def write_report_curves(scene, comparison: Comparison):
    return curve_empty(scene, REPORT_NAME, comparison.frame_start, comparison.curves)


QUANTITIES = (  # curve name, panel title, y axis, unit
    ("kinetic_energy", "kinetic energy", "kinetic energy (J)", "J"),
    ("linear_momentum", "linear momentum", "|linear momentum| (kg m/s)", "kg m/s"),
    ("angular_momentum", "angular momentum about the origin", "|angular momentum| (kg m²/s)",
     "kg m²/s"),
)


def chart_panels(comparison: Comparison) -> list[charts.Panel]:
    """Scene totals of both engines over the scene's frames, and their largest distance."""
    frames = comparison.frame_start + np.arange(comparison.frames + 1)
    axis = f"frame ({comparison.fps:g} fps)"
    panels = [charts.Panel(title, frames, {
        engine: np.linalg.norm(np.asarray(comparison.curves[f"{engine}_{key}"]).reshape(
            comparison.frames + 1, -1), axis=1) for engine in ("impulse", "builtin")},
        axis, label, unit) for key, title, label, unit in QUANTITIES]
    panels.append(charts.Panel(
        "largest distance between the engines' bodies", frames,
        {"difference": comparison.curves["position_difference_max"]}, axis,
        "distance (m)", "m", 0.01))
    return panels


def write_files(comparison: Comparison, directory: Path, stem: str) -> list[Path]:
    """<stem>_compare.txt/.json/.csv and a PNG of the scene totals in `directory`;
    RuntimeError if the chart cannot be drawn, OSError if the folder is not writable."""
    directory.mkdir(parents=True, exist_ok=True)
    columns = list(vars(comparison.bodies[0])) if comparison.bodies else ["name"]
    text = directory / f"{stem}_compare.txt"
    text.write_text(comparison.text())
    curves = {key: np.asarray(values).tolist() for key, values in comparison.curves.items()}
    return [
        text,
        report.write_json(comparison.rows(), directory / f"{stem}_compare.json",
                          scene=comparison.scene, frame_start=comparison.frame_start,
                          frames=comparison.frames, fps=comparison.fps, notes=comparison.notes,
                          summary=comparison.summary(), curves=curves),
        report.write_csv(comparison.rows(), directory / f"{stem}_compare.csv", columns),
        charts.curve_chart(chart_panels(comparison), directory / f"{stem}_compare.png",
                           f"Impulse vs built-in: scene '{comparison.scene}'", columns=2),
    ]


def write_report(entries: Sequence[tuple[str, Comparison, str]], directory: Path,
                 failures: Sequence[str] = ()) -> Path:
    """report.html for a run over files: per (label, comparison, stem) written by write_files,
    the notes, the per-body table and <stem>_compare.png; then the files that failed."""
    sections = [report_html.Section(
        f"{label}: scene '{comparison.scene}', frames {comparison.frame_start}-"
        f"{comparison.frame_start + comparison.frames}", comparison.rows(),
        list(vars(comparison.bodies[0])) if comparison.bodies else ["name"],
        [comparison.summary(), *comparison.notes], [directory / f"{stem}_compare.png"])
        for label, comparison, stem in entries]
    if failures:
        sections.append(report_html.Section("Files that could not be compared", [], [],
                                            list(failures)))
    summary = f"{len(entries)} file(s) compared" + (
        f", {len(failures)} failed" if failures else "")
    return report_html.write_page(directory / "report.html", "Impulse vs Blender's built-in "
                                  "rigid body world", summary, sections)


def add_ghosts(scene, comparison: Comparison) -> list:
    """Wireframe copies of the dynamic bodies keyed with the built-in's trajectories."""
    remove_ghosts()
    collection = own_collection(scene, GHOSTS_NAME)
    frames = comparison.frame_start + np.arange(comparison.frames + 1)
    ghosts = []
    in_scene = {obj.name: obj for obj in scene.objects}  # one pass, not a search per name
    for name, matrices in comparison.ghost_matrices.items():
        source = in_scene[name]
        ghost = bpy.data.objects.new(f"{name} (built-in)", source.data)
        collection.objects.link(ghost)
        ghost.display_type = "WIRE"
        ghost.rotation_mode = "QUATERNION"
        scale = np.linalg.norm(matrices[0, :3, :3], axis=0)
        scale[0] *= np.sign(np.linalg.det(matrices[0, :3, :3])) or 1.0
        rotations = matrices[:, :3, :3] / scale
        u, _, vt = np.linalg.svd(rotations)
        quats = quat.from_matrix(u @ vt)
        ghost.scale = scale
        write_keys(ghost, "location", frames, matrices[:, :3, 3])
        write_keys(ghost, "rotation_quaternion", frames, _continuous(quats))
        ghosts.append(ghost)
    return ghosts


def _continuous(quats: np.ndarray) -> np.ndarray:
    """Flip signs so neighbouring keys interpolate the short way."""
    flips = np.sum(quats[1:] * quats[:-1], axis=1) < 0
    signs = np.cumprod(np.concatenate([[1.0], np.where(flips, -1.0, 1.0)]))
    return quats * signs[:, None]


def remove_ghosts() -> int:
    """Remove the ghosts collection with its objects and their actions; return how many."""
    collection = bpy.data.collections.get(GHOSTS_NAME)
    if collection is None:
        return 0
    count = len(collection.objects)
    remove_objects(collection.objects)
    bpy.data.collections.remove(collection)
    return count
