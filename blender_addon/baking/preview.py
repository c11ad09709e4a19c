"""Live preview: re-simulate after every change and show the motion while scrubbing, keyless.

The simulation is an ordinary `BakeJob` that is stepped a slice at a time from a timer and never
finished, so nothing is keyed. The bodies are shown by writing the simulated world matrices onto
their *evaluated* objects (what the viewport draws) in the frame-change handler; the original
objects, their actions and the file are never touched, so undo, saving and autosave never see a
previewed pose, and a re-evaluation (`update_tag`) shows the real transforms again exactly.

A change is noticed two ways: `inputs()` (every Impulse setting, the bodies and the frame range;
Blender sends no depsgraph update when an add-on's property changes) is compared by the timer
every POLL_SECONDS and on each depsgraph update; and an updated body counts as moved or reshaped
when its evaluated matrix is not the one the preview last put there or saw, or its evaluated
vertices changed (so the preview's own writes, and a bake's new action, are ignored). Each change
restarts a short debounce, so dragging a body or a slider simulates once, after the user pauses.

Nothing here runs by itself in background Blender (command-line bakes): a preview exists only
after `start()`, which the Live Preview button calls, and the timer is never registered there;
tests call `tick()`, the function the timer calls, directly.
"""

import time
import traceback
from dataclasses import dataclass, field

import bpy
import numpy as np
from mathutils import Matrix

from ..reading.bridge import BakeError, BodyLink, evaluated_depsgraph, frame_range
from ..reading.fitting import in_compound
from .job import BakeJob

DEBOUNCE_SECONDS = 0.2  # quiet time after the last change before simulating
SLICE_SECONDS = 0.008  # simulation per timer tick (at least one frame), so the UI stays live
POLL_SECONDS = 0.1  # how often the timer compares the settings (a few ms for 100 bodies)
# Settings that do not change the motion (and the last bake's statistics, `last_*`).
_NOT_INPUTS = frozenset({"rna_type", "show_shapes", "bake_state"})
_NOT_VALUES = frozenset({"POINTER", "COLLECTION"})


@dataclass
class _Preview:
    """One scene's preview: what it was simulated from and the poses so far."""

    inputs: tuple
    changed_at: float  # when the change this simulation answers was noticed
    due: float | None  # when to start simulating; None once started
    job: BakeJob | None = None
    frame_start: int = 0
    links: list[BodyLink] = field(default_factory=list)  # the keyed (dynamic) bodies
    names: list[str] = field(default_factory=list)  # their object names
    # Per keyed body, its non-body descendants (_followers): they ride along, as on the keys.
    followers: dict[str, list[str]] = field(default_factory=dict)
    poses: list[np.ndarray] = field(default_factory=list)  # per frame: (bodies, 4, 4) world
    shown: dict[str, np.ndarray] = field(default_factory=dict)  # last matrix put on or seen
    meshes: dict[str, int] = field(default_factory=dict)  # hash of each body's evaluated mesh
    posed: set[str] = field(default_factory=set)
    error: str = ""
    seconds: float | None = None  # from the change to the whole range simulated
    polled_at: float = 0.0  # when the timer last compared the inputs


_previews: dict[str, _Preview] = {}  # by scene name
_building = False  # a job is reading the scene: its frame changes are not the user's
_ticking = False  # inside tick(): its return value schedules the next call


def _values(group) -> tuple:
    """Every setting of a property group, arrays as tuples (for comparing, not storing)."""
    out = []
    for prop in group.bl_rna.properties:
        name = prop.identifier
        if name in _NOT_INPUTS or name.startswith("last_") or prop.type in _NOT_VALUES:
            continue
        value = getattr(group, name)
        out.append(tuple(value) if getattr(prop, "is_array", False) else value)
    return tuple(out)


