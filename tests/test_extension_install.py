"""The built zip installs into real Blender as an extension, with the wheels it bundles.

The solver runs on the numba the zip carries (unless the Python running Blender has its own, as the
dev venv does), and every bake reports how long each of its phases took.
"""

import importlib
import sys
import sysconfig
import tomllib
from pathlib import Path

import bpy

from tests.blender_helpers import cube, select

ROOT = Path(__file__).resolve().parent.parent
PHASES = ("read", "compile", "simulate", "write")


def test_zip_installs_and_enables(impulse):
    import addon_utils  # importable only after bpy

    assert impulse.__name__ in bpy.context.preferences.addons
    _default, loaded_state = addon_utils.check(impulse.__name__)
    assert loaded_state, "extension is not enabled"


def test_extension_survives_new_file(scene, impulse):
    assert impulse.__name__ in bpy.context.preferences.addons
    assert len(scene.objects) == 0


def _bundled_version(package: str) -> str:
    """The version of `package` among the manifest's wheels."""
    manifest = tomllib.loads((ROOT / "blender_manifest.toml").read_text())
    versions = {Path(w).name.split("-")[1] for w in manifest["wheels"]
                if Path(w).name.startswith(f"{package}-")}
    assert len(versions) == 1, versions
    return versions.pop()


def test_solver_runs_on_the_bundled_numba(impulse):
    importlib.import_module(f"{impulse.__name__}.solver")
    numba = importlib.import_module("numba")  # the one the solver's kernels were compiled with
    local = Path(bpy.utils.user_resource("EXTENSIONS"), ".local")
    bundled = sorted(local.glob("lib/python*/site-packages/numba/__init__.py"))
    assert len(bundled) == 1, "the numba wheel was not installed with the extension"
    assert (bundled[0].parent / "_version.py").read_text().count(_bundled_version("numba")) > 0
    if Path(numba.__file__) != bundled[0]:
        # Installed in this session, the wheels go on sys.path after the dev venv's own numba
        # (Blender started with the extension installed puts them first).
        assert Path(numba.__file__).is_relative_to(sysconfig.get_paths()["purelib"])
    else:
        assert numba.__version__ == _bundled_version("numba")
        assert sys.modules["llvmlite"].__version__ == _bundled_version("llvmlite")


def small_scene():
    """A box dropped on a passive floor, 12 frames."""
    floor = cube("Floor", location=(0.0, 0.0, -1.0))
    box = cube("Box", location=(0.0, 0.0, 1.5), size=1.0)
    for obj, kind in ((floor, "PASSIVE"), (box, "ACTIVE")):
        select(obj)
        assert bpy.ops.impulse.add_bodies(body_type=kind) == {"FINISHED"}
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 13
    return scene


def test_bake_reports_the_time_of_each_phase(scene, impulse):
    job = importlib.import_module(f"{impulse.__name__}.blender_addon.baking.job")
    report = job.bake_scene(small_scene())
    assert tuple(report.timings) == PHASES
    assert all(seconds >= 0.0 for seconds in report.timings.values())
    assert report.timings["simulate"] > 0.0 and report.timings["write"] > 0.0
    assert sum(report.timings.values()) <= report.seconds
    for phase in PHASES:  # the Bake panel's last-bake statistics
        stored = getattr(scene.impulse, f"last_{phase}_seconds")
        assert abs(stored - report.timings[phase]) < 1e-6 * max(1.0, stored)
