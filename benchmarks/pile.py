"""Benchmark: N boxes fall from a grid 2 m above the ground into a pile, 250 frames at 24 fps.

Times Impulse's solver and, in the same run, Blender's built-in rigid body world (Bullet, via the
bpy module, default world settings) on the same scene, and prints the ratio. Numbers only; no
assertions. Usage: python benchmarks/pile.py [N ...] (default 27 125 1000).
"""

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="impulse-bench-"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from solver import World

FRAMES = 250
HALF = 0.5  # box half-extent, m
SPACING = 1.5  # centre to centre in the grid, m
DROP = 2.0  # gap between the ground and the lowest boxes, m


def grid(count: int) -> np.ndarray:
    """Centres of `count` boxes in a cube-ish grid whose lowest layer is DROP above z = 0."""
    side = round(count ** (1 / 3))
    index = np.arange(count)
    i, j, k = index % side, (index // side) % side, index // (side * side)
    offset = (side - 1) / 2 * SPACING
    return np.stack([i * SPACING - offset, j * SPACING - offset,
                     DROP + HALF + k * SPACING], axis=1)


def run_impulse(centres: np.ndarray) -> float:
    world = World(fps=24.0)
    world.add_body(size=(50.0, 50.0, 0.5), position=(0.0, 0.0, -0.5), kind="static")
    for centre in centres:
        world.add_body(size=(HALF, HALF, HALF), position=centre)
    start = time.perf_counter()
    world.simulate(FRAMES)
    return time.perf_counter() - start


def run_blender(centres: np.ndarray) -> float:
    import bpy

    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps, scene.frame_start, scene.frame_end = 24, 1, FRAMES
    mesh = bpy.data.meshes.new("box")
    corners = [(x, y, z) for x in (-HALF, HALF) for y in (-HALF, HALF) for z in (-HALF, HALF)]
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    mesh.from_pydata(corners, [], faces)
    ground = bpy.data.objects.new("ground", mesh)
    ground.scale = (100.0, 100.0, 1.0)
    ground.location = (0.0, 0.0, -0.5)
    scene.collection.objects.link(ground)
    boxes = []
    for n, centre in enumerate(centres):
        box = bpy.data.objects.new(f"box{n}", mesh)
        box.location = tuple(centre)
        scene.collection.objects.link(box)
        boxes.append(box)
    bpy.ops.rigidbody.world_add()
    bpy.ops.object.select_all(action="DESELECT")
    bpy.context.view_layer.objects.active = ground
    ground.select_set(True)
    bpy.ops.rigidbody.objects_add(type="PASSIVE")
    ground.select_set(False)
    for box in boxes:
        box.select_set(True)
    bpy.context.view_layer.objects.active = boxes[0]
    bpy.ops.rigidbody.objects_add(type="ACTIVE")
    scene.rigidbody_world.point_cache.frame_end = FRAMES
    start = time.perf_counter()
    for frame in range(1, FRAMES + 1):
        scene.frame_set(frame)
    return time.perf_counter() - start


def main(counts: list[int]) -> None:
    print(f"{'N':>6} {'Impulse s':>10} {'Blender s':>10} {'ratio':>7}")
    for count in counts:
        centres = grid(count)
        ours = run_impulse(centres)
        theirs = run_blender(centres)
        print(f"{count:>6} {ours:>10.2f} {theirs:>10.2f} {ours / theirs:>7.2f}", flush=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [27, 125, 1000])
