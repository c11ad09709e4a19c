"""Blender's built-in rigid body world (Bullet) as a reference run for Impulse's bodies.

Every body is mirrored as small proxies of Impulse's own geometry (not Blender's bounds of the
user's mesh) in a temporary full copy of the scene, which is removed again together with every
data-block it created: the user's file is left as it was. Bullet's primitives (box, sphere,
capsule, cylinder, cone) read only their proxy's bounds, centred on its origin with the axis on
local z; a convex hull or triangle mesh proxy has the solver's vertices (and triangles). A body of
several parts, or whose centre of mass is off its shape centre, becomes a Compound Parent at the
centre of mass (Bullet's body origin) with one child per part. Bullet grows cones and meshes by
their collision margin, so theirs is 0; the other shapes keep the default margin, which Bullet
embeds inside them. The built-in world has no initial-velocity setting, so each dynamic body is
keyed as Animated for the first frames, moving at its initial velocity, and then switched off;
Bullet takes the velocity of the last animated step over exactly.
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

COLLISION_SHAPES = {"box": "BOX", "sphere": "SPHERE", "capsule": "CAPSULE",
                    "cylinder": "CYLINDER", "cone": "CONE", "hull": "CONVEX_HULL", "mesh": "MESH"}
# Bullet grows these by their collision margin instead of embedding it (a compound's inertia box
# too), so theirs is 0; the other shapes keep Blender's default.
ZERO_MARGIN = ("CONE", "MESH", "COMPOUND")
_OFF_CENTRE = 1e-6  # a centre of mass this far (relative to the body's size) off its shape centre


@dataclass(frozen=True)
class MirrorPart:
    """One part of a body, posed in the body's shape frame (a part's axis on its local z)."""

    shape: str  # a key of COLLISION_SHAPES
    half_extents: tuple[float, float, float]  # bounds on the part's axes: capsule (r, r, h + r)
    position: tuple[float, float, float] = (0.0, 0.0, 0.0)
    orientation: tuple[float, float, float, float] = (1.0, 0.0, 0.0, 0.0)
    vertices: np.ndarray | None = None  # a hull's points or a mesh's vertices, in the part frame
    triangles: np.ndarray | None = None  # a mesh's (T, 3)

    def points(self) -> np.ndarray:
        """The proxy's vertices: a hull's or mesh's own, else the corners of the bounds."""
        if self.vertices is not None:
            return np.asarray(self.vertices, dtype=float).reshape(-1, 3)
        signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
        return signs * np.asarray(self.half_extents, dtype=float)


@dataclass(frozen=True)
class MirrorBody:
    """One body as Impulse sees it: shape centre pose, shape, mass and per-body material."""

    name: str
    shape: str  # a key of COLLISION_SHAPES or "compound"
    half_extents: tuple[float, float, float]  # bounds in the shape frame (a sphere's r, r, r)
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
    parts: tuple[MirrorPart, ...] = ()  # the geometry; () for one part of `shape` at the centre
    center_of_mass: tuple[float, float, float] = (0.0, 0.0, 0.0)  # in the shape frame

    def mirror_parts(self) -> tuple[MirrorPart, ...]:
        return self.parts or (MirrorPart(self.shape, self.half_extents),)

    def is_compound(self) -> bool:
        """Whether Bullet needs a Compound Parent: several parts, one off the shape centre, or
        a centre of mass away from it."""
        parts = self.mirror_parts()
        at_centre = (np.allclose(parts[0].position, 0.0, rtol=0.0, atol=1e-12)
                     and np.allclose(parts[0].orientation, (1.0, 0.0, 0.0, 0.0), rtol=0.0,
                                     atol=1e-12))
        size = max(float(np.max(self.half_extents)), 1e-9)
        off = float(np.linalg.norm(self.center_of_mass)) > _OFF_CENTRE * size
        return len(parts) > 1 or not at_centre or off


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


