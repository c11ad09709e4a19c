"""The bundled demo scene and the main job that bakes it and writes demo.blend plus a picture."""

import json

import bpy
import numpy as np
import pytest

from tests.blender_helpers import keys


def test_demo_scene_has_the_three_setups(impulse, scene):
    demo = impulse.blender_addon.command_line.demo
    bodies = {obj.name: obj for obj in demo.build(scene)}

    dominoes = sorted(name for name in bodies if name.startswith("Domino."))
    assert len(dominoes) == demo.DOMINO_COUNT
    xs = [bodies[name].location.x for name in dominoes]
    assert np.allclose(np.diff(xs), demo.DOMINO_SPACING)
    assert demo.DOMINO_SIZE[2] > demo.DOMINO_SPACING  # each domino reaches the next one
    sphere = bodies["Rolling Sphere"].impulse
    assert sphere.shape == "SPHERE" and sphere.initial_linear_velocity[0] > 0
    assert bodies["Rolling Sphere"].location.x < xs[0]  # rolls towards the row
    stack = [name for name in bodies if name.startswith("Stack.")]
    assert len(stack) == 6
    block = bodies["Heavy Block"]
    assert block.impulse.mass_mode == "MASS" and block.impulse.initial_linear_velocity[0] > 0
    assert block.location.x < min(bodies[name].location.x for name in stack)
    assert bodies["Bouncing Ball"].impulse.restitution > 0.5
    assert {name for name, obj in bodies.items() if obj.impulse.body_type == "PASSIVE"} == {
        "Ground", "Ramp"}
    assert all(tuple(obj.scale) == (1.0, 1.0, 1.0) for obj in bodies.values())
    assert scene.camera is not None
    assert (scene.frame_start, scene.frame_end) == (demo.FRAME_START, demo.FRAME_END)


def test_contact_sheet_frames_cover_the_range(impulse):
    frames_to_show = impulse.blender_addon.command_line.contact_sheet.frames_to_show
    assert frames_to_show(1, 120, 6) == [1, 25, 49, 72, 96, 120]
    assert frames_to_show(1, 3, 6) == [1, 2, 3]


def test_demo_job_writes_blend_picture_and_report(impulse, scene, tmp_path, capsys):
    code = impulse.blender_addon.command_line.cli.main(
        ["demo", "--output", str(tmp_path), "--frames", "1-12"], [])
    assert code == 0, capsys.readouterr()

    report = json.loads((tmp_path / "demo.json").read_text())
    assert report["ok"] and report["bodies"] == 21 and report["frames"] == 12
    picture = bpy.data.images.load(str(tmp_path / "demo.png"))
    gutter = impulse.blender_addon.command_line.contact_sheet.GUTTER
    assert tuple(picture.size) == (3 * 320 + 2 * gutter, 2 * 180 + gutter)
    pixels = np.empty(len(picture.pixels), dtype=np.float32)
    picture.pixels.foreach_get(pixels)
    assert pixels.reshape(-1, 4)[:, :3].std() > 0.05  # a rendered scene, not a blank image
    bpy.ops.wm.open_mainfile(filepath=str(tmp_path / "demo.blend"))
    rolled = keys(bpy.data.objects["Rolling Sphere"], "location")
    assert rolled[:, 0].tolist() == list(range(1, 13))
    assert rolled[-1, 1] > rolled[0, 1] + 0.5  # rolling along +x at 3.5 m/s for ~0.46 s
    assert bpy.data.objects["Ground"].animation_data is None
    assert rolled[0, 1] == pytest.approx(-1.5)
