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

from tests.blender_helpers import cube, keys, select, transform

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


# ---- the new shapes (issue #11): each mirrored as the built-in's own kind, like for like ----

SLOPE = math.radians(20.0)


def mirrors_of(run):
    """Run `run()` and return what the built-in's world held at its first frame: per mirror
    object (named "Impulse mirror ..."), its collision shape, size and parent."""
    seen: dict = {}

    def record(scene, _depsgraph):
        if seen or not scene.name.startswith("Scene."):
            return  # the user's scene, or already recorded
        for obj in scene.objects:
            if obj.name.startswith("Impulse mirror") and obj.rigid_body is not None:
                rb = obj.rigid_body
                seen[obj.name[len("Impulse mirror "):]] = {
                    "shape": rb.collision_shape, "type": rb.type, "mass": rb.mass,
                    "dimensions": tuple(obj.dimensions), "location": tuple(obj.location),
                    "margin": rb.collision_margin if rb.use_margin else None,
                    "parent": obj.parent.name[len("Impulse mirror "):] if obj.parent else None,
                    "vertices": len(obj.data.vertices), "faces": len(obj.data.polygons)}

    bpy.app.handlers.frame_change_post.append(record)
    try:
        result = run()
    finally:
        bpy.app.handlers.frame_change_post.remove(record)
    return result, seen


