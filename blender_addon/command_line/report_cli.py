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
from ..verification.compare import compare_scene, write_files
from . import cli
from .bake_files import add_file_arguments, open_blend


def _configure_compare(parser: argparse.ArgumentParser) -> None:
    add_file_arguments(parser, "compare", "compare", "the tables, JSON, CSV and charts")
    parser.add_argument("--blender-damping", action="store_true",
                        help="keep the built-in world's default damping instead of zero")


def _compare_one(source: Path, args: argparse.Namespace) -> str:
    """Compare one file and write its outputs; raise BakeError with a readable reason."""
    open_blend(source)
    start, end = args.frames if args.frames is not None else (None, None)
    comparison = compare_scene(bpy.context.scene, frame_start=start, frame_end=end,
                               blender_damping=args.blender_damping)
    files = write_files(comparison, args.output, source.stem)
    return f"{comparison.summary()} -> {', '.join(str(f) for f in files)}"


def _run_compare(args: argparse.Namespace, _launcher: Sequence[str]) -> int:
    failed = 0
    for index, source in enumerate(args.files, start=1):
        prefix = f"impulse_bake: [{index}/{len(args.files)}] {source.name}:"
        try:
            print(prefix, _compare_one(source, args), flush=True)
        except Exception as error:  # one readable line per bad file, then the next file
            failed += 1
            reason = str(error) if isinstance(error, BakeError) else (
                f"unexpected {type(error).__name__}: {error}")
            print(prefix, reason, file=sys.stderr, flush=True)
    return 1 if failed else 0


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
    files = verify.write_outputs(result, args.output)
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
