"""Batch bakes from the command line: `python batch.py ... bake` in real, separate Blenders.

The end-to-end test runs batch.py as a user would (a fresh process using the extension the
session installed) with --jobs 2; the other tests call the same CLI in this process, with the
process's file descriptors captured so that Blender's own output would show.
"""

import hashlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import bpy
import pytest

from tests.blender_helpers import cube, keys

ROOT = Path(__file__).resolve().parent.parent
FRAMES = 24  # each test file's scene range is 1-24
TIMINGS = {"read", "compile", "simulate", "write"}  # BakeReport.timings, one per bake phase


def make_drop_file(path: Path, name: str, height: float = 2.0) -> None:
    """Save a file with one cube `height` m above a passive ground slab (a new file)."""
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, FRAMES
    ground = cube("Ground", location=(0.0, 0.0, -0.5), size=1.0)
    ground.scale = (10.0, 10.0, 1.0)
    ground.impulse.enabled, ground.impulse.body_type = True, "PASSIVE"
    body = cube(name, location=(0.0, 0.0, height), size=1.0)
    body.impulse.enabled = True
    path.parent.mkdir(parents=True, exist_ok=True)
    bpy.ops.wm.save_as_mainfile(filepath=str(path), copy=True)


def fingerprint(path: Path) -> tuple[str, int]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


def run_batch(*args: str) -> subprocess.CompletedProcess:
    """batch.py in a fresh Python, using the extension installed in this session's user folder."""
    return subprocess.run(
        [sys.executable, str(ROOT / "batch.py"), *args], capture_output=True, text=True,
        cwd=ROOT, timeout=900,
    )


def run_here(impulse, capfd, *args: str) -> tuple[int, list[str], list[str]]:
    """The CLI in this Blender: exit code, stdout lines, stderr lines (Blender's would show)."""
    capfd.readouterr()
    launcher = [sys.executable, str(ROOT / "batch.py")]
    code = impulse.blender_addon.command_line.cli.main(list(args), launcher)
    captured = capfd.readouterr()
    return code, captured.out.splitlines(), captured.err.splitlines()


def assert_finite_numbers(data) -> None:
    if isinstance(data, dict):
        data = list(data.values())
    if isinstance(data, list):
        for item in data:
            assert_finite_numbers(item)
    elif isinstance(data, float):
        assert math.isfinite(data)


def assert_only_final_files(folder: Path) -> None:
    """No temporary (hidden) file is left where outputs are written."""
    assert [path.name for path in folder.iterdir() if path.name.startswith(".")] == []


@pytest.fixture(scope="module")
def compiled(impulse, tmp_path_factory) -> None:
    """Bake once in this process, so child Blenders load the solver's kernels from the JIT
    cache instead of each compiling them at once."""
    folder = tmp_path_factory.mktemp("warm")
    make_drop_file(folder / "warm.blend", "Falling")
    cli = impulse.blender_addon.command_line.cli
    assert cli.main(["bake", str(folder / "warm.blend"), "--output", str(folder / "out"),
                     "--frames", "1-2"], []) == 0


def test_bakes_two_files_and_reports_a_bad_third(impulse, compiled, tmp_path):
    inputs = [tmp_path / "a.blend", tmp_path / "b.blend", tmp_path / "bad.txt"]
    make_drop_file(inputs[0], "Falling A")
    make_drop_file(inputs[1], "Falling B")
    inputs[2].write_text("not a blend file\n")
    before = [fingerprint(path) for path in inputs]
    out = tmp_path / "out"

    result = run_batch("bake", *map(str, inputs), "--output", str(out), "--jobs", "2",
                       "--report", str(out / "all.json"))

    printed = result.stdout.splitlines()
    assert result.returncode == 1, printed
    assert result.stderr == ""  # one stream: every file's line, then the summary
    assert len(printed) == 4  # in input order, whatever order the jobs finish in
    assert printed[2] == "impulse_bake: [3/3] bad.txt: failed: not a .blend file"
    assert printed[3].startswith("impulse_bake: 2 of 3 file(s) baked, 1 failed")
    assert [fingerprint(path) for path in inputs] == before
    summary = json.loads((out / "all.json").read_text())
    assert [entry["ok"] for entry in summary["files"]] == [True, True, False]
    for stem, name in (("a", "Falling A"), ("b", "Falling B")):
        report = json.loads((out / f"{stem}.json").read_text())
        assert report["ok"] and report["bodies"] == 2 and report["frames"] == FRAMES
        assert (report["frame_start"], report["frame_end"]) == (1, FRAMES)
        assert set(report["timings"]) == TIMINGS
        assert set(report["file_timings"]) == {"open", "bake", "save"}
        assert set(report["objects"]) == {"Ground", name}
        assert report["seconds"] > 0 and len(report["key_hash"]) == 64
        assert_finite_numbers(report)
        assert printed[ord(stem) - ord("a")].startswith(
            f"impulse_bake: [{ord(stem) - ord('a') + 1}/3] {stem}.blend: ok, 2 bodies, "
            f"frames 1-{FRAMES} in ")
        bpy.ops.wm.open_mainfile(filepath=str(out / f"{stem}.blend"))
        heights = keys(bpy.data.objects[name], "location")
        assert heights[:, 0].tolist() == list(range(1, FRAMES + 1))
        assert heights[0, 3] == pytest.approx(2.0)
        assert heights[-1, 3] < 1.0  # it fell towards the ground
        assert bpy.data.objects["Ground"].animation_data is None  # passive: never keyed
    assert_only_final_files(out)


