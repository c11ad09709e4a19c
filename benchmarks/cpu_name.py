"""The cost of compiling the solver for numba's generic CPU (what the extension does, so that the
kernels the linux-x64 zip ships load on any x86-64 machine) against this machine's own CPU.
Numbers, not a test.

The solver alone (plain Python, no Blender) simulates benchmarks/scenes.pile (250 frames, 24 fps,
10 substeps, 10 iterations, restitution and friction 0.5) of boxes, or of cylinders (radius and
half height 0.5) in the boxes' places, sleeping off or on. Each run is a fresh process, the two
CPU settings alternating, each with a numba cache of its own (compiled by a first, untimed run);
CPU seconds of World.simulate, median and minimum of --runs. Also whether the trajectories of
the two settings are bit-identical.

    .venv/bin/python benchmarks/cpu_name.py [--runs 5]
"""

import argparse
import hashlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent), str(Path(__file__).resolve().parent)]

import bake  # noqa: E402  (benchmarks/ is on the path, above)
import scenes  # noqa: E402

CASES = (("box", 343, "off"), ("box", 64, "off"), ("box", 64, "on"), ("cylinder", 64, "off"))
CPUS = ("host", "generic")


def child(shape: str, count: int, sleeping: bool) -> None:
    """Simulate the pile in this fresh process; emit its CPU seconds and trajectory digest."""
    from numba.core.registry import cpu_target

    import solver

    solver.warm_up(shape != "box")
    world = solver.World(fps=scenes.FPS, substeps=scenes.SUBSTEPS, iterations=scenes.ITERATIONS,
                         sleeping=sleeping)
    for body in scenes.pile(count).bodies:
        size = body.half if body.static or shape == "box" else (0.5, 0.5)
        world.add_body(shape="box" if body.static else shape, size=size,
                       position=body.position, orientation=body.orientation,
                       kind="static" if body.static else "dynamic",
                       density=None if body.static else scenes.DENSITY,
                       restitution=scenes.RESTITUTION, friction=scenes.FRICTION,
                       linear_velocity=body.velocity, angular_velocity=body.spin)
    started = time.process_time()
    trajectory = world.simulate(scenes.pile(count).frames)
    seconds = time.process_time() - started
    digest = hashlib.sha256()
    for array in (trajectory.positions, trajectory.orientations, trajectory.linear_velocities,
                  trajectory.angular_velocities):
        digest.update(array.tobytes())
    bake._emit({"simulate": seconds, "digest": digest.hexdigest(),
                "cpu": cpu_target.target_context.codegen().magic_tuple()[1]})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        shape, count, sleeping = args.child
        child(shape, int(count), sleeping == "on")
        return
    base = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    envs = {cpu: dict(base, NUMBA_CACHE_DIR=tempfile.mkdtemp(prefix=f"impulse-{cpu}-"))
            for cpu in CPUS}
    envs["generic"]["NUMBA_CPU_NAME"] = "generic"
    for cpu in CPUS:  # compile both caches, every shape
        bake.run_child_script(__file__, envs[cpu], "--child", "cylinder", "8", "off")
    results: dict = {(case, cpu): [] for case in CASES for cpu in CPUS}
    for _ in range(args.runs):
        for case in CASES:
            for cpu in CPUS:
                shape, count, sleeping = case
                results[case, cpu].append(bake.run_child_script(
                    __file__, envs[cpu], "--child", shape, str(count), sleeping))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"solver alone, both CPU settings alike: {scenes.FPS} fps, {scenes.SUBSTEPS} substeps, "
          f"{scenes.ITERATIONS} iterations, restitution {scenes.RESTITUTION}, friction "
          f"{scenes.FRICTION}, density {scenes.DENSITY:.0f} kg/m³, {scenes.pile(8).frames} frames; "
          f"CPU seconds of World.simulate, median (minimum) of {args.runs} fresh processes "
          f"alternating; load average now {load}\n")
    print(f"{'scene':<34}{'host CPU':>16}{'generic':>16}{'generic/host':>14}  identical")
    for case in CASES:
        runs = {cpu: [r["simulate"] for r in results[case, cpu]] for cpu in CPUS}
        median = {cpu: statistics.median(runs[cpu]) for cpu in CPUS}
        digests = {r["digest"] for cpu in CPUS for r in results[case, cpu]}
        name = f"pile of {case[1]} {case[0]}{'es' if case[0] == 'box' else 's'}, sleeping {case[2]}"
        cells = [f"{median[cpu]:.3f} ({min(runs[cpu]):.3f})" for cpu in CPUS]
        print(f"{name:<34}{cells[0]:>16}{cells[1]:>16}{median['generic'] / median['host']:>14.2f}"
              f"  {'yes' if len(digests) == 1 else 'NO'}")
    print("\nhost CPU:", results[CASES[0], "host"][0]["cpu"])


if __name__ == "__main__":
    main()
