"""Impulse's bake against Blender's built-in rigid body world, like for like. Numbers, not a test.

Both routes get the same bodies (benchmarks/scenes.py, and the bundled demo), frames, substeps and
iterations, restitution and friction (multiplied per pair on both sides), BOX shapes (the demo's
chair a compound of BOX parts on both sides: Impulse's Compound, the built-in's Compound Parent),
no damping, and sleeping (Impulse) / deactivation (built-in) on for both or off for both. Each
number is the CPU time (time.process_time) of a fresh Blender process (the bpy module), median of
--runs; each process reports the median of its --repeats timed runs, taken after an untimed
first. The two sides run in turn (Impulse then built-in, then built-in then Impulse, ...), and
each ratio is the median of the runs' ratios pair by pair, so a machine that slows down during
the benchmark (it swings by up to 40 % within an hour here) slows both sides of a pair alike.
Impulse runs the built zip installed as an extension, in a session that has baked the same scene
once already (kernels loaded from the JIT cache: child_impulse); the built-in likewise simulates
it once untimed first, its point cache outdated between runs. The built-in gets initial velocities
through two animated frames before its range (it has no initial-velocity setting). Also
measured: the first-use compile (a new user folder) and the cold start of a new session with
the cache present, part by part (see cold_start_table), as Blender runs and in this environment
as it is.

    .venv/bin/python benchmarks/bake.py [--quick] [--scenes demo pile64 ...] [--runs 3]
        [--repeats 1]
    .venv/bin/python benchmarks/bake.py --cold-start [--zip dist/impulse_bake-...-linux_x64.zip]
"""

import argparse
import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from functools import partial
from pathlib import Path

STARTED = time.perf_counter()
ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

import scenes  # noqa: E402  (benchmarks/ is on the path, above)

EXTENSION = "bl_ext.user_default.impulse_bake"
HANDOVER = 2  # animated frames that give the built-in world its initial velocities
QUICK = ("demo", "stack10", "pile8", "pile64", "spin80")
ALL = ("demo", "stack10", "jitter50", *(f"pile{n}" for n in scenes.PILE_SIZES),
       "spin80", "burst500", "cluster60")
TAG = "BENCH "  # a child's result line: TAG + JSON
NO_SCIPY = "IMPULSE_BENCH_NO_SCIPY"  # a cold start's environment: scipy made unimportable
COLD = {"boxes": "boxes and spheres", "every": "every shape"}  # make_ready(other_shapes=...)


# --- children: each runs in its own fresh process (the bpy module) ---

def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _emit(result: dict) -> None:
    print(TAG + json.dumps(result), flush=True)


def _enable(archive: str | None = None):
    """Install (if given) and enable Impulse; return its kernels module."""
    import importlib

    import bpy

    if archive is not None:
        done = bpy.ops.extensions.package_install_files(filepath=archive, repo="user_default",
                                                        enable_on_install=True)
        assert done == {"FINISHED"}, done
    addon_utils = importlib.import_module("addon_utils")
    if EXTENSION not in bpy.context.preferences.addons:
        assert addon_utils.enable(EXTENSION) is not None, "Impulse is not installed"
    return importlib.import_module(f"{EXTENSION}.blender_addon.baking.kernels")


def _box_mesh(half, cache: dict):
    import bpy

    if half not in cache:
        hx, hy, hz = half
        corners = [(x * hx, y * hy, z * hz) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
        faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4),
                 (1, 5, 7, 3)]
        mesh = bpy.data.meshes.new("box")
        mesh.from_pydata(corners, [], faces)
        cache[half] = mesh
    return cache[half]


