"""`impulse_bake bake`: bake .blend files unattended, here, N at a time, or on a Dask cluster.

Everything that can be checked before any work is (arguments, the output folder, each input's
existence and format); then each file is opened, its scene(s) baked with `bake_scene`, and saved
into the output folder (over the input only with --in-place) with a JSON report beside it. A bad
file costs one line and a non-zero exit code, never a traceback, and never stops the others.
Every per-file line goes to stdout; Blender's own log is silenced. Parallel jobs are fresh
Blender processes running this same subcommand on one file (`--save-as`), here or on a farm.
"""

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import bpy

from ..baking.job import BakeError, bake_scene
from ..reading.bridge import frame_range as scene_frame_range
from . import child_bake
from .blend_io import open_blend, problem_with, save_blend, temporary_name
from .reports import Result, key_hash, statistics, write_json


def frame_range(text: str) -> tuple[int, int]:
    """argparse type for `A-B` (a negative start needs the `--frames=-10-40` spelling)."""
    match = re.fullmatch(r"(-?\d+)-(-?\d+)", text.strip())
    if match is None or int(match[1]) > int(match[2]):
        raise argparse.ArgumentTypeError(f"expected START-END with START <= END, got {text!r}")
    return int(match[1]), int(match[2])


def _count(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if not text.isdigit() or int(text) < minimum:
            raise argparse.ArgumentTypeError(
                f"expected a whole number of at least {minimum}, got {text!r}")
        return int(text)
    return parse


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0.0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def add_file_arguments(parser: argparse.ArgumentParser, verb: str, output: str,
                       contents: str) -> None:
    """FILE.blend ..., --frames and --output, shared by the subcommands that read .blend files."""
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE.blend")
    parser.add_argument("--frames", type=frame_range, metavar="A-B",
                        help=f"frame range to {verb} (default: each scene's Impulse range)")
    parser.add_argument("--output", type=Path, default=Path(output), metavar="DIR",
                        help=f"folder for {contents} (default: ./{output})")


def configure(parser: argparse.ArgumentParser) -> None:
    add_file_arguments(parser, "bake", "baked", "the baked files and JSON reports")
    scenes = parser.add_mutually_exclusive_group()
    scenes.add_argument("--scene", metavar="NAME",
                        help="bake the scene called NAME (default: each file's active scene)")
    scenes.add_argument("--all-scenes", action="store_true",
                        help="bake every scene of each file that has Impulse bodies")
    parser.add_argument("--in-place", action="store_true",
                        help="save each baked file over its input (reports still go to DIR)")
    parser.add_argument("--jobs", type=_count(1), default=1, metavar="N",
                        help="bake N files at once in separate Blender processes")
    parser.add_argument("--timeout", type=_seconds, metavar="SECONDS",
                        help="give up on a file after this long (each file then bakes in its "
                             "own Blender process)")
    parser.add_argument("--report", type=Path, metavar="REPORT.json",
                        help="also write one JSON summary of all files")
    farm = parser.add_argument_group("on a Dask cluster")
    farm.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                      help="bake each file as one task on this Dask scheduler's workers")
    farm.add_argument("--retries", type=_count(0), metavar="N",
                      help="try a file whose Blender crashed, hung or lost its worker N more "
                           "times, on another worker (default: 1)")
    farm.add_argument("--shared-output", action="store_true",
                      help="workers see this machine's files at the same paths: they read the "
                           "inputs and write DIR directly instead of sending bytes")
    parser.add_argument("--save-as", type=Path, help=argparse.SUPPRESS)  # one child's output


@dataclass
class Item:
    """One input file: where its baked file and report go, and why it cannot be baked (if so)."""

    source: Path
    target: Path
    report: Path
    name: str  # what the lines call it: the file name, or the full path when names collide
    reason: str | None = None


def check_output(folder: Path, option: str = "--output") -> str | None:
    """Why nothing can be written into `folder` (created if missing), or None."""
    if folder.exists() and not folder.is_dir():
        return f"{option} {folder} is not a folder"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        return f"cannot write into {option} {folder} ({error.strerror or error})"
    return None


def check_arguments(args: argparse.Namespace) -> str | None:
    """Why these arguments cannot work, before any file is opened, or None."""
    if args.save_as is not None:
        return None if len(args.files) == 1 else "--save-as takes exactly one file"
    farm_only = [flag for flag, used in (("--retries", args.retries is not None),
                                         ("--shared-output", args.shared_output)) if used]
    if farm_only and args.scheduler is None:
        return f"{' and '.join(farm_only)} need --scheduler"
    if args.scheduler is not None and (args.jobs > 1 or args.in_place):
        return "--jobs and --in-place are for one machine; leave them out with --scheduler"
    if args.report is not None and args.report.is_dir():
        return f"--report {args.report} is a folder; name a .json file"
    problem = check_output(args.output)
    if problem is None and args.report is not None:
        problem = check_output(args.report.parent, "--report's folder")
    return problem


