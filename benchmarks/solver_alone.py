"""The solver on its own (plain Python, no Blender): the bundled demo's World and the piles,
simulated in fresh processes, so two solver trees (say main's and a branch's) are timed like for
like. Numbers, not a test.

The demo's World is the extension's own (BakeJob builds it in Blender: all bodies BOX but the
chair, a compound of BOX parts, e = mu = 0.5, 24 fps, 10 substeps, 10 iterations, 119 frames),
pickled once by a Blender child (--dump-demo) and replayed here; the piles are scenes.pile (250
frames, same settings). CPU seconds (time.process_time) of World.simulate in a fresh process,
kernels compiled or loaded before the clock starts; each tree uses its own NUMBA_CACHE_DIR.

    .venv/bin/python benchmarks/solver_alone.py --dump-demo [ZIP]   (once; ZIP: a built zip,
        else one is built)
    .venv/bin/python benchmarks/solver_alone.py [--trees ROOT ...] [--scenes demo pile64 ...]
        [--runs 3]
"""

import argparse
import hashlib
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "out" / "demo-world-{}.pkl"  # sleeping "on" / "off"
PACKAGE = "bl_ext.user_default.impulse_bake."  # the extension's solver, inside Blender
TAG = "SOLVER "
SCENES = ("demo", "pile64", "pile343", "pile1000")


class _Unpickler(pickle.Unpickler):
    """Loads the extension's pickled World as the plain `solver` package's."""

    def find_class(self, module, name):
        return super().find_class(module.removeprefix(PACKAGE), name)


def dump_demo(archive: str | None) -> None:
    """Install the extension into a new Blender user folder, build the bundled demo with the
    benchmark's settings (bake.py) and pickle BakeJob's World, sleeping on and off."""
    import importlib

    os.environ["BLENDER_USER_RESOURCES"] = tempfile.mkdtemp(prefix="solver-alone-user-")
    sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]
    import bake

    bake._enable(archive or bake.built_zip())
    job_module = importlib.import_module(f"{bake.EXTENSION}.blender_addon.baking.job")
    DEMO.parent.mkdir(exist_ok=True)
    for sleeping in ("on", "off"):
        job = job_module.BakeJob(bake.build_scene("demo"))
        world = job.world
        world.sleeping = sleeping == "on"
        with open(str(DEMO).format(sleeping), "wb") as f:
            pickle.dump({"world": world, "frames": job.total_frames}, f)


def world_of(key: str, sleeping: str):
    """(World, frames) of a scene key, from the solver on sys.path."""
    if key == "demo":
        with open(str(DEMO).format(sleeping), "rb") as f:
            held = _Unpickler(f).load()
        return held["world"], held["frames"]
    import scenes

    import solver

    world = solver.World(fps=scenes.FPS, substeps=scenes.SUBSTEPS, iterations=scenes.ITERATIONS,
                         sleeping=sleeping == "on")
    spec = scenes.by_name()[key]
    for body in spec.bodies:
        world.add_body(shape="box", size=body.half, position=body.position,
                       orientation=body.orientation, kind="static" if body.static else "dynamic",
                       density=None if body.static else scenes.DENSITY,
                       restitution=scenes.RESTITUTION, friction=scenes.FRICTION,
                       linear_velocity=body.velocity, angular_velocity=body.spin)
    return world, spec.frames


def child(key: str, sleeping: str) -> None:
    """Time one simulation in this fresh process (its solver first on sys.path)."""
    import solver

    world, frames = world_of(key, sleeping)
    solver.warm_up(world.other_shapes)
    started = time.process_time()
    world.simulate(frames)
    print(TAG + repr(time.process_time() - started), flush=True)


def environment(tree: Path) -> dict:
    """This environment with `tree`'s solver first on the path and its own numba cache."""
    return dict(os.environ, PYTHONPATH=f"{tree}{os.pathsep}{ROOT / 'benchmarks'}",
               NUMBA_CACHE_DIR=str(Path(tempfile.gettempdir()) / "solver-alone-cache-"
                                   f"{hashlib.sha1(str(tree.resolve()).encode()).hexdigest()[:8]}"))


def run(tree: Path, key: str, sleeping: str) -> float:
    done = subprocess.run([sys.executable, __file__, "--child", key, sleeping],
                          env=environment(tree),
                          capture_output=True, text=True, check=True, cwd=tree)
    line = next(x for x in done.stdout.splitlines() if x.startswith(TAG))
    return float(line[len(TAG):])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump-demo", nargs="?", const="", metavar="ZIP")
    parser.add_argument("--trees", nargs="*", type=Path, default=[ROOT])
    parser.add_argument("--scenes", nargs="*", default=list(SCENES))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    if args.dump_demo is not None:
        dump_demo(args.dump_demo or None)
        return
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import scenes

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"solver alone: World.simulate, CPU s, median of {args.runs} fresh processes "
          f"(kernels ready before the clock); {scenes.FPS} fps, {scenes.SUBSTEPS} substeps, "
          f"{scenes.ITERATIONS} iterations, e = {scenes.RESTITUTION}, mu = {scenes.FRICTION}, "
          f"density {scenes.DENSITY:.0f} kg/m³, BOX; load average {load}\n")
    print("| scene | sleeping | " + " | ".join(str(t) for t in args.trees) + " |")
    print("|---|---|" + "---|" * len(args.trees), flush=True)
    for key in args.scenes:
        for sleeping in ("on", "off"):
            runs: dict[Path, list[float]] = {tree: [] for tree in args.trees}
            for _ in range(args.runs):  # the trees in turn, so a change of load hits each
                for tree in args.trees:
                    runs[tree].append(run(tree, key, sleeping))
            cells = [f"{statistics.median(x):.3f} ({min(x):.3f}-{max(x):.3f})"
                     for x in runs.values()]
            print(f"| {key} | {sleeping} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
