"""`impulse_bake demo`: the main job. Build the demo scene, bake it, save it, picture it.

Proves the whole path on a fresh machine with nothing but the extension: the scene is made in
code, baked headless with `bake_scene` like any batch file, and written as DIR/demo.blend, a
contact sheet DIR/demo.png rendered by Blender, and the same JSON report as `bake` writes.
"""

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import bpy

from ..baking.job import BakeError, bake_scene
from . import contact_sheet, demo
from .bake_files import frame_range
from .reports import statistics, write_json

SHEET_FRAMES = 6


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--output", type=Path, default=Path("out"), metavar="DIR",
                        help="folder for demo.blend, demo.png and demo.json (default: ./out)")
    parser.add_argument("--frames", type=frame_range, metavar="A-B",
                        help=f"bake fewer frames (default: {demo.FRAME_START}-{demo.FRAME_END})")


def run(args: argparse.Namespace, _launcher: Sequence[str]) -> int:
    started = time.perf_counter()
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.data.scenes[0]  # the empty file's only scene
    bodies = demo.build(scene)
    start, end = args.frames or (demo.FRAME_START, demo.FRAME_END)
    scene.frame_start, scene.frame_end = start, end
    print(f"impulse_bake: demo: {len(bodies)} bodies, baking frames {start}-{end}", flush=True)
    try:
        report = bake_scene(scene, start, end)
    except BakeError as error:
        print(f"impulse_bake: demo: {error}", file=sys.stderr)
        return 1
    blend = args.output.resolve() / "demo.blend"
    blend.parent.mkdir(parents=True, exist_ok=True)
    bpy.ops.wm.save_as_mainfile(filepath=str(blend), check_existing=False)
    frames = contact_sheet.frames_to_show(start, end, SHEET_FRAMES)
    try:
        picture = contact_sheet.render(scene, blend.with_suffix(".png"), frames)
    except RuntimeError as error:  # e.g. no OpenGL/EGL for Workbench on this machine
        print(f"impulse_bake: demo: saved {blend} but could not render the picture "
              f"({str(error).strip()})", file=sys.stderr)
        return 1
    result = {"output": str(blend), "picture": str(picture), "ok": True} | statistics(report)
    write_json(blend.with_suffix(".json"), result)
    print(f"impulse_bake: demo: baked {report.bodies} bodies x {report.frames} frames in "
          f"{report.seconds:.2f} s -> {blend}, {picture} "
          f"({time.perf_counter() - started:.1f} s in all)", flush=True)
    return 0
