"""Blender scene -> solver World, and simulated shape frames -> object transforms.

Everything is read at the bake's start frame. The solver works in metres on shape centres; the
`BodyLink` of each object keeps the fixed matrix from its shape frame to its world matrix, so
keys can be written for the object's origin whatever its centre of mass, scale or parent.
"""

import math
from dataclasses import dataclass, field

import bpy
import numpy as np

from ... import solver
from ...solver import quaternion
from .. import sampling
from ..units import length_text
from . import fit_cache, visibility
from .air import air_coefficients
from .fitting import ShapeError, fit_body, in_compound
from .shapes import MeshPoints, Shape, determinant, inverse, matrix_array, up_direction

ANIMATION_VELOCITY_SPAN = 0.1  # frames between the samples of the start velocity estimate
ANIMATION_SAMPLES = ANIMATION_VELOCITY_SPAN * np.arange(-2, 3)  # frames from the start
# A convex hull simplified (to the solver's face budget) so that its mesh reaches out of it by
# more than this fraction of the body's thickness is worth a warning.
HULL_ERROR = 0.01
NAMED_HULLS = 3


class BakeError(Exception):
    """A problem with the user's scene; the message is one readable line."""


@dataclass(frozen=True)
class BodyLink:
    """How one Blender object rides on one solver body (matrices in Blender units)."""

    name: str  # names survive undo, Python references to objects do not
    index: int
    kind: str  # "dynamic" | "static" | "kinematic"
    object_from_shape: np.ndarray  # (4, 4): object world matrix expressed in the shape frame
    parent_matrix: np.ndarray  # (4, 4): parent world @ parent inverse; identity when unparented
    unit_scale: float
    shape: str = "box"  # a value of shapes.KINDS: what the solver collides
    half_extents: np.ndarray = field(default_factory=lambda: np.zeros(3))  # metres; its bounds
    mass: float = 0.0  # kg; 0 for passive bodies (infinitely heavy)

    def world_matrices(self, positions: np.ndarray, orientations: np.ndarray) -> np.ndarray:
        """(K, 4, 4) object world matrices for simulated shape centres (metres) and frames."""
        return world_matrices([self], positions[:, None], orientations[:, None])[:, 0]


def world_matrices(links, positions: np.ndarray, orientations: np.ndarray) -> np.ndarray:
    """(K, B, 4, 4) object world matrices of B `links` for their simulated shape centres
    (K, B, 3) (metres) and frames (K, B, 4), all bodies in one go."""
    frames = np.zeros((*positions.shape[:2], 4, 4))
    frames[..., :3, :3] = quaternion.to_matrix(orientations)
    frames[..., :3, 3] = positions / np.array([link.unit_scale for link in links])[:, None]
    frames[..., 3, 3] = 1.0
    return frames @ np.array([link.object_from_shape for link in links])


def evaluated_depsgraph(scene):
    """The context's depsgraph for the context's scene (what the user sees), else the scene's."""
    if scene == bpy.context.scene:
        return bpy.context.evaluated_depsgraph_get()
    view_layer = scene.view_layers[0]
    if view_layer.depsgraph is None:  # a scene never shown has none until evaluated once
        view_layer.update()
    return view_layer.depsgraph


def frame_range(scene, frame_start=None, frame_end=None) -> tuple[int, int]:
    """The bake's frames: arguments first, then Scene.impulse, then the scene's own range."""
    settings = scene.impulse
    default = (
        (scene.frame_start, scene.frame_end)
        if settings.use_scene_range
        else (settings.frame_start, settings.frame_end)
    )
    start = default[0] if frame_start is None else int(frame_start)
    end = default[1] if frame_end is None else int(frame_end)
    if end < start:
        raise BakeError(f"Frame end ({end}) is before frame start ({start})")
    return start, end


def collect_bodies(scene, view_layer=None) -> tuple[list, list[str]]:
    """The enabled mesh objects, and warnings naming objects that are skipped or in conflict.

    Bodies hidden or disabled in the viewport or for render, or in excluded collections (of
    `view_layer`, by default the scene's first), are left out unless the World panel's Include
    Hidden is on: what the user cannot see should not push what they can.
    """
    enabled = [obj for obj in scene.objects if obj.impulse.enabled]
    warnings = []
    if not scene.impulse.include_hidden:
        shown = visibility.shown_objects(scene, view_layer or scene.view_layers[0])
        hidden = [obj.name for obj in enabled if obj.name not in shown]
        enabled = [obj for obj in enabled if obj.name in shown]
        if hidden:
            warnings.append(
                f"Left out {len(hidden)} hidden or disabled "
                f"{'body' if len(hidden) == 1 else 'bodies'}: {', '.join(hidden)} "
                "(World panel: Include Hidden Bodies simulates them)"
            )
    skipped = [obj.name for obj in enabled if obj.type != "MESH"]
    if skipped:
        warnings.append(f"Skipped non-mesh objects: {', '.join(skipped)}")
    builtin = [obj.name for obj in enabled if obj.rigid_body is not None]
    if builtin:
        names = ", ".join(builtin)
        warnings.append(f"Blender's own rigid body also moves {names}: it overrides the keys")
    return [obj for obj in enabled if obj.type == "MESH"], warnings