def build_scene(key: str):
    """A fresh file holding scene `key` as Impulse bodies with the benchmark's settings."""
    import bpy

    bpy.ops.wm.read_homefile(use_empty=True)  # keeps the window bake_to_keyframes needs
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = scenes.FPS, 1.0
    if key == "demo":
        demo = __import__(f"{EXTENSION}.blender_addon.command_line.demo", fromlist=["build"])
        demo.build(scene)
    else:
        spec = scenes.by_name()[key]
        scene.frame_start, scene.frame_end = 1, 1 + spec.frames
        meshes: dict = {}
        for n, body in enumerate(spec.bodies):
            obj = bpy.data.objects.new(f"Body.{n:04d}", _box_mesh(body.half, meshes))
            obj.rotation_mode = "QUATERNION"
            obj.location, obj.rotation_quaternion = body.position, body.orientation
            scene.collection.objects.link(obj)
            obj.impulse.enabled = True
            obj.impulse.body_type = "PASSIVE" if body.static else "ACTIVE"
            obj.impulse.initial_linear_velocity = body.velocity
            obj.impulse.initial_angular_velocity = body.spin
    settings = scene.impulse
    settings.use_scene_range = True
    settings.substeps, settings.iterations = scenes.SUBSTEPS, scenes.ITERATIONS
    settings.method = "IMPULSE"
    settings.restitution_combine = settings.friction_combine = "MULTIPLY"
    for obj in scene.objects:
        if obj.impulse.enabled:
            if obj.impulse.shape != "COMPOUND":  # the demo's chair: a compound of BOX parts
                obj.impulse.shape = "BOX"
            obj.impulse.mass_mode, obj.impulse.density = "DENSITY", scenes.DENSITY
            obj.impulse.restitution, obj.impulse.friction = scenes.RESTITUTION, scenes.FRICTION
    return scene


def bake_once(job_module, scene, sleeping: bool) -> tuple[dict, object, object]:
    """Bake `scene` with sleeping on or off: (CPU seconds by phase, the job, its report)."""
    started = time.process_time()
    job = job_module.BakeJob(scene)
    job.world.sleeping = sleeping  # the extension has no setting for it: the World does
    read = time.process_time()
    while job.step():
        pass
    simulated = time.process_time()
    report = job.finish()
    done = time.process_time()
    times = {"read": read - started, "simulate": simulated - read, "write": done - simulated,
             "bake": done - started}
    return times, job, report


def child_impulse(key: str, sleeping: bool, repeats: int) -> None:
    """The scene baked 1 + `repeats` times in one session, each time in a fresh file, all but
    the first timed (their median): the targets are for a session that has baked before, as an
    animator pressing Bake again has, so every kernel this scene's bake calls is loaded (a
    warm-up on another scene left some of the demo's to load inside the timed bake: 0.09 s of
    its 0.24 s simulate on 2026-12-04)."""
    import importlib

    _enable().make_ready()
    job_module = importlib.import_module(f"{EXTENSION}.blender_addon.baking.job")
    bake_once(job_module, build_scene(key), sleeping)
    timed = [bake_once(job_module, build_scene(key), sleeping) for _ in range(repeats)]
    _, job, report = timed[-1]
    dynamic = sum(link.kind == "dynamic" for link in job.links)
    _emit({"bodies": report.bodies, "dynamic": dynamic, "frames": report.frames,
           **medians([times for times, _, _ in timed]), "peak_mb": _peak_mb()})


def _handover(obj, velocity, spin, start: int) -> None:
    """Animated for HANDOVER frames at the initial velocity, up to `start`, then simulated."""
    from mathutils import Quaternion, Vector

    fps = obj.users_scene[0].render.fps
    p0, q0 = obj.location.copy(), obj.rotation_quaternion.copy()
    w = Vector(spin)
    for step in range(-HANDOVER, 1):
        t = step / fps
        obj.location = p0 + Vector(velocity) * t
        turn = Quaternion(w.normalized(), w.length * t) if w.length else Quaternion()
        obj.rotation_quaternion = turn @ q0
        obj.keyframe_insert("location", frame=start + step)
        obj.keyframe_insert("rotation_quaternion", frame=start + step)
    obj.rigid_body.kinematic = True
    obj.keyframe_insert("rigid_body.kinematic", frame=start - HANDOVER)
    obj.rigid_body.kinematic = False
    obj.keyframe_insert("rigid_body.kinematic", frame=start + 1)


def _view3d():
    import bpy

    window = bpy.context.window_manager.windows[0]
    area = next(a for a in window.screen.areas if a.type == "VIEW_3D")
    region = next(r for r in area.regions if r.type == "WINDOW")
    return {"window": window, "area": area, "region": region, "scene": bpy.context.scene}


