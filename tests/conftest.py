"""Shared test set-up: real Blender (the bpy module) with Impulse installed as an extension.

BLENDER_USER_RESOURCES points at a throwaway folder before anything imports bpy, so tests never
touch a user's Blender configuration. Solver-only tests do not pay for the Blender set-up: only
tests that ask for the `impulse` fixture build and install the zip.
"""

import importlib
import os
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLENDER_USER = Path(tempfile.mkdtemp(prefix="impulse-blender-user-"))
os.environ["BLENDER_USER_RESOURCES"] = str(BLENDER_USER)
EXTENSION_MODULE = "bl_ext.user_default.impulse_bake"


def pytest_collection_modifyitems(items) -> None:
    """Mark the tests that run Blender (they take the extension or import bpy), so CI can run
    exactly these again under Blender 4.5 (`-m blender`)."""
    for item in items:
        module = getattr(item, "module", None)
        imports_bpy = module is not None and "bpy" in vars(module)
        if imports_bpy or "impulse" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.blender)


@pytest.fixture(scope="session")
def extension_zip(tmp_path_factory) -> Path:
    """This machine's zip (linux-x64, with its bundled wheels), built once per test process."""
    sys.path.insert(0, str(ROOT))
    import build

    return build.build(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="session")
def impulse(extension_zip):
    """Install and enable the built zip in Blender; return the extension's module."""
    import bpy

    result = bpy.ops.extensions.package_install_files(
        filepath=str(extension_zip), repo="user_default", enable_on_install=True
    )
    assert result == {"FINISHED"}, result
    return importlib.import_module(EXTENSION_MODULE)


@pytest.fixture
def scene(impulse):
    """An empty scene in a fresh file, with the extension still enabled."""
    import bpy

    bpy.ops.wm.read_homefile(use_empty=True)
    return bpy.context.scene
