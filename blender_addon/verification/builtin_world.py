"""Blender's built-in rigid body world (Bullet) as a reference run for Impulse's bodies.

Every body is mirrored as a small proxy (its box or sphere, origin at the shape centre, so the
shapes are Impulse's own and not Blender's bounds of the mesh) in a temporary full copy of the
scene, which is removed again together with every data-block it created: the user's file is left
as it was. The built-in world has no initial-velocity setting, so each dynamic body is keyed as
Animated for the first frames, moving at its initial velocity, and then switched off; Bullet
takes the velocity of the last animated step over exactly.
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Literal

import bpy
import numpy as np

from ...solver import quaternion as quat
from ...solver.materials import combine

SceneCopy = Literal["NEW", "EMPTY", "LINK_COPY", "FULL_COPY"]  # bpy.ops.scene.new types

HANDOVER_FRAMES = 2
"""Frames of Animated motion before the start frame that hand the initial velocity over."""

START = HANDOVER_FRAMES + 1
"""Frame of the temporary scene that is Impulse's frame 0."""

_CONSTANT, _LINEAR = 0, 1  # FCurve keyframe interpolation enum values for foreach_set


@dataclass(frozen=True)
class MirrorBody:
    """One body as Impulse sees it: shape centre pose, shape, mass and per-body material."""

    name: str
    shape: str  # "box" or "sphere"
    half_extents: tuple[float, float, float]  # a sphere's radius three times
    position: tuple[float, float, float]
    orientation: tuple[float, float, float, float]
    kind: str = "dynamic"  # "dynamic", "static" or "kinematic"
    mass: float = 1.0
    restitution: float = 0.5
    friction: float = 0.5
    linear_damping: float = 0.0  # fractions lost per second, as the built-in defines them
    angular_damping: float = 0.0
    linear_velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)  # of the shape centre
    angular_velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)
    path: tuple[np.ndarray, np.ndarray] | None = None  # kinematic: per-frame positions, quats


@dataclass(frozen=True)
class MirrorSettings:
    """World settings shared by both runs; pair values follow Impulse's combine rules."""

    frames: int
    fps: float = 24.0
    gravity: tuple[float, float, float] = (0.0, 0.0, -9.81)
    substeps: int = 10
    iterations: int = 10
    restitution_combine: str = "multiply"
    friction_combine: str = "multiply"
    blender_damping: bool = False  # keep Blender's default damping instead of zero


@dataclass
class BuiltinRun:
    """Per-frame samples of the built-in world, row 0 = Impulse's frame 0."""

    positions: np.ndarray  # (F+1, N, 3) shape centres
    orientations: np.ndarray  # (F+1, N, 4)
    linear_velocities: np.ndarray  # (F+1, N, 3) central differences of the samples
    angular_velocities: np.ndarray  # (F+1, N, 3)
    fps: float
    pair_mismatch: dict[str, float] = field(default_factory=dict)  # worst |built-in - Impulse|


def per_body_values(values: np.ndarray, movable: np.ndarray, rule: str) -> tuple[np.ndarray, float]:
    """Per-body coefficients whose products (the built-in's pair rule) match Impulse's pairs.

    Exact for "multiply"; otherwise a least-squares fit in log space over every pair with a
    movable body, since products cannot reproduce an average or a minimum in general. Returns the
    values and the worst pair mismatch.
    """
    values = np.asarray(values, dtype=float)
    rule = rule.lower()
    if rule == "multiply" or len(values) < 2:
        return values, 0.0
    i, j = np.triu_indices(len(values), 1)
    keep = movable[i] | movable[j]
    i, j = i[keep], j[keep]
    target = np.log(np.maximum(combine(rule, values[i], values[j]), 1e-6))
    normal = np.zeros((len(values), len(values)))
    np.add.at(normal, (i, i), 1.0)
    np.add.at(normal, (j, j), 1.0)
    np.add.at(normal, (i, j), 1.0)
    np.add.at(normal, (j, i), 1.0)
    rhs = np.zeros(len(values))
    np.add.at(rhs, i, target)
    np.add.at(rhs, j, target)
    fitted = np.exp(np.linalg.lstsq(normal, rhs, rcond=None)[0])
    mismatch = np.abs(fitted[i] * fitted[j] - np.exp(target))
    return fitted, float(mismatch.max(initial=0.0))