def simulate_builtin(scene, end: int, repeats: int = 1) -> float:
    """CPU seconds of the built-in world's point-cache simulation of frames frame_start..end,
    the median of `repeats` after an untimed first, as Impulse bakes (child_impulse); setting
    a world setting (to what it is) outdates the cache between."""
    seconds = []
    for _ in range(1 + repeats):
        scene.rigidbody_world.substeps_per_frame = scenes.SUBSTEPS
        started = time.process_time()
        for frame in range(scene.frame_start, end + 1):
            scene.frame_set(frame)
        seconds.append(time.process_time() - started)
    return statistics.median(seconds[1:])


def child_builtin(key: str, sleeping: bool, repeats: int) -> None:
    """The same bodies in the built-in world: point-cache simulation (simulate_builtin), then
    Bake to Keyframes once."""
    import bpy

    _enable()  # for the Impulse properties the scene is described with
    scene = build_scene(key)
    bodies = [obj for obj in scene.objects if obj.impulse.enabled]
    compound = {obj for obj in bodies if obj.impulse.shape == "COMPOUND"}
    parts = {obj for obj in bodies if obj.parent in compound}
    moving = [obj for obj in bodies if any(obj.impulse.initial_linear_velocity)
              or any(obj.impulse.initial_angular_velocity)]
    start = scene.frame_start + (HANDOVER if moving else 0)
    end = start + scene.frame_end - scene.frame_start
    with bpy.context.temp_override(**_view3d()):
        bpy.ops.rigidbody.world_add()
        world = scene.rigidbody_world
        world.collection = bpy.data.collections.new("RigidBodyWorld")
        world.substeps_per_frame, world.solver_iterations = scenes.SUBSTEPS, scenes.ITERATIONS
        world.point_cache.frame_start, world.point_cache.frame_end = scene.frame_start, end
        for obj in bodies:
            world.collection.objects.link(obj)  # membership adds the rigid body
            rb = obj.rigid_body
            rb.type = obj.impulse.body_type
            # a compound parent takes its children's boxes (Blender's Compound Parent)
            rb.collision_shape = "COMPOUND" if obj in compound else "BOX"
            rb.mass = scenes.DENSITY * sum(
                part.dimensions.x * part.dimensions.y * part.dimensions.z
                for part in ([c for c in obj.children if c in parts] if obj in compound
                             else [obj]))
            rb.restitution, rb.friction = scenes.RESTITUTION, scenes.FRICTION
            rb.linear_damping = rb.angular_damping = 0.0
            rb.use_deactivation = sleeping
        for obj in moving:
            obj.rotation_mode = "QUATERNION"
            _handover(obj, obj.impulse.initial_linear_velocity,
                      obj.impulse.initial_angular_velocity, start)
        scene.frame_end = end
        simulate = simulate_builtin(scene, end, repeats)
        started = time.process_time()
        dynamic = [obj for obj in bodies if obj.rigid_body.type == "ACTIVE" and obj not in parts]
        for obj in scene.objects:
            obj.select_set(obj in dynamic)
        bpy.context.view_layer.objects.active = dynamic[0]
        bpy.ops.rigidbody.bake_to_keyframes(frame_start=start, frame_end=end)
        keys = time.process_time() - started
    _emit({"bodies": len(bodies), "frames": end - start, "simulate": simulate, "keys": keys,
           "simulate_keys": simulate + keys, "peak_mb": _peak_mb()})


def child_install(archive: str) -> None:
    """Install into a new user folder only (for runs that need Impulse's properties, not its
    kernels)."""
    _enable(archive)
    _emit({})


def child_compile(archive: str) -> None:
    """Install into a new user folder and make the kernels ready: the first use (a compile, or
    loading the kernels the zip ships)."""
    kernels = _enable(archive)
    compiling = kernels.first_use()
    cpu, wall = time.process_time(), time.perf_counter()
    kernels.make_ready()
    _emit({"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall,
           "compiled": compiling})


def _kernels_loaded() -> int:
    """How many solver kernels numba has loaded from its cache in this process."""
    import importlib
    import pkgutil

    from numba.core.registry import CPUDispatcher

    solver = importlib.import_module(f"{EXTENSION}.solver")
    kernels = {id(value): value for info in pkgutil.iter_modules(solver.__path__)
               for value in vars(importlib.import_module(f"{solver.__name__}.{info.name}")).values()
               if isinstance(value, CPUDispatcher)}.values()  # once each, imported in many files
    return sum(sum(kernel.stats.cache_hits.values()) for kernel in kernels)