def test_one_stream_and_no_blender_log(impulse, scene, tmp_path, capfd):
    empty = tmp_path / "empty.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(empty), copy=True)
    good = tmp_path / "good.blend"
    make_drop_file(good, "Falling")

    code, out, err = run_here(impulse, capfd, "bake", str(tmp_path / "missing.blend"),
                              str(empty), str(good), "--output", str(tmp_path / "out"))

    assert code == 1
    assert err == []
    assert out[0] == "impulse_bake: [1/3] missing.blend: failed: file not found"
    assert out[1].startswith("impulse_bake: [2/3] empty.blend: failed: ")
    assert "bod" in out[1].lower()  # the bake's own message about having no bodies
    assert out[2].startswith("impulse_bake: [3/3] good.blend: ok, 2 bodies")
    assert out[3].startswith("impulse_bake: 1 of 3 file(s) baked, 2 failed")
    assert len(out) == 4  # nothing from Blender: no "Read blend", no "Info: Saved"
    assert not (tmp_path / "out" / "empty.blend").exists()
    assert not json.loads((tmp_path / "out" / "empty.json").read_text())["ok"]


def test_same_names_get_full_paths_and_distinct_reports(impulse, scene, tmp_path, capfd):
    first, second = tmp_path / "a" / "shot.blend", tmp_path / "b" / "shot.blend"
    make_drop_file(first, "Falling", height=2.0)
    make_drop_file(second, "Falling", height=3.0)
    out = tmp_path / "out"

    code, lines, _ = run_here(impulse, capfd, "bake", str(first), str(second), "--output",
                              str(out), "--frames", "1-4")

    assert code == 0, lines
    assert lines[0].startswith(f"impulse_bake: [1/2] {first.resolve()}: ok")
    assert lines[1].startswith(f"impulse_bake: [2/2] {second.resolve()}: ok")
    reports = [json.loads((out / name).read_text()) for name in ("shot.json", "shot-2.json")]
    assert [r["input"] for r in reports] == [str(first), str(second)]
    assert [r["output"] for r in reports] == [str(out / "shot.blend"), str(out / "shot-2.blend")]
    heights = []
    for name in ("shot.blend", "shot-2.blend"):
        bpy.ops.wm.open_mainfile(filepath=str(out / name))
        heights.append(keys(bpy.data.objects["Falling"], "location")[0, 3])
    assert heights == pytest.approx([2.0, 3.0])  # each output holds its own input's bake


def make_two_scene_file(path: Path) -> None:
    """The drop file plus a scene "Second" whose own cube falls from 4 m onto the same ground."""
    make_drop_file(path, "Falling")
    first = bpy.context.scene
    second = bpy.data.scenes.new("Second")
    second.frame_start, second.frame_end = 1, 6
    second.collection.objects.link(bpy.data.objects["Ground"])
    body = bpy.data.objects.new("Second Falling", bpy.data.objects["Falling"].data)
    body.location = (0.0, 0.0, 4.0)
    second.collection.objects.link(body)
    body.impulse.enabled = True
    assert bpy.context.scene == first
    bpy.ops.wm.save_as_mainfile(filepath=str(path), copy=True)


