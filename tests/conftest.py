"""Shared test set-up: real Blender (the bpy module) with Impulse installed as an extension.

BLENDER_USER_RESOURCES points at a throwaway folder before anything imports bpy, so tests never
touch a user's Blender configuration: the one `dev.py test` prepared for the whole run, with the
extension installed and compiled (tests/installed_extension.py), or else a new one per process.
Solver-only tests do not pay for the Blender set-up: only tests that ask for the `impulse`
fixture build and install the zip.
"""

import os
import tempfile
from pathlib import Path

import pytest

from tests import installed_extension

PREPARED = installed_extension.prepared()
BLENDER_USER = (PREPARED / "user" if PREPARED
                else Path(tempfile.mkdtemp(prefix="impulse-blender-user-")))
os.environ["BLENDER_USER_RESOURCES"] = str(BLENDER_USER)
# The extension compiles for numba's generic CPU (blender_addon/jit_cache.py), for every kernel of
# a process that enabled it: the in-tree solver's too, so for those from the start, before any
# loads, or the kernels cached by the other CPU setting would compile again.
os.environ.setdefault("NUMBA_CPU_NAME", "generic")


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
    """This machine's zip (linux-x64, with its bundled wheels): the prepared one, or built once
    per test process."""
    if PREPARED:
        return installed_extension.prepared_zip(PREPARED)
    return installed_extension.build_zip(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="session")
def impulse(extension_zip):
    """The extension enabled in Blender (installed from the built zip unless prepared); its
    module."""
    if PREPARED:
        return installed_extension.enable()
    return installed_extension.install(extension_zip)


@pytest.fixture
def scene(impulse):
    """An empty scene in a fresh file, with the extension still enabled."""
    import bpy

    bpy.ops.wm.read_homefile(use_empty=True)
    return bpy.context.scene
