"""Live preview in real Blender: a changed setting or start transform re-simulates, the pose is
shown at later frames without keys, the real transforms come back exactly, and Bake keys the
previewed motion.

Headless Blender runs no timers, so the tests call `preview.tick()`, the function the timer
calls, until the preview is ready; frame changes and edits go through the real handlers.
"""

import time

import bpy
import numpy as np
import pytest
from mathutils import Matrix

from tests.blender_helpers import keys, transform

RADIUS = 0.25
SPEED = 2.0  # m/s, ball A towards ball B
GAP = 0.5  # m between the balls' surfaces: contact at t = GAP / SPEED
LAST = 25  # frames 1..25 at 24 fps: one second


@pytest.fixture
def preview(impulse):
    return impulse.blender_addon.baking.preview


def ball(name: str, x: float, mass: float, velocity: float = 0.0):
    bpy.ops.mesh.primitive_uv_sphere_add(radius=RADIUS, location=(x, 0.0, 0.0), segments=48,
                                         ring_count=24)
    obj = bpy.context.active_object
    obj.name = name
    settings = obj.impulse
    settings.enabled = True
    settings.shape = "SPHERE"
    settings.mass_mode = "MASS"
    settings.mass = mass
    settings.restitution = 1.0
    settings.friction = 0.0
    settings.initial_linear_velocity = (velocity, 0.0, 0.0)
    return obj


@pytest.fixture
def balls(scene):
    """Elastic head-on collision in weightless space: A (moving) hits B (at rest)."""
    scene.frame_start, scene.frame_end = 1, LAST
    scene.render.fps, scene.render.fps_base = 24, 1.0
    scene.impulse.use_gravity = False
    a = ball("A", 0.0, 1.0, SPEED)
    b = ball("B", 2.0 * RADIUS + GAP, 1.0)
    scene.frame_set(1)
    return a, b


def settle(preview, scene) -> None:
    """Drive the timer's function (as Blender's timer would) until the preview is ready; the
    first call comes a poll interval after the change, so the timer compares the settings."""
    time.sleep(preview.POLL_SECONDS)
    delay = preview.tick()
    while not preview.ready(scene) and not preview.failed(scene):
        time.sleep(delay or 0.0)
        delay = preview.tick()
    assert not preview.failed(scene), preview.status(scene)


def shown_x(scene, obj, frame: int) -> float:
    """The x of the object as the viewport draws it (its evaluated object) at `frame`."""
    scene.frame_set(frame)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    return obj.evaluated_get(depsgraph).matrix_world.translation.x


def after_collision(m_a: float, m_b: float, t: float) -> tuple[float, float]:
    """Closed form of the elastic head-on collision: both centres at time t after the start."""
    contact = GAP / SPEED
    v_a = SPEED * (m_a - m_b) / (m_a + m_b)
    v_b = SPEED * 2.0 * m_a / (m_a + m_b)
    return GAP + v_a * (t - contact), 2.0 * RADIUS + GAP + v_b * (t - contact)


# The contact is resolved within a substep (1/240 s at the default 10 substeps): a few mm.
TOLERANCE = 3.0 * SPEED / 240.0


def test_mass_change_is_previewed_at_a_later_frame_without_keys(scene, balls, preview):
    a, b = balls
    before = (transform(a), transform(b))
    preview.start(scene)
    settle(preview, scene)
    assert preview.status(scene).startswith("Preview ready")
    t = (LAST - 1) / 24.0
    xa, xb = after_collision(1.0, 1.0, t)  # equal masses: A stops, B takes its speed
    assert shown_x(scene, a, LAST) == pytest.approx(xa, abs=TOLERANCE)
    assert shown_x(scene, b, LAST) == pytest.approx(xb, abs=TOLERANCE)

    a.impulse.mass = 3.0  # noticed by the timer's poll of the settings
    settle(preview, scene)
    xa, xb = after_collision(3.0, 1.0, t)  # heavier A follows B at half its speed
    assert shown_x(scene, a, LAST) == pytest.approx(xa, abs=TOLERANCE)
    assert shown_x(scene, b, LAST) == pytest.approx(xb, abs=TOLERANCE)
    assert shown_x(scene, b, 1) == pytest.approx(b.location.x)  # the start frame is real
    assert a.animation_data is None and b.animation_data is None  # no key, no action
    assert (transform(a), transform(b)) == before  # the objects themselves never moved


def test_previewed_pose_is_what_bake_keys(scene, balls, preview):
    a, b = balls
    a.impulse.mass = 2.0
    preview.start(scene)
    settle(preview, scene)
    frame = 15
    scene.frame_set(frame)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    shown = [np.array(obj.evaluated_get(depsgraph).matrix_world) for obj in (a, b)]
    assert bpy.ops.impulse.bake() == {"FINISHED"}  # pressed while the preview shows `frame`
    bpy.context.view_layer.update()
    assert preview.ready(scene)  # the keys show what the preview shows: nothing to redo
    for obj, matrix in zip((a, b), shown, strict=True):
        location = keys(obj, "location")
        row = location[location[:, 0] == frame][0]
        np.testing.assert_allclose(row[1:], matrix[:3, 3], atol=1e-5)
    preview.stop(scene)
    scene.frame_set(frame)  # the keys evaluate to the previewed matrices
    for obj, matrix in zip((a, b), shown, strict=True):
        np.testing.assert_allclose(np.array(obj.matrix_world), matrix, atol=1e-5)


