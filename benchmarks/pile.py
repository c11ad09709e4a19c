"""The pile of N boxes: Impulse's solver on its own (plain Python, no Blender) against the built-in
rigid body world's simulation (point cache), like for like. Numbers, not a test.

The same bodies (scenes.pile: N one-metre boxes falling 2 m onto the ground, 250 frames), 24 fps,
10 substeps and 10 iterations, restitution and friction 0.5, BOX shapes, sleeping/deactivation on
for both or off for both. CPU seconds (time.process_time) of a fresh process, median of --runs,
the two sides in turn (bake.paired_runs) and the ratio the median of the runs' ratios pair by
pair; the solver's kernels are compiled or loaded (numba's cache) before its clock starts.

    .venv/bin/python benchmarks/pile.py [N ...] [--runs 3]     (default N: 8 27 64 125 343 1000)
"""

import argparse
import os
import statistics
import sys
import time
from functools import partial
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent), str(Path(__file__).resolve().parent)]

import bake  # noqa: E402  (benchmarks/ is on the path, above)
import scenes  # noqa: E402


def child_solver(count: int, sleeping: bool) -> None:
    """Simulate the pile with the solver alone, in this fresh process."""
    import solver

    solver.warm_up()
    world = solver.World(fps=scenes.FPS, substeps=scenes.SUBSTEPS, iterations=scenes.ITERATIONS,
                         sleeping=sleeping)
    spec = scenes.pile(count)
    for body in spec.bodies:
        world.add_body(shape="box", size=body.half, position=body.position,
                       orientation=body.orientation,
                       kind="static" if body.static else "dynamic",
                       density=None if body.static else scenes.DENSITY,
                       restitution=scenes.RESTITUTION, friction=scenes.FRICTION,
                       linear_velocity=body.velocity, angular_velocity=body.spin)
    started = time.process_time()
    world.simulate(spec.frames)
    bake._emit({"simulate": time.process_time() - started, "peak_mb": bake._peak_mb()})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", type=int, nargs="*", default=[8, 27, 64, 125, 343, 1000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--sleeping", choices=("on", "off"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child_solver(args.child, args.sleeping == "on")
        return
    env = bake.child_environment()
    bake.run_child(env, "install", bake.built_zip())  # the built-in runs read Impulse's properties
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"pile, {scenes.pile(8).frames} frames at {scenes.FPS} fps, {scenes.SUBSTEPS} substeps, "
          f"{scenes.ITERATIONS} iterations, restitution {scenes.RESTITUTION}, friction "
          f"{scenes.FRICTION}, BOX; CPU seconds, median of {args.runs} fresh processes, the two "
          "sides in turn, the ratio the median of the runs' ratios pair by pair; "
          f"machine shared and loaded (load average {load})\n")
    print("| N | sleeping | Impulse solver simulate | built-in simulate | ratio | "
          "peak MB solver / built-in |\n|---|---|---|---|---|---|", flush=True)
    for count in args.sizes:
        for sleeping in ("on", "off"):
            our_runs, their_runs = bake.paired_runs(
                args.runs,
                partial(bake.run_child_script, __file__, env, "--child", str(count),
                        "--sleeping", sleeping),
                partial(bake.run_child, env, "builtin", f"pile{count}", "--sleeping", sleeping))
            ours, theirs = bake.medians(our_runs), bake.medians(their_runs)
            ratio = statistics.median(bake.pair_ratio(our_runs, "simulate", their_runs,
                                                      "simulate"))
            print(f"| {count} | {sleeping} | {ours['simulate']:.2f} | {theirs['simulate']:.2f} | "
                  f"{ratio:.2f} | {ours['peak_mb']:.0f} / {theirs['peak_mb']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
