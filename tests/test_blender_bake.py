"""Bake in real Blender and check the keys against closed-form physics and exact restores."""

import bpy
import numpy as np
import pytest
from mathutils import Matrix

from tests.blender_helpers import cube, fcurves, keys, select, transform

G = 9.81


def add(*objects, body_type="ACTIVE", **settings):
    select(*objects)
    assert bpy.ops.impulse.add_bodies(body_type=body_type) == {"FINISHED"}
    for obj in objects:
        for name, value in settings.items():
            setattr(obj.impulse, name, value)


def floor():
    """A passive slab whose top face is the plane z = 0."""
    slab = cube("Floor", location=(0.0, 0.0, -1.0))
    slab.scale = (20.0, 20.0, 1.0)
    add(slab, body_type="PASSIVE", restitution=1.0)
    return slab


def world_matrices(scene, obj, frames) -> np.ndarray:
    out = []
    for frame in frames:
        scene.frame_set(int(frame))
        out.append(np.array(obj.matrix_world))
    return np.array(out)


def seconds(scene, frames) -> np.ndarray:
    return (np.asarray(frames) - scene.frame_start) * scene.render.fps_base / scene.render.fps


@pytest.mark.parametrize(("fps", "fps_base", "unit_scale"), [(24, 1.0, 1.0), (30, 1.001, 0.5)])
def test_dropped_cube_falls_freely_until_impact(scene, fps, fps_base, unit_scale):
    scene.render.fps, scene.render.fps_base = fps, fps_base
    scene.unit_settings.scale_length = unit_scale
    scene.frame_start, scene.frame_end = 1, 60
    floor()
    box = cube("Box", location=(0.0, 0.0, 10.0), size=1.0)
    add(box, restitution=0.0)
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    z = keys(box, "location")
    assert np.array_equal(z[:, 0], np.arange(1, 61))
    t = seconds(scene, z[:, 0])
    # Gravity is stored per Blender unit (scene.gravity is shown times the unit scale), so the
    # fall in Blender units is the same at every unit scale. Impact when the bottom reaches 0.
    impact = np.sqrt(2.0 * 9.5 / G)
    before = t < impact - 2.0 / fps
    assert before.sum() > 20
    h = 1.0 / (fps / fps_base * scene.impulse.substeps)
    tolerance = G * t[before] * h / 2.0 + 1e-4  # first-order integration error bound
    assert np.all(np.abs(z[before, 3] - (10.0 - G * t[before] ** 2 / 2.0)) <= tolerance)
    assert z[-1, 3] == pytest.approx(0.5, abs=0.02)  # at rest on the floor afterwards
    assert scene.impulse.last_bodies == 2
    assert scene.impulse.last_frames == 60


@pytest.mark.parametrize("restitution", [0.3, 0.6, 0.9])
def test_bounce_height_ratio_is_e_squared(scene, restitution):
    scene.frame_start, scene.frame_end = 1, 72
    scene.impulse.substeps = 20
    floor()  # restitution 1, combined by product: the pair's e is the box's
    box = cube("Box", location=(0.0, 0.0, 3.5), size=1.0)
    add(box, restitution=restitution, friction=0.0)
    bpy.ops.impulse.bake()
    z = keys(box, "location")[:, 3] - 0.5  # height of the bottom face above the floor
    rebound = int(np.argmax(np.diff(z) > 0.0))  # first frame after the impact
    descent = rebound + int(np.argmax(np.diff(z[rebound:]) < 0.0))
    apex = z[rebound : descent + 2].max()  # the first bounce's top, sampled per frame
    assert apex / 3.0 == pytest.approx(restitution**2, rel=0.05, abs=0.01)


def spin_case(scene, obj, omega=2.0, velocity=(0.5, -0.25, 0.0)):
    """Zero gravity, constant spin about world z and drift: the closed form of the motion."""
    scene.impulse.use_gravity = False
    scene.frame_start, scene.frame_end = 1, 48
    add(obj, initial_angular_velocity=(0.0, 0.0, omega), initial_linear_velocity=velocity)
    scene.frame_set(1)
    start = np.array(obj.matrix_world)
    local = np.array([v.co for v in obj.data.vertices])
    center = (start[:3, :3] @ ((local.max(0) + local.min(0)) / 2.0)) + start[:3, 3]
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    frames = np.arange(1, 49)
    t = seconds(scene, frames)
    expected = []
    for time in t:
        shift = Matrix.Translation(center + np.asarray(velocity) * time)
        turn = Matrix.Rotation(omega * time, 4, "Z") @ Matrix.Translation(-center)
        expected.append(np.array(shift @ turn @ Matrix(start.tolist())))
    return world_matrices(scene, obj, frames), np.array(expected)


