"""The bundled demo scene and the main job that bakes it and writes demo.blend plus a picture."""

import itertools
import json
import math

import bpy
import numpy as np
import pytest

from tests.blender_helpers import keys

CHAIR_PARTS = {"Chair Seat", "Chair Back", *(f"Chair Leg.{i}" for i in range(4))}


def test_demo_scene_has_the_setups(impulse, scene):
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

    assert bodies["Suzanne"].impulse.shape == "CONVEX_HULL"
    assert len(bodies["Suzanne"].data.vertices) == 507  # Blender's own monkey
    barrel = bodies["Barrel"].impulse
    assert barrel.shape == "CYLINDER"
    assert barrel.initial_angular_velocity[1] * demo.BARREL_RADIUS == pytest.approx(
        barrel.initial_linear_velocity[0])  # starts rolling without slipping
    ramp = bodies["Ramp"]
    assert ramp.impulse.shape == "MESH"
    bpy.context.view_layer.update()  # matrix_world of the new objects
    top = np.array([ramp.matrix_world @ v.co for v in ramp.data.vertices])
    top = top[top[:, 2] > 1e-6]
    assert np.allclose(top[:, 2], [demo.ramp_height(x) for x in top[:, 0]])
    drops = np.diff(sorted(set(np.round(top[:, 2], 6))))  # between evenly spaced sections
    assert drops.std() > 0.01  # curved, not a plane
    chair = bodies["Chair"]
    assert chair.impulse.shape == "COMPOUND" and len(chair.data.vertices) == 0
    assert {child.name for child in chair.children} == CHAIR_PARTS
    assert all(bodies[name].impulse.enabled for name in CHAIR_PARTS)


def test_contact_sheet_frames_cover_the_range(impulse):
    frames_to_show = impulse.blender_addon.command_line.contact_sheet.frames_to_show
    assert frames_to_show(1, 120, 6) == [1, 25, 49, 72, 96, 120]
    assert frames_to_show(1, 3, 6) == [1, 2, 3]


def _world_matrices(obj, frames):
    scene = bpy.context.scene
    matrices = []
    for frame in frames:
        scene.frame_set(frame)
        matrices.append(obj.matrix_world.copy())
    return matrices


def test_demo_job_writes_blend_picture_and_report(impulse, scene, tmp_path, capsys):
    frames = 36
    code = impulse.blender_addon.command_line.cli.main(
        ["demo", "--output", str(tmp_path), "--frames", f"1-{frames}"], [])
    assert code == 0, capsys.readouterr()
    demo = impulse.blender_addon.command_line.demo

    report = json.loads((tmp_path / "demo.json").read_text())
    assert report["ok"] and report["bodies"] == 24 and report["frames"] == frames
    picture = bpy.data.images.load(str(tmp_path / "demo.png"))
    gutter = impulse.blender_addon.command_line.contact_sheet.GUTTER
    assert tuple(picture.size) == (3 * 320 + 2 * gutter, 2 * 180 + gutter)
    pixels = np.empty(len(picture.pixels), dtype=np.float32)
    picture.pixels.foreach_get(pixels)
    assert pixels.reshape(-1, 4)[:, :3].std() > 0.05  # a rendered scene, not a blank image
    bpy.ops.wm.open_mainfile(filepath=str(tmp_path / "demo.blend"))
    rolled = keys(bpy.data.objects["Rolling Sphere"], "location")
    assert rolled[:, 0].tolist() == list(range(1, frames + 1))
    assert rolled[11, 1] > rolled[0, 1] + 0.5  # rolling along +x at 3.5 m/s for ~0.46 s
    assert bpy.data.objects["Ground"].animation_data is None
    assert rolled[0, 1] == pytest.approx(-1.5)

    # The barrel rolls without slipping: each frame it turns about +y by its travel / radius.
    barrel = _world_matrices(bpy.data.objects["Barrel"], range(1, frames + 1))
    steps = list(itertools.pairwise(barrel))
    travel = np.array([(b.translation - a.translation).x for a, b in steps])
    turns = [b.to_quaternion() @ a.to_quaternion().inverted() for a, b in steps]
    about_y = np.array([2.0 * math.atan2(math.copysign(1.0, q.w) * q.y, abs(q.w)) for q in turns])
    assert travel.min() > 0.5 * demo.BARREL_SPEED / 24  # still rolling along +x
    assert about_y == pytest.approx(travel / demo.BARREL_RADIUS, rel=0.02)
    assert np.abs([b.translation.z - demo.BARREL_RADIUS for b in barrel]).max() < 0.005

    # The chair has landed upright on its four legs: the seat's underside at leg height, level.
    chair = bpy.data.objects["Chair"]
    assert keys(chair, "location")[:, 0].tolist() == list(range(1, frames + 1))
    assert all(bpy.data.objects[name].animation_data is None for name in CHAIR_PARTS)
    landed = _world_matrices(chair, [frames])[0]
    assert landed.translation.z == pytest.approx(demo.CHAIR_LEG[2], abs=0.005)
    up = landed.to_3x3().col[2]
    assert math.degrees(up.angle((0.0, 0.0, 1.0))) < 1.0
    feet = [bpy.data.objects[f"Chair Leg.{i}"] for i in range(4)]
    assert all(abs(min((leg.matrix_world @ v.co).z for v in leg.data.vertices)) < 0.005
               for leg in feet)