def inputs(scene) -> tuple:
    """What the simulation depends on besides the bodies' transforms and meshes."""
    try:
        frames: object = frame_range(scene)
    except BakeError as error:
        frames = str(error)
    render, units = scene.render, scene.unit_settings
    bodies = tuple(
        (obj.name, obj.type, obj.parent.name if obj.parent else "", obj.hide_viewport,
         obj.hide_render, _values(obj.impulse))
        for obj in scene.objects
        if obj.impulse.enabled
    )
    world = (render.fps, render.fps_base, tuple(scene.gravity), scene.use_gravity,
             units.scale_length)
    return frames, world, _values(scene.impulse), bodies


def running(scene) -> bool:
    return scene.name in _previews


def ready(scene) -> bool:
    """True once the whole frame range is simulated for the current settings."""
    preview = _previews.get(scene.name)
    return preview is not None and preview.seconds is not None


def failed(scene) -> bool:
    preview = _previews.get(scene.name)
    return preview is not None and bool(preview.error)


def status(scene) -> str:
    """One line for the Bake panel."""
    preview = _previews.get(scene.name)
    if preview is None:
        return ""
    if preview.error:
        return f"Preview: {preview.error}"
    if preview.seconds is not None:
        return f"Preview ready ({preview.seconds:.2f} s after the change)"
    if preview.job is None:
        return "Preview: waiting for changes to settle"
    return f"Preview: {len(preview.poses) - 1} of {preview.job.total_frames} frames"


def start(scene) -> None:
    """Begin previewing `scene` now (the Live Preview button)."""
    stop(scene)
    _previews[scene.name] = _Preview(inputs(scene), time.perf_counter(), time.perf_counter())
    _arm(0.0)


def stop(scene, depsgraph=None) -> None:
    """End the preview; every body shows its real transform again."""
    preview = _previews.pop(scene.name, None)
    if preview is not None:
        _drop(preview, scene, depsgraph)


def stop_all() -> None:
    """The extension is being disabled: end every preview."""
    for name in list(_previews):
        scene = bpy.data.scenes.get(name)
        if scene is None:
            _previews.pop(name)
        else:
            stop(scene)


def restart(scene) -> None:
    """Simulate again once changes settle (after undo, which may change anything)."""
    preview = _previews.get(scene.name)
    if preview is not None:
        _restart(preview, scene, evaluated_depsgraph(scene))


def forget_all() -> None:
    """A file is being loaded: its objects are about to go, so just drop every preview."""
    for preview in _previews.values():
        if preview.job is not None:
            preview.job.cancel()
    _previews.clear()


def guarded(function, scene, *args):
    """Run a handler's work; an error goes to the panel's status line, never up to Blender."""
    try:
        return function(scene, *args)
    except Exception as error:  # a handler or timer must not raise
        traceback.print_exc()
        preview = _previews.get(scene.name)
        if preview is not None:
            preview.error = f"{type(error).__name__}: {error}"
            preview.job, preview.due = None, None
        return None


def _arm(delay: float) -> None:
    """(Re)start the timer: a pending tick is cancelled, the next comes after `delay`."""
    if bpy.app.background or _ticking:
        return
    if bpy.app.timers.is_registered(tick):
        bpy.app.timers.unregister(tick)
    bpy.app.timers.register(tick, first_interval=delay)


def _drop(preview: _Preview, scene, depsgraph=None) -> None:
    if preview.job is not None:
        preview.job.cancel()
    _show_real(preview, scene, depsgraph or evaluated_depsgraph(scene))


def _show_real(preview: _Preview, scene, depsgraph) -> None:
    """Put the real matrices back on the posed evaluated objects, and have them re-evaluated."""
    for name in preview.posed:
        obj = scene.objects.get(name)
        if obj is None:
            continue
        real = obj.matrix_world.copy()
        obj.evaluated_get(depsgraph).matrix_world = real
        preview.shown[name] = np.array(real)
        obj.update_tag(refresh={"OBJECT"})
    preview.posed.clear()


def _restart(preview: _Preview, scene, depsgraph) -> None:
    """The inputs changed: drop the old motion and simulate again once changes settle."""
    _drop(preview, scene, depsgraph)
    _measure(preview, scene, depsgraph)
    now = time.perf_counter()
    preview.inputs, preview.changed_at, preview.due = inputs(scene), now, now + DEBOUNCE_SECONDS
    preview.job, preview.poses, preview.error, preview.seconds = None, [], "", None
    _arm(DEBOUNCE_SECONDS)


