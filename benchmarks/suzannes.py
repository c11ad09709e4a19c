"""200 Suzannes as convex hulls falling on a triangle-mesh terrain: Impulse against Blender's
built-in rigid body world, like for like. Numbers, not a test (issue #11).

Both sides get the same scene (scenes.suzannes: Blender's Suzanne mesh, 507 vertices, as a
convex hull; a 64 × 64-quad hilly grid, 8,192 triangles, as a static mesh), the same frames,
fps, substeps and iterations, restitution and friction (multiplied per pair on both sides), mass
(density × the hull's volume), no damping, and sleeping (Impulse) / deactivation (built-in) on
for both or off for both. The built-in uses Convex Hull for the Suzannes and Mesh for the
terrain, with its default collision margin. CPU seconds (time.process_time) of a fresh process,
median of --runs; peak memory is the process's max RSS (every child is a bpy process, so
Blender's own footprint is in both). Impulse runs either through the solver API (`solver`:
World.add_body(shape="hull"/"mesh"), kernels compiled or loaded before the clock starts) or
through the extension's bake (`bake`: shape CONVEX_HULL / MESH, the built zip installed, after a
first bake in the same session), or both.

    .venv/bin/python benchmarks/suzannes.py [--routes solver bake] [--runs 3] [--frames 120]
"""

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parent.parent), str(Path(__file__).resolve().parent)]

import bake  # noqa: E402  (benchmarks/ is on the path, above)
import scenes  # noqa: E402


def _monkey_vertices() -> np.ndarray:
    """Suzanne's vertices (Blender's own mesh, object frame)."""
    import bmesh

    bm = bmesh.new()
    bmesh.ops.create_monkey(bm)
    points = np.array([v.co[:] for v in bm.verts], dtype=float)
    bm.free()
    return points


def _hull_volume(points: np.ndarray) -> float:
    """Volume of the convex hull of `points`, by Blender's own hull (not the solver's)."""
    import bmesh

    bm = bmesh.new()
    for p in points:
        bm.verts.new(p)
    bmesh.ops.convex_hull(bm, input=bm.verts, use_existing_faces=False)
    interior = [v for v in bm.verts if not v.link_faces]
    bmesh.ops.delete(bm, geom=interior, context="VERTS")
    volume = bm.calc_volume()
    bm.free()
    return float(volume)


def _outcome(spec: scenes.MeshScene, positions: np.ndarray) -> dict:
    """Where the bodies ended up: mean height of their origins above the terrain below them,
    and how many ended below it (fell through)."""
    above = positions[:, 2] - scenes.terrain_height(positions[:, 0], positions[:, 1])
    return {"mean_height": float(above.mean()), "below": int((above < 0.0).sum())}


def _meshes(spec: scenes.MeshScene):
    """The terrain and the (shared) Suzanne mesh as Blender data-blocks."""
    import bpy

    terrain = bpy.data.meshes.new("Terrain")
    terrain.from_pydata(spec.terrain_vertices.tolist(), [], spec.terrain_triangles.tolist())
    monkey = bpy.data.meshes.new("Suzanne")
    monkey.from_pydata(_monkey_vertices().tolist(), [], [])
    return terrain, monkey


def build_blender_scene(spec: scenes.MeshScene, monkey_faces: bool = False):
    """A fresh file with the terrain and the Suzannes as objects; returns (scene, terrain,
    suzannes). `monkey_faces` gives Suzanne her faces (Impulse reads triangles; the built-in's
    Convex Hull reads vertices only)."""
    import bmesh
    import bpy

    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = scenes.FPS, 1.0
    scene.frame_start, scene.frame_end = 1, 1 + spec.frames
    terrain_mesh, monkey = _meshes(spec)
    if monkey_faces:
        bm = bmesh.new()
        bmesh.ops.create_monkey(bm)
        bm.to_mesh(monkey)
        bm.free()
    terrain = bpy.data.objects.new("Terrain", terrain_mesh)
    scene.collection.objects.link(terrain)
    bodies = []
    for n, (p, q) in enumerate(zip(spec.positions, spec.orientations, strict=True)):
        obj = bpy.data.objects.new(f"Suzanne.{n:03d}", monkey)
        obj.rotation_mode = "QUATERNION"
        obj.location, obj.rotation_quaternion = p.tolist(), q.tolist()
        scene.collection.objects.link(obj)
        bodies.append(obj)
    return scene, terrain, bodies


