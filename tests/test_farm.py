"""Batch bakes on a Dask cluster: a LocalCluster of 2 worker processes on loopback.

batch.py submits as a user would; each worker runs a fresh Blender (this Python's bpy, with the
extension the session installed) per file. The worker that is killed is killed with its Blender,
as when a machine goes down; the hang is a real bake given far too little time.
"""

import json
import os
import subprocess
import sys
import time
from contextlib import suppress

import bpy
import psutil
import pytest
from distributed import Client, LocalCluster

from tests.blender_helpers import keys
from tests.test_cli import (
    FRAMES,
    ROOT,
    assert_only_final_files,
    fingerprint,
    make_drop_file,
    run_batch,
    run_here,
)


@pytest.fixture(scope="module")
def cluster(impulse):
    """Two single-threaded worker processes; they inherit this session's Blender user folder."""
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=":0") as local, Client(local) as client:
        yield local.scheduler_address, client


def farm_lines(result: subprocess.CompletedProcess) -> list[str]:
    assert "Traceback" not in result.stdout + result.stderr
    assert result.stderr == ""  # one stream, and no log lines from Dask or Blender
    return result.stdout.splitlines()


def test_files_bake_on_the_farm_as_they_do_here(impulse, cluster, tmp_path, capfd):
    address, _client = cluster
    shots = [tmp_path / "in" / f"shot{i}.blend" for i in range(6)]
    for i, shot in enumerate(shots):
        make_drop_file(shot, f"Falling {i}", height=1.5 + 0.25 * i)
    corrupt = tmp_path / "in" / "corrupt.blend"
    corrupt.write_bytes(shots[0].read_bytes()[:200])  # starts like a .blend, then ends
    missing = tmp_path / "in" / "missing.blend"
    inputs = [*shots[:3], missing, corrupt, *shots[3:]]
    before = [fingerprint(path) for path in (*shots, corrupt)]
    code, lines, _ = run_here(impulse, capfd, "bake", *map(str, shots), "--output",
                              str(tmp_path / "here"))
    assert code == 0, lines
    out = tmp_path / "farm"

    result = run_batch("bake", *map(str, inputs), "--output", str(out), "--scheduler", address,
                       "--report", str(out / "all.json"))

    printed = farm_lines(result)
    assert result.returncode == 1, printed
    assert len(printed) == len(inputs) + 1  # one line per file as it finishes, then a summary
    assert printed[-1].startswith("impulse_bake: 6 of 8 file(s) baked, 2 failed")
    by_file = {line.split("] ")[1].split(":")[0]: line for line in printed[:-1]}
    assert by_file["missing.blend"].endswith("missing.blend: failed: file not found")
    assert "corrupt.blend: failed on tcp://127.0.0.1:" in by_file["corrupt.blend"]
    assert "Blender could not open it" in by_file["corrupt.blend"]
    summary = json.loads((out / "all.json").read_text())
    assert [entry["input"] for entry in summary["files"]] == list(map(str, inputs))
    workers = set()
    for i, shot in enumerate(shots):
        assert f"{shot.name}: ok on tcp://127.0.0.1:" in by_file[shot.name]
        farm = json.loads((out / f"shot{i}.json").read_text())
        here = json.loads((tmp_path / "here" / f"shot{i}.json").read_text())
        assert farm["ok"] and farm["key_hash"] == here["key_hash"]  # bit-identical keys
        assert farm["output"] == str(out / shot.name)
        workers.add(farm["worker"])
        bpy.ops.wm.open_mainfile(filepath=str(out / shot.name))
        heights = keys(bpy.data.objects[f"Falling {i}"], "location")
        assert heights[:, 0].tolist() == list(range(1, FRAMES + 1))
        assert heights[0, 3] == pytest.approx(1.5 + 0.25 * i)
    assert len(workers) == 2  # both workers took files
    assert [fingerprint(path) for path in (*shots, corrupt)] == before
    assert not (out / "corrupt.blend").exists() and not (out / "missing.blend").exists()
    assert_only_final_files(out)


def test_a_hanging_bake_times_out_on_each_worker(impulse, cluster, tmp_path):
    address, _client = cluster
    shot = tmp_path / "shot.blend"
    make_drop_file(shot, "Falling")
    out = tmp_path / "out"

    result = run_batch("bake", str(shot), "--output", str(out), "--scheduler", address,
                       "--timeout", "0.05", "--shared-output")

    printed = farm_lines(result)
    assert result.returncode == 1
    assert printed[0].startswith("impulse_bake: [1/1] shot.blend: failed on tcp://")
    assert printed[0].endswith(": timed out after 0.05 s (2 attempts)")
    report = json.loads((out / "shot.json").read_text())
    assert not report["ok"] and len(set(report["workers"])) == 2  # retried on the other worker
    assert sorted(path.name for path in out.iterdir()) == ["shot.json"]


def _bakes_running(pids: dict[str, int]) -> dict[str, list[psutil.Process]]:
    """The Blender processes each worker is running (its children baking a --save-as file)."""
    running = {}
    for address, pid in pids.items():
        children = []
        for child in psutil.Process(pid).children(recursive=True):
            with suppress(psutil.Error):  # it may end while we look
                if "--save-as" in child.cmdline():
                    children.append(child)
        if children:
            running[address] = children
    return running


def test_a_worker_killed_mid_bake_is_survived(impulse, cluster, tmp_path):
    address, client = cluster
    shots = [tmp_path / f"shot{i}.blend" for i in range(2)]
    for i, shot in enumerate(shots):
        make_drop_file(shot, f"Falling {i}")
    out = tmp_path / "out"
    pids = client.run(os.getpid)
    command = [sys.executable, str(ROOT / "batch.py"), "bake", *map(str, shots), "--output",
               str(out), "--scheduler", address]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          cwd=ROOT) as batch:
        deadline = time.monotonic() + 300
        while not (running := _bakes_running(pids)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert running, "no bake started"
        victim, bakes = next(iter(running.items()))
        for process in [*bakes, psutil.Process(pids[victim])]:  # the machine goes down
            process.kill()
        stdout, stderr = batch.communicate(timeout=600)

    assert batch.returncode == 0, stdout + stderr
    assert stderr == "" and "Traceback" not in stdout
    lines = stdout.splitlines()
    assert len(lines) == 3
    for i, shot in enumerate(shots):
        report = json.loads((out / f"shot{i}.json").read_text())
        assert report["ok"] and report["worker"] != victim
        bpy.ops.wm.open_mainfile(filepath=str(out / shot.name))
        assert len(keys(bpy.data.objects[f"Falling {i}"], "location")) == FRAMES
    assert_only_final_files(out)
