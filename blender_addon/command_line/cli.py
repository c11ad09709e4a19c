"""Command-line entry: `blender --command impulse_bake <subcommand> ...` and `python batch.py ...`.

Studios bake many shots unattended, so every subcommand returns an exit code and prints one
readable line per file or failure instead of a traceback. Subcommands live in a table so other
modules can add theirs: call `add_subcommand` when the module is imported (the extension imports
all its modules when it is enabled, before any command runs).
"""

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import bpy

from . import bake_files, demo_job

COMMAND = "impulse_bake"


@dataclass(frozen=True)
class Subcommand:
    """One `impulse_bake <name>`: `configure` adds its arguments, `run` returns the exit code.

    `run` gets the parsed arguments plus `launcher`: the command line that starts another
    Blender running this same CLI (for subcommands that fan work out to parallel processes).
    """

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, Sequence[str]], int]


SUBCOMMANDS: dict[str, Subcommand] = {
    "bake": Subcommand("bake", "bake .blend files and save them with JSON reports",
                       bake_files.configure, bake_files.run),
    "demo": Subcommand("demo", "build, bake and picture the bundled demo scene",
                       demo_job.configure, demo_job.run),
}


def add_subcommand(subcommand: Subcommand) -> None:
    """For other modules (compare, verify): call at import time to appear in `impulse_bake`."""
    SUBCOMMANDS[subcommand.name] = subcommand


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(
        prog=COMMAND, description="Bake rigid-body collisions to keyframes without a window."
    )
    commands = root.add_subparsers(dest="subcommand", required=True, metavar="SUBCOMMAND")
    for subcommand in SUBCOMMANDS.values():
        sub = commands.add_parser(subcommand.name, help=subcommand.help,
                                  description=subcommand.help)
        subcommand.configure(sub)
    return root


def main(argv: Sequence[str], launcher: Sequence[str]) -> int:
    """Parse `argv` (without the command name) and run the subcommand; return the exit code."""
    try:
        args = parser().parse_args(list(argv))
    except SystemExit as stop:  # --help or a usage error: argparse already printed why
        return stop.code if isinstance(stop.code, int) else 2
    try:
        return SUBCOMMANDS[args.subcommand].run(args, launcher)
    except KeyboardInterrupt:
        print(f"{COMMAND}: interrupted", file=sys.stderr, flush=True)
        return 130
    except Exception as error:  # never a traceback: one line, and an exit code scripts can test
        print(f"{COMMAND}: {args.subcommand} stopped: {type(error).__name__}: {error}",
              file=sys.stderr, flush=True)
        return 1


def _blender_handler(argv: Sequence[str]) -> int:
    return main(argv, [bpy.app.binary_path, "--command", COMMAND])


_registered: list[object] = []


def register() -> None:
    _registered.append(bpy.utils.register_cli_command(COMMAND, _blender_handler))


def unregister() -> None:
    while _registered:
        bpy.utils.unregister_cli_command(_registered.pop())
