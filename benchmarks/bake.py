"""Bake the pile scene to keyframes end to end: Impulse versus Blender's built-in route.

N one-metre boxes in a grid 2 m above a static ground fall into a pile for 250 frames. Impulse:
`bake_scene` (read the objects, simulate, write every key). Built-in: the rigid body world
(Bullet, default settings, box shapes) simulates into its cache, then Object > Rigid Body >
Bake to Keyframes writes the keys; that second step is what users wait for. Numbers, not a test:

    .venv/bin/python benchmarks/bake.py [--sizes 125 1000] [--frames 250]
"""

import argparse
import importlib
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ["BLENDER_USER_RESOURCES"] = tempfile.mkdtemp(prefix="impulse-bench-user-")
sys.path.insert(0, str(ROOT))

import bpy  # noqa: E402  (after BLENDER_USER_RESOURCES, so a user's Blender is never touched)

import build  # noqa: E402

SIZE = 1.0
GAP = 0.2
HEIGHT = 2.0


def pile(count: int, frames: int) -> list[bpy.types.Object]:
    """A fresh file with the ground and `count` boxes in a (near) cube grid; return the boxes."""
    bpy.ops.wm.read_homefile(use_empty=True)  # keeps the window and screens bake_to_keyframes needs
    scene = bpy.data.scenes[0]
    scene.frame_start, scene.frame_end = 1, frames + 1
    side = round(count ** (1 / 3))
    pitch = SIZE + GAP
    ground = bpy.data.objects.new("Ground", _box_mesh("Ground", (4 * side * pitch, 0.2)))
    ground.location = (0.0, 0.0, -0.1)
    scene.collection.objects.link(ground)
    mesh = _box_mesh("Box", (SIZE, SIZE))
    boxes = []
    for i in range(count):
        x, y, z = i % side, (i // side) % side, i // (side * side)
        box = bpy.data.objects.new(f"Box.{i:04d}", mesh)
        box.location = ((x - side / 2) * pitch, (y - side / 2) * pitch,
                        HEIGHT + SIZE / 2 + z * pitch)
        scene.collection.objects.link(box)
        boxes.append(box)
    return boxes


def _box_mesh(name: str, size: tuple[float, float]) -> bpy.types.Mesh:
    """Box with square footprint size[0] and height size[1], centred on its origin."""
    width, height = size
    corners = [(sx * width / 2, sy * width / 2, sz * height / 2)
               for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(corners, [], faces)
    return mesh


def impulse_seconds(bake_scene, count: int, frames: int) -> tuple[float, int]:
    """Wall time of Impulse's whole bake; also the number of keyed F-curve points written."""
    boxes = pile(count, frames)
    for obj in (*boxes, bpy.data.objects["Ground"]):
        obj.impulse.enabled = True
    bpy.data.objects["Ground"].impulse.body_type = "PASSIVE"
    scene = bpy.data.scenes[0]
    started = time.perf_counter()
    bake_scene(scene)
    return time.perf_counter() - started, _key_count(boxes)


def _view3d_override() -> dict:
    window = bpy.context.window_manager.windows[0]
    area = next(a for a in window.screen.areas if a.type == "VIEW_3D")
    region = next(r for r in area.regions if r.type == "WINDOW")
    return {"window": window, "area": area, "region": region}


def _select(objects: list[bpy.types.Object]) -> None:
    for obj in bpy.context.view_layer.objects:
        obj.select_set(False)
    for obj in objects:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = objects[0]


def builtin_seconds(count: int, frames: int) -> tuple[float, float, int]:
    """Seconds to simulate into the cache and to Bake to Keyframes; the keys written."""
    boxes = pile(count, frames)
    scene = bpy.data.scenes[0]
    ground = bpy.data.objects["Ground"]
    with bpy.context.temp_override(**_view3d_override()):
        bpy.ops.rigidbody.world_add()
        scene.rigidbody_world.point_cache.frame_start = scene.frame_start
        scene.rigidbody_world.point_cache.frame_end = scene.frame_end
        for kind, objects in (("PASSIVE", [ground]), ("ACTIVE", boxes)):
            _select(objects)
            bpy.ops.rigidbody.objects_add(type=kind)
        for obj in (ground, *boxes):
            obj.rigid_body.collision_shape = "BOX"
        started = time.perf_counter()
        for frame in range(scene.frame_start, scene.frame_end + 1):
            scene.frame_set(frame)
        simulated = time.perf_counter()
        _select(boxes)
        bpy.ops.rigidbody.bake_to_keyframes(frame_start=scene.frame_start,
                                            frame_end=scene.frame_end)
        keyed = time.perf_counter()
    return simulated - started, keyed - simulated, _key_count(boxes)


def _key_count(boxes: list[bpy.types.Object]) -> int:
    """Key points on the baked location curves (a check that both routes wrote every frame)."""
    total = 0
    for obj in boxes:
        animation = obj.animation_data
        if animation is None or animation.action is None:
            continue
        channelbag = animation.action.layers[0].strips[0].channelbag(animation.action_slot)
        total += sum(len(c.keyframe_points) for c in channelbag.fcurves
                     if c.data_path == "location")
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[125, 1000])
    parser.add_argument("--frames", type=int, default=250)
    args = parser.parse_args()
    archive = build.build(Path(tempfile.mkdtemp(prefix="impulse-bench-dist-")))
    bpy.ops.extensions.package_install_files(filepath=str(archive), repo="user_default",
                                             enable_on_install=True)
    bake = importlib.import_module("bl_ext.user_default.impulse_bake.blender_addon.baking.job")
    rows = []
    for count in args.sizes:
        ours, our_keys = impulse_seconds(bake.bake_scene, count, args.frames)
        simulate, to_keys, their_keys = builtin_seconds(count, args.frames)
        rows.append((count, ours, our_keys, simulate, to_keys, their_keys))
        print(f"N={count}: Impulse {ours:.1f} s; built-in {simulate:.1f} s + "
              f"{to_keys:.1f} s Bake to Keyframes", flush=True)
    print(f"\npile, {args.frames} frames, bpy {bpy.app.version_string}")
    print("|     N | Impulse bake (s) | built-in simulate (s) | + Bake to Keyframes (s) "
          "| built-in total (s) | speed-up | keys (Impulse / built-in) |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    for count, ours, our_keys, simulate, to_keys, their_keys in rows:
        total = simulate + to_keys
        print(f"| {count} | {ours:.2f} | {simulate:.2f} | {to_keys:.2f} | {total:.2f} "
              f"| {total / ours:.1f}× | {our_keys} / {their_keys} |")


if __name__ == "__main__":
    main()
