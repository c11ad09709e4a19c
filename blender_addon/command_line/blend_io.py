"""Opening and saving .blend files for the command line: checked first, quiet, never half-written.

Blender prints its own lines from C ("Read blend: ...", "Info: Saved ...") straight to the
process's stdout, which breaks the one-line-per-file output; file descriptors 1 and 2 point at
/dev/null while it opens or saves. A file is saved under a temporary name in the target's own
folder (so relative paths are remapped for the right place) and renamed into place.
"""

import ctypes
import os
import secrets
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout, suppress
from pathlib import Path

import bpy

from ..baking.job import BakeError

BLEND_MAGIC = (b"BLENDER", b"\x1f\x8b", b"\x28\xb5\x2f\xfd")  # plain, gzip, zstd
"""How a .blend file starts: checked first so Blender is never asked to read other files."""


def problem_with(source: Path) -> str | None:
    """Why `source` cannot be opened as a .blend file (missing, a folder, other format), or None."""
    if not source.exists():
        return "file not found"
    if not source.is_file():
        return "not a file"
    try:
        with source.open("rb") as stream:
            head = stream.read(7)
    except OSError as error:
        return f"cannot read it ({error.strerror})"
    return None if head.startswith(BLEND_MAGIC) else "not a .blend file"


def _flush_c_streams() -> None:
    """Blender's printf output sits in C's buffer; flush it while it still goes to /dev/null."""
    with suppress(OSError, TypeError, AttributeError):  # no C library handle (Windows)
        ctypes.CDLL(None).fflush(None)


@contextmanager
def quiet_blender() -> Iterator[None]:
    """Send what Blender prints to /dev/null: from C to the descriptors, and the operator
    reports it writes to Python's sys.stdout. Our own lines are flushed out first."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        with open(os.devnull, "w") as sink, redirect_stdout(sink), redirect_stderr(sink):
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            yield
    finally:
        _flush_c_streams()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for descriptor in (*saved, devnull):
            os.close(descriptor)


def open_blend(source: Path) -> None:
    """Open `source` in this Blender, or raise BakeError saying in one line why it can't be."""
    problem = problem_with(source)
    if problem is not None:
        raise BakeError(problem)
    try:
        with quiet_blender():
            bpy.ops.wm.open_mainfile(filepath=str(source), load_ui=False)
    except RuntimeError as error:
        raise BakeError(f"Blender could not open it ({_reason(error)})") from None


def _reason(error: RuntimeError) -> str:
    """The end of Blender's message ("Error: Loading "P" failed: ... 'P': Missing DNA block")."""
    lines = str(error).strip().splitlines() or ["unknown error"]
    return lines[-1].removeprefix("Error: ").rsplit("': ", 1)[-1]


def temporary_name(target: Path) -> Path:
    """A hidden name beside `target` that no other file or run uses: written, then renamed."""
    return target.with_name(f".{target.stem}.{secrets.token_hex(4)}.tmp{target.suffix}")


def save_blend(target: Path) -> None:
    """Save the open file as `target`: under a temporary name first, then renamed over it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = temporary_name(target)
    try:
        with quiet_blender():
            bpy.ops.wm.save_as_mainfile(filepath=str(partial), check_existing=False)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
