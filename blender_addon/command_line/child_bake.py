"""Bake one file in a fresh Blender process with a time limit: the unit of --jobs and --scheduler.

Standard library only and independent of the rest of the extension: the farm uploads this file
to the Dask workers, which then need neither bpy nor the extension in their own Python.
The child saves under a temporary name and writes its JSON report beside it; a child that
crashes or overruns its time leaves no file behind, and says so in the result.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

EXTENSION = "bl_ext.user_default.impulse_bake"
COMMAND = "impulse_bake"


def _discard(*paths: Path) -> None:
    """Remove what a stopped child may have left, with Blender's own "<file>@" save in progress."""
    for path in paths:
        path.unlink(missing_ok=True)
        path.with_name(path.name + "@").unlink(missing_ok=True)


def run_bake(launcher: Sequence[str], source: Path, save_as: Path, options: Sequence[str],
             timeout: float | None) -> tuple[dict[str, Any], bool]:
    """Run `LAUNCHER bake SOURCE --save-as SAVE_AS OPTIONS`; return (its report, crashed).

    `crashed` is True when the process died, overran `timeout` seconds or wrote no report: a
    failure of the process, worth trying again elsewhere, unlike a file the bake refused.
    """
    report = save_as.with_suffix(".json")
    command = [*launcher, "bake", str(source), "--save-as", str(save_as), *options]
    started = time.perf_counter()
    try:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, text=True, errors="replace")
    except OSError as error:
        return {"ok": False, "error": f"cannot start {command[0]} ({error.strerror})"}, True
    try:
        printed, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        _discard(save_as, report)
        return {"ok": False, "error": f"timed out after {timeout:g} s"}, True
    seconds = time.perf_counter() - started
    if not report.exists():
        _discard(save_as)
        last = printed.strip().splitlines()[-1:] or ["no output"]
        return {"ok": False,
                "error": f"Blender exited with code {process.returncode}: {last[0]}"}, True
    result = json.loads(report.read_text())
    report.unlink()
    result["wall_seconds"] = seconds
    return result, False


def worker_launcher(submitted: Sequence[str]) -> list[str] | None:
    """How this machine starts a Blender running the CLI, or None when it has none.

    $IMPULSE_BLENDER (a `blender` binary with the extension installed) first, then
    $IMPULSE_BATCH (batch.py, run by this Python, which has the `bpy` module), then the
    submitting machine's own launcher if its program exists here (same layout, e.g. one host).
    """
    blender = os.environ.get("IMPULSE_BLENDER")
    if blender:
        return [blender, "-b", "--factory-startup", "--addons", EXTENSION, "--command", COMMAND]
    batch = os.environ.get("IMPULSE_BATCH")
    if batch:
        return [sys.executable, batch]
    return list(submitted) if submitted and Path(submitted[0]).exists() else None


def bake_on_worker(name: str, data: bytes | None, source: str, shared_target: str | None,
                   submitted: Sequence[str], options: Sequence[str],
                   timeout: float | None) -> dict[str, Any]:
    """The Dask task: bake one file in a fresh Blender here and hand back what happened.

    `data` is the input's bytes when workers do not share the submitter's file system (else
    None, and `source` is read in place); `shared_target` is where to write the baked .blend on
    a shared file system (else None, and its bytes come back in the result).
    """
    from distributed import get_worker  # a Dask worker has it; the extension never needs it

    worker = get_worker().address
    launcher = worker_launcher(submitted)
    if launcher is None:
        error = "this worker has no Blender for Impulse (set IMPULSE_BLENDER or IMPULSE_BATCH)"
        return {"worker": worker, "result": {"ok": False, "error": error}, "crashed": True,
                "blend": None}
    with tempfile.TemporaryDirectory(prefix="impulse-bake-") as folder:
        work = Path(folder)
        if data is not None:
            source = str(work / name)
            Path(source).write_bytes(data)
        target = None if shared_target is None else Path(shared_target)
        if target is None:
            save_as = work / f".{Path(name).stem}.baked.blend"
        else:
            save_as = target.with_name(f".{target.stem}.{os.getpid()}.{time.time_ns()}.tmp.blend")
        result, crashed = run_bake(launcher, Path(source), save_as, options, timeout)
        blend = None
        if result["ok"] and target is None:
            blend = save_as.read_bytes()
        elif result["ok"] and target is not None:
            os.replace(save_as, target)
        _discard(save_as)
    return {"worker": worker, "result": result, "crashed": crashed, "blend": blend}