# --- children: each runs in its own fresh process (the bpy module) ---

def child_builtin(spec: scenes.MeshScene, sleeping: bool, keys: bool) -> None:
    """The built-in world: Convex Hull Suzannes, Mesh terrain; point cache, then (with `keys`)
    Bake to Keyframes."""
    import bpy

    scene, terrain, suzannes = build_blender_scene(spec)
    mass = scenes.DENSITY * _hull_volume(_monkey_vertices())
    with bpy.context.temp_override(**bake._view3d()):
        bpy.ops.rigidbody.world_add()
        world = scene.rigidbody_world
        world.collection = bpy.data.collections.new("RigidBodyWorld")
        world.substeps_per_frame, world.solver_iterations = scenes.SUBSTEPS, scenes.ITERATIONS
        world.point_cache.frame_start, world.point_cache.frame_end = 1, scene.frame_end
        for obj in (terrain, *suzannes):
            world.collection.objects.link(obj)  # membership adds the rigid body
            rb = obj.rigid_body
            rb.type = "PASSIVE" if obj is terrain else "ACTIVE"
            rb.collision_shape = "MESH" if obj is terrain else "CONVEX_HULL"
            rb.mass = mass
            rb.restitution, rb.friction = scenes.RESTITUTION, scenes.FRICTION
            rb.linear_damping = rb.angular_damping = 0.0
            rb.use_deactivation = sleeping
        simulate = bake.simulate_builtin(scene, scene.frame_end)
        positions = np.array([obj.matrix_world.translation[:] for obj in suzannes])
        started = time.process_time()
        if keys:
            for obj in scene.objects:
                obj.select_set(obj in suzannes)
            bpy.context.view_layer.objects.active = suzannes[0]
            bpy.ops.rigidbody.bake_to_keyframes(frame_start=1, frame_end=scene.frame_end)
        keyed = time.process_time() if keys else float("nan")
    bake._emit({"simulate": simulate, "simulate_keys": simulate + keyed - started,
                "peak_mb": bake._peak_mb()}
               | _outcome(spec, positions))


def child_solver(spec: scenes.MeshScene, sleeping: bool, _keys: bool) -> None:
    """Impulse's solver on its own: add_body(shape="mesh") and add_body(shape="hull")."""
    import bpy  # noqa: F401  (bmesh, for Suzanne's vertices, is importable only after bpy)

    import solver

    points = _monkey_vertices()
    solver.warm_up()
    world = solver.World(fps=scenes.FPS, substeps=scenes.SUBSTEPS, iterations=scenes.ITERATIONS,
                         sleeping=sleeping)
    world.add_body(shape="mesh", vertices=spec.terrain_vertices,
                   triangles=spec.terrain_triangles, kind="static",
                   restitution=scenes.RESTITUTION, friction=scenes.FRICTION)
    for p, q in zip(spec.positions, spec.orientations, strict=True):
        world.add_body(shape="hull", points=points, position=p, orientation=q,
                       density=scenes.DENSITY, restitution=scenes.RESTITUTION,
                       friction=scenes.FRICTION)
    started = time.process_time()
    trajectory = world.simulate(spec.frames)
    simulated = time.process_time()
    bake._emit({"simulate": simulated - started, "bake": simulated - started,
                "peak_mb": bake._peak_mb()}
               | _outcome(spec, np.asarray(trajectory.positions[-1, 1:], dtype=float)))


def impulse_scene(spec: scenes.MeshScene):
    """A fresh file with the scene as Impulse bodies: CONVEX_HULL Suzannes, MESH terrain;
    returns (scene, suzannes)."""
    scene, terrain, suzannes = build_blender_scene(spec, monkey_faces=True)
    settings = scene.impulse
    settings.use_scene_range = True
    settings.substeps, settings.iterations = scenes.SUBSTEPS, scenes.ITERATIONS
    settings.method = "IMPULSE"
    settings.restitution_combine = settings.friction_combine = "MULTIPLY"
    for obj in (terrain, *suzannes):
        body = obj.impulse
        body.enabled = True
        body.body_type = "PASSIVE" if obj is terrain else "ACTIVE"
        body.shape = "MESH" if obj is terrain else "CONVEX_HULL"
        body.mass_mode, body.density = "DENSITY", scenes.DENSITY
        body.restitution, body.friction = scenes.RESTITUTION, scenes.FRICTION
    return scene, suzannes


