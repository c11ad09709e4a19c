"""Files per minute for batch bakes of many shots: --jobs 1, --jobs 2, a 2-worker Dask cluster.

N copies of the bundled demo scene (`demo.build`, unbaked, its 120 frames unless --frames) are
baked by batch.py exactly as a user would run it, each route into its own folder. Numbers, not a
test. One bake runs first so every route finds the solver's kernels in the JIT cache. The cluster
is a LocalCluster of 2 single-threaded worker processes on this machine (loopback), started
before the clock runs; each of its files still starts a fresh Blender, like --jobs. Wall clock,
so a loaded machine shows: say how loaded it was with the numbers. Per route also the mean time
of one file as its report gives it (for --jobs 1 inside the one Blender; otherwise its own
process, start-up included) and of that the solver kernels' compile or cache load.

    .venv/bin/python benchmarks/farm.py [--copies 16] [--frames 1-120] [--install ZIP]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXTENSION = "bl_ext.user_default.impulse_bake"


def _make_scene(path: Path) -> None:
    """Child mode: save the demo scene, unbaked, as `path` (needs the extension installed)."""
    import importlib

    import bpy

    addon_utils = importlib.import_module("addon_utils")
    assert addon_utils.enable(EXTENSION) is not None, "Impulse is not installed"
    demo = importlib.import_module(f"{EXTENSION}.blender_addon.command_line.demo")
    bpy.ops.wm.read_homefile(use_empty=True)
    demo.build(bpy.context.scene)
    bpy.ops.wm.save_as_mainfile(filepath=str(path))


def _batch(*args: str) -> float:
    """Run batch.py; return its wall-clock seconds (it must succeed)."""
    started = time.perf_counter()
    result = subprocess.run([sys.executable, str(ROOT / "batch.py"), *args],
                            capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"benchmarks/farm.py: batch.py {' '.join(args[:1])} failed:\n"
                         f"{result.stdout}{result.stderr}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=16)
    parser.add_argument("--frames", default=None, metavar="A-B")
    parser.add_argument("--install", type=Path, metavar="ZIP",
                        help="built extension zip (default: build one with build.py)")
    parser.add_argument("--make-scene", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make_scene is not None:
        return _make_scene(args.make_scene)

    work = Path(tempfile.mkdtemp(prefix="impulse-farm-bench-"))
    os.environ["BLENDER_USER_RESOURCES"] = str(work / "user")  # children and workers inherit it
    sys.path.insert(0, str(ROOT))
    import build

    archive = args.install or build.build(work / "dist")
    frames = ["--frames", args.frames] if args.frames else []
    _batch("--install", str(archive), "bake", "--help")
    subprocess.run([sys.executable, __file__, "--make-scene", str(work / "demo.blend")],
                   check=True, capture_output=True)
    shots = []
    for i in range(args.copies):
        shots.append(work / "in" / f"shot{i:02d}.blend")
        shots[-1].parent.mkdir(exist_ok=True)
        shutil.copyfile(work / "demo.blend", shots[-1])
    warm = _batch("bake", str(shots[0]), "--output", str(work / "warm"), *frames)

    from distributed import LocalCluster

    rows = []
    for folder, label, route in (("jobs1", "--jobs 1", ["--jobs", "1"]),
                                 ("jobs2", "--jobs 2", ["--jobs", "2"]),
                                 ("dask", "Dask LocalCluster, 2 workers", None)):
        output = ["--output", str(work / folder)]
        if route is None:
            with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                              host="127.0.0.1", dashboard_address=":0") as cluster:
                seconds = _batch("bake", *map(str, shots), *output, *frames,
                                 "--scheduler", cluster.scheduler_address)
        else:
            seconds = _batch("bake", *map(str, shots), *output, *frames, *route)
        reports = [json.loads((work / folder / f"{shot.stem}.json").read_text())
                   for shot in shots]
        per_file = statistics.mean(report["wall_seconds"] for report in reports)
        kernels = statistics.mean(report["timings"]["compile"] for report in reports)
        rows.append((label, seconds, 60.0 * len(shots) / seconds, per_file, kernels))

    load = os.getloadavg()
    print(f"{len(shots)} copies of the demo scene ({args.frames or 'frames 1-120'}), "
          f"{os.cpu_count()} CPUs, load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}; "
          f"warm-up bake of one file {warm:.1f} s")
    print("| route | wall s | files/min | s per file (its process) | of which kernel load |\n"
          "|---|---:|---:|---:|---:|")
    for label, seconds, rate, per_file, kernels in rows:
        print(f"| {label} | {seconds:.1f} | {rate:.1f} | {per_file:.1f} | {kernels:.1f} |")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
