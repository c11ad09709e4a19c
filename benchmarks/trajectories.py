"""Whether two solver trees simulate identically, bit for bit: each tree dumps World.simulate's
trajectory (every field) and the final float64 poses and velocities of ten scenes, in a fresh
process with its own fresh NUMBA_CACHE_DIR, and the dumps are compared. A check for changes
meant to leave the physics alone (speed work), not a test.

Scenes: pile 64 sleeping off, pile 27 sleeping on, stack 10, spin 80, cluster 60 (scenes.py,
BOX), the bundled demo's World sleeping on and off (solver_alone.py --dump-demo), a mix of every
shape on a mesh floor, and pile 27 and the mix again with the penalty method.

    .venv/bin/python benchmarks/trajectories.py dump TREE OUT.npz     (once per tree)
    .venv/bin/python benchmarks/trajectories.py compare A.npz B.npz
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SCENES = ("pile64:off", "pile27:on", "stack10:on", "spin80:on", "cluster60:on", "demo:on",
          "demo:off", "mixed:on", "pile27:on:penalty", "mixed:on:penalty")
FIELDS = ("positions", "orientations", "linear_velocities", "angular_velocities",
          "contact_count", "kinetic_energy", "potential_energy", "linear_momentum",
          "angular_momentum", "max_penetration", "push_out_work")


def mixed(method: str):
    """Boxes, spheres, capsules, cylinders, cones, hulls and a compound falling onto a mesh
    floor and into each other (60 frames)."""
    import solver

    world = solver.World(method=method)
    floor = np.array([[-4.0, -4.0, 0.0], [4.0, -4.0, 0.0], [4.0, 4.0, 0.0], [-4.0, 4.0, 0.0]])
    world.add_body(shape="mesh", vertices=floor, triangles=np.array([[0, 1, 2], [0, 2, 3]]),
                   kind="static")
    rng = np.random.default_rng(5)
    tetrahedron = np.array([[0.3, 0.0, -0.15], [-0.15, 0.27, -0.15], [-0.15, -0.27, -0.15],
                            [0.0, 0.0, 0.3]])
    shapes = [dict(shape="box", size=(0.3, 0.2, 0.25)), dict(shape="sphere", size=0.25),
              dict(shape="capsule", size=(0.15, 0.2)), dict(shape="cylinder", size=(0.2, 0.2)),
              dict(shape="cone", size=(0.25, 0.25)), dict(shape="hull", points=tetrahedron),
              dict(shape="compound", parts=[dict(shape="box", size=(0.2, 0.2, 0.05)),
                                            dict(shape="sphere", size=0.1,
                                                 position=(0.0, 0.0, 0.2))])]
    for n in range(14):
        q = rng.normal(size=4)
        world.add_body(position=(rng.uniform(-1, 1), rng.uniform(-1, 1), 0.5 + 0.6 * n),
                       orientation=q / np.linalg.norm(q), restitution=0.5, friction=0.5,
                       angular_velocity=rng.normal(size=3), **shapes[n % len(shapes)])
    return world, 60


def child(out: str) -> None:
    """Simulate every scene with the solver on sys.path and save the dumps to `out`."""
    import scenes
    import solver_alone


    dumps = {}
    for name in SCENES:
        key, sleeping, *method = name.split(":")
        method = method[0] if method else "impulse"
        if key == "mixed":
            world, frames = mixed(method)
        elif key == "demo":
            world, frames = solver_alone.world_of(key, sleeping)
        else:
            world, frames = solver_alone.world_of(key, sleeping)
            world.method = method
            frames = min(frames, scenes.by_name()[key].frames)
        world.sleeping = sleeping == "on"
        trajectory = world.simulate(frames)
        for field in FIELDS:
            dumps[f"{name}/{field}"] = getattr(trajectory, field)
        b = world.bodies
        for field in ("position", "orientation", "velocity", "angular_velocity"):
            dumps[f"{name}/final_{field}"] = getattr(b, field)
    np.savez(out, **dumps)


def dump(tree: Path, out: str) -> None:
    """The dumps of `tree`'s solver, compiled in a fresh cache, into `out`."""
    env = dict(os.environ, PYTHONPATH=f"{tree}{os.pathsep}{HERE}",
               NUMBA_CACHE_DIR=tempfile.mkdtemp(prefix="trajectories-cache-"))
    subprocess.run([sys.executable, __file__, "--child", out], env=env, check=True, cwd=tree)


def compare(first: dict, second: dict) -> None:
    for name in SCENES:
        keys = [k for k in first if k.startswith(name + "/")]
        differ = [k.split("/")[1] for k in keys if first[k].tobytes() != second[k].tobytes()]
        worst = max((float(np.max(np.abs(first[k].astype(float) - second[k].astype(float))))
                     for k in keys if k.split("/")[1] in differ), default=0.0)
        print(f"{name:20s} {'identical' if not differ else 'DIFFERS'}"
              + (f" in {', '.join(differ)} (largest difference {worst:.3g})" if differ else ""))


def main() -> None:
    command, *rest = sys.argv[1:]
    if command == "--child":
        child(rest[0])
    elif command == "dump":
        dump(Path(rest[0]).resolve(), str(Path(rest[1]).resolve()))
    else:
        with np.load(rest[0]) as first, np.load(rest[1]) as second:
            compare(dict(first), dict(second))


if __name__ == "__main__":
    main()