def test_scene_by_name_and_all_scenes(impulse, scene, tmp_path, capfd):
    source = tmp_path / "scenes.blend"
    make_two_scene_file(source)

    code, lines, _ = run_here(impulse, capfd, "bake", str(source), "--scene", "Second",
                              "--output", str(tmp_path / "one"))
    assert code == 0, lines
    report = json.loads((tmp_path / "one" / "scenes.json").read_text())
    assert (report["scene"], report["frame_start"], report["frame_end"]) == ("Second", 1, 6)
    bpy.ops.wm.open_mainfile(filepath=str(tmp_path / "one" / "scenes.blend"))
    assert keys(bpy.data.objects["Second Falling"], "location")[:, 0].tolist() == [1, 2, 3, 4,
                                                                                   5, 6]
    assert bpy.data.objects["Falling"].animation_data is None  # the active scene: not baked

    code, lines, _ = run_here(impulse, capfd, "bake", str(source), "--all-scenes",
                              "--output", str(tmp_path / "all"))
    assert code == 0, lines
    assert "2 scenes, 4 bodies" in lines[0]
    report = json.loads((tmp_path / "all" / "scenes.json").read_text())
    assert [(s["scene"], s["frame_end"]) for s in report["scenes"]] == [("Scene", FRAMES),
                                                                       ("Second", 6)]
    bpy.ops.wm.open_mainfile(filepath=str(tmp_path / "all" / "scenes.blend"))
    assert len(keys(bpy.data.objects["Falling"], "location")) == FRAMES
    assert len(keys(bpy.data.objects["Second Falling"], "location")) == 6

    code, lines, _ = run_here(impulse, capfd, "bake", str(source), "--scene", "Third",
                              "--output", str(tmp_path / "none"))
    assert code == 1
    assert lines[0] == ("impulse_bake: [1/1] scenes.blend: failed: no scene named 'Third' "
                        "(the file has 'Scene', 'Second')")


def test_never_saves_over_the_input_unless_asked(impulse, scene, tmp_path, capfd):
    source = tmp_path / "shot.blend"
    make_drop_file(source, "Falling")
    before = fingerprint(source)

    code, lines, _ = run_here(impulse, capfd, "bake", str(source), "--output", str(tmp_path))
    assert code == 1
    assert "would overwrite the input" in lines[0]
    assert fingerprint(source) == before

    code, lines, _ = run_here(impulse, capfd, "bake", str(source), "--in-place",
                              "--output", str(tmp_path / "reports"), "--frames", "1-5")
    assert code == 0, lines
    bpy.ops.wm.open_mainfile(filepath=str(source))
    assert keys(bpy.data.objects["Falling"], "location")[:, 0].tolist() == [1, 2, 3, 4, 5]
    assert_only_final_files(tmp_path)


def test_a_bake_past_its_timeout_is_stopped_and_reported(impulse, scene, tmp_path, capfd):
    source = tmp_path / "shot.blend"
    make_drop_file(source, "Falling")
    out = tmp_path / "out"

    code, lines, _ = run_here(impulse, capfd, "bake", str(source), "--output", str(out),
                              "--timeout", "0.05")

    assert code == 1
    assert lines[0] == "impulse_bake: [1/1] shot.blend: failed: timed out after 0.05 s"
    assert sorted(path.name for path in out.iterdir()) == ["shot.json"]  # no .blend, no temp


def test_arguments_and_output_checked_before_any_work(impulse, scene, tmp_path, capfd):
    source = tmp_path / "shot.blend"
    make_drop_file(source, "Falling")
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)

    def refused(*args: str) -> str:
        code, out, err = run_here(impulse, capfd, "bake", str(source), *args)
        assert code == 2 and out == [] and len(err) == 1, (code, out, err)
        return err[0]

    assert refused("--output", str(a_file)) == f"impulse_bake: --output {a_file} is not a folder"
    if os.geteuid() != 0:  # root writes anywhere
        assert refused("--output", str(locked)).startswith(
            f"impulse_bake: cannot write into --output {locked}")
    assert refused("--output", str(a_file / "sub")).startswith(
        f"impulse_bake: cannot write into --output {a_file / 'sub'}")
    out = ("--output", str(tmp_path / "out"))
    assert refused(*out, "--report", str(tmp_path)).endswith("is a folder; name a .json file")
    assert refused(*out, "--retries", "2") == "impulse_bake: --retries need --scheduler"
    assert refused(*out, "--scheduler", "tcp://127.0.0.1:1", "--jobs", "2").startswith(
        "impulse_bake: --jobs and --in-place are for one machine")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["file.txt", "locked", "shot.blend"]


def test_usage_errors_exit_2_without_baking(impulse, scene, tmp_path, capfd):
    assert run_here(impulse, capfd, "bake", "x.blend", "--frames", "9-3")[0] == 2
    assert run_here(impulse, capfd, "bake", "x.blend", "--jobs", "0")[0] == 2
    assert run_here(impulse, capfd, "bake", "x.blend", "--timeout", "-1")[0] == 2
    assert run_here(impulse, capfd, "bake", "x.blend", "--scene", "A", "--all-scenes")[0] == 2
    assert run_here(impulse, capfd, "explode")[0] == 2
    assert run_here(impulse, capfd, "bake", "--help")[0] == 0