def distinct_stems(sources: Sequence[Path], taken: set[Path], folder: Path) -> list[str]:
    """Each source's stem, with -2, -3 ... after repeats, so no two reports share a name."""
    stems = []
    for source in sources:
        stem, number = source.stem, 1
        while (folder / f"{stem}.json").resolve() in taken:
            number += 1
            stem = f"{source.stem}-{number}"
        taken.add((folder / f"{stem}.json").resolve())
        stems.append(stem)
    return stems


def plan(args: argparse.Namespace) -> list[Item]:
    """Output, report, display name and any reason it cannot be baked, per file, in input order."""
    names = [source.name for source in args.files]
    taken = {args.report.resolve()} if args.report is not None else set()
    stems = distinct_stems(args.files, taken, args.output)
    items = []
    for source, stem in zip(args.files, stems, strict=True):
        target = source if args.in_place else args.output / f"{stem}.blend"
        name = source.name if names.count(source.name) == 1 else str(source.resolve())
        item = Item(source, target, args.output / f"{stem}.json", name, problem_with(source))
        if item.reason is None and not args.in_place and target.resolve() == source.resolve():
            item.reason = "the output would overwrite the input; use another --output or --in-place"
        elif item.reason is None and args.in_place and not os.access(source.parent, os.W_OK):
            item.reason = f"cannot write into {source.parent} for --in-place"
        items.append(item)
    return items


def _scenes(args: argparse.Namespace) -> list:
    """The scenes of the open file to bake: --scene NAME, every scene with bodies, or the active."""
    if args.all_scenes:
        scenes = [scene for scene in bpy.data.scenes
                  if any(obj.impulse.enabled for obj in scene.objects)]  # type: ignore[attr-defined]
        if not scenes:
            raise BakeError("no scene has Impulse bodies")
        return scenes
    if args.scene is None:
        return [bpy.context.scene]
    if args.scene not in bpy.data.scenes:
        known = ", ".join(repr(scene.name) for scene in bpy.data.scenes)
        raise BakeError(f"no scene named {args.scene!r} (the file has {known})")
    return [bpy.data.scenes[args.scene]]


@contextmanager
def _shown(scene) -> Iterator[None]:
    """Make `scene` the window's scene while it bakes, as a user would, so it is evaluated."""
    window = bpy.context.window
    if window is None:  # no window at all: evaluate the scene's own view layer
        scene.view_layers[0].update()
        yield
        return
    previous = window.scene
    window.scene = scene
    try:
        yield
    finally:
        window.scene = previous


def _bake_scene(scene, frames: tuple[int, int] | None) -> Result:
    start, end = scene_frame_range(scene, *(frames or (None, None)))
    with _shown(scene):
        report = bake_scene(scene, start, end)
    return {"scene": scene.name, "frame_start": start, "frame_end": end,
            **statistics(report), "key_hash": key_hash(scene, report.objects)}


def _merge(scenes: list[Result]) -> Result:
    """One file's numbers: its scene's, or for several scenes their totals plus each scene."""
    if len(scenes) == 1:
        return scenes[0]
    return {"scenes": scenes, "bodies": sum(s["bodies"] for s in scenes),
            "seconds": sum(s["seconds"] for s in scenes),
            "warnings": [f"{s['scene']}: {w}" for s in scenes for w in s["warnings"]],
            "key_hash": "".join(s["key_hash"] for s in scenes)}


def _check_finite(numbers: Result) -> None:
    """Strict JSON refuses NaN: a bake that produced any is not saved."""
    try:
        json.dumps(numbers, allow_nan=False)
    except ValueError:
        raise BakeError("the simulation produced NaN or infinite values; not saved") from None


def bake_here(source: Path, target: Path, args: argparse.Namespace) -> Result:
    """Open, bake and save one file in this Blender; the report says `ok` and numbers or `error`."""
    result: Result = {"input": str(source), "output": str(target)}
    started = time.perf_counter()
    try:
        open_blend(source)
        opened = time.perf_counter()
        numbers = _merge([_bake_scene(scene, args.frames) for scene in _scenes(args)])
        _check_finite(numbers)
        baked = time.perf_counter()
        save_blend(target)
        saved = time.perf_counter()
        result |= numbers | {"ok": True, "file_timings": {
            "open": opened - started, "bake": baked - opened, "save": saved - baked}}
    except BakeError as error:
        result |= {"ok": False, "error": str(error)}
    except Exception as error:  # a CLI must report and go on with the next file
        result |= {"ok": False, "error": f"unexpected {type(error).__name__}: {error}"}
    result["wall_seconds"] = time.perf_counter() - started
    return result