@pytest.mark.parametrize("mode", ["XYZ", "ZXY", "QUATERNION", "AXIS_ANGLE"])
def test_rotation_modes_bake_the_same_motion(scene, mode):
    box = cube("Box", location=(1.0, 2.0, 3.0))
    box.rotation_mode = mode
    box.rotation_euler = (0.4, -0.3, 0.2)
    box.rotation_quaternion = Matrix.Rotation(0.5, 3, "X").to_quaternion()
    box.rotation_axis_angle = (0.5, 0.0, 1.0, 0.0)
    actual, expected = spin_case(scene, box)
    assert actual == pytest.approx(expected, abs=1e-4)
    path = {"QUATERNION": "rotation_quaternion", "AXIS_ANGLE": "rotation_axis_angle"}
    assert keys(box, path.get(mode, "rotation_euler")).shape == (48, 5 if mode in path else 4)


def test_keys_sit_at_the_origin_when_it_is_off_centre(scene):
    box = cube("Box", location=(0.0, 0.0, 0.0))
    box.data.transform(Matrix.Translation((2.0, 1.0, 0.5)))  # mesh beside its origin
    actual, expected = spin_case(scene, box)
    assert actual == pytest.approx(expected, abs=1e-4)
    location = keys(box, "location")
    assert location[0, 1:] == pytest.approx([0.0, 0.0, 0.0], abs=1e-6)


def test_delta_transforms_are_kept(scene):
    box = cube("Delta", location=(0.0, 1.0, 2.0))
    box.delta_location = (1.0, 0.0, 0.5)
    box.delta_rotation_euler = (0.0, 0.3, 0.0)
    box.delta_scale = (1.5, 1.5, 1.5)  # uniform: still a cube, so any axis is principal
    actual, expected = spin_case(scene, box)
    assert actual == pytest.approx(expected, abs=1e-4)


def test_negatively_scaled_object(scene):
    box = cube("Mirrored", location=(0.0, 1.0, 2.0))
    box.scale = (-1.0, 2.0, 0.5)
    box.rotation_euler = (0.0, 0.0, 0.3)
    actual, expected = spin_case(scene, box)
    assert actual == pytest.approx(expected, abs=1e-4)
    scene.frame_set(30)
    assert tuple(box.scale) == (-1.0, 2.0, 0.5)


def test_parented_object_is_keyed_in_parent_space(scene):
    bpy.ops.object.empty_add(location=(3.0, -1.0, 2.0), rotation=(0.2, 0.0, 0.7))
    parent = bpy.context.active_object
    parent.scale = (2.0, 2.0, 2.0)
    box = cube("Child", location=(4.0, 0.0, 1.0))
    box.parent = parent
    actual, expected = spin_case(scene, box)
    assert actual == pytest.approx(expected, abs=1e-4)
    assert box.parent == parent


def test_child_of_a_moving_parent_moves_freely(scene):
    """Keys are in parent space at every frame, whether the parent is animated or simulated."""
    bpy.ops.object.empty_add(location=(0.0, 0.0, 0.0))
    carrier = bpy.context.active_object
    carrier.keyframe_insert("location", frame=1)
    carrier.location = (5.0, 0.0, 1.0)
    carrier.rotation_euler.z = 1.0
    carrier.keyframe_insert("location", frame=48)
    carrier.keyframe_insert("rotation_euler", frame=48)
    scene.frame_set(1)
    parent = cube("Parent", location=(-6.0, 0.0, 0.0))
    add(parent, initial_linear_velocity=(0.0, 0.0, 1.0), initial_angular_velocity=(1.0, 0.0, 0.0))
    riders = []
    for name, holder, y in (("OnEmpty", carrier, 6.0), ("OnBody", parent, -6.0)):
        rider = cube(name, location=(0.0, y, 0.0))
        rider.parent = holder
        rider.matrix_parent_inverse = holder.matrix_world.inverted()
        riders.append(rider)
    bpy.context.view_layer.update()
    for rider in riders:
        actual, expected = spin_case(scene, rider)
        assert actual == pytest.approx(expected, abs=1e-4), rider.name
    assert carrier.animation_data.action.name == "EmptyAction"


def test_flat_ground_is_thickened_downwards_without_a_warning(scene, capsys):
    bpy.ops.mesh.primitive_plane_add(size=20.0)
    add(bpy.context.active_object, body_type="PASSIVE")
    box = cube("Box", location=(0.0, 0.0, 2.0), size=1.0)
    add(box)
    scene.frame_start, scene.frame_end = 1, 48
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    assert "flat" not in capsys.readouterr().out
    assert keys(box, "location")[-1, 3] == pytest.approx(0.5, abs=0.05)


