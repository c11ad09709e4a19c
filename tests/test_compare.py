"""Comparison with Blender's built-in rigid body world, in real Blender.

The comparison runs on a temporary copy of the scene: these tests check that the user's scene is
left exactly as it was, that a falling cube agrees with the built-in until impact, that the
report is complete and finite, and that ghosts come and go.
"""

import json
import math
import sys
from pathlib import Path

import bpy
import numpy as np
import pytest

from tests.blender_helpers import cube, keys, transform

FRAMES = 30  # a cube dropped from 4 m lands at frame 1 + 0.90 s * 24 ≈ 22.7


def drop_scene(scene, height: float = 4.0):
    """A 1 m cube `height` m above a passive 20 m ground slab, frames 1-30."""
    scene.frame_start, scene.frame_end = 1, 1 + FRAMES
    ground = cube("Ground", location=(0.0, 0.0, -0.5), size=1.0)
    ground.scale = (20.0, 20.0, 1.0)
    ground.impulse.enabled, ground.impulse.body_type = True, "PASSIVE"
    body = cube("Box", location=(0.0, 0.0, height + 0.5), size=1.0)
    body.impulse.enabled = True
    body.impulse.restitution = 0.5
    return ground, body


OURS = "Impulse Report"  # the comparison's own output: an empty in a collection of that name


def snapshot(scene) -> dict:
    """What must not change: transforms, animation, rigid body world, collections, data."""
    rbw = scene.rigidbody_world
    animation = {}
    for obj in scene.objects:
        if obj.name != OURS and obj.animation_data and obj.animation_data.action:
            animation[obj.name] = (obj.animation_data.action.name,
                                   keys(obj, "location").tolist())
    return {
        "transforms": {obj.name: transform(obj) for obj in scene.objects},
        "animation": animation,
        "rigidbody_world": (rbw.substeps_per_frame, rbw.solver_iterations, rbw.time_scale,
                            rbw.enabled, rbw.collection.name,
                            sorted(o.name for o in rbw.collection.objects),
                            rbw.point_cache.frame_start, rbw.point_cache.frame_end),
        "collections": {c.name: sorted(o.name for o in c.objects) for c in bpy.data.collections},
        "scene": (scene.frame_current, tuple(scene.gravity), scene.render.fps,
                  [s.name for s in bpy.data.scenes], bpy.context.window.scene.name),
        "data": {kind: sorted(i.name for i in getattr(bpy.data, kind))
                 for kind in ("objects", "meshes", "materials", "actions", "worlds")},
    }


def test_comparison_leaves_the_users_scene_untouched(scene):
    ground, body = drop_scene(scene)
    body.location.x = 0.3
    body.keyframe_insert("location", frame=1)  # animation the comparison must not touch
    with bpy.context.temp_override(scene=scene):
        bpy.ops.rigidbody.world_add()
    scene.rigidbody_world.substeps_per_frame = 7
    scene.rigidbody_world.solver_iterations = 13
    scene.rigidbody_world.collection = bpy.data.collections.new("User RBW")
    scene.rigidbody_world.collection.objects.link(ground)  # the user's own built-in setup
    scene.frame_set(5)
    before = snapshot(scene)

    assert bpy.ops.impulse.compare_builtin() == {"FINISHED"}

    after = snapshot(scene)
    assert after["collections"].pop(OURS) == [OURS]
    after["transforms"].pop(OURS)
    after["data"]["objects"].remove(OURS)
    after["data"]["actions"].remove(OURS)
    assert after == before
    assert ground.rigid_body is not None and body.rigid_body is None


