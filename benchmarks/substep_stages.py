"""Where the compiled substep's time goes, phase by phase, for a solver tree. Numbers, not a test.

A scene (solver_alone.world_of: the demo's World or a pile) is simulated once and the arguments
of every `every`-th substep driver call (solver.substep.substep, not resumed; the loop that calls
it, solver.substep_loop, is run as plain Python for this) are copied; those
substeps are then replayed, each from its copy, `reps` times as the driver itself and `reps`
times phase by phase: each phase the driver runs is called on its own, in the driver's order,
from Python, and the same call on no rows is timed too and subtracted (its dispatch and fixed
cost, which the driver does not pay; the phases without rows keep theirs): approximate, for
finding what to make cheaper. CPU time
(time.process_time), per substep; median of --runs fresh processes per tree, trees in turn.

    .venv/bin/python benchmarks/substep_stages.py [--trees ROOT ...] [--scene demo]
        [--sleeping off] [--every 37] [--reps 5] [--runs 3] [--frames N]
"""

import argparse
import inspect
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TAG = "STAGES "


def phases():
    """(driver, phase-by-phase replay of one substep) for the solver on sys.path."""
    import numpy as np
    from numba import njit

    from solver import linalg
    from solver.constraints import POINTS, prepare_rows
    from solver.integrate import integrate_velocities
    from solver.polish import polish
    from solver.rolling import resist_rolling
    from solver.solve_impulse import (
        POLISH_STEPS,
        _curving_targets,
        _push_targets,
        _set_targets,
        _sweep,
        bounce_ceilings,
        remember_incoming,
        warm_start,
    )
    from solver.substep import fast_bodies, move, substep

    @njit
    def by_index(rotations, inverse_inertia, out):
        for i in range(len(rotations)):
            linalg.sandwich(rotations, inverse_inertia, i, out, i)

    @njit
    def by_view(rotations, inverse_inertia, out):  # the sandwich of older trees
        for i in range(len(rotations)):
            linalg.sandwich(rotations[i], inverse_inertia[i], out[i])

    indexed = len(inspect.signature(linalg.sandwich.py_func).parameters) == 5
    by_island = "dynamic" in inspect.signature(polish.py_func).parameters  # trees after 74da7e4
    # trees after ac31eac end the sweeps island by island
    sweeps_by_island = "island" in inspect.signature(_sweep.py_func).parameters
    if sweeps_by_island:
        from solver.sleep import row_islands
    inverses = by_index if indexed else by_view

    spent: dict[str, float] = {}
    none = np.empty(0, dtype=np.int64)

    def timed(name, kernel, *args, net=True):
        """Run kernel(*args), adding its time to `name`'s, less that of the same call on no
        rows (its dispatch and fixed cost) where its first argument is the rows and `net`
        (not for move, which moves every body whatever the rows)."""
        started = time.process_time()
        result = kernel(*args)
        took = time.process_time() - started
        if net and isinstance(args[0], np.ndarray) and args[0].dtype == np.int64:
            started = time.process_time()
            kernel(none, *args[1:])
            took -= time.process_time() - started
        spent[name] = spent.get(name, 0.0) + took
        return result

    def replay(*, rows, position, orientation, velocity, angular_velocity, mass, inverse_mass,
               inertia, inverse_inertia, drag, lift, linear_damping, angular_damping,
               rolling_resistance, shape, dynamic, awake, radius, thickness, a, b, points,
               point, normal, tangents, separation, slop, restitution, friction, isolated,
               thin, incoming, bias, rebound_bias, normal_rows, normal_response, normal_block,
               normal_inverse, normal_vectors=None, subset_inverse, subset_ready, friction_rows,
               friction_response, friction_mass, normal_impulse, friction_impulse, feature,
               rotations, world_inverse, pseudo, left, omega, zeta, gravity, h, sweeps,
               impulse, resume):
        """The impulse method's substep (solver.substep.substep, not resumed), phase by
        phase, its arguments by the driver's names (trees before 2026-12-07 have no
        normal_vectors); stops where the driver would hand over to Python (IMPACT, CCD)."""
        world_inverse_inertia = world_inverse
        vectors = () if normal_vectors is None else (normal_vectors,)
        timed("velocities", integrate_velocities, velocity, angular_velocity, inverse_mass,
              drag, lift, linear_damping, angular_damping, awake, gravity, h)
        if not len(rows):
            return
        timed("world inverse inertia", inverses, rotations, inverse_inertia,
              world_inverse_inertia)
        timed("prepare_rows", prepare_rows, rows, a, b, points, point, normal, tangents,
              position, inverse_mass, world_inverse_inertia, normal_rows, normal_response,
              normal_block, normal_inverse, *vectors, subset_inverse, subset_ready,
              friction_rows, friction_response, friction_mass)
        pushed, pushed_spin = np.zeros((0, 3)), np.zeros((0, 3))
        unbounded = np.empty((0, POINTS))
        ceiling = np.empty_like(bias)
        bouncing = timed("targets", _set_targets, rows, a, b, points, normal, normal_rows,
                         separation, slop, restitution, isolated, thin, incoming, bias,
                         rebound_bias, normal_impulse, ceiling, velocity, angular_velocity,
                         gravity, dynamic, h)
        timed("targets", _curving_targets, rows, a, b, points, point, normal, normal_rows,
              position, velocity, angular_velocity, shape, thickness, feature, rotations,
              separation, slop, dynamic, h, bias, rebound_bias)
        timed("warm start", warm_start, rows, a, b, points, normal_rows, normal_response,
              friction_rows, friction_response, normal_impulse, friction_impulse, bias,
              velocity, angular_velocity)
        island = ()
        if sweeps_by_island:
            island = (timed("sweeps", row_islands, rows, a, b, dynamic,
                            np.ones(len(rows), dtype=np.bool_))[0],)
        timed("sweeps", _sweep, rows, a, b, points, normal_rows, normal_response,
              normal_block, normal_inverse, subset_inverse, subset_ready, friction_rows,
              friction_response, friction_mass, friction, normal_impulse, friction_impulse,
              bias, unbounded, velocity, angular_velocity, sweeps, sweeps > 0, *island)
        islands = (dynamic,) if by_island else ()
        timed("polish", polish, rows, a, b, points, normal_rows, normal_response, normal_block,
              subset_inverse, subset_ready, normal_impulse, bias, velocity, angular_velocity,
              *islands, POLISH_STEPS * sweeps)
        if bouncing:
            timed("bounce sweeps", bounce_ceilings, rows, points, restitution, normal_impulse,
                  ceiling)
            timed("bounce sweeps", _sweep, rows, a, b, points, normal_rows, normal_response,
                  normal_block, normal_inverse, subset_inverse, subset_ready, friction_rows,
                  friction_response, friction_mass, friction, normal_impulse,
                  friction_impulse, rebound_bias, ceiling, velocity, angular_velocity, sweeps,
                  not sweeps > 0, *island)
        timed("targets", remember_incoming, rows, points, separation, slop, normal_impulse,
              incoming)
        target = np.zeros_like(bias)
        if timed("push-out targets", _push_targets, rows, a, b, points, point, normal,
                 normal_rows, position, velocity, angular_velocity, shape, thickness, feature,
                 rotations, separation, slop, h, target):
            pushed, pushed_spin = pseudo[0], pseudo[1]
            pushed[:] = 0.0
            pushed_spin[:] = 0.0
            timed("push-out sweeps", _sweep, rows, a, b, points, normal_rows, normal_response,
                  normal_block, normal_inverse, subset_inverse, subset_ready, friction_rows,
                  friction_response, friction_mass, friction, np.zeros_like(target),
                  friction_impulse, target, unbounded, pushed, pushed_spin, sweeps,
                  not sweeps > 0, *island)
        timed("rolling", resist_rolling, rows, a, b, points, point, normal, normal_impulse,
              position, world_inverse_inertia, rolling_resistance, angular_velocity)
        step = np.empty(len(position))
        if timed("move", fast_bodies, velocity, angular_velocity, radius, thickness, awake, h,
                 step):
            return
        step[:] = h * left
        timed("move", move, rows, position, orientation, velocity, angular_velocity, inertia,
              inverse_inertia, mass, awake, step, step, pushed, pushed_spin, gravity, rotations,
              points, separation, normal_impulse, net=False)

    return substep, replay, spent