def child_cold_start(kind: str) -> None:
    """A new session with the cache present: Blender's import, Impulse's enable, then the kernels
    of a world of boxes and spheres (kind "boxes") or of every shape ("every")."""
    if os.environ.get(NO_SCIPY):
        sys.modules["scipy"] = None  # unimportable, as in Blender (see blender_like)
    import bpy  # noqa: F401  (Blender itself is part of the cold start)

    blender = time.process_time(), time.perf_counter()
    kernels = _enable()
    enabled = time.process_time(), time.perf_counter()
    kernels.make_ready(other_shapes=kind == "every")
    ready = time.process_time(), time.perf_counter()
    _emit({"blender_cpu": blender[0], "blender_wall": blender[1] - STARTED,
           "enable_cpu": enabled[0] - blender[0], "enable_wall": enabled[1] - blender[1],
           "kernels_cpu": ready[0] - enabled[0], "kernels_wall": ready[1] - enabled[1],
           "cpu": ready[0], "wall": ready[1] - STARTED, "loaded": _kernels_loaded()})


# --- the parent: fresh processes, medians, the table ---

def run_child_script(script: str, env: dict, *arguments: str) -> dict:
    """Run `script` with `arguments` in a fresh process; return the result it emitted."""
    done = subprocess.run([sys.executable, str(Path(script).resolve()), *arguments],
                          capture_output=True, text=True, env=env)
    lines = [line for line in done.stdout.splitlines() if line.startswith(TAG)]
    if done.returncode != 0 or not lines:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise SystemExit(f"benchmark child {' '.join(arguments)} failed:\n{tail}")
    return json.loads(lines[-1].removeprefix(TAG))


def run_child(env: dict, *arguments: str) -> dict:
    return run_child_script(__file__, env, "--child", *arguments)


def medians(results: list[dict]) -> dict:
    return {key: statistics.median(r[key] for r in results) for key in results[0]}


def median_run(env: dict, runs: int, *arguments: str) -> dict:
    return medians([run_child(env, *arguments) for _ in range(runs)])


def paired_runs(runs: int, ours: Callable[[], dict],
                theirs: Callable[[], dict]) -> tuple[list[dict], list[dict]]:
    """(our runs, their runs), taken in turn and in alternating order (ours first, then theirs
    first, ...): run k of each side is a pair, timed minutes apart at most."""
    results: tuple[list[dict], list[dict]] = ([], [])
    for k in range(runs):
        for side in ((1, 0) if k % 2 else (0, 1)):
            results[side].append((ours, theirs)[side]())
    return results


def pair_ratio(ours: list[dict], ours_key: str, theirs: list[dict], theirs_key: str) -> list[float]:
    """Run k's ours[k][ours_key] / theirs[k][theirs_key], for every pair with a non-zero
    denominator."""
    return [a[ours_key] / b[theirs_key] for a, b in zip(ours, theirs, strict=True)
            if b[theirs_key] > 0]


def child_environment() -> dict:
    """This environment with a new Blender user folder (and numba's cache unset)."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["BLENDER_USER_RESOURCES"] = tempfile.mkdtemp(prefix="impulse-bench-user-")
    return env


def built_zip() -> str:
    import build

    return str(build.build(Path(tempfile.mkdtemp(prefix="impulse-bench-dist-"))))


def without_kernels(archive: str) -> str:
    """A copy of `archive` without the compiled kernels it ships (as the other platforms' zips
    are), next to it."""
    bare = str(Path(archive).with_name("bare-" + Path(archive).name))
    with (zipfile.ZipFile(archive) as source,
          zipfile.ZipFile(bare, "w", zipfile.ZIP_DEFLATED) as out):
        for item in source.infolist():
            if not item.filename.startswith("kernel_cache/"):
                out.writestr(item, source.read(item))
    return bare


def blender_like(env: dict) -> dict:
    """`env` as Blender runs its Python. Blender ignores PYTHON* variables (it initialises
    Python with an isolated configuration unless started with --python-use-system-env), so it
    writes and reads bytecode caches whatever PYTHONDONTWRITEBYTECODE says (here into a folder
    of their own, not into the shared venv); and it bundles no scipy, which numba imports on its
    first kernel load where it can (numba.np.arraymath looks for BLAS)."""
    env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="impulse-bench-pyc-")
    env[NO_SCIPY] = "1"
    return env


def cold_starts(env: dict) -> dict:
    """Cold starts of each kind (COLD), median of 3 fresh processes, as Blender runs and in
    `env` as it is; each setting's first, untimed session writes whatever bytecode it writes."""
    results = {}
    for setting, child_env in (("blender", blender_like(env)), ("as is", env)):
        run_child(child_env, "coldstart", "boxes")
        for kind in COLD:
            results[setting, kind] = median_run(child_env, 3, "coldstart", kind)
    return results