def child_bake(spec: scenes.MeshScene, sleeping: bool, _keys: bool) -> None:
    """Impulse's bake through the installed extension, the second of two in the session (as
    bake.child_impulse)."""
    import importlib

    bake._enable().make_ready()
    job_module = importlib.import_module(f"{bake.EXTENSION}.blender_addon.baking.job")
    bake.bake_once(job_module, impulse_scene(spec)[0], sleeping)
    scene, suzannes = impulse_scene(spec)
    times, _, _ = bake.bake_once(job_module, scene, sleeping)
    scene.frame_set(scene.frame_end)
    positions = np.array([obj.matrix_world.translation[:] for obj in suzannes])
    bake._emit(times | {"peak_mb": bake._peak_mb()} | _outcome(spec, positions))


# --- the parent: fresh processes, medians, the table ---

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--routes", nargs="+", choices=("solver", "bake"), default=["solver"],
                        help="Impulse through the solver API, the extension's bake, or both")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--frames", type=int, default=120)
    parser.add_argument("--sleeping", nargs="+", choices=("on", "off"), default=["on", "off"])
    parser.add_argument("--keys", action="store_true",
                        help="also time the built-in's Bake to Keyframes (about 3× its simulate)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    spec = scenes.suzannes(args.count, args.frames)
    if args.child:
        {"builtin": child_builtin, "solver": child_solver,
         "bake": child_bake}[args.child](spec, args.sleeping == ["on"], args.keys)
        return
    env = bake.child_environment()
    if "bake" in args.routes:
        bake.run_child(env, "install", bake.built_zip())
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    triangles = len(spec.terrain_triangles)
    print(f"{spec.name} (Suzanne, 507 vertices, as a convex hull) on a {triangles}-triangle "
          f"static mesh terrain, {spec.frames} frames at {scenes.FPS} fps, "
          f"{scenes.SUBSTEPS} substeps, {scenes.ITERATIONS} iterations, restitution "
          f"{scenes.RESTITUTION} and friction {scenes.FRICTION} (pairs multiply), density "
          f"{scenes.DENSITY:.0f} kg/m³ (mass from the hull's volume), no damping; built-in: "
          f"Convex Hull / Mesh, default collision margin (0.04 m). CPU seconds of a fresh bpy "
          f"process, median of {args.runs}; machine: {os.cpu_count()} cores, shared and loaded "
          f"(load average {load}): expect noise.\n", flush=True)
    print("| sleeping | Impulse route | Impulse simulate | Impulse bake | built-in simulate | "
          "built-in simulate + keys | simulate ÷ built-in simulate | bake ÷ built-in simulate | "
          "peak MB Impulse / built-in | mean height above terrain (m) Impulse / built-in | "
          "below terrain Impulse / built-in |\n" + "|---" * 11 + "|", flush=True)

    def median_of(child: str, sleeping: str) -> dict:
        runs = [bake.run_child_script(__file__, env, "--child", child, "--count", str(args.count),
                                      "--frames", str(args.frames), "--sleeping", sleeping,
                                      *(["--keys"] if args.keys else []))
                for _ in range(args.runs)]
        return bake.medians(runs)

    for sleeping in args.sleeping:
        theirs = median_of("builtin", sleeping)
        for route in args.routes:
            ours = median_of(route, sleeping)
            print(f"| {sleeping} | {route} | {ours['simulate']:.2f} | {ours['bake']:.2f} | "
                  f"{theirs['simulate']:.2f} | {theirs['simulate_keys']:.2f} | "
                  f"{ours['simulate'] / theirs['simulate']:.2f} | "
                  f"{ours['bake'] / theirs['simulate']:.2f} | "
                  f"{ours['peak_mb']:.0f} / {theirs['peak_mb']:.0f} | "
                  f"{ours['mean_height']:.2f} / {theirs['mean_height']:.2f} | "
                  f"{ours['below']:.0f} / {theirs['below']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
