"""`impulse_bake bake FILES --scheduler tcp://HOST:PORT`: one Dask task per file, on a cluster.

Built on Dask distributed rather than a home-made farm: its scheduler places the tasks, notices a
worker that dies and runs that worker's tasks elsewhere. Each task (`child_bake.bake_on_worker`)
starts a fresh Blender on its worker. The input's bytes travel with it unless --shared-output;
the baked file comes back and is written here under a temporary name, then renamed. A Blender
that crashed or hung past --timeout, or a task whose worker was lost, is tried again up to
--retries times, preferring a worker that has not tried it; a file the bake itself refused
(no bodies, unreadable) gives the same answer anywhere and is reported at once. One line per file
as results arrive. Only this module imports Dask, which Blender does not bundle: the submitting
Python needs `dask[distributed]` (batch.py from a Python 3.11 with bpy and dask does).
"""

import argparse
import importlib.util
import logging
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from . import child_bake
from .bake_files import Item, child_options, finished, line
from .reports import Result, write_atomically

CONNECT_SECONDS = 20.0
WORKERS_WAIT_SECONDS = 60.0
DEFAULT_RETRIES = 1
TASK_MODULE = "impulse_bake_child"
"""The top-level name child_bake has on the workers (and here, so tasks pickle by reference)."""


@dataclass
class Attempts:
    """One file on the farm: its place in the input, its shipped bytes, where it was tried."""

    index: int
    item: Item
    data: Any  # a Dask future holding the input's bytes, or None with --shared-output
    workers: list[str] = field(default_factory=list)


def _connect(address: str) -> Any:
    """A Dask client with at least one worker, or None after printing why not."""
    try:
        import distributed
    except ImportError:
        print("impulse_bake: --scheduler needs Dask in the Python that runs the command "
              "(pip install 'dask[distributed]'); Blender does not bundle it, so submit with "
              "batch.py from a Python 3.11 that has bpy and dask", file=sys.stderr, flush=True)
        return None
    logging.getLogger("distributed").setLevel(logging.CRITICAL)  # its log would break the lines
    try:
        client = distributed.Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as error:
        print(f"impulse_bake: cannot reach the Dask scheduler at {address} ({error})",
              file=sys.stderr, flush=True)
        return None
    try:
        client.wait_for_workers(1, timeout=WORKERS_WAIT_SECONDS)
    except (OSError, TimeoutError):
        client.close()
        print(f"impulse_bake: the Dask scheduler at {address} has no workers "
              f"(waited {WORKERS_WAIT_SECONDS:g} s); start some with `dask worker {address}`",
              file=sys.stderr, flush=True)
        return None
    return client


def _ship_task(client: Any) -> ModuleType:
    """Send child_bake to every worker, present and future, so they need not have the extension.

    Dask pickles functions by module and name; the workers import the uploaded file under
    TASK_MODULE, and so does this process, so both sides name the task the same way.
    """
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / f"{TASK_MODULE}.py"
        shutil.copyfile(child_bake.__file__, copy)
        client.upload_file(str(copy))
        spec = importlib.util.spec_from_file_location(TASK_MODULE, copy)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    sys.modules[TASK_MODULE] = module
    return module


def _submit(client: Any, task: ModuleType, attempts: Attempts, args: argparse.Namespace,
            launcher: Sequence[str]) -> Any:
    """Queue one try of a file, preferring workers that have not tried it yet."""
    where: dict[str, Any] = {}
    if attempts.workers:
        others = [worker for worker in client.scheduler_info()["workers"]
                  if worker not in attempts.workers]
        where = {"workers": others, "allow_other_workers": True} if others else {}
    item = attempts.item
    shared = str(item.target.resolve()) if args.shared_output else None
    return client.submit(task.bake_on_worker, item.source.name, attempts.data,
                         str(item.source.resolve()), shared, list(launcher),
                         child_options(args), args.timeout, pure=False, **where)


def _outcome(future: Any) -> dict[str, Any]:
    """What the task returned, or, when it raised (its worker lost too often), a crash."""
    try:
        return future.result()
    except Exception as error:  # KilledWorker, a closed connection: the worker's fault, not ours
        reason = f"lost its worker ({type(error).__name__}: {' '.join(str(error).split())})"
        return {"worker": "", "result": {"ok": False, "error": reason}, "crashed": True,
                "blend": None}


def run(args: argparse.Namespace, launcher: Sequence[str],
        items: list[Item]) -> list[Result] | None:
    """Bake `items` on the cluster; results in input order, or None if there is no cluster."""
    client = _connect(args.scheduler)
    if client is None:
        return None
    import distributed

    task = _ship_task(client)
    retries = DEFAULT_RETRIES if args.retries is None else args.retries
    results: dict[int, Result] = {}

    def report(attempts: Attempts, result: Result, where: str = "") -> None:
        results[attempts.index] = finished(attempts.item, result)
        print(line(len(results), len(items), attempts.item, results[attempts.index], where),
              flush=True)

    running: dict[str, Attempts] = {}
    queue = distributed.as_completed(loop=client.loop)
    try:
        for index, item in enumerate(items):
            if item.reason is not None:
                report(Attempts(index, item, None), {"ok": False, "error": item.reason})
                continue
            data = None if args.shared_output else client.scatter(item.source.read_bytes(),
                                                                  hash=False)
            future = _submit(client, task, attempts := Attempts(index, item, data), args, launcher)
            running[future.key] = attempts
            queue.add(future)
        for future in queue:
            attempts = running.pop(future.key)
            outcome = _outcome(future)
            attempts.workers.append(outcome["worker"])
            if outcome["crashed"] and len(attempts.workers) <= retries:
                if attempts.data is not None:  # it may have died with the worker that held it
                    attempts.data = client.scatter(attempts.item.source.read_bytes(), hash=False)
                retry = _submit(client, task, attempts, args, launcher)
                running[retry.key] = attempts
                queue.add(retry)
                continue
            result = outcome["result"] | {"worker": outcome["worker"],
                                          "attempts": len(attempts.workers),
                                          "workers": attempts.workers}
            if result["ok"] and outcome["blend"] is not None:
                write_atomically(attempts.item.target, outcome["blend"])
            if not result["ok"] and len(attempts.workers) > 1:
                result["error"] += f" ({len(attempts.workers)} attempts)"
            report(attempts, result, f" on {outcome['worker']}" if outcome["worker"] else "")
    finally:
        client.close()
    return [results[index] for index in range(len(items))]
