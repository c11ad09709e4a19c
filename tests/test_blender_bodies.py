"""Body settings in real Blender: the data model, add/remove/copy, presets, user errors."""

from pathlib import Path

import bpy
import pytest

from tests.blender_helpers import cube, select


def messages(capsys) -> str:
    """Blender prints operator reports to stdout in background mode."""
    return capsys.readouterr().out


def test_data_model_defaults_and_units(scene):
    obj = cube("Box")
    settings = obj.impulse
    assert not settings.enabled
    assert settings.body_type == "ACTIVE"
    assert settings.shape == "BOX"
    assert settings.bl_rna.properties["mass"].unit == "MASS"
    assert settings.bl_rna.properties["initial_linear_velocity"].unit == "VELOCITY"
    assert settings.bl_rna.properties["restitution"].hard_max == 1.0
    assert scene.impulse.use_scene_range
    assert scene.impulse.method == "IMPULSE"
    assert scene.impulse.restitution_combine == "MULTIPLY"


def test_add_bodies_skips_non_meshes_with_warning(scene, capsys):
    box = cube("Box")
    bpy.ops.object.camera_add()
    camera = bpy.context.active_object
    select(box, camera, active=box)
    assert bpy.ops.impulse.add_bodies(body_type="PASSIVE") == {"FINISHED"}
    assert box.impulse.enabled and box.impulse.body_type == "PASSIVE"
    assert not camera.impulse.enabled
    assert "Skipped non-mesh objects: Camera" in messages(capsys)


def test_add_bodies_with_only_non_meshes_is_an_error(scene, capsys):
    bpy.ops.object.empty_add()
    select(bpy.context.active_object)
    with pytest.raises(RuntimeError, match="No mesh objects selected"):
        bpy.ops.impulse.add_bodies(body_type="ACTIVE")


def test_remove_bodies(scene):
    a, b = cube("A"), cube("B", (3, 0, 0))
    select(a, b)
    bpy.ops.impulse.add_bodies(body_type="ACTIVE")
    select(a)
    assert bpy.ops.impulse.remove_bodies() == {"FINISHED"}
    assert not a.impulse.enabled and b.impulse.enabled
    with pytest.raises(RuntimeError, match="No bodies selected"):
        bpy.ops.impulse.remove_bodies()


def test_copy_settings_from_active_to_selected(scene):
    source, target = cube("Source"), cube("Target", (3, 0, 0))
    select(source)
    bpy.ops.impulse.add_bodies(body_type="PASSIVE")
    source.impulse.shape = "SPHERE"
    source.impulse.friction = 0.123
    source.impulse.initial_linear_velocity = (1.0, 2.0, 3.0)
    select(source, target, active=source)
    assert bpy.ops.impulse.copy_settings() == {"FINISHED"}
    assert target.impulse.enabled
    assert target.impulse.body_type == "PASSIVE"
    assert target.impulse.shape == "SPHERE"
    assert target.impulse.friction == pytest.approx(0.123)
    assert tuple(target.impulse.initial_linear_velocity) == pytest.approx((1.0, 2.0, 3.0))


def test_copy_settings_needs_a_body_as_source(scene):
    source, target = cube("Source"), cube("Target", (3, 0, 0))
    select(source, target, active=source)
    with pytest.raises(RuntimeError, match="The active object is not a body"):
        bpy.ops.impulse.copy_settings()
    assert not target.impulse.enabled


# Real-world values of the bundled presets: (density kg/m³, restitution, friction).
BUNDLED = {
    "Rubber": (1100.0, 0.8, 0.9),
    "Wood": (700.0, 0.5, 0.4),
    "Steel": (7850.0, 0.6, 0.5),
    "Glass": (2500.0, 0.7, 0.4),
    "Ice": (917.0, 0.3, 0.03),
    "Concrete": (2400.0, 0.2, 0.6),
    "Plastic": (950.0, 0.6, 0.35),
}


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_bundled_presets_apply_to_every_selected_body(scene, name):
    a, b = cube("A"), cube("B", (3, 0, 0))
    select(a, b)
    bpy.ops.impulse.add_bodies(body_type="ACTIVE")
    a.impulse.mass_mode = "MASS"
    assert bpy.ops.impulse.apply_preset(name=name) == {"FINISHED"}
    density, restitution, friction = BUNDLED[name]
    for obj in (a, b):
        assert obj.impulse.mass_mode == "DENSITY"
        assert obj.impulse.density == pytest.approx(density)
        assert obj.impulse.restitution == pytest.approx(restitution)
        assert obj.impulse.friction == pytest.approx(friction)


def test_unknown_preset_is_an_error_naming_the_known_ones(scene):
    obj = cube("A")
    select(obj)
    bpy.ops.impulse.add_bodies(body_type="ACTIVE")
    with pytest.raises(RuntimeError, match=r"No material preset 'Unobtainium'.*Steel"):
        bpy.ops.impulse.apply_preset(name="Unobtainium")
    assert obj.impulse.density == pytest.approx(1000.0)


def test_user_presets_are_saved_in_the_user_folder_and_can_be_removed(scene, impulse):
    obj = cube("A")
    select(obj)
    bpy.ops.impulse.add_bodies(body_type="ACTIVE")
    obj.impulse.density, obj.impulse.restitution, obj.impulse.friction = 321.0, 0.25, 0.75
    assert bpy.ops.impulse.add_preset(name="My Foam") == {"FINISHED"}
    user = Path(bpy.utils.user_resource("SCRIPTS", path="presets/impulse/materials"))
    saved = user / "My_Foam.py"
    assert saved.exists()
    assert Path(impulse.__file__).parent not in saved.parents
    obj.impulse.density, obj.impulse.restitution, obj.impulse.friction = 1.0, 1.0, 0.0
    assert bpy.ops.impulse.apply_preset(name="My Foam") == {"FINISHED"}
    assert (obj.impulse.density, obj.impulse.restitution) == pytest.approx((321.0, 0.25))
    assert obj.impulse.friction == pytest.approx(0.75)
    assert bpy.ops.impulse.add_preset(name="My Foam", remove_name=True) == {"FINISHED"}
    assert not saved.exists()


def test_preset_menu_lists_bundled_presets(scene):
    menu = bpy.types.IMPULSE_MT_material_presets
    folders = bpy.utils.preset_paths(menu.preset_subdir)
    names = {path.stem for folder in folders for path in Path(folder).glob("*.py")}
    assert set(BUNDLED) <= names


def test_bundled_presets_cannot_be_removed(scene, impulse):
    steel = Path(impulse.__file__).parent / "presets" / "impulse" / "materials" / "Steel.py"
    assert steel.exists()
    assert bpy.ops.impulse.add_preset(name="Steel", remove_name=True) == {"CANCELLED"}
    assert steel.exists()