def _validate(bodies) -> None:
    active = [obj for obj in bodies if obj.impulse.body_type == "ACTIVE"]
    if not active:
        raise BakeError(
            "No active bodies: select meshes and press Add Active in the Impulse tab's Body panel"
        )
    linked = [obj.name for obj in active if obj.library]
    if linked:
        raise BakeError(
            f"Cannot key linked objects: {', '.join(linked)} "
            "(make a library override or make them local)"
        )
    meshes = [obj.name for obj in active if obj.impulse.shape == "MESH"]
    if meshes:
        raise BakeError(
            f"Shape Mesh is for passive bodies only (ground, walls, bowls): {', '.join(meshes)} "
            "is active; use Convex Hull, or Compound of convex child bodies, for a moving body"
        )
    for obj in bodies:
        _check_finite(obj)


def _check_finite(obj) -> None:
    """Settings a script (or a driver) set to NaN or infinity, named before the solver sees them."""
    settings = obj.impulse
    values = {
        "initial velocity": list(settings.initial_linear_velocity),
        "initial spin": list(settings.initial_angular_velocity),
        "mass": [settings.mass],
        "density": [settings.density],
        "bounciness": [settings.restitution],
        "friction": [settings.friction],
        "damping": [settings.linear_damping, settings.angular_damping],
        "rolling resistance": [settings.rolling_resistance],
        "drag or Magnus coefficient": [settings.drag_coefficient, settings.magnus_coefficient],
    }
    for what, numbers in values.items():
        if not all(math.isfinite(x) for x in numbers):
            raise BakeError(f"'{obj.name}' has a {what} that is not a number (NaN or infinite)")


def _kind(obj) -> str:
    settings = obj.impulse
    if settings.body_type == "ACTIVE":
        return "dynamic"
    return "kinematic" if settings.animated else "static"


def _polar(matrices: np.ndarray) -> np.ndarray:
    """Nearest rotations to (..., 3, 3) matrices; removes scale and round-off."""
    u, _, vt = np.linalg.svd(matrices)
    return u @ vt


def _shape_frame(shape: Shape, unit_scale: float) -> np.ndarray:
    frame = np.eye(4)
    frame[:3, :3] = shape.rotation
    frame[:3, 3] = shape.center / unit_scale
    return frame


def _mass_properties(obj, points: MeshPoints, shape: Shape) -> dict:
    """Mass, body-frame inertia about the centre of mass and its offset from the shape centre.

    A closed mesh weighs as itself (the shape only collides); an open one weighs as its box, or
    as any other shape, which the solver then gives that shape's own inertia.
    """
    settings = obj.impulse
    rotation = shape.rotation
    props = fit_cache.mass_properties(points)
    if not props.closed and shape.kind != "box":
        volume = shape.volume()
        return {"mass": settings.mass if settings.mass_mode == "MASS" else
                settings.density * volume}
    mass = settings.mass if settings.mass_mode == "MASS" else settings.density * props.volume
    inertia = np.asarray(props.inertia) * (mass / props.mass)
    offset = np.asarray(props.center_of_mass) - shape.center
    return {
        "mass": mass,
        "inertia": rotation.T @ inertia @ rotation,
        "center_of_mass": rotation.T @ offset,
    }


def _shape_motion(matrices: np.ndarray, start: np.ndarray, shape: Shape, unit_scale: float):
    """Shape centres (metres) and orientations riding on sampled object matrices."""
    frames = matrices @ inverse(start) @ _shape_frame(shape, unit_scale)
    return frames[:, :3, 3] * unit_scale, quaternion.from_matrix(_polar(frames[:, :3, :3]))


