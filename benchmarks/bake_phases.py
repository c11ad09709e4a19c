"""Where an Impulse bake's CPU time goes inside Blender (read, simulate, write), against the same
World simulated by the solver alone in plain Python. Numbers, not a test.

The scenes and settings are bake.py's (BOX shapes, the demo's chair a compound of BOX parts,
bake.py's substeps, iterations and materials). Each Blender run is a fresh process (the bpy
module) with the built zip installed as an extension, in a session that has baked the same
scene once, as bake.py's Impulse child does; its World is pickled before its first step, and
each plain-Python run is a fresh process that loads it and simulates the same frames with the
solver of this checkout (numba compiles for this machine's CPU into NUMBA_CACHE_DIR or
solver/__pycache__ on first use: the first row can take minutes). CPU seconds
(time.process_time), median of --runs.

--cold-start times instead a new session's first bake, with the JIT cache present (the zip's
shipped kernels, copied by an install run first), as Blender runs (bake.blender_like): Blender's
import, Impulse's enable, then the first bake of each scene (the scene built first, untimed), and
the bake's own phase timings (wall seconds; "compile" is the kernels' loading).

    .venv/bin/python benchmarks/bake_phases.py [--scenes demo pile64] [--runs 3] [--sleeping on]
    .venv/bin/python benchmarks/bake_phases.py --cold-start [--zip ZIP] [--runs 5]
"""

import argparse
import io
import os
import pickle
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

import bake  # noqa: E402  (benchmarks/ is on the path, above)
import scenes  # noqa: E402

_PACKAGE = f"{bake.EXTENSION}."  # the solver's module names inside Blender start with it


def child_blender(key: str, sleeping: bool, pickled: str) -> None:
    """One bake, its phases timed apart; its World pickled to `pickled` before the first step."""
    import importlib

    bake._enable().make_ready()
    job_module = importlib.import_module(f"{bake.EXTENSION}.blender_addon.baking.job")
    bake.bake_once(job_module, bake.build_scene(key), sleeping)  # as bake.child_impulse
    scene = bake.build_scene(key)
    started = time.process_time()
    job = job_module.BakeJob(scene)
    job.world.sleeping = sleeping
    read = time.process_time()
    Path(pickled).write_bytes(pickle.dumps(job.world))
    resumed = time.process_time()
    while job.step():
        pass
    simulated = time.process_time()
    report = job.finish()
    done = time.process_time()
    bake._emit({"bodies": report.bodies, "frames": report.frames, "read": read - started,
                "simulate": simulated - resumed, "write": done - simulated,
                "bake": done - resumed + read - started})


def child_cold_start(key: str) -> None:
    """A new session to the end of its first bake, of scene `key` (sleeping on)."""
    import importlib

    if os.environ.get(bake.NO_SCIPY):
        sys.modules["scipy"] = None  # unimportable, as in Blender (see bake.blender_like)
    import bpy  # noqa: F401  (Blender itself is part of the cold start)

    blender = time.process_time()
    bake._enable()
    enabled = time.process_time()
    job_module = importlib.import_module(f"{bake.EXTENSION}.blender_addon.baking.job")
    scene = bake.build_scene(key)
    built = time.process_time()
    report = job_module.bake_scene(scene)
    baked = time.process_time()
    bake._emit({"blender": blender, "enable": enabled - blender, "bake": baked - built,
                "total": baked - built + enabled, **report.timings})


class _PlainSolver(pickle.Unpickler):
    """Unpickles the extension's World with this checkout's solver (same classes, plain names)."""

    def find_class(self, module: str, name: str):
        return super().find_class(module.removeprefix(_PACKAGE), name)


def child_solver(pickled: str, frames: int) -> None:
    """The pickled World simulated by the solver alone, its kernels made ready first."""
    from solver.warmup import warm_up

    warm_up(True)
    world = _PlainSolver(io.BytesIO(Path(pickled).read_bytes())).load()
    started = time.process_time()
    world.simulate(frames)
    bake._emit({"simulate": time.process_time() - started})