def fitted(impulse, obj):
    """The shape the bake fits to `obj` (Blender units are metres here)."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    return impulse.blender_addon.reading.fitting.fit_body(obj, depsgraph, 1.0, None)[1]


def test_cylinder_rolls_down_a_ramp_in_both_engines(impulse, scene):
    """A cylinder on a 20° ramp rolls without slipping, s = g sin θ t² / 3, in both engines:
    a box-shaped mirror would stick (friction 1)."""
    frames = 24
    scene.frame_start, scene.frame_end = 1, 1 + frames
    normal = np.array([math.sin(SLOPE), 0.0, math.cos(SLOPE)])
    downhill = np.array([math.cos(SLOPE), 0.0, -math.sin(SLOPE)])
    ramp = cube("Ramp", size=1.0)
    ramp.scale, ramp.rotation_euler = (20.0, 4.0, 1.0), (0.0, SLOPE, 0.0)
    ramp.impulse.enabled, ramp.impulse.body_type = True, "PASSIVE"
    radius, start = 0.3, 0.5 * normal + 0.3 * normal - 3.0 * downhill
    bpy.ops.mesh.primitive_cylinder_add(radius=radius, depth=0.6, vertices=64,
                                        location=start, rotation=(math.pi / 2, 0.0, 0.0))
    barrel = bpy.context.active_object
    barrel.name = "Barrel"
    select(barrel)
    assert bpy.ops.impulse.add_bodies(body_type="ACTIVE") == {"FINISHED"}
    assert barrel.impulse.shape == "CYLINDER"
    for body in (ramp, barrel):
        body.impulse.friction, body.impulse.restitution = 1.0, 0.0
    shape = fitted(impulse, barrel)
    compare = impulse.blender_addon.verification.compare

    result, mirrors = mirrors_of(lambda: compare.compare_scene(scene))

    mirror = mirrors["Barrel"]
    r, h = shape.size
    assert mirror["shape"] == "CYLINDER" and mirror["parent"] is None
    assert mirror["dimensions"] == pytest.approx((2 * r, 2 * r, 2 * h), rel=1e-5)
    assert mirrors["Ramp"]["shape"] == "BOX"
    row = next(row for row in result.bodies if row.name == "Barrel")
    closed = 9.81 * math.sin(SLOPE) * (frames / 24.0) ** 2 / 3.0  # 1.12 m
    path = result.ghost_matrices["Barrel"][:, :3, 3]  # the built-in's
    rolled = (path[-1] - path[0]) @ downhill
    assert rolled == pytest.approx(closed, rel=0.03)
    assert row.position_max < 0.03 * closed  # Impulse's barrel stays with it


def test_cone_hull_compound_and_mesh_are_mirrored_as_the_builtins_own(impulse, scene):
    """A cone, a convex-hull Suzanne and a compound chair on a triangle-mesh floor: each mirror
    is Bullet's own kind with Impulse's sizes and mass, off-centre masses as a Compound Parent
    at the centre of mass; the cone and chair rest where their shapes say."""
    frames = 12
    scene.frame_start, scene.frame_end = 1, 1 + frames
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=8, y_subdivisions=8, size=12.0)
    floor = bpy.context.active_object
    floor.name = "Floor"
    select(floor)
    assert bpy.ops.impulse.add_bodies(body_type="PASSIVE") == {"FINISHED"}
    bpy.ops.mesh.primitive_cone_add(radius1=0.4, depth=0.5, vertices=48, location=(-2, 0, 0.25))
    cone = bpy.context.active_object
    cone.name = "Cone"
    bpy.ops.mesh.primitive_monkey_add(location=(0.0, 0.0, 1.5))
    monkey = bpy.context.active_object
    monkey.name = "Suzanne"
    select(cone, monkey)
    assert bpy.ops.impulse.add_bodies(body_type="ACTIVE") == {"FINISHED"}
    chair = bpy.data.objects.new("Chair", bpy.data.meshes.new("Chair"))  # a stool: seat, 4 legs
    scene.collection.objects.link(chair)
    chair.location = (2.5, 0.0, 0.9)
    seat = cube("Seat", size=1.0)
    seat.scale = (1.0, 1.0, 0.1)
    legs = []
    for x, y in ((0.4, 0.4), (0.4, -0.4), (-0.4, 0.4), (-0.4, -0.4)):
        bpy.ops.mesh.primitive_cylinder_add(radius=0.05, depth=0.8, location=(x, y, -0.45))
        legs.append(bpy.context.active_object)
    for part in (seat, *legs):
        part.parent = chair
    select(seat, *legs)
    assert bpy.ops.impulse.add_bodies(body_type="ACTIVE") == {"FINISHED"}
    select(chair)
    assert bpy.ops.impulse.add_bodies(body_type="ACTIVE") == {"FINISHED"}
    floor.impulse.shape, cone.impulse.shape = "MESH", "CONE"
    monkey.impulse.shape, chair.impulse.shape = "CONVEX_HULL", "COMPOUND"
    for body in (floor, cone, monkey, chair):
        body.impulse.restitution = 0.0
    cone_fit, hull_fit = fitted(impulse, cone), fitted(impulse, monkey)
    r, h = cone_fit.size
    cone.location.z += 0.002 + h - cone_fit.center[2]  # the fitted base 2 mm above the floor
    cone_fit = fitted(impulse, cone)
    compare = impulse.blender_addon.verification.compare

    result, mirrors = mirrors_of(lambda: compare.compare_scene(scene))

    assert {row.name for row in result.bodies} == {"Floor", "Cone", "Suzanne", "Chair"}
    assert mirrors["Floor"]["shape"] == "MESH" and mirrors["Floor"]["margin"] == 0.0
    assert (mirrors["Floor"]["vertices"], mirrors["Floor"]["faces"]) == (81, 128)
    # The cone: a Compound Parent at its centre of mass, h/2 below the shape centre.
    assert mirrors["Cone"]["shape"] == "COMPOUND"
    assert mirrors["Cone"]["location"][2] == pytest.approx(cone_fit.center[2] - h / 2, abs=1e-4)
    part = mirrors["Cone part 0"]
    assert part["shape"] == "CONE" and part["parent"] == "Cone" and part["margin"] == 0.0
    assert part["dimensions"] == pytest.approx((2 * r, 2 * r, 2 * h), rel=1e-5)
    # Suzanne: Bullet hulls the vertices of Impulse's (simplified) hull.
    hull = impulse.solver.hull.convex_hull(hull_fit.points)
    part = mirrors["Suzanne part 0"]
    assert part["shape"] == "CONVEX_HULL" and part["vertices"] == len(hull.vertices)
    assert part["dimensions"] == pytest.approx(np.ptp(hull.vertices, axis=0), rel=1e-5)
    # The chair: its children are the parts.
    parts = sorted(v["shape"] for v in mirrors.values() if v["parent"] == "Chair")
    assert parts == ["BOX"] + ["CYLINDER"] * 4
    leg_mirror = next(v for v in mirrors.values() if v["parent"] == "Chair" and
                      v["shape"] == "CYLINDER")
    assert leg_mirror["dimensions"] == pytest.approx((0.1, 0.1, 0.8), rel=1e-3)
    _world, links, _warnings = impulse.blender_addon.reading.bridge.build_world(
        scene, bpy.context.evaluated_depsgraph_get())
    for link in links:
        if link.kind == "dynamic":
            assert mirrors[link.name]["mass"] == pytest.approx(link.mass, rel=1e-6)
    # Resting: the cone's base on the floor (a margin would lift it 4 cm), the stool agreeing.
    cone_path = result.ghost_matrices["Cone"][:, 2, 3]
    assert cone_path[-1] == pytest.approx(cone.location.z - 0.002, abs=2e-3)
    chair_row = next(row for row in result.bodies if row.name == "Chair")
    assert chair_row.position_max < 5e-3