def test_falling_cube_matches_builtin_until_impact(impulse, scene):
    drop_scene(scene)
    result = impulse.blender_addon.verification.compare.compare_scene(scene)
    box = next(row for row in result.bodies if row.name == "Box")
    fall = math.sqrt(2 * 4.0 / 9.81) * 24.0  # frames until the cube touches the ground
    assert box.first_contact_impulse == box.first_contact_builtin
    assert abs(box.first_contact_impulse - (1 + fall)) <= 1.5
    # Both integrate free fall the same way: until impact they agree to 0.1 mm.
    before = result.curves["position_difference_max"][: int(fall)]
    assert np.all(before < 1e-4), before.max()
    # Afterwards they differ (the built-in bounces differently), and the curve shows it.
    assert result.curves["position_difference_max"][-1] > before.max()


def test_report_has_one_row_per_body_with_finite_numbers(impulse, scene, tmp_path):
    drop_scene(scene)
    extra = cube("Sphere", location=(3.0, 0.0, 2.0), size=1.0)
    extra.impulse.enabled, extra.impulse.shape = True, "SPHERE"
    scene.impulse_report.output_dir = str(tmp_path)
    assert bpy.ops.impulse.compare_builtin() == {"FINISHED"}
    page = tmp_path / "report.html"
    assert scene.impulse_report.last_report == str(page)
    assert {"unsaved_file_Scene_compare.png", "unsaved_file_Scene_compare.json"} <= {
        p.name for p in tmp_path.iterdir()}
    assert '<td class="text">Sphere</td>' in page.read_text(encoding="utf-8")

    text = bpy.data.texts["Impulse vs Built-in"].as_string()
    result = impulse.blender_addon.verification.compare.compare_scene(scene)
    assert sorted(row.name for row in result.bodies) == ["Box", "Ground", "Sphere"]
    for row in result.bodies:
        assert row.name in text
        numbers = [row.position_rms, row.position_max, row.orientation_max]
        assert all(math.isfinite(n) and n >= 0 for n in numbers)
    assert "first_contact_builtin" in text
    empty = bpy.data.objects["Impulse Report"]
    curves = {(c.data_path, c.array_index): c for c in
              empty.animation_data.action.layers[0].strips[0].channelbag(
                  empty.animation_data.action_slot).fcurves}
    assert ('["builtin_kinetic_energy"]', 0) in curves
    assert ('["impulse_angular_momentum"]', 2) in curves
    energy = curves[('["builtin_kinetic_energy"]', 0)]
    assert len(energy.keyframe_points) == FRAMES + 1
    values = [k.co[1] for k in energy.keyframe_points]
    assert all(math.isfinite(v) for v in values) and max(values) > 0
    assert scene.impulse_report.last_compare == result.summary()


def test_ghosts_appear_keyed_and_are_removed(scene):
    _ground, body = drop_scene(scene)
    scene.impulse_report.use_ghosts = True
    assert bpy.ops.impulse.compare_builtin() == {"FINISHED"}

    collection = bpy.data.collections["Impulse Ghosts"]
    assert [g.name for g in collection.objects] == ["Box (built-in)"]
    ghost = collection.objects[0]
    assert ghost.display_type == "WIRE" and ghost.data == body.data
    location = keys(ghost, "location")
    assert location.shape == (FRAMES + 1, 4)
    assert location[0, 3] == pytest.approx(4.5, abs=1e-5)  # starts where the cube starts
    assert location[:, 3].min() < 1.0  # and falls

    mesh = body.data
    assert bpy.ops.impulse.remove_ghosts() == {"FINISHED"}
    assert "Impulse Ghosts" not in bpy.data.collections
    assert "Box (built-in)" not in bpy.data.objects
    assert body.data == mesh and mesh.name in bpy.data.meshes