def child_options(args: argparse.Namespace) -> list[str]:
    """The options a child Blender needs to bake one file the way this run would."""
    options = []
    if args.frames is not None:
        options.append(f"--frames={args.frames[0]}-{args.frames[1]}")
    if args.scene is not None:
        options.append(f"--scene={args.scene}")
    if args.all_scenes:
        options.append("--all-scenes")
    return options


def _in_child(args: argparse.Namespace, launcher: Sequence[str], item: Item) -> Result:
    """Bake one file in a fresh Blender that saves beside the target; rename it into place."""
    partial = temporary_name(item.target)
    result, _crashed = child_bake.run_bake(launcher, item.source, partial, child_options(args),
                                           args.timeout)
    if result["ok"]:
        os.replace(partial, item.target)
    return result


def _here(args: argparse.Namespace, _launcher: Sequence[str], item: Item) -> Result:
    return bake_here(item.source, item.target, args)


def line(index: int, total: int, item: Item, result: Result, where: str = "") -> str:
    """The one line printed per file: ok or failed, and the numbers or the reason."""
    head = f"impulse_bake: [{index}/{total}] {item.name}:"
    if not result["ok"]:
        return f"{head} failed{where}: {result['error']}"
    warnings = len(result["warnings"])
    note = f", {warnings} warning(s)" if warnings else ""
    if "scenes" in result:
        what = f"{len(result['scenes'])} scenes, {result['bodies']} bodies"
    else:
        what = (f"{result['bodies']} bodies, frames {result['frame_start']}-"
                f"{result['frame_end']}")
    return (f"{head} ok{where}, {what} in {result['wall_seconds']:.2f} s{note} "
            f"-> {result['output']}")


def finished(item: Item, result: Result) -> Result:
    """The report as this machine files it: its own paths, written beside the baked file."""
    result = result | {"input": str(item.source), "output": str(item.target)}
    write_json(item.report, result)
    return result


def summarize(args: argparse.Namespace, results: list[Result], started: float) -> int:
    """The closing line and --report; the exit code is 0 only when every file baked."""
    failed = sum(not result["ok"] for result in results)
    print(f"impulse_bake: {len(results) - failed} of {len(results)} file(s) baked, {failed} "
          f"failed, in {time.perf_counter() - started:.1f} s", flush=True)
    if args.report is not None:
        write_json(args.report, {"ok": not failed, "files": results})
    return 1 if failed else 0


def _bake_saved_as(args: argparse.Namespace) -> int:
    """A child's job: bake the one file into --save-as and its report beside it, print nothing."""
    result = bake_here(args.files[0], args.save_as, args)
    write_json(args.save_as.with_suffix(".json"), result)
    return 0 if result["ok"] else 1


def run(args: argparse.Namespace, launcher: Sequence[str]) -> int:
    started = time.perf_counter()
    problem = check_arguments(args)
    if problem is not None:
        print(f"impulse_bake: {problem}", file=sys.stderr, flush=True)
        return 2
    if args.save_as is not None:
        return _bake_saved_as(args)
    items = plan(args)
    if args.scheduler is None:
        return summarize(args, _bake_on_this_machine(args, launcher, items), started)
    from . import farm

    on_farm = farm.run(args, launcher, items)
    return 2 if on_farm is None else summarize(args, on_farm, started)


def _bake_on_this_machine(args: argparse.Namespace, launcher: Sequence[str],
                          items: list[Item]) -> list[Result]:
    """Bake here, or in --jobs child processes (also when --timeout needs one to stop)."""
    separate = args.timeout is not None or (args.jobs > 1 and len(items) > 1)
    worker = _in_child if separate else _here

    def task(item: Item) -> Result:
        if item.reason is not None:
            return {"ok": False, "error": item.reason}
        return worker(args, launcher, item)

    results: list[Result] = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        # bpy only works on the main thread: threads only ever wait for child processes.
        outcomes = pool.map(task, items) if separate else map(task, items)
        for index, (item, outcome) in enumerate(zip(items, outcomes, strict=True), start=1):
            result = finished(item, outcome)
            print(line(index, len(items), item, result), flush=True)
            results.append(result)
    return results
