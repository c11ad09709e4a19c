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


def test_heavy_on_light_beyond_the_settings_warns_and_penetration_is_named(scene, capsys):
    stack(scene, heavy_mass=1000.0, substeps=2, iterations=2)
    bake(scene, 1, 48)
    out = capsys.readouterr().out
    assert "'Heavy' rests on 'Light', which is 1000 times lighter: Substeps 2 and" in out
    assert "raise Substeps (World panel) or 'Heavy' sinks in" in out
    # It does sink in: named with its depth, the frame and the advice.
    assert "'Light' and 'Heavy' sink" in out or "'Floor' and 'Light' sink" in out
    assert "more than 5% of the thinner one's thickness" in out
    assert "raise Substeps in the World panel (now 2)" in out


def test_a_ratio_the_settings_hold_gives_no_warning(scene, capsys):
    stack(scene, heavy_mass=10.0, substeps=10, iterations=10)
    bake(scene, 1, 48)
    out = capsys.readouterr().out
    assert "rests on" not in out
    assert "sink" not in out
    assert scene.impulse.last_penetration < 0.05