def prepare(env: dict, archive: str, first_use: bool = True) -> tuple[dict | None, dict, dict]:
    """The zip's first use in a new user folder without its shipped kernels (a compile; unless
    not first_use) and with them (then the runs' user folder); then cold starts."""
    compiled = run_child({**env, "BLENDER_USER_RESOURCES": tempfile.mkdtemp(
        prefix="impulse-bench-user-")}, "compile", without_kernels(archive)) if first_use else None
    shipped = run_child(env, "compile", archive)
    return compiled, shipped, cold_starts(env)


def _load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def cold_start_table(cold: dict) -> str:
    """The cold starts, part by part, and what they were run with."""
    scipy = importlib.util.find_spec("scipy") is not None
    lines = [
        "Cold start of a new session with the JIT cache present (the zip's shipped kernels, "
        "copied by its first use), CPU s / wall s, median of 3 fresh processes, each column its "
        f"own (load average now {_load()}). Blender = process start to `import bpy` done (the "
        "interpreter's own start included in CPU); enable = addon_utils.enable of Impulse (it "
        "imports numba and the solver); kernels = kernels.make_ready(other_shapes), loading "
        "what warm_up runs from the cache (a bake loads each kernel on its first call "
        "instead: bake_phases.py --cold-start; loaded = solver kernels numba loaded, the "
        "ones Python calls: each holds its callees).",
        "As Blender runs: bytecode cached (Blender ignores PYTHONDONTWRITEBYTECODE), no scipy "
        "(Blender bundles none). As this environment is: PYTHONDONTWRITEBYTECODE="
        f"{os.environ.get('PYTHONDONTWRITEBYTECODE', '(unset)')}, scipy "
        f"{'importable' if scipy else 'absent'}.",
        "",
        "| setting | kernels of | Blender | enable | kernels | loaded | total |",
        "|---|---|---|---|---|---|---|",
    ]
    for (setting, kind), r in cold.items():
        lines.append(
            f"| {'as Blender runs' if setting == 'blender' else 'as this environment is'} | "
            f"{COLD[kind]} | {r['blender_cpu']:.2f} / {r['blender_wall']:.2f} | "
            f"{r['enable_cpu']:.2f} / {r['enable_wall']:.2f} | "
            f"{r['kernels_cpu']:.2f} / {r['kernels_wall']:.2f} | {r['loaded']:.0f} | "
            f"{r['cpu']:.2f} / {r['wall']:.2f} |")
    return "\n".join(lines)


def header(runs: int, repeats: int, compiled: dict | None, shipped: dict) -> str:
    compiling = (f"{compiled['cpu']:.1f} s CPU, {compiled['wall']:.1f} s wall" if compiled
                 else "not measured")
    return "\n".join([
        f"Settings (both sides): {scenes.FPS} fps, {scenes.SUBSTEPS} substeps, "
        f"{scenes.ITERATIONS} iterations (at most, on both sides: Bullet stops sooner once its "
        "residual reaches its threshold, 0 in Blender; Impulse, island by island, once a sweep "
        "changes no contact's velocity by more than 1e-6 m/s), restitution "
        f"{scenes.RESTITUTION} and friction "
        f"{scenes.FRICTION} on every body (pairs multiply), BOX shapes (the demo's chair: a "
        f"compound of BOX parts on both sides), density "
        f"{scenes.DENSITY:.0f} kg/m³, no damping; sleeping/deactivation as in the column.",
        f"CPU seconds (process_time of the Blender process doing the work), median of {runs} "
        f"fresh processes, each side timing {repeats} run(s) of the scene there after an untimed "
        "first (their median; kernels loaded, point cache outdated between), the two sides in "
        "turn; ratios: "
        "median of the runs' ratios pair by pair (range in brackets); peak memory = the process's "
        f"max RSS. Machine: {os.cpu_count()} cores, "
        f"shared and loaded (load average {_load()}): expect noise.",
        "First use in a new user folder, every kernel: compiled (a zip without shipped "
        f"kernels, as Windows' and macOS'): {compiling}; the linux-x64 zip's shipped kernels "
        f"({'compiled: not shipped' if shipped['compiled'] else 'loaded'}): "
        f"{shipped['cpu']:.2f} s CPU, {shipped['wall']:.2f} s wall.",
        "Cliffs: compare 'µs per body-frame' (Impulse simulate / (dynamic bodies × frames)) with "
        "the pile of 1000's; the issue allows 20×.",
    ])


