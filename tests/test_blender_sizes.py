"""True sizes in real Blender: small props keep their size; only flat meshes get a thickness."""

import bpy
import pytest

from tests.blender_helpers import cube, keys, select


def add(obj, body_type="ACTIVE", **settings):
    select(obj)
    assert bpy.ops.impulse.add_bodies(body_type=body_type) == {"FINISHED"}
    for name, value in settings.items():
        setattr(obj.impulse, name, value)


def ground(size=2.0):
    """Blender's own plane as the ground: a single face at z = 0 looking up."""
    bpy.ops.mesh.primitive_plane_add(size=size)
    plane = bpy.context.active_object
    plane.name = "Ground"
    add(plane, body_type="PASSIVE", restitution=0.0)
    return plane


def rest_height(scene, obj, frames=24) -> float:
    """The object's origin height at the last frame after resting on the ground."""
    scene.frame_start, scene.frame_end = 1, frames
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    return float(keys(obj, "location")[-1, 3])


def die(size):
    return cube("Die", location=(0.0, 0.0, 0.5 * size + 1e-4), size=size)


def coin():
    bpy.ops.mesh.primitive_cylinder_add(radius=0.01, depth=0.002, location=(0, 0, 0.0011))
    return bpy.context.active_object


def bead():
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.0025, location=(0, 0, 0.0026), segments=32)
    return bpy.context.active_object


# (object, shape, expected height of the origin at rest, tolerance): a 1 cm die, a 2 mm coin and
# a 5 mm bead rest on their own half-heights; the solver's slop tolerates 2 % of the smallest
# half-extent, so a tolerance of 5 % of the half-height is tight enough to see any inflation.
PROPS = {
    "die": (lambda: die(0.01), "BOX", 0.005),
    "coin": (coin, "BOX", 0.001),
    "bead": (bead, "SPHERE", 0.0025),
}


@pytest.mark.parametrize("name", sorted(PROPS))
def test_small_props_rest_on_their_true_size(scene, capsys, name):
    make, shape, height = PROPS[name]
    ground()
    prop = make()
    add(prop, shape=shape, restitution=0.0)
    assert rest_height(scene, prop) == pytest.approx(height, abs=0.05 * height)
    assert "flat" not in capsys.readouterr().out  # neither the prop nor the ground warns


def test_one_unit_cube_at_unit_scale_one_hundredth(scene):
    """1 Blender unit = 1 cm: a 1-unit cube rests on its half-height of 0.5 units."""
    scene.unit_settings.scale_length = 0.01
    ground(size=20.0)
    box = die(1.0)
    add(box, restitution=0.0)
    assert rest_height(scene, box) == pytest.approx(0.5, abs=0.025)


def test_ground_plane_is_thickened_downwards_even_with_its_normal_flipped(scene, capsys):
    plane = ground(size=20.0)
    plane.data.flip_normals()
    box = die(1.0)
    add(box, restitution=0.0)
    assert rest_height(scene, box) == pytest.approx(0.5, abs=0.01)
    assert "flat" not in capsys.readouterr().out


def test_an_active_flat_sheet_warns_with_its_thickness(scene, capsys):
    ground(size=20.0)
    bpy.ops.mesh.primitive_plane_add(size=1.0, location=(0.0, 0.0, 1.0))
    sheet = bpy.context.active_object
    sheet.name = "Sheet"
    add(sheet)
    scene.frame_start, scene.frame_end = 1, 2
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    out = capsys.readouterr().out
    assert "'Sheet' is flat: it is given a thickness of 1 cm" in out
    assert "Ground" not in out
