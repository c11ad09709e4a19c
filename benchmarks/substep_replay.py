"""The compiled substep driver of several solver trees on the very same inputs: a like-for-like
timing of a change that alters trajectories. Numbers, not a test.

Timing whole simulations cannot compare such a change fairly: the two trees' scenes part after
a few frames (the demo's then falls asleep 7 frames later or sooner), so they no longer do the
same work. Here the first tree simulates the scene once and every substep driver call it makes
(solver.substep.substep, not resumed; the loop that calls it, solver.substep_loop, is run as
plain Python for this) is saved with its arguments; each tree then runs every saved substep
from its saved state, in a fresh process with its own numba cache, `reps` times after one
untimed pass. CPU time (time.process_time) per substep, median of --runs processes per tree,
the trees in turn, and each tree's ratio to the first, pair by pair. The trees' drivers must
take the same arguments.

    .venv/bin/python benchmarks/substep_replay.py --trees A B [--scene demo] [--sleeping on]
        [--reps 5] [--runs 5]
"""

import argparse
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import solver_alone

HERE = Path(__file__).resolve().parent
TAG = "REPLAY "
SETTINGS = "SETTINGS "


def capture(key: str, sleeping: str, out: str) -> None:
    """Simulate the scene with the solver on sys.path, saving each driver call's arguments, and
    print the world's settings (the same for every tree: they replay these very substeps)."""
    import numpy as np

    import solver
    import solver.substep_loop as loop
    import solver.world
    from solver.bodies import SHAPES

    world, frames = solver_alone.world_of(key, sleeping)
    solver.warm_up(world.other_shapes)
    driver = loop.substep
    saved = []

    def saving(*args):
        if not args[-1]:  # not resumed
            saved.append([x.copy() if isinstance(x, np.ndarray) else x for x in args])
        return driver(*args)

    kernel = solver.world.run_substeps
    solver.world.run_substeps, loop.substep = kernel.py_func, saving
    world.simulate(frames)
    solver.world.run_substeps, loop.substep = kernel, driver
    with open(out, "wb") as f:
        pickle.dump(saved, f)
    b = world.bodies
    names = {code: name for name, code in SHAPES.items()}
    shapes = ", ".join(names[code] for code in sorted(set(b.shape.tolist())))
    print(f"{SETTINGS}{len(b)} bodies ({shapes}), {frames} frames at {world.fps:g} fps, "
          f"{world.substeps} substeps, {world.iterations} iterations, {world.method} method, "
          f"restitution {sorted(set(b.restitution.tolist()))}, friction "
          f"{sorted(set(b.friction.tolist()))}, sleeping {sleeping}; {len(saved)} substeps "
          "saved", flush=True)


def replay(path: str, reps: int) -> None:
    """Print the CPU µs per saved substep of the driver on sys.path, median of `reps` passes."""
    import numpy as np

    from solver.substep import substep

    with open(path, "rb") as f:
        saved = pickle.load(f)

    def fresh(state):
        return [x.copy() if isinstance(x, np.ndarray) else x for x in state]

    for state in saved:  # untimed: every path compiled and warm
        substep(*fresh(state))
    spent = []
    for _ in range(reps):
        copies = [fresh(state) for state in saved]
        started = time.process_time()
        for copy in copies:
            substep(*copy)
        spent.append(time.process_time() - started)
    print(TAG + repr(1e6 * statistics.median(spent) / len(saved)), flush=True)


def child(tree: Path, *args: str) -> str:
    """This script's output run with `tree`'s solver (solver_alone.environment)."""
    done = subprocess.run([sys.executable, __file__, *args], env=solver_alone.environment(tree),
                          capture_output=True, text=True, check=True, cwd=tree)
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", nargs="+", type=Path, default=[HERE.parent])
    parser.add_argument("--scene", default="demo")
    parser.add_argument("--sleeping", default="on", choices=("on", "off"))
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--capture", help=argparse.SUPPRESS)
    parser.add_argument("--replay", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.capture:
        capture(args.scene, args.sleeping, args.capture)
        return
    if args.replay:
        replay(args.replay, args.reps)
        return
    with tempfile.TemporaryDirectory() as folder:
        saved = os.path.join(folder, "substeps.pkl")
        out = child(args.trees[0], "--capture", saved, "--scene", args.scene, "--sleeping",
                    args.sleeping)
        settings = next(x for x in out.splitlines() if x.startswith(SETTINGS))[len(SETTINGS):]
        times: dict[Path, list[float]] = {tree: [] for tree in args.trees}
        for _ in range(args.runs):
            for tree in args.trees:
                out = child(tree, "--replay", saved, "--reps", str(args.reps))
                line = next(x for x in out.splitlines() if x.startswith(TAG))
                times[tree].append(float(line[len(TAG):]))
    first = times[args.trees[0]]
    print(f"{args.scene}, sleeping {args.sleeping}: the substeps of {args.trees[0]}'s run, "
          f"each tree's driver from the same saved states; CPU µs per substep, median of "
          f"{args.runs} fresh processes ({args.reps} timed passes each); load average "
          + ", ".join(f"{x:.1f}" for x in os.getloadavg()))
    print(f"Settings (every tree replays the same substeps): {settings}")
    print()
    print("| tree | µs per substep (range) | ÷ first, pair by pair |")
    print("|---|---|---|")
    for tree, spent in times.items():
        ratio = statistics.median(x / y for x, y in zip(spent, first, strict=True))
        print(f"| {tree} | {statistics.median(spent):.1f} ({min(spent):.1f}-{max(spent):.1f}) "
              f"| {ratio:.3f} |")


if __name__ == "__main__":
    main()