def test_animated_passive_body_pushes_and_keeps_its_animation(scene):
    scene.frame_start, scene.frame_end = 1, 48
    floor()
    box = cube("Box", location=(0.0, 0.0, 0.5), size=1.0)
    add(box)
    paddle = cube("Paddle", location=(-3.0, 0.0, 0.5), size=1.0)
    paddle.keyframe_insert("location", frame=1)
    paddle.location.x = 1.0
    paddle.keyframe_insert("location", frame=48)
    add(paddle, body_type="PASSIVE", animated=True)
    action = paddle.animation_data.action
    before = keys(paddle, "location").copy()
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    assert paddle.animation_data.action == action
    assert np.array_equal(keys(paddle, "location"), before)
    x = keys(box, "location")[:, 1]
    assert x[0] == pytest.approx(0.0, abs=1e-6)
    assert x[-1] > 1.2  # pushed ahead of the paddle's front face (x = 1.5 at the end)


def test_animated_passive_body_follows_its_animation_exactly(scene, impulse):
    scene.frame_start, scene.frame_end = 1, 30
    add(cube("Box", location=(0.0, 0.0, 5.0)))
    paddle = cube("Paddle", location=(-3.0, 0.0, 0.0))
    paddle.rotation_mode = "QUATERNION"
    paddle.keyframe_insert("location", frame=1)
    paddle.keyframe_insert("rotation_quaternion", frame=1)
    paddle.location = (2.0, 1.0, -1.0)
    paddle.rotation_quaternion = Matrix.Rotation(1.0, 3, "Z").to_quaternion()
    paddle.keyframe_insert("location", frame=30)  # Bézier: not a straight line in time
    paddle.keyframe_insert("rotation_quaternion", frame=30)
    add(paddle, body_type="PASSIVE", animated=True)
    report = impulse.blender_addon.baking.job.bake_scene(scene)
    index = report.objects.index("Paddle")
    animated = world_matrices(scene, paddle, range(1, 31))
    assert report.trajectory.positions[:, index] == pytest.approx(animated[:, :3, 3], abs=1e-5)


def test_velocity_from_animation(scene):
    scene.impulse.use_gravity = False
    scene.frame_start, scene.frame_end = 10, 40
    box = cube("Thrown", location=(0.0, 0.0, 0.0))
    for frame, x in ((1, 0.0), (50, 49.0 / 24.0 * 3.0)):  # 3 m/s along x
        box.location.x = x
        box.keyframe_insert("location", frame=frame)
    for curve in fcurves(box):
        for key in curve.keyframe_points:
            key.interpolation = "LINEAR"
    add(box, use_animation_velocity=True)
    original = box.animation_data.action
    before = keys(box, "location").copy()
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    assert box.animation_data.action == original
    x = keys(box, "location")[:, :2]
    assert x[:, 0].tolist() == [1, *range(10, 41), 50]  # the user's keys outside the bake stay
    assert x[:, 1] == pytest.approx((x[:, 0] - 1.0) / 24.0 * 3.0, abs=1e-4)
    assert bpy.ops.impulse.clear_bake() == {"FINISHED"}
    assert box.animation_data.action == original
    assert np.array_equal(keys(box, "location"), before)


def test_clear_restores_previous_action_and_transform_exactly(scene):
    floor()
    box = cube("Box", location=(0.0, 0.0, 3.0), size=1.0)
    box.rotation_mode = "QUATERNION"
    box.keyframe_insert("rotation_quaternion", frame=1)
    previous = box.animation_data.action
    box.location = (0.1, 0.2, 3.3)  # unkeyed edit, to be kept exactly
    add(box)
    scene.frame_set(5)
    before = transform(box)
    actions_before = sorted(bpy.data.actions.keys())
    scene.frame_end = 24
    bpy.ops.impulse.bake()
    assert box.animation_data.action == previous  # keyed in place of the key at frame 1
    assert keys(box, "rotation_quaternion")[:, 0].tolist() == list(range(1, 25))
    assert box.impulse.bake_state.baked
    bpy.ops.impulse.bake()  # baking again replaces the bake, it does not stack
    assert bpy.ops.impulse.clear_bake() == {"FINISHED"}
    assert box.animation_data.action == previous
    assert keys(box, "rotation_quaternion")[:, 0].tolist() == [1]
    assert not previous.use_fake_user
    assert sorted(bpy.data.actions.keys()) == actions_before
    assert transform(box) == before