def _rotation_vectors(orientations: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """(n, 3) axis × angle of each orientation relative to `reference` (the short way)."""
    turn = quaternion.multiply(orientations, quaternion.conjugate(reference))
    turn = np.where(turn[:, :1] < 0.0, -turn, turn)
    sine = np.linalg.norm(turn[:, 1:], axis=1)
    angle = 2.0 * np.arctan2(sine, turn[:, 0])
    return turn[:, 1:] * (angle / np.where(sine > 0.0, sine, 1.0))[:, None]


def _animation_velocity(samples, start, shape, unit_scale, offset, fps) -> dict:
    """One-sided derivative of the object's own animation at the start frame (second order).

    `samples` are at ANIMATION_SAMPLES frames from the start. The motion leading into the start
    counts, where a keyed throw hands over to the simulation (a throw keyed up to the start frame
    and still after it would halve a central difference); when nothing moves before the start,
    the motion leaving it.
    """
    positions, orientations = _shape_motion(samples, start, shape, unit_scale)
    com = positions + quaternion.to_matrix(orientations) @ offset
    turns = _rotation_vectors(orientations, orientations[2])
    still_before = np.allclose(samples[:3], samples[2], rtol=0.0, atol=1e-9)
    weights, rows = (np.array([-3.0, 4.0, -1.0]), [2, 3, 4]) if still_before else (
        np.array([1.0, -4.0, 3.0]), [0, 1, 2])
    dt = 2.0 * ANIMATION_VELOCITY_SPAN / fps
    return {
        "linear_velocity": weights @ com[rows] / dt,
        "angular_velocity": weights @ turns[rows] / dt,
    }


def _gravity(scene, unit_scale: float) -> np.ndarray:
    if scene.impulse.use_gravity and scene.use_gravity:
        return np.array(scene.gravity, dtype=float) * unit_scale
    return np.zeros(3)


def _up(scene) -> np.ndarray:
    try:
        return up_direction(scene.gravity)
    except ValueError as error:
        raise BakeError(f"The scene's {error}") from error


def _measure(obj, depsgraph, scene, up: np.ndarray, warnings: list[str], counts, read: dict):
    """(obj, points, shape, start world matrix) at the current frame, or BakeError naming it.

    counts(obj) says whether an object is a body of this bake (a compound's parts must be);
    read: the meshes read so far (see shapes.mesh_points).
    """
    start_matrix = matrix_array(obj.evaluated_get(depsgraph).matrix_world)
    if not np.all(np.isfinite(start_matrix)):
        raise BakeError(
            f"'{obj.name}' has a location, rotation or scale that is not a number (NaN or "
            "infinite)"
        )
    if abs(determinant(start_matrix[:3, :3])) < 1e-12:
        raise BakeError(f"'{obj.name}' has zero scale on an axis")
    passive = obj.impulse.body_type == "PASSIVE"
    try:
        points, shape = fit_body(obj, depsgraph, scene.unit_settings.scale_length,
                                 up if passive else None, counts, read)
    except ShapeError as error:
        raise BakeError(str(error)) from error
    if not np.all(np.isfinite(points.vertices)):
        raise BakeError(f"Mesh '{obj.name}' has vertices that are not numbers (NaN or infinite)")
    if shape.thickened and not passive:
        thickness = length_text(scene, 2.0 * float(shape.half_extents.min()))
        warnings.append(f"'{obj.name}' is flat: it is given a thickness of {thickness}")
    return obj, points, shape, start_matrix


def build_world(scene, depsgraph, frame_start=None, frame_end=None):
    """Validate the scene and build the solver World -> (World, list[BodyLink], warnings).

    Raises BakeError without changing anything; the scene's current frame is restored.
    """
    start, end = frame_range(scene, frame_start, frame_end)
    bodies, warnings = collect_bodies(scene, depsgraph.view_layer)
    names = {obj.name for obj in bodies}

    def counts(obj) -> bool:
        return obj.name in names

    bodies = [obj for obj in bodies if not in_compound(obj, counts)]  # parts ride on a body
    _validate(bodies)
    settings = scene.impulse
    unit_scale = scene.unit_settings.scale_length
    fps = scene.render.fps / scene.render.fps_base
    saved = (scene.frame_current, scene.frame_subframe)
    try:
        scene.frame_set(start)
        up = _up(scene)
        read: dict = {}
        measured = [_measure(obj, depsgraph, scene, up, warnings, counts, read)
                    for obj in bodies]
        world = solver.World(
            gravity=tuple(_gravity(scene, unit_scale)),
            fps=fps,
            substeps=settings.substeps,
            iterations=settings.iterations,
            method=settings.method.lower(),
            restitution_combine=settings.restitution_combine.lower(),
            friction_combine=settings.friction_combine.lower(),
        )
        paths = _kinematic_paths(scene, depsgraph, measured, start, end, unit_scale)
        velocities = _start_velocities(scene, depsgraph, measured, start, unit_scale, fps)
        links = [
            _add_body(world, entry, unit_scale, settings, paths, velocities)
            for entry in measured
        ]
        warnings.extend(_simplified_hulls(world, links, measured, scene))
        warnings.extend(_dropped_triangles(world, links, measured))
    finally:
        scene.frame_set(saved[0], subframe=saved[1])
    return world, links, warnings


def _simplified_hulls(world, links, measured, scene) -> list[str]:
    """One warning naming the bodies whose meshes stick out of their simplified hulls."""
    named = []
    for link, (_obj, _points, shape, _matrix) in zip(links, measured, strict=True):
        if shape.kind in ("hull", "compound"):
            error = world.hull_error(link.index)
            if error > HULL_ERROR * 2.0 * float(shape.half_extents.min()):
                named.append((error, link.name))
    if not named:
        return []
    named.sort(reverse=True)
    listed = ", ".join(f"'{name}' ({length_text(scene, error)})"
                       for error, name in named[:NAMED_HULLS])
    more = f" and {len(named) - NAMED_HULLS} more" if len(named) > NAMED_HULLS else ""
    return [f"Convex hulls simplified to at most 64 faces: the mesh reaches out of the hull of "
            f"{listed}{more} by that much (Compound of convex parts is closer)"]


def _dropped_triangles(world, links, measured) -> list[str]:
    """Mesh bodies whose zero-area triangles the solver left out (they collide with nothing)."""
    out = []
    for link, (_obj, _points, shape, _matrix) in zip(links, measured, strict=True):
        dropped = world.dropped_triangles(link.index) if shape.kind == "mesh" else 0
        if dropped:
            out.append(f"'{link.name}' has {dropped} degenerate (zero-area) "
                       f"{'triangle' if dropped == 1 else 'triangles'}, left out of its Mesh "
                       "shape")
    return out


def _kinematic_paths(scene, depsgraph, measured, start, end, unit_scale) -> dict:
    """Per animated passive body: its shape path sampled once per substep over the bake."""
    moving = [entry for entry in measured if _kind(entry[0]) == "kinematic"]
    if not moving:
        return {}
    substeps = scene.impulse.substeps
    times = start + np.arange((end - start) * substeps + 1) / substeps
    samples = sampling.world_matrices(scene, depsgraph, [entry[0] for entry in moving], times)
    return {
        obj.name: _shape_motion(samples[:, j], matrix, shape, unit_scale)
        for j, (obj, _points, shape, matrix) in enumerate(moving)
    }


def _start_velocities(scene, depsgraph, measured, start, unit_scale, fps) -> dict:
    """Initial velocities of the COM (metres per second), from settings or from animation."""
    out = {}
    animated = []
    for obj, points, shape, matrix in measured:
        if _kind(obj) != "dynamic":
            continue
        if obj.impulse.use_animation_velocity:
            animated.append((obj, points, shape, matrix))
        else:
            out[obj.name] = {
                "linear_velocity": np.array(obj.impulse.initial_linear_velocity) * unit_scale,
                "angular_velocity": np.array(obj.impulse.initial_angular_velocity),
            }
    if animated:
        times = start + ANIMATION_SAMPLES
        samples = sampling.world_matrices(scene, depsgraph, [entry[0] for entry in animated], times)
        for j, (obj, points, shape, matrix) in enumerate(animated):
            offset = _mass_properties(obj, points, shape).get("center_of_mass", np.zeros(3))
            out[obj.name] = _animation_velocity(
                samples[:, j], matrix, shape, unit_scale, offset, fps
            )
    return out


def _add_body(world, entry, unit_scale, scene_settings, paths, velocities) -> BodyLink:
    obj, points, shape, start_matrix = entry
    kind = _kind(obj)
    settings = obj.impulse
    extra: dict = {}
    if kind == "dynamic":
        extra.update(_mass_properties(obj, points, shape))
        extra.update(velocities[obj.name])
        extra.update(air_coefficients(shape, settings.drag_coefficient,
                                      settings.magnus_coefficient, scene_settings.air_density))
        extra.update(linear_damping=settings.linear_damping,
                     angular_damping=settings.angular_damping,
                     rolling_resistance=settings.rolling_resistance)
    elif kind == "kinematic":
        extra.update(path=paths[obj.name], path_samples_per_frame=scene_settings.substeps)
    try:
        index = world.add_body(
            **shape.solver_arguments(),
            position=tuple(shape.center),
            orientation=tuple(shape.orientation),
            kind=kind,
            restitution=settings.restitution,
            friction=settings.friction,
            **extra,
        )
    except ValueError as error:  # whatever the checks above missed, still one readable line
        raise BakeError(f"'{obj.name}' cannot be simulated: {error}") from error
    # Whatever sits between the basis and the world matrix (parents of any type, constraints),
    # as it is at the start frame.
    parent = start_matrix @ matrix_array(obj.matrix_basis.inverted())
    object_from_shape = inverse(_shape_frame(shape, unit_scale)) @ start_matrix
    return BodyLink(obj.name, index, kind, object_from_shape, parent, unit_scale,
                    shape.kind, shape.half_extents, float(extra.get("mass", 0.0)))