def _moved(preview: _Preview, obj, depsgraph) -> bool:
    """Whether someone else changed what the body's evaluated matrix is (the user, undo)."""
    shown = preview.shown.get(obj.name)
    current = np.array(obj.evaluated_get(depsgraph).matrix_world)
    return shown is not None and not np.allclose(current, shown, rtol=1e-6, atol=1e-6)


def _mesh_hash(obj, depsgraph) -> int:
    """Of the evaluated vertices: a geometry update is also sent for a new action or material."""
    mesh = obj.evaluated_get(depsgraph).data
    coordinates = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", coordinates)
    return hash(coordinates.tobytes())


def _reshaped(preview: _Preview, obj, depsgraph) -> bool:
    known = preview.meshes.get(obj.name)
    return known is not None and known != _mesh_hash(obj, depsgraph)


def _measure(preview: _Preview, scene, depsgraph) -> None:
    """Remember every body's mesh and matrix as the simulation reads them."""
    preview.meshes = {obj.name: _mesh_hash(obj, depsgraph) for obj in scene.objects
                      if obj.impulse.enabled and obj.type == "MESH"}
    _see(preview, scene, depsgraph)


def depsgraph_updated(scene, depsgraph) -> None:
    """After an edit: restart on changed inputs or a moved or reshaped body."""
    preview = _previews.get(scene.name)
    if preview is None or _building:
        return
    if inputs(scene) != preview.inputs:
        _restart(preview, scene, depsgraph)
        return
    for update in depsgraph.updates:
        obj = scene.objects.get(update.id.name) if isinstance(update.id, bpy.types.Object) else None
        if obj is None or not obj.impulse.enabled:
            continue
        if (update.is_updated_geometry and _reshaped(preview, obj, depsgraph)) or (
                update.is_updated_transform and _moved(preview, obj, depsgraph)):
            _restart(preview, scene, depsgraph)
            return


def frame_changed(scene, depsgraph) -> None:
    """Pose the bodies for the new frame (the viewport's depsgraph only, never a render's)."""
    preview = _previews.get(scene.name)
    if preview is None or _building or depsgraph.mode != "VIEWPORT":
        return
    _pose(preview, scene, depsgraph)


def _row(preview: _Preview, scene) -> int | None:
    """The simulated row to show at the current frame, or None for the real transform.

    Subframes show the real transform: the bake samples animation there (velocity from
    animation); frames after the end hold the last row, as the keys' extrapolation does.
    """
    if scene.frame_subframe != 0.0 or scene.frame_current <= preview.frame_start:
        return None
    row = scene.frame_current - preview.frame_start
    if preview.seconds is not None:
        return min(row, len(preview.poses) - 1)
    return row if row < len(preview.poses) else None


def _pose(preview: _Preview, scene, depsgraph) -> None:
    row = _row(preview, scene)
    if row is None:
        _show_real(preview, scene, depsgraph)
    else:
        for name, matrix in zip(preview.names, preview.poses[row], strict=True):
            obj = scene.objects.get(name)  # None: deleted, and the restart is on its way
            if obj is None:
                continue
            obj.evaluated_get(depsgraph).matrix_world = Matrix(matrix.tolist())
            preview.shown[name] = matrix
            preview.posed.add(name)
            moved = matrix @ np.linalg.inv(np.array(obj.matrix_world))
            for follower in map(scene.objects.get, preview.followers.get(name, ())):
                if follower is not None:
                    carried = moved @ np.array(follower.matrix_world)
                    follower.evaluated_get(depsgraph).matrix_world = Matrix(carried.tolist())
                    preview.posed.add(follower.name)
    _see(preview, scene, depsgraph)


def _followers(scene, names: list[str]) -> dict[str, list[str]]:
    """For each of `names`, the objects that are no body (or a part of its compound) and have it
    as nearest body ancestor."""
    out: dict[str, list[str]] = {name: [] for name in names}
    for obj in scene.objects:
        if obj.impulse.enabled and not in_compound(obj):
            continue
        parent = obj.parent
        while parent is not None and not parent.impulse.enabled:
            parent = parent.parent
        if parent is not None and parent.name in out:
            out[parent.name].append(obj.name)
    return out