def test_objects_parented_to_a_body_ride_along(scene, balls, preview):
    _a, b = balls
    bpy.ops.object.empty_add(location=(b.location.x, 0.0, 1.0))  # a label above B
    label = bpy.context.active_object
    label.parent = b
    label.matrix_parent_inverse = b.matrix_world.inverted()
    preview.start(scene)
    settle(preview, scene)
    scene.frame_set(LAST)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    shown_b = b.evaluated_get(depsgraph).matrix_world.translation
    shown_label = label.evaluated_get(depsgraph).matrix_world.translation
    assert shown_b.x == pytest.approx(after_collision(1.0, 1.0, (LAST - 1) / 24.0)[1],
                                      abs=TOLERANCE)
    assert (shown_label - shown_b)[:] == pytest.approx((0.0, 0.0, 1.0), abs=1e-5)
    preview.stop(scene)
    assert tuple(label.evaluated_get(depsgraph).matrix_world.translation) == pytest.approx(
        (2.0 * RADIUS + GAP, 0.0, 1.0))


def test_moved_body_restarts_and_stop_shows_real_transforms(scene, balls, preview):
    a, b = balls
    preview.start(scene)
    settle(preview, scene)
    b.location.x += 0.5  # a start transform edit: noticed by the depsgraph handler
    bpy.context.view_layer.update()
    assert not preview.ready(scene)
    settle(preview, scene)
    t = (LAST - 1) / 24.0
    contact = (GAP + 0.5) / SPEED  # B is hit later and then moves at A's speed
    assert shown_x(scene, b, LAST) == pytest.approx(
        2.0 * RADIUS + GAP + 0.5 + SPEED * (t - contact), abs=TOLERANCE)

    real = [np.array(obj.matrix_world) for obj in (a, b)]
    preview.stop(scene)
    bpy.context.view_layer.update()
    depsgraph = bpy.context.evaluated_depsgraph_get()
    for obj, matrix in zip((a, b), real, strict=True):
        assert np.array_equal(np.array(obj.evaluated_get(depsgraph).matrix_world), matrix)
    assert not preview.running(scene)


def test_reshaped_body_restarts(scene, balls, preview):
    _a, b = balls
    preview.start(scene)
    settle(preview, scene)
    b.data.transform(Matrix.Scale(2.0, 4))  # B's mesh doubles: A reaches it sooner
    bpy.context.view_layer.update()
    assert not preview.ready(scene)
    settle(preview, scene)
    contact = (GAP - RADIUS) / SPEED  # then B moves on at A's speed (equal masses)
    assert shown_x(scene, b, LAST) == pytest.approx(
        2.0 * RADIUS + GAP + SPEED * ((LAST - 1) / 24.0 - contact), abs=TOLERANCE)


def test_errors_show_in_the_status_line_and_handlers_do_not_raise(scene, balls, preview):
    a, b = balls
    preview.start(scene)
    a.impulse.body_type = b.impulse.body_type = "PASSIVE"
    time.sleep(preview.POLL_SECONDS)
    delay = preview.tick()
    while not preview.failed(scene):
        time.sleep(delay or 0.0)
        delay = preview.tick()
    assert "No active bodies" in preview.status(scene)
    scene.frame_set(10)  # the frame handler runs with nothing to show
    assert a.evaluated_get(bpy.context.evaluated_depsgraph_get()).matrix_world.translation.x == 0.0
    a.impulse.body_type = "ACTIVE"  # fixing the scene brings the preview back
    settle(preview, scene)
    assert preview.ready(scene)
    preview.stop(scene)


def test_the_button_toggles_the_preview_and_a_file_load_ends_it(scene, balls, preview):
    assert bpy.types.IMPULSE_PT_live_preview.bl_parent_id == "IMPULSE_PT_bake"
    handlers = bpy.app.handlers
    names = {f.__name__ for f in handlers.frame_change_post + handlers.depsgraph_update_post}
    assert {"_frame_changed", "_depsgraph_updated"} <= names
    assert bpy.ops.impulse.live_preview() == {"FINISHED"}
    assert preview.running(scene)
    assert bpy.ops.impulse.live_preview() == {"FINISHED"}
    assert not preview.running(scene)
    assert bpy.ops.impulse.live_preview() == {"FINISHED"}
    bpy.ops.wm.read_homefile(use_empty=True)  # loading a file ends every preview
    assert not preview.running(bpy.context.scene)
