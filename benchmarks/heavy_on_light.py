"""How heavy a body the solver settings hold up on a lighter one, and how tall stacks stand.

A 1 m box of mass r rests on a 1 m box of 1 kg on a static ground (gravity 9.81, 24 fps, 72
frames, the two stacked exactly touching at the start). Each cell is the deepest sink of the
stack over the run, as a fraction of the light box's size; a sink under 5 % counts as held.
Before the conjugate-gradient polish of the contact solve (solver/polish.py) the ratio held
rose with the settings (about 200 at 10 substeps x 10 iterations) and the bake warned beyond
it; now every cell holds, so the bake no longer warns about heavy bodies on light ones.

Then the figures of issue #10 item 1 at the default settings (10 substeps, 10 iterations),
sleeping off and on: the worst drift over the run of the heavy and the light box (1:1,000 and
1:10,000, 500 frames), of the top of a column of 20 unit boxes (1,000 frames) and of the top of
a pyramid of 20 rows (210 boxes side by side, --pyramid-frames), with CPU seconds. Numbers, not
a test:

    .venv/bin/python benchmarks/heavy_on_light.py [--frames 72] [--pyramid-frames 300]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import solver

RATIOS = (3, 10, 30, 100, 300, 1000, 3000, 10000)
SETTINGS = ((1, 1), (1, 10), (10, 1), (5, 5), (10, 10), (20, 20))
HELD = 0.05


def sink(ratio: float, substeps: int, iterations: int, frames: int) -> float:
    """Deepest penetration of the stack over the run, in units of the light box's size."""
    world = solver.World(fps=24, substeps=substeps, iterations=iterations)
    world.add_body("box", (10.0, 10.0, 0.5), (0.0, 0.0, -0.5), kind="static")
    world.add_body("box", (0.5, 0.5, 0.5), (0.0, 0.0, 0.5), mass=1.0, restitution=0.0)
    world.add_body("box", (0.5, 0.5, 0.5), (0.0, 0.0, 1.5), mass=float(ratio), restitution=0.0)
    z = world.simulate(frames).positions[:, 1:, 2]
    into_ground = -(z[:, 0] - 0.5)
    into_light = -(z[:, 1] - z[:, 0] - 1.0)
    return float(max(into_ground.max(), into_light.max(), 0.0))


def _ground(world: solver.World) -> None:
    world.add_body("box", (20.0, 20.0, 0.5), (0.0, 0.0, -0.5), kind="static", restitution=1.0,
                   friction=1.0)


def _drift(trajectory, body: int) -> float:
    """Worst distance of a body from its start over the run, m."""
    p = trajectory.positions[:, body]
    return float(np.linalg.norm(p - p[0], axis=1).max())


def stacks(pyramid_frames: int) -> None:
    """The issue's figures: worst drifts (mm) at the default settings."""
    print("\n| scene | frames | sleeping | drift (mm) | CPU s |\n|---|---|---|---|---|")
    for sleeping in (False, True):
        for ratio in (1000.0, 10000.0):
            world = solver.World(sleeping=sleeping)
            _ground(world)
            light = world.add_body("box", (0.5,) * 3, (0.0, 0.0, 0.5), mass=1.0, restitution=0.0)
            heavy = world.add_body("box", (0.5,) * 3, (0.0, 0.0, 1.5), mass=ratio,
                                   restitution=0.0)
            started = time.process_time()
            run = world.simulate(500)
            print(f"| {ratio:g} kg on 1 kg: heavy / light box | 500 | {sleeping} | "
                  f"{1e3 * _drift(run, heavy):.2e} / {1e3 * _drift(run, light):.2e} | "
                  f"{time.process_time() - started:.1f} |", flush=True)
        world = solver.World(sleeping=sleeping)
        _ground(world)
        for k in range(20):
            top = world.add_body("box", (0.5,) * 3, (0.0, 0.0, 0.5 + k), restitution=0.0)
        started = time.process_time()
        run = world.simulate(1000)
        print(f"| column of 20: top box | 1000 | {sleeping} | {1e3 * _drift(run, top):.2e} | "
              f"{time.process_time() - started:.1f} |", flush=True)
        world = solver.World(sleeping=sleeping)
        _ground(world)
        for row in range(20):
            for k in range(20 - row):
                top = world.add_body("box", (0.5,) * 3, (k - (19 - row) / 2, 0.0, 0.5 + row),
                                     restitution=0.0)
        started = time.process_time()
        run = world.simulate(pyramid_frames)
        print(f"| pyramid of 20 rows: top box | {pyramid_frames} | {sleeping} | "
              f"{1e3 * _drift(run, top):.2e} | {time.process_time() - started:.1f} |",
              flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=72)
    parser.add_argument("--pyramid-frames", type=int, default=300)
    args = parser.parse_args()
    frames = args.frames
    print("substeps iterations | sink / size at mass ratio " + " ".join(f"{r:>7}" for r in RATIOS))
    for substeps, iterations in SETTINGS:
        sinks = np.array([sink(r, substeps, iterations, frames) for r in RATIOS])
        cells = " ".join(f"{s:6.3f}{'*' if s >= HELD else ' '}" for s in sinks)
        print(f"{substeps:8} {iterations:10} | {' ' * 26}{cells}", flush=True)
    print(f"* = not held (sink of {HELD:.0%} of the light box's size or more)")
    stacks(args.pyramid_frames)


if __name__ == "__main__":
    main()