def _see(preview: _Preview, scene, depsgraph) -> None:
    """Remember what every unposed body (passive ones too) shows, to notice when it moves."""
    for obj in scene.objects:
        if obj.impulse.enabled and obj.name not in preview.posed:
            preview.shown[obj.name] = np.array(obj.evaluated_get(depsgraph).matrix_world)


def _begin(preview: _Preview, scene) -> None:
    """Build the world from the scene as Bake does; its frame changes are not user edits."""
    global _building
    preview.due = None
    _building = True
    try:
        job = BakeJob(scene, evaluated_depsgraph(scene))
    except BakeError as error:
        preview.error = str(error)
        return
    finally:
        _building = False
    preview.job = job
    preview.links = [link for link in job.links if link.kind == "dynamic"]
    preview.names = [link.name for link in preview.links]
    preview.followers = _followers(scene, preview.names)
    preview.frame_start = job.frame_start
    preview.poses = []
    _record(preview, job)
    _measure(preview, scene, evaluated_depsgraph(scene))


def _record(preview: _Preview, job: BakeJob) -> None:
    """Keep the world matrices of the frame the job has just reached (what Bake would key)."""
    snapshot = job.world.snapshot()
    preview.poses.append(np.array([
        link.world_matrices(snapshot.positions[None, link.index],
                            snapshot.orientations[None, link.index])[0]
        for link in preview.links
    ]).reshape(-1, 4, 4))


def _advance(preview: _Preview, scene) -> None:
    """Simulate one slice; show the current frame as soon as it is there."""
    job = preview.job
    if job is None:
        return
    shown_before = _row(preview, scene)
    deadline = time.perf_counter() + SLICE_SECONDS
    more = True
    while more and time.perf_counter() < deadline:
        more = job.step()
        _record(preview, job)
    if not more:
        preview.job = None
        preview.seconds = time.perf_counter() - preview.changed_at
        job.cancel()  # never finished, so nothing is keyed; frees the job's own snapshots
    arrived = _row(preview, scene) != shown_before
    if arrived:
        _pose(preview, scene, evaluated_depsgraph(scene))
    _redraw(whole_view=arrived)


def _redraw(whole_view: bool) -> None:
    """The sidebar's status line always; the whole viewport when the shown pose changed."""
    manager = bpy.context.window_manager
    for window in manager.windows if manager else ():
        for area in window.screen.areas:
            if area.type != "VIEW_3D":
                continue
            if whole_view:
                area.tag_redraw()
                continue
            for region in area.regions:
                if region.type == "UI":
                    region.tag_redraw()


def tick() -> float | None:
    """The timer: notice changes, start due simulations, advance running ones.

    Returns the seconds until the next call (None when no preview is left), as
    `bpy.app.timers` expects.
    """
    global _ticking
    _ticking = True
    try:
        return _tick_all()
    finally:
        _ticking = False


def _tick_all() -> float | None:
    delays: list[float] = []
    now = time.perf_counter()
    for name in list(_previews):
        scene = bpy.data.scenes.get(name)
        if scene is None:
            del _previews[name]
            continue
        preview = _previews[name]
        guarded(_tick_scene, scene, preview, now)
        if preview.job is not None:
            delays.append(0.0)
        elif preview.due is not None:
            delays.append(max(preview.due - now, 0.0))
        else:
            delays.append(POLL_SECONDS)
    return min(delays) if delays else None


def _tick_scene(scene, preview: _Preview, now: float) -> None:
    poll = now - preview.polled_at >= POLL_SECONDS
    if poll:
        preview.polled_at = now
    if poll and inputs(scene) != preview.inputs:
        _restart(preview, scene, evaluated_depsgraph(scene))
    elif preview.due is not None and now >= preview.due:
        _begin(preview, scene)
    else:
        _advance(preview, scene)