def test_invoke_in_background_runs_to_the_end(scene):
    """What a button press does; without a window there is no modal loop, so it just bakes."""
    box = cube("Box", location=(0.0, 0.0, 3.0), size=1.0)
    add(box)
    scene.frame_end = 10
    assert bpy.ops.impulse.bake("INVOKE_DEFAULT") == {"FINISHED"}
    assert keys(box, "location").shape == (10, 4)


def test_undo_removes_the_whole_bake(scene):
    floor()
    box = cube("Box", location=(0.0, 0.0, 3.0), size=1.0)
    add(box)
    scene.frame_end = 24
    before = transform(box)
    bpy.ops.ed.undo_push(message="before bake")
    # A script asks for the undo step explicitly (the third argument); the UI always does.
    assert bpy.ops.impulse.bake("EXEC_DEFAULT", True) == {"FINISHED"}
    assert bpy.data.objects["Box"].animation_data.action is not None
    bpy.ops.ed.undo()
    box = bpy.data.objects["Box"]
    assert box.animation_data is None
    assert not box.impulse.bake_state.baked
    assert len(bpy.data.actions) == 0
    assert transform(box) == before


def test_cancel_leaves_everything_as_it_was(scene, impulse):
    floor()
    box = cube("Box", location=(0.0, 0.0, 3.0), size=1.0)
    box.keyframe_insert("location", frame=1)
    add(box, restitution=0.7)
    scene.frame_set(3)
    before = (transform(box), box.animation_data.action, sorted(bpy.data.actions.keys()))
    settings = {p: getattr(box.impulse, p) for p in ("enabled", "body_type", "restitution")}
    job = impulse.blender_addon.baking.job.BakeJob(scene)
    assert job.total_frames == scene.frame_end - scene.frame_start
    for _ in range(5):
        assert job.step()
    job.cancel()
    assert (transform(box), box.animation_data.action, sorted(bpy.data.actions.keys())) == before
    assert {p: getattr(box.impulse, p) for p in settings} == settings
    assert scene.frame_current == 3
    assert scene.impulse.last_bodies == 0
    with pytest.raises(impulse.solver.Cancelled):
        job.step()


def test_bake_scene_api_reports(scene, impulse):
    floor()
    box = cube("Box", location=(0.0, 0.0, 1.0), size=1.0)
    add(box)
    progress = []
    report = impulse.blender_addon.baking.job.bake_scene(
        scene, frame_start=1, frame_end=30, progress=lambda done, total: progress.append(done)
    )
    assert (report.bodies, report.frames) == (2, 30)
    assert report.objects == ["Floor", "Box"]
    assert report.trajectory.positions.shape == (30, 2, 3)
    assert report.contacts >= 4
    assert 0.0 <= report.max_penetration < 0.05
    assert progress[-1] == 29
    assert keys(box, "location")[:, 0].tolist() == list(range(1, 31))


def test_key_step_keeps_the_last_frame(scene):
    box = cube("Box", location=(0.0, 0.0, 10.0), size=1.0)
    add(box)
    scene.frame_start, scene.frame_end = 1, 20
    scene.impulse.key_step = 3
    bpy.ops.impulse.bake()
    assert keys(box, "location")[:, 0].tolist() == [1, 4, 7, 10, 13, 16, 19, 20]


@pytest.mark.parametrize(
    ("mode", "unit_scale", "expected_mass"),
    [("DENSITY", 1.0, 500.0 * 8.0), ("DENSITY", 0.5, 500.0 * 1.0), ("MASS", 0.5, 7.0)],
)
def test_mass_from_density_and_volume_in_metres(scene, impulse, mode, unit_scale, expected_mass):
    """Potential energy -m g·x at the start gives the mass the solver got (x in metres)."""
    scene.unit_settings.scale_length = unit_scale
    box = cube("Box", location=(0.0, 0.0, 3.0), size=2.0)
    add(box, mass_mode=mode, density=500.0, mass=7.0)
    report = impulse.blender_addon.baking.job.bake_scene(scene, frame_start=1, frame_end=2)
    height = 3.0 * unit_scale
    gravity = G * unit_scale
    assert report.trajectory.potential_energy[0] == pytest.approx(
        expected_mass * gravity * height, rel=1e-5
    )


def test_sphere_shape_rests_on_its_radius(scene):
    floor()
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.5, location=(0.0, 0.0, 2.0), segments=48)
    ball = bpy.context.active_object
    add(ball, shape="SPHERE", restitution=0.0)
    scene.frame_start, scene.frame_end = 1, 40
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    assert keys(ball, "location")[-1, 3] == pytest.approx(0.5, abs=0.01)
