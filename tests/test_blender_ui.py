"""Sidebar panels and the collision-shape overlay (geometry checked; drawing needs a GPU)."""

import bpy
import numpy as np
import pytest

from tests.blender_helpers import cube, select


def test_panels_live_in_the_impulse_sidebar_tab(impulse):
    for name in ("IMPULSE_PT_body", "IMPULSE_PT_world", "IMPULSE_PT_bake"):
        panel = getattr(bpy.types, name)
        assert (panel.bl_space_type, panel.bl_region_type) == ("VIEW_3D", "UI")
        assert panel.bl_category == "Impulse"


def test_overlay_handler_is_registered(impulse):
    assert impulse.ui.overlay._handle is not None


def test_box_overlay_is_the_fitted_box_with_modifiers(scene, impulse):
    overlay = impulse.ui.overlay
    box = cube("Box", location=(1.0, 2.0, 3.0))
    array = box.modifiers.new("Array", "ARRAY")
    array.count = 2  # the evaluated mesh is 4 x 2 x 2
    select(box)
    bpy.ops.impulse.add_bodies(body_type="ACTIVE")
    lines = overlay.collision_lines([box], bpy.context.evaluated_depsgraph_get())
    assert lines.shape == (24, 3)
    assert lines.min(axis=0) == pytest.approx([0.0, 1.0, 2.0], abs=1e-5)
    assert lines.max(axis=0) == pytest.approx([4.0, 3.0, 4.0], abs=1e-5)


def test_sphere_overlay_draws_three_circles_at_the_radius(scene, impulse):
    bpy.ops.mesh.primitive_uv_sphere_add(radius=1.5, location=(0.0, 0.0, 2.0))
    ball = bpy.context.active_object
    select(ball)
    bpy.ops.impulse.add_bodies(body_type="ACTIVE")
    ball.impulse.shape = "SPHERE"
    lines = impulse.ui.overlay.collision_lines([ball], bpy.context.evaluated_depsgraph_get())
    assert len(lines) == 3 * 2 * impulse.ui.overlay.CIRCLE_SEGMENTS
    radii = np.linalg.norm(lines - [0.0, 0.0, 2.0], axis=1)
    assert radii == pytest.approx(1.5, abs=1e-4)


def test_overlay_ignores_objects_that_are_not_bodies(scene, impulse):
    box = cube("Box")
    lines = impulse.ui.overlay.collision_lines([box], bpy.context.evaluated_depsgraph_get())
    assert lines.shape == (0, 3)
