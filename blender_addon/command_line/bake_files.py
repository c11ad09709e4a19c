"""`impulse_bake bake`: bake .blend files unattended, one after another or N at a time.

Each file is opened, its active scene baked with `bake_scene`, and saved into the output folder
(over the input only with --in-place), with a JSON report beside it. A bad file costs one
readable line and a non-zero exit code, never a traceback, and never stops the other files.
Parallel jobs are separate Blender processes running this same subcommand on one file each; the
parent reads their JSON reports, so what is printed is the same either way.
"""

import argparse
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import bpy

from ..baking.job import BakeError, BakeReport, bake_scene

BLEND_MAGIC = (b"BLENDER", b"\x1f\x8b", b"\x28\xb5\x2f\xfd")  # plain, gzip, zstd
"""How a .blend file starts: checked first so Blender is never asked to read other files."""

Result = dict[str, Any]
"""One file's JSON report: input, output, ok, and either the bake's numbers or `error`."""

Plan = list[tuple[Path, Path, str | None]]


def frame_range(text: str) -> tuple[int, int]:
    """argparse type for `A-B` (a negative start needs the `--frames=-10-40` spelling)."""
    match = re.fullmatch(r"(-?\d+)-(-?\d+)", text.strip())
    if match is None or int(match[1]) > int(match[2]):
        raise argparse.ArgumentTypeError(f"expected START-END with START <= END, got {text!r}")
    return int(match[1]), int(match[2])


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


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
    parser.add_argument("--in-place", action="store_true",
                        help="save each baked file over its input (reports still go to DIR)")
    parser.add_argument("--jobs", type=_positive, default=1, metavar="N",
                        help="bake N files at once in separate Blender processes")
    parser.add_argument("--report", type=Path, metavar="REPORT.json",
                        help="also write one JSON summary of all files")


def statistics(report: BakeReport) -> Result:
    """The JSON-ready numbers of a bake (everything but the trajectory)."""
    trajectory: Any = report.trajectory
    energy = trajectory.kinetic_energy + trajectory.potential_energy
    return {
        "bodies": report.bodies,
        "frames": report.frames,
        "seconds": report.seconds,
        "peak_contacts": report.contacts,
        "max_penetration": report.max_penetration,
        "energy_start": float(energy[0]),
        "energy_end": float(energy[-1]),
        "warnings": list(report.warnings),
        "objects": list(report.objects),
    }


def write_json(path: Path, data: Result) -> None:
    """Strict JSON: readers in other languages reject NaN, so it must never get this far."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, allow_nan=False) + "\n")


def problem_with(source: Path) -> str | None:
    """Why `source` cannot be opened as a .blend file (missing, a folder, other format), or None."""
    if not source.exists():
        return "file not found"
    if not source.is_file():
        return "not a file"
    with source.open("rb") as stream:
        if not stream.read(7).startswith(BLEND_MAGIC):
            return "not a .blend file"
    return None


def open_blend(source: Path) -> None:
    """Open `source` in this Blender, or raise BakeError saying in one line why it can't be."""
    problem = problem_with(source)
    if problem is not None:
        raise BakeError(problem)
    try:
        bpy.ops.wm.open_mainfile(filepath=str(source), load_ui=False)
    except RuntimeError as error:
        reason = str(error).strip().splitlines()[-1] if str(error).strip() else "unknown error"
        raise BakeError(f"Blender could not open it ({reason})") from None


def _bake_here(source: Path, target: Path, frames: tuple[int, int] | None) -> Result:
    """Open, bake and save one file in this Blender; raise BakeError with a readable reason."""
    open_blend(source)
    start, end = frames if frames is not None else (None, None)
    numbers = statistics(bake_scene(bpy.context.scene, start, end))
    try:
        json.dumps(numbers, allow_nan=False)
    except ValueError:
        raise BakeError("the simulation produced NaN or infinite values; not saved") from None
    target.parent.mkdir(parents=True, exist_ok=True)
    bpy.ops.wm.save_as_mainfile(filepath=str(target), check_existing=False)
    return numbers


