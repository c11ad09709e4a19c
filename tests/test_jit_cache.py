"""numba's JIT cache: in the extension's user folder, filled by the first bake, loaded after.

The first bake after installing compiles the solver's kernels and says how long it took; a new
Blender session on the same user folder loads them from the cache instead of compiling again.
"""

import importlib
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import bpy

from tests.test_extension_install import PHASES, small_scene

ROOT = Path(__file__).resolve().parent.parent


def test_jit_cache_is_the_extension_user_folder(impulse):
    kernels = importlib.import_module(f"{impulse.__name__}.blender_addon.baking.kernels")
    kernels.make_ready()
    version = tomllib.loads((ROOT / "blender_manifest.toml").read_text())["version"]
    cache = Path(bpy.utils.extension_path_user(impulse.__name__, path=f"cache/{version}"))
    assert os.environ["NUMBA_CACHE_DIR"] == str(cache)
    assert Path(sys.modules["numba"].config.CACHE_DIR) == cache
    assert any(cache.rglob("*.nbi")), "no compiled kernel was cached in the user folder"
    own_folder = Path(impulse.__file__).parent
    assert not any(own_folder.rglob("*.nbi")), "numba wrote into the extension's own folder"


# A new Blender session: enable Impulse (installing the zip first if given), then for each file:
# open it, press Bake (the operator; headless it runs to the end) and print the bake's phases.
SESSION = """
import importlib, json, sys
import bpy
zip_path, phases, *blends = sys.argv[1:]
if zip_path:
    bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default",
                                             enable_on_install=True)
importlib.import_module("addon_utils").enable("bl_ext.user_default.impulse_bake")
for blend in blends:
    bpy.ops.wm.open_mainfile(filepath=blend)
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    stats = bpy.context.scene.impulse
    print("PHASES", json.dumps({p: getattr(stats, f"last_{p}_seconds") for p in phases.split()}))
"""


def _bake_in_new_session(user: Path, install: Path | None, *blends: Path):
    """(what the session printed, each bake's phase times)."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["BLENDER_USER_RESOURCES"] = str(user)
    command = [sys.executable, "-c", SESSION, str(install or ""), " ".join(PHASES),
               *map(str, blends)]
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("PHASES ")]
    return done.stdout, [json.loads(line.removeprefix("PHASES ")) for line in lines]


def _cache_files(cache: Path) -> dict[str, int]:
    return {str(path): path.stat().st_mtime_ns for path in cache.rglob("*") if path.is_file()}


def _saved(path: Path) -> Path:
    bpy.ops.wm.save_as_mainfile(filepath=str(path), check_existing=False)
    return path


def test_first_bakes_compile_what_they_need_and_later_sessions_load_the_cache(
        scene, extension_zip, tmp_path):
    """New Blender sessions on one new user folder. A box scene's first bake compiles the
    kernels of boxes and spheres only; a cylinder's bake then compiles the rest, each saying
    how long it took. A later session loads them all from the cache (compiling none) and says
    so."""
    small_scene()
    boxes = _saved(tmp_path / "drop.blend")
    barrel = next(o for o in scene.objects if o.name == "Box")
    barrel.impulse.shape = "CYLINDER"
    barrel_blend = _saved(tmp_path / "barrel.blend")
    user = tmp_path / "user"
    cache = user / "extensions" / ".user" / "user_default" / "impulse_bake" / "cache"
    compiling, loading = "(compiling the solver (first use only) took ", "(loading the solver took "

    printed, phases = _bake_in_new_session(user, extension_zip, boxes)
    assert printed.count(compiling) == 1, printed
    assert phases[0]["compile"] > 0.0 and phases[0]["simulate"] > 0.0
    box_kernels = _cache_files(cache)
    assert not any("parts" in name for name in box_kernels), "a box scene compiled shape kernels"

    printed, phases = _bake_in_new_session(user, None, boxes, barrel_blend)
    assert printed.count(loading) == 1 and printed.count(compiling) == 1, printed
    assert phases[0]["compile"] > 0.0 and phases[1]["compile"] > 0.0
    every_kernel = _cache_files(cache)
    assert any("contacts_of_parts" in name for name in every_kernel)

    printed, phases = _bake_in_new_session(user, None, barrel_blend)
    assert printed.count(loading) == 1 and compiling not in printed, printed
    assert phases[0]["compile"] > 0.0
    assert _cache_files(cache) == every_kernel, "the last session compiled again"
