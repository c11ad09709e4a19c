"""How heavy a body the solver settings hold up on a lighter one: the table behind the warning.

A 1 m box of mass r rests on a 1 m box of 1 kg on a static ground (gravity 9.81, 24 fps, 72
frames, the two stacked exactly touching at the start). Each cell is the deepest sink of the
stack over the run, as a fraction of the light box's size; a sink under 5 % counts as held.
checks.heavy_ratio_held(substeps, iterations) should lie between the last held ratio and the
first one that is not. Numbers, not a test:

    .venv/bin/python benchmarks/heavy_on_light.py [--frames 72]
"""

import argparse
import sys
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=72)
    frames = parser.parse_args().frames
    print("substeps iterations | sink / size at mass ratio " + " ".join(f"{r:>7}" for r in RATIOS))
    for substeps, iterations in SETTINGS:
        sinks = np.array([sink(r, substeps, iterations, frames) for r in RATIOS])
        cells = " ".join(f"{s:6.3f}{'*' if s >= HELD else ' '}" for s in sinks)
        print(f"{substeps:8} {iterations:10} | {' ' * 26}{cells}", flush=True)
    print(f"* = not held (sink of {HELD:.0%} of the light box's size or more)")


if __name__ == "__main__":
    main()