@contextmanager
def temporary_scene(source: bpy.types.Scene | None, copy: SceneCopy = "FULL_COPY"
                    ) -> Iterator[bpy.types.Scene]:
    """A copy of `source` (default: the current scene) made by bpy.ops.scene.new(type=copy);
    afterwards the window's scene and bpy.data are as they were."""
    wm = bpy.context.window_manager
    window = bpy.context.window or (wm.windows[0] if wm.windows else None)
    if window is None:
        raise RuntimeError("the built-in rigid body world needs a window (none is open)")
    before = set(bpy.data.user_map())
    previous = window.scene
    with bpy.context.temp_override(window=window, scene=source or bpy.context.scene):
        bpy.ops.scene.new(type=copy)
    scene = window.scene
    try:
        yield scene
    finally:
        window.scene = previous
        bpy.data.scenes.remove(scene)
        bpy.data.batch_remove([i for i in bpy.data.user_map() if i not in before])


def write_keys(obj, data_path: str, frames, values, interpolation: int = _LINEAR) -> None:
    """Key obj.<data_path> at `frames` in bulk (one F-curve per component)."""
    anim = obj.animation_data or obj.animation_data_create()
    if anim.action is None:
        anim.action = bpy.data.actions.new(obj.name)
    frames = np.asarray(frames, dtype=float)
    values = np.asarray(values, dtype=float).reshape(len(frames), -1)
    for index in range(values.shape[1]):
        curve = anim.action.fcurve_ensure_for_datablock(obj, data_path, index=index)
        curve.keyframe_points.clear()
        curve.keyframe_points.add(len(frames))
        curve.keyframe_points.foreach_set("co", np.column_stack([frames, values[:, index]]).ravel())
        curve.keyframe_points.foreach_set("interpolation", [interpolation] * len(frames))
        curve.update()


def _proxy_mesh(body: MirrorBody) -> bpy.types.Mesh:
    """Vertices only: the bounds are all the built-in's BOX and SPHERE shapes read."""
    h = np.asarray(body.half_extents, dtype=float)
    if body.shape == "sphere":
        corners = np.vstack([np.eye(3), -np.eye(3)]) * h[0]
    else:
        corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * h
    mesh = bpy.data.meshes.new(f"Impulse mirror {body.name}")
    mesh.from_pydata(corners.tolist(), [], [])
    return mesh


def _handover(obj, body: MirrorBody, fps: float) -> None:
    """Animated for HANDOVER_FRAMES frames at the initial velocity, then simulated."""
    steps = np.arange(-HANDOVER_FRAMES, 1)
    times = steps / fps
    positions = np.asarray(body.position) + np.outer(times, body.linear_velocity)
    omega = np.asarray(body.angular_velocity, dtype=float)
    turns = quat.from_axis_angle(np.tile(omega, (len(steps), 1)), np.linalg.norm(omega) * times)
    orientations = quat.multiply(turns, np.asarray(body.orientation, dtype=float))
    frames = START + steps
    write_keys(obj, "location", frames, positions)
    write_keys(obj, "rotation_quaternion", frames, orientations)
    write_keys(obj, "rigid_body.kinematic", [frames[0], START + 1], [1.0, 0.0], _CONSTANT)


def _mirror(scene, collection, body: MirrorBody, restitution: float, friction: float,
            settings: MirrorSettings):
    obj = bpy.data.objects.new(f"Impulse mirror {body.name}", _proxy_mesh(body))
    obj.rotation_mode = "QUATERNION"
    obj.location = body.position
    obj.rotation_quaternion = body.orientation
    scene.collection.objects.link(obj)
    collection.objects.link(obj)  # membership in the world's collection adds the rigid body
    rb = obj.rigid_body
    rb.type = "ACTIVE" if body.kind == "dynamic" else "PASSIVE"
    rb.collision_shape = "SPHERE" if body.shape == "sphere" else "BOX"
    rb.mass = max(float(body.mass), 0.001)
    rb.restitution = restitution
    rb.friction = friction
    if not settings.blender_damping:
        rb.linear_damping = body.linear_damping
        rb.angular_damping = body.angular_damping
    if body.kind == "dynamic":
        _handover(obj, body, settings.fps)
    elif body.kind == "kinematic" and body.path is not None:
        rb.kinematic = True
        frames = START + np.arange(len(body.path[0]))
        write_keys(obj, "location", frames, body.path[0])
        write_keys(obj, "rotation_quaternion", frames, body.path[1])
    return obj