def child(key: str, sleeping: str, every: int, reps: int, frames: int | None) -> None:
    """Capture, replay and print the per-substep times (µs) as JSON, over the scene's first
    `frames` frames (all if None)."""
    import numpy as np
    import solver_alone

    import solver
    import solver.world

    world, length = solver_alone.world_of(key, sleeping)
    frames = length if frames is None else min(frames, length)
    solver.warm_up(world.other_shapes)
    driver, replay, spent = phases()
    captured = []
    calls = [0]

    def capture(*args):
        calls[0] += 1
        if calls[0] % every == 0 and not args[-1]:
            captured.append([x.copy() if isinstance(x, np.ndarray) else x for x in args])
        return driver(*args)

    if hasattr(solver.world, "run_substeps"):  # trees after 2026-12-07: the loop calls it
        import solver.substep_loop as loop

        kernel = solver.world.run_substeps
        solver.world.run_substeps, loop.substep = kernel.py_func, capture
        world.simulate(frames)
        solver.world.run_substeps, loop.substep = kernel, driver
    else:
        solver.world.substep = capture
        world.simulate(frames)
        solver.world.substep = driver

    def fresh(state):
        return [x.copy() if isinstance(x, np.ndarray) else x for x in state]

    names = list(inspect.signature(driver.py_func).parameters)

    def replayed(state):
        replay(**dict(zip(names, fresh(state), strict=True)))

    for state in captured:  # compiles what the cache lacks (inlined phases, world_inverse)
        replayed(state)
    spent.clear()
    whole = 0.0
    for _ in range(reps):
        for state in captured:
            copy = fresh(state)
            started = time.process_time()
            driver(*copy)
            whole += time.process_time() - started
        for state in captured:
            replayed(state)
    count = reps * len(captured)
    result = {name: 1e6 * value / count for name, value in spent.items()}
    result["driver (one call)"] = 1e6 * whole / count
    result["rows"] = float(np.mean([len(state[0]) for state in captured]))
    print(TAG + json.dumps(result), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", nargs="*", type=Path, default=[ROOT])
    parser.add_argument("--scene", default="demo")
    parser.add_argument("--sleeping", default="off", choices=("on", "off"))
    parser.add_argument("--every", type=int, default=37)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--frames", type=int, help="only the scene's first FRAMES frames")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.scene, args.sleeping, args.every, args.reps, args.frames)
        return
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import solver_alone

    results: dict[Path, list[dict]] = {tree: [] for tree in args.trees}
    for _ in range(args.runs):
        for tree in args.trees:
            done = subprocess.run(
                [sys.executable, __file__, "--child", "--scene", args.scene, "--sleeping",
                 args.sleeping, "--every", str(args.every), "--reps", str(args.reps),
                 *(["--frames", str(args.frames)] if args.frames else [])],
                env=solver_alone.environment(tree), capture_output=True, text=True,
                check=True, cwd=tree)
            line = next(x for x in done.stdout.splitlines() if x.startswith(TAG))
            results[tree].append(json.loads(line[len(TAG):]))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    span = f"first {args.frames} frames" if args.frames else "all frames"
    print(f"{args.scene} ({span}), sleeping {args.sleeping}: every {args.every}th substep replayed "
          f"{args.reps} times; CPU µs per substep, median of {args.runs} fresh processes; "
          f"phases called one by one, less the same call on no rows; load average {load}\n")
    names = list(dict.fromkeys(name for runs in results.values() for run in runs
                               for name in run))
    print("| phase | " + " | ".join(str(t) for t in args.trees) + " |")
    print("|---|" + "---|" * len(args.trees))
    for name in names:
        cells = [statistics.median(run.get(name, 0.0) for run in runs)
                 for runs in results.values()]
        print(f"| {name} | " + " | ".join(f"{c:.1f}" for c in cells) + " |")


if __name__ == "__main__":
    main()
