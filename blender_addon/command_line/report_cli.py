"""`impulse_bake compare FILE.blend ...` and `impulse_bake verify [--output DIR]`.

Same outputs as the operators, as files; one progress line per file or scene; the exit code is
non-zero when a file cannot be loaded or compared, or a canonical scene cannot be built.
"""

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import bpy

from ..reading.bridge import BakeError
from ..verification import report, verify
from ..verification.compare import compare_scene, write_files, write_report
from . import cli
from .bake_files import add_file_arguments, check_output, distinct_stems
from .blend_io import open_blend


def _configure_compare(parser: argparse.ArgumentParser) -> None:
    add_file_arguments(parser, "compare", "compare", "the tables, JSON, CSV and charts")
    parser.add_argument("--blender-damping", action="store_true",
                        help="keep the built-in world's default damping instead of zero")


def _compare_one(source: Path, stem: str, args: argparse.Namespace):
    """Compare one file and write its outputs; return (comparison, its line)."""
    open_blend(source)
    start, end = args.frames if args.frames is not None else (None, None)
    comparison = compare_scene(bpy.context.scene, frame_start=start, frame_end=end,
                               blender_damping=args.blender_damping)
    files = write_files(comparison, args.output, stem)
    return comparison, f"{comparison.summary()} -> {', '.join(str(f) for f in files)}"


def _run_compare(args: argparse.Namespace, _launcher: Sequence[str]) -> int:
    problem = check_output(args.output)
    if problem is not None:
        print(f"impulse_bake: {problem}", file=sys.stderr, flush=True)
        return 2
    names = [source.name for source in args.files]
    entries, failures = [], []
    stems = distinct_stems(args.files, set(), args.output)
    for index, (source, stem) in enumerate(zip(args.files, stems, strict=True), start=1):
        name = source.name if names.count(source.name) == 1 else str(source.resolve())
        prefix = f"impulse_bake: [{index}/{len(args.files)}] {name}:"
        try:
            comparison, text = _compare_one(source, stem, args)
            entries.append((name, comparison, stem))
            print(prefix, text, flush=True)
        except Exception as error:  # one readable line per bad file, then the next file
            reason = str(error) if isinstance(error, (BakeError, OSError, RuntimeError)) else (
                f"unexpected {type(error).__name__}: {error}")
            failures.append(f"{name}: {reason}")
            print(prefix, reason, flush=True)
    try:
        write_report(entries, args.output, failures)
    except (OSError, RuntimeError) as error:
        print(f"impulse_bake: could not write report.html ({error})", flush=True)
        return 1
    return 1 if failures else 0


def _configure_verify(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--output", type=Path, default=Path("verify"), metavar="DIR",
                        help="folder for verify.json, verify.csv and the PNG charts "
                             "(default: ./verify)")
    parser.add_argument("--only", default="", metavar="TEXT",
                        help="run only the scenes whose name contains TEXT")


def _run_verify(args: argparse.Namespace, _launcher: Sequence[str]) -> int:
    scenes = verify.canonical_scenes(args.only)
    if not scenes:
        print(f"impulse_bake: no verification scene matches {args.only!r}", file=sys.stderr)
        return 2
    result = verify.verify(scenes, lambda line: print(f"impulse_bake: {line}", flush=True))
    print(report.format_table(result.rows))
    for failure in result.failures:
        print(f"impulse_bake: {failure}", file=sys.stderr)
    try:
        files = verify.write_outputs(result, args.output)
    except (OSError, RuntimeError) as error:
        print(f"impulse_bake: could not write the outputs into {args.output} ({error})",
              file=sys.stderr, flush=True)
        return 1
    print(f"impulse_bake: {result.summary()} -> {', '.join(str(f) for f in files)}")
    return 1 if result.failures else 0


SUBCOMMANDS = (
    cli.Subcommand("compare", "compare each file's Impulse simulation with Blender's built-in "
                   "rigid body world", _configure_compare, _run_compare),
    cli.Subcommand("verify", "run the closed-form verification scenes through Impulse and the "
                   "built-in world", _configure_verify, _run_verify),
)


def register() -> None:
    for subcommand in SUBCOMMANDS:
        cli.add_subcommand(subcommand)


def unregister() -> None:
    for subcommand in SUBCOMMANDS:
        cli.SUBCOMMANDS.pop(subcommand.name, None)