def test_compare_command_line(impulse, scene, tmp_path, capsys):
    drop_scene(scene)
    good = tmp_path / "drop.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(good), copy=True)
    not_blend = tmp_path / "notes.blend"
    not_blend.write_text("not a blend file")
    missing = tmp_path / "missing.blend"
    output = tmp_path / "out"

    code = impulse.blender_addon.command_line.cli.main(
        ["compare", str(good), str(not_blend), str(missing), "--frames", "1-20",
         "--output", str(output)], [])
    captured = capsys.readouterr()
    lines = [line for line in (captured.out + captured.err).splitlines()
             if line.startswith("impulse_bake: [")]  # one line per file, in order

    assert code == 1
    assert len(lines) == 3
    assert "[1/3] drop.blend:" in lines[0] and "largest difference" in lines[0]
    assert "notes.blend" in lines[1] and "not a .blend file" in lines[1]
    assert "missing.blend" in lines[2] and "file not found" in lines[2]
    names = {p.name for p in Path(output).iterdir()}
    assert {"drop_compare.csv", "drop_compare.json", "drop_compare.png",
            "drop_compare.txt"} <= names
    assert (output / "drop_compare.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    data = json.loads((output / "drop_compare.json").read_text())
    assert data["frames"] == 19 and [row["name"] for row in data["rows"]] == ["Ground", "Box"]
    assert len(data["curves"]["builtin_kinetic_energy"]) == 20


def test_chart_and_report_page_say_what_they_show(impulse, scene, tmp_path):
    """The PNG's panels have frame and unit axis labels and legends of what is drawn;
    report.html holds the notes, one table row per body and the chart, and the failed files."""
    compare = impulse.blender_addon.verification.compare
    charts = impulse.blender_addon.verification.charts
    drop_scene(scene)
    result = compare.compare_scene(scene, frame_end=12)
    import matplotlib  # the extension's own wheel (or the test venv's)

    settings, pyplot = matplotlib.rcParams.copy(), "matplotlib.pyplot" in sys.modules
    files = compare.write_files(result, tmp_path, "drop")
    # Drawing changed neither matplotlib's settings nor its backend (pyplot never imported).
    assert matplotlib.rcParams.copy() == settings
    assert ("matplotlib.pyplot" in sys.modules) == pyplot
    panels = json.loads(charts.read_metadata(files[-1])["Impulse axes"])
    assert [p["ylabel"] for p in panels] == [
        "kinetic energy (J)", "|linear momentum| (kg m/s)", "|angular momentum| (kg m²/s)",
        "distance (m)"]
    assert all(p["xlabel"] == "frame (24 fps)" and p["legend"] == p["lines"] for p in panels)
    assert panels[0]["lines"] == ["Impulse", "built-in (Bullet)"]
    assert panels[3]["lines"] == ["distance"]  # one curve, one legend entry
    low, high = panels[3]["ylim"]  # both agree to 0.1 mm before impact: drawn on >= 1 cm
    assert high - low >= 0.01

    page = compare.write_report([("drop.blend", result, "drop")], tmp_path,
                                ["notes.blend: not a .blend file"])
    text = page.read_text(encoding="utf-8")
    assert page.name == "report.html"
    assert "drop.blend: scene &#x27;Scene&#x27;, frames 1-12" in text
    for body in ("Ground", "Box"):
        assert f'<td class="text">{body}</td>' in text
    assert "Damping: zero in both" in text and "notes.blend: not a .blend file" in text
    assert text.count("data:image/png;base64,") == 1 and "y kinetic energy (J)" in text


def test_pair_values_follow_impulses_combine_rule(impulse):
    """The built-in multiplies two bodies' values; per-body values are chosen to match."""
    fit = impulse.blender_addon.verification.builtin_world.per_body_values
    values = np.array([0.2, 0.8])
    same, miss = fit(values, np.array([True, True]), "MULTIPLY")
    assert same.tolist() == values.tolist() and miss == 0.0
    fitted, miss = fit(values, np.array([True, False]), "AVERAGE")
    assert fitted[0] * fitted[1] == pytest.approx(0.5) and miss < 1e-12
    three = np.array([0.1, 0.5, 0.9])
    fitted, miss = fit(three, np.array([True, True, True]), "MINIMUM")
    assert 0 < miss < 0.1  # products cannot be minima exactly: the worst pair is reported
