"""Warnings that explain a bake, in real Blender: which bodies, how deep, and what to change."""

import bpy

from tests.blender_helpers import cube, select


def add(obj, body_type="ACTIVE", **settings):
    select(obj)
    assert bpy.ops.impulse.add_bodies(body_type=body_type) == {"FINISHED"}
    for name, value in settings.items():
        setattr(obj.impulse, name, value)


def floor():
    slab = cube("Floor", location=(0.0, 0.0, -1.0))
    slab.scale = (20.0, 20.0, 1.0)
    add(slab, body_type="PASSIVE")
    return slab


def bake(scene, start=1, end=48) -> None:
    scene.frame_start, scene.frame_end = start, end
    assert bpy.ops.impulse.bake() == {"FINISHED"}


def test_frames_are_counted_start_and_end_included(scene, capsys):
    add(cube("Box", location=(0.0, 0.0, 5.0)))
    bake(scene, 1, 48)
    assert "over 48 frames" in capsys.readouterr().out
    assert scene.impulse.last_frames == 48


def test_overlap_at_the_start_names_the_pair_and_its_depth(scene, capsys):
    floor()
    add(cube("Left", location=(0.0, 0.0, 1.0), size=1.0))
    add(cube("Right", location=(0.9, 0.0, 1.0), size=1.0))  # 10 cm into Left
    bake(scene, 1, 3)
    out = capsys.readouterr().out
    assert "'Left' and 'Right' overlap by 10 cm at the start frame" in out
    assert "Floor" not in out  # resting exactly on the floor is no overlap


def stack(scene, heavy_mass, substeps, iterations):
    """A heavy 1 m box on a 1 kg one on the floor."""
    floor()
    add(cube("Light", location=(0.0, 0.0, 0.5), size=1.0), mass_mode="MASS", mass=1.0,
        restitution=0.0)
    add(cube("Heavy", location=(0.0, 0.0, 1.5), size=1.0), mass_mode="MASS", mass=heavy_mass,
        restitution=0.0)
    scene.impulse.substeps, scene.impulse.iterations = substeps, iterations


def test_a_box_started_deep_in_the_floor_is_named_with_its_depth(scene, capsys):
    floor()
    add(cube("Box", location=(0.0, 0.0, 0.3), size=1.0))  # 20 cm into the floor
    scene.impulse.substeps = 2
    bake(scene, 1, 12)
    out = capsys.readouterr().out
    assert "'Floor' and 'Box' overlap by 20 cm at the start frame" in out
    assert "'Floor' and 'Box' sink" in out
    assert "more than 5% of the thinner one's thickness" in out
    assert "raise Substeps in the World panel (now 2)" in out


def test_a_heavy_box_on_a_light_one_holds_at_low_settings_without_warning(scene, capsys):
    """1000 kg on 1 kg at Substeps 2, Iterations 2: the contact solve holds it (no sinking), so
    there is nothing to warn about."""
    stack(scene, heavy_mass=1000.0, substeps=2, iterations=2)
    bake(scene, 1, 48)
    out = capsys.readouterr().out
    assert "rests on" not in out
    assert "sink" not in out
    assert scene.impulse.last_penetration < 1e-3
    scene.frame_set(48)
    assert abs(bpy.data.objects["Heavy"].matrix_world.translation.z - 1.5) < 1e-3