COLUMNS = ("| scene | sleeping | bodies | frames | read | simulate | write | bake | "
           "solver alone (plain Python), same World | simulate − solver alone |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", nargs="+", choices=bake.ALL, default=["demo", "pile64"])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sleeping", choices=("on", "off", "both"), default="both")
    parser.add_argument("--cold-start", action="store_true",
                        help="a new session's first bake instead, part by part")
    parser.add_argument("--zip", help="measure this linux-x64 zip instead of building one")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, *rest = args.child
        if kind == "blender":
            child_blender(rest[0], rest[1] == "on", rest[2])
        elif kind == "cold":
            child_cold_start(rest[0])
        else:
            child_solver(rest[0], int(rest[1]))
        return
    env = bake.child_environment()
    archive = str(Path(args.zip).resolve()) if args.zip else bake.built_zip()
    bake.run_child_script(bake.__file__, env, "--child", "install", archive)
    if args.cold_start:
        cold_starts(bake.blender_like(env), args.scenes, args.runs)
        return
    plain = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_CACHE_LOCATOR")}
    pickled = str(Path(tempfile.mkdtemp(prefix="impulse-phases-")) / "world.pickle")
    loads = []
    print(f"{settings()}; CPU seconds, median of {args.runs} fresh processes each; read + "
          f"simulate + write = bake.\n\n{COLUMNS}\n" + "|---" * 10 + "|", flush=True)
    for key in args.scenes:
        for flag in ("on", "off") if args.sleeping == "both" else (args.sleeping,):
            ours = [bake.run_child_script(__file__, env, "--child", "blender", key, flag, pickled)
                    for _ in range(args.runs)]
            loads.append(os.getloadavg()[0])
            frames = str(int(ours[0]["frames"]) - 1)
            alone = [bake.run_child_script(__file__, plain, "--child", "solver", pickled, frames)
                     for _ in range(args.runs)]
            loads.append(os.getloadavg()[0])
            m = bake.medians(ours)
            solo = statistics.median(r["simulate"] for r in alone)
            print(f"| {key} | {flag} | {m['bodies']:.0f} | {m['frames']:.0f} | {m['read']:.3f} | "
                  f"{m['simulate']:.3f} | {m['write']:.3f} | {m['bake']:.3f} | {solo:.3f} | "
                  f"{m['simulate'] - solo:+.3f} |", flush=True)
    print(f"\nLoad average (1 min) while measuring: {min(loads):.1f}–{max(loads):.1f} on "
          f"{os.cpu_count()} cores.")


def settings() -> str:
    return (f"Settings: {scenes.FPS} fps, {scenes.SUBSTEPS} substeps, {scenes.ITERATIONS} "
            f"iterations, restitution {scenes.RESTITUTION}, friction {scenes.FRICTION}, BOX "
            f"shapes, density {scenes.DENSITY:.0f} kg/m³")


def cold_starts(env: dict, keys: list[str], runs: int) -> None:
    print(f"{settings()}, sleeping on; median of {runs} new sessions each, as Blender runs."
          f"\n\n{COLD_COLUMNS}\n" + "|---" * 10 + "|", flush=True)
    bake.run_child_script(__file__, env, "--child", "cold", keys[0])  # writes the bytecode
    for key in keys:
        m = bake.medians([bake.run_child_script(__file__, env, "--child", "cold", key)
                          for _ in range(runs)])
        print(f"| {key} | {m['blender']:.2f} | {m['enable']:.2f} | {m['bake']:.2f} | "
              f"{m['total']:.2f} | {m['read']:.3f} | {m['compile']:.3f} | {m['simulate']:.3f} | "
              f"{m['write']:.3f} | {os.getloadavg()[0]:.1f} |", flush=True)


COLD_COLUMNS = ("| scene | Blender (CPU s) | enable | first bake | total | bake's read (wall s) "
                "| compile (loading) | simulate | write | load |")


if __name__ == "__main__":
    main()