COLUMNS = ("| scene | bodies | frames | sleeping | Impulse simulate | Impulse bake | "
           "built-in simulate | built-in simulate + keys | bake ÷ built-in simulate | "
           "simulate ÷ built-in simulate | bake ÷ built-in sim+keys | µs per body-frame | "
           "peak MB Impulse / built-in |")


def row(key: str, sleeping: bool, our_runs: list[dict], their_runs: list[dict]) -> str:
    """One table row: medians of each side's runs, ratios pair by pair (paired_runs)."""
    ours, theirs = medians(our_runs), medians(their_runs)

    def ratio(ours_key: str, theirs_key: str, spread: bool = False) -> str:
        ratios = pair_ratio(our_runs, ours_key, their_runs, theirs_key)
        if not ratios:
            return "–"
        text = f"{statistics.median(ratios):.2f}"
        if spread and len(ratios) > 1:
            text += f" ({min(ratios):.2f}–{max(ratios):.2f})"
        return text

    return (f"| {key} | {ours['bodies']:.0f} | {ours['frames']:.0f} | "
            f"{'on' if sleeping else 'off'} | {ours['simulate']:.2f} | {ours['bake']:.2f} | "
            f"{theirs['simulate']:.2f} | {theirs['simulate_keys']:.2f} | "
            f"{ratio('bake', 'simulate', spread=True)} | "
            f"{ratio('simulate', 'simulate')} | "
            f"{ratio('bake', 'simulate_keys')} | "
            f"{1e6 * ours['simulate'] / (ours['dynamic'] * ours['frames']):.0f} | "
            f"{ours['peak_mb']:.0f} / {theirs['peak_mb']:.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}")
    parser.add_argument("--scenes", nargs="+", choices=ALL, metavar="SCENE",
                        help=f"any of {', '.join(ALL)}")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=1,
                        help="timed runs per process, after an untimed one (their median)")
    parser.add_argument("--cold-start", action="store_true",
                        help="only the cold starts (no first-use compile, no scenes)")
    parser.add_argument("--zip", help="measure this linux-x64 zip instead of building one")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--sleeping", choices=("on", "off"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, *rest = args.child
        sleeping = args.sleeping == "on"
        {"impulse": lambda: child_impulse(rest[0], sleeping, args.repeats),
         "builtin": lambda: child_builtin(rest[0], sleeping, args.repeats),
         "install": lambda: child_install(rest[0]),
         "compile": lambda: child_compile(rest[0]),
         "coldstart": lambda: child_cold_start(rest[0])}[kind]()
        return
    env = child_environment()
    archive = str(Path(args.zip).resolve()) if args.zip else built_zip()
    compiled, shipped, cold = prepare(env, archive, first_use=not args.cold_start)
    if args.cold_start:
        print(f"{archive}\n\n{cold_start_table(cold)}")
        return
    keys = args.scenes or (QUICK if args.quick else ALL)
    lines = [header(args.runs, args.repeats, compiled, shipped), "", cold_start_table(cold), "",
             COLUMNS, "|---" * 13 + "|"]
    print("\n".join(lines), flush=True)
    repeats = ["--repeats", str(args.repeats)]
    for key in keys:
        for sleeping in (True, False):
            flag = ["--sleeping", "on" if sleeping else "off"]
            lines.append(row(key, sleeping, *paired_runs(
                args.runs, partial(run_child, env, "impulse", key, *flag, *repeats),
                partial(run_child, env, "builtin", key, *flag, *repeats))))
            print(lines[-1], flush=True)
    print("\n" + "\n".join(lines))


if __name__ == "__main__":
    main()
