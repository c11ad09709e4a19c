"""The built zip installs into real Blender as an extension and enables without error."""

import bpy


def test_zip_installs_and_enables(impulse):
    import addon_utils  # importable only after bpy

    assert impulse.__name__ in bpy.context.preferences.addons
    _default, loaded_state = addon_utils.check(impulse.__name__)
    assert loaded_state, "extension is not enabled"


def test_extension_survives_new_file(scene, impulse):
    assert impulse.__name__ in bpy.context.preferences.addons
    assert len(scene.objects) == 0