def _proxy_mesh(name: str, part: MirrorPart | None) -> bpy.types.Mesh:
    """The part's points (a mesh's triangles too); the primitives read only their bounds. A
    Compound Parent's own mesh is not collided: it has none."""
    mesh = bpy.data.meshes.new(f"Impulse mirror {name}")
    if part is not None:
        faces = [] if part.triangles is None else np.asarray(part.triangles).tolist()
        mesh.from_pydata(part.points().tolist(), [], faces)
    return mesh


def _collision_shape(rb, shape: str) -> None:
    rb.collision_shape = shape
    if shape in ZERO_MARGIN:
        rb.use_margin = True
        rb.collision_margin = 0.0


def _proxy(scene, collection, name: str, part: MirrorPart | None, kind: str):
    """A rigid body of the part's shape in the world's collection (a Compound Parent for None),
    posed by the caller."""
    obj = bpy.data.objects.new(f"Impulse mirror {name}", _proxy_mesh(name, part))
    obj.rotation_mode = "QUATERNION"
    scene.collection.objects.link(obj)
    collection.objects.link(obj)  # membership in the world's collection adds the rigid body
    obj.rigid_body.type = "ACTIVE" if kind == "dynamic" else "PASSIVE"
    _collision_shape(obj.rigid_body, "COMPOUND" if part is None else
                     COLLISION_SHAPES[part.shape])
    return obj


def origin_offset(body: MirrorBody, orientations: np.ndarray) -> np.ndarray:
    """(..., 3) from the shape centre to Bullet's body origin (the centre of mass) in world axes."""
    return quat.rotate(orientations, np.asarray(body.center_of_mass, dtype=float))


def _handover(obj, body: MirrorBody, fps: float) -> None:
    """Animated for HANDOVER_FRAMES frames at the initial velocity, then simulated."""
    steps = np.arange(-HANDOVER_FRAMES, 1)
    times = steps / fps
    omega = np.asarray(body.angular_velocity, dtype=float)
    turns = quat.from_axis_angle(np.tile(omega, (len(steps), 1)), np.linalg.norm(omega) * times)
    orientations = quat.multiply(turns, np.asarray(body.orientation, dtype=float))
    offset = origin_offset(body, np.asarray(body.orientation, dtype=float))
    velocity = np.asarray(body.linear_velocity) + np.cross(omega, offset)  # of the origin
    positions = np.asarray(body.position) + offset + np.outer(times, velocity)
    frames = START + steps
    write_keys(obj, "location", frames, positions)
    write_keys(obj, "rotation_quaternion", frames, orientations)
    write_keys(obj, "rigid_body.kinematic", [frames[0], START + 1], [1.0, 0.0], _CONSTANT)


def _mirror(scene, collection, body: MirrorBody, restitution: float, friction: float,
            settings: MirrorSettings):
    parts = body.mirror_parts()
    compound = body.is_compound()
    obj = _proxy(scene, collection, body.name, None if compound else parts[0], body.kind)
    if compound:
        com = np.asarray(body.center_of_mass, dtype=float)
        for k, part in enumerate(parts):
            child = _proxy(scene, collection, f"{body.name} part {k}", part, body.kind)
            child.parent = obj
            child.location = np.asarray(part.position, dtype=float) - com
            child.rotation_quaternion = part.orientation
    orientation = np.asarray(body.orientation, dtype=float)
    obj.location = np.asarray(body.position) + origin_offset(body, orientation)
    obj.rotation_quaternion = body.orientation
    rb = obj.rigid_body
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
        write_keys(obj, "location", frames,
                   body.path[0] + origin_offset(body, np.asarray(body.path[1])))
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
    orientations = quat.normalize(np.array(turns, dtype=float).reshape(-1, len(bodies), 4))
    positions = np.array(places, dtype=float).reshape(-1, len(bodies), 3) - np.stack(
        [origin_offset(body, orientations[:, j]) for j, body in enumerate(bodies)], axis=1)
    linear, angular = sampled_velocities(positions, orientations, settings.fps, settings.gravity,
                                         settings.substeps)
    return BuiltinRun(positions, orientations, linear, angular, settings.fps,
                      {"restitution": e_miss, "friction": mu_miss})