def bake_one(source: Path, target: Path, frames: tuple[int, int] | None) -> Result:
    """Bake one file into `target`; the returned report says `ok` and either numbers or `error`."""
    result: Result = {"input": str(source), "output": str(target)}
    started = time.perf_counter()
    try:
        result |= _bake_here(source, target, frames)
        result["ok"] = True
    except BakeError as error:
        result |= {"ok": False, "error": str(error)}
    except Exception as error:  # a CLI must report and go on with the next file
        result |= {"ok": False, "error": f"unexpected {type(error).__name__}: {error}"}
    result["wall_seconds"] = time.perf_counter() - started
    return result


def _plan(args: argparse.Namespace) -> Plan:
    """(input, output, reason it cannot be baked) per file, before anything is opened."""
    plan: Plan = []
    claimed: dict[Path, Path] = {}
    for source in args.files:
        target = source if args.in_place else args.output / f"{source.stem}.blend"
        reason = None
        if not args.in_place and target.resolve() == source.resolve():
            reason = "the output would overwrite the input; pick another --output or --in-place"
        elif target.resolve() in claimed:
            reason = f"same output name as {claimed[target.resolve()]}; bake them separately"
        claimed.setdefault(target.resolve(), source)
        plan.append((source, target, reason))
    return plan


def _report_path(args: argparse.Namespace, source: Path) -> Path:
    return args.output / f"{source.stem}.json"


def _failed(source: Path, target: Path, reason: str) -> Result:
    return {"input": str(source), "output": str(target), "ok": False, "error": reason}


def _here(args: argparse.Namespace, _launcher: Sequence[str], source: Path, target: Path) -> Result:
    return bake_one(source, target, args.frames)


def _in_child(args: argparse.Namespace, launcher: Sequence[str], source: Path,
              target: Path) -> Result:
    """Bake one file in a separate Blender and read back the report it wrote."""
    report = _report_path(args, source)
    report.unlink(missing_ok=True)
    command = [*launcher, "bake", str(source), "--output", str(args.output)]
    if args.frames is not None:
        command += ["--frames", f"{args.frames[0]}-{args.frames[1]}"]
    if args.in_place:
        command.append("--in-place")
    finished = subprocess.run(command, capture_output=True, text=True)
    if report.exists():
        return json.loads(report.read_text())
    last = (finished.stderr or finished.stdout).strip().splitlines()[-1:] or ["no output"]
    return _failed(source, target, f"Blender exited with code {finished.returncode}: {last[0]}")


def _line(index: int, total: int, result: Result) -> str:
    name = Path(result["input"]).name
    if not result["ok"]:
        return f"impulse_bake: [{index}/{total}] {name}: {result['error']}"
    warnings = len(result["warnings"])
    note = f", {warnings} warning(s)" if warnings else ""
    return (f"impulse_bake: [{index}/{total}] {name}: {result['bodies']} bodies, "
            f"{result['frames']} frames in {result['seconds']:.2f} s{note} -> {result['output']}")


def run(args: argparse.Namespace, launcher: Sequence[str]) -> int:
    plan = _plan(args)
    parallel = args.jobs > 1 and len(plan) > 1
    worker = _in_child if parallel else _here

    def task(item: tuple[Path, Path, str | None]) -> Result:
        source, target, reason = item
        result = worker(args, launcher, source, target) if reason is None else _failed(
            source, target, reason)
        write_json(_report_path(args, source), result)
        return result

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        # bpy only works on the main thread: threads only ever wait for child processes.
        results: Iterable[Result] = pool.map(task, plan) if parallel else map(task, plan)
        summary = []
        for index, result in enumerate(results, start=1):
            stream = sys.stdout if result["ok"] else sys.stderr
            print(_line(index, len(plan), result), file=stream, flush=True)
            summary.append(result)
    ok = all(result["ok"] for result in summary)
    if args.report is not None:
        write_json(args.report, {"ok": ok, "files": summary})
    return 0 if ok else 1
