"""Batch bakes from the command line: `python batch.py ... bake` in real, separate Blenders.

The end-to-end tests run batch.py as a user would (a fresh process that installs the built zip),
sequentially and with --jobs 2; the error-path tests call the same CLI in this process.
"""

import hashlib
import json
import math
import subprocess
import sys
from pathlib import Path

import bpy
import pytest

import build
from tests.blender_helpers import cube, keys

ROOT = Path(__file__).resolve().parent.parent
FRAMES = 24  # each test file's scene range is 1-24


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    return build.build(tmp_path_factory.mktemp("dist"))


def make_drop_file(path: Path, name: str) -> None:
    """Save a file with one cube 2 m above a passive ground slab (a new file, not the test's)."""
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, FRAMES
    ground = cube("Ground", location=(0.0, 0.0, -0.5), size=1.0)
    ground.scale = (10.0, 10.0, 1.0)
    ground.impulse.enabled, ground.impulse.body_type = True, "PASSIVE"
    body = cube(name, location=(0.0, 0.0, 2.0), size=1.0)
    body.impulse.enabled = True
    bpy.ops.wm.save_as_mainfile(filepath=str(path), copy=True)


def fingerprint(path: Path) -> tuple[str, int]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


def run_batch(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "batch.py"), *args], capture_output=True, text=True,
        cwd=ROOT, timeout=900,
    )


def run_here(impulse, capsys, *args: str) -> tuple[int, list[str]]:
    """The CLI in this Blender; returns the exit code and its own lines (not Blender's reports)."""
    capsys.readouterr()
    code = impulse.blender_addon.command_line.cli.main(list(args), [])
    captured = capsys.readouterr()
    return code, [line for line in (captured.out + captured.err).splitlines()
                  if line.startswith("impulse_bake")]


def assert_finite_numbers(data) -> None:
    if isinstance(data, dict):
        data = list(data.values())
    if isinstance(data, list):
        for item in data:
            assert_finite_numbers(item)
    elif isinstance(data, float):
        assert math.isfinite(data)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_bakes_two_files_and_reports_a_bad_third(impulse, archive, tmp_path, jobs):
    inputs = [tmp_path / "a.blend", tmp_path / "b.blend", tmp_path / "bad.txt"]
    make_drop_file(inputs[0], "Falling A")
    make_drop_file(inputs[1], "Falling B")
    inputs[2].write_text("not a blend file\n")
    before = [fingerprint(path) for path in inputs]
    out = tmp_path / "out"

    result = run_batch("--install", str(archive), "--user-resources", str(tmp_path / "user"),
                       "bake", *map(str, inputs), "--output", str(out), "--jobs", jobs,
                       "--report", str(out / "all.json"))

    printed = (result.stdout + result.stderr).splitlines()
    assert result.returncode == 1, printed
    assert "Traceback" not in result.stdout + result.stderr
    bad_lines = [line for line in printed if "bad.txt" in line]
    assert bad_lines == ["impulse_bake: [3/3] bad.txt: not a .blend file"]
    assert [fingerprint(path) for path in inputs] == before
    summary = json.loads((out / "all.json").read_text())
    assert [entry["ok"] for entry in summary["files"]] == [True, True, False]
    for stem, name in (("a", "Falling A"), ("b", "Falling B")):
        report = json.loads((out / f"{stem}.json").read_text())
        assert report["ok"] and report["bodies"] == 2 and report["frames"] == FRAMES - 1
        assert set(report["objects"]) == {"Ground", name}
        assert report["seconds"] > 0
        assert_finite_numbers(report)
        assert any(line.startswith("impulse_bake: [") and f"{stem}.blend: 2 bodies" in line
                   for line in printed)
        bpy.ops.wm.open_mainfile(filepath=str(out / f"{stem}.blend"))
        heights = keys(bpy.data.objects[name], "location")
        assert heights[:, 0].tolist() == list(range(1, FRAMES + 1))
        assert heights[0, 3] == pytest.approx(2.0)
        assert heights[-1, 3] < 1.0  # it fell towards the ground
        assert bpy.data.objects["Ground"].animation_data is None  # passive: never keyed


def test_missing_file_and_file_without_bodies(impulse, scene, tmp_path, capsys):
    empty = tmp_path / "empty.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(empty), copy=True)

    code, lines = run_here(impulse, capsys, "bake", str(tmp_path / "missing.blend"), str(empty),
                           "--output", str(tmp_path / "out"))

    assert code == 1
    assert lines[0] == "impulse_bake: [1/2] missing.blend: file not found"
    assert lines[1].startswith("impulse_bake: [2/2] empty.blend: ")
    assert "bod" in lines[1].lower()  # the bake's own message about having no bodies
    assert not (tmp_path / "out" / "empty.blend").exists()
    assert not json.loads((tmp_path / "out" / "empty.json").read_text())["ok"]


def test_never_saves_over_the_input_unless_asked(impulse, scene, tmp_path, capsys):
    source = tmp_path / "shot.blend"
    make_drop_file(source, "Falling")
    before = fingerprint(source)

    code, lines = run_here(impulse, capsys, "bake", str(source), "--output", str(tmp_path))
    assert code == 1
    assert "would overwrite the input" in lines[-1]
    assert fingerprint(source) == before

    code, lines = run_here(impulse, capsys, "bake", str(source), "--in-place",
                           "--output", str(tmp_path / "reports"), "--frames", "1-5")
    assert code == 0, lines
    bpy.ops.wm.open_mainfile(filepath=str(source))
    assert keys(bpy.data.objects["Falling"], "location")[:, 0].tolist() == [1, 2, 3, 4, 5]


def test_usage_errors_exit_2_without_baking(impulse, scene, tmp_path, capsys):
    assert run_here(impulse, capsys, "bake", "x.blend", "--frames", "9-3")[0] == 2
    assert run_here(impulse, capsys, "bake", "x.blend", "--jobs", "0")[0] == 2
    assert run_here(impulse, capsys, "explode")[0] == 2
    assert run_here(impulse, capsys, "bake", "--help")[0] == 0