def _set_world(scene, collection, settings: MirrorSettings) -> None:
    if scene.rigidbody_world is None:
        with bpy.context.temp_override(scene=scene):
            bpy.ops.rigidbody.world_add()
    world = scene.rigidbody_world
    world.collection = collection
    world.constraints = None
    world.enabled = True
    world.time_scale = 1.0
    world.substeps_per_frame = settings.substeps
    world.solver_iterations = settings.iterations
    world.point_cache.frame_start = 1
    world.point_cache.frame_end = START + settings.frames
    scene.use_gravity = True
    scene.gravity = settings.gravity
    scene.render.fps = max(1, round(settings.fps))
    scene.render.fps_base = scene.render.fps / settings.fps
    scene.unit_settings.scale_length = 1.0


def rotation_vectors(q: np.ndarray) -> np.ndarray:
    """Axis times angle (shortest way) of unit quaternions (..., 4)."""
    q = np.where(q[..., :1] < 0, -q, q)
    sine = np.linalg.norm(q[..., 1:], axis=-1, keepdims=True)
    angle = 2.0 * np.arctan2(sine, q[..., :1])
    return q[..., 1:] * np.where(sine > 1e-15, angle / np.maximum(sine, 1e-300), 2.0)


def sampled_velocities(positions: np.ndarray, orientations: np.ndarray, fps: float, gravity,
                       substeps: int):
    """Velocities from per-frame samples, exact in free flight under uniform gravity.

    Central differences (one-sided at the ends, corrected by gravity's half-frame change) give
    the slope of the parabola through the samples; semi-implicit Euler positions lag the true
    velocity by g h / 2 (h: the substep), which is taken off again.
    """
    gravity = np.asarray(gravity, dtype=float)
    linear = np.gradient(positions, 1.0 / fps, axis=0) - gravity / (2 * fps * substeps)
    if len(positions) > 1:
        linear[0] -= gravity / (2 * fps)
        linear[-1] += gravity / (2 * fps)
    delta = np.zeros(positions.shape)
    if len(positions) > 1:
        steps = rotation_vectors(quat.multiply(orientations[1:], quat.conjugate(orientations[:-1])))
        delta[0], delta[-1] = steps[0], steps[-1]
        delta[1:-1] = (steps[1:] + steps[:-1]) / 2
    return linear, delta * fps


def simulate_builtin(bodies: Sequence[MirrorBody], settings: MirrorSettings,
                     source: bpy.types.Scene | None = None, copy: SceneCopy = "FULL_COPY",
                     ) -> BuiltinRun:
    """Run the bodies in the built-in world for settings.frames frames and sample every frame.

    The run happens in a temporary scene made from `source` (the current scene by default) by
    bpy.ops.scene.new(type=copy): a full copy for comparisons, "NEW" for scenes of our own.
    """
    movable = np.array([b.kind == "dynamic" for b in bodies])
    restitution, e_miss = per_body_values(
        np.array([b.restitution for b in bodies]), movable, settings.restitution_combine)
    friction, mu_miss = per_body_values(
        np.array([b.friction for b in bodies]), movable, settings.friction_combine)
    with temporary_scene(source, copy) as scene:
        collection = bpy.data.collections.new("Impulse mirror")
        _set_world(scene, collection, settings)
        proxies = [_mirror(scene, collection, body, float(e), float(mu), settings)
                   for body, e, mu in zip(bodies, restitution, friction, strict=True)]
        places, turns = [], []
        for frame in range(1, START + settings.frames + 1):
            scene.frame_set(frame)
            if frame >= START:
                matrices = [p.matrix_world for p in proxies]
                places.append([m.translation[:] for m in matrices])
                turns.append([m.to_quaternion()[:] for m in matrices])
    positions = np.array(places, dtype=float).reshape(-1, len(bodies), 3)
    orientations = quat.normalize(np.array(turns, dtype=float).reshape(-1, len(bodies), 4))
    linear, angular = sampled_velocities(positions, orientations, settings.fps, settings.gravity,
                                         settings.substeps)
    return BuiltinRun(positions, orientations, linear, angular, settings.fps,
                      {"restitution": e_miss, "friction": mu_miss})
