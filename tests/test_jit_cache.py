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


# A new Blender session: enable Impulse (installing the zip first if given), open a file, press
# Bake (the operator; headless it runs to the end) and print the last bake's phase times.
SESSION = """
import importlib, json, sys
import bpy
zip_path, blend, *phases = sys.argv[1:]
if zip_path:
    bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default",
                                             enable_on_install=True)
importlib.import_module("addon_utils").enable("bl_ext.user_default.impulse_bake")
bpy.ops.wm.open_mainfile(filepath=blend)
assert bpy.ops.impulse.bake() == {"FINISHED"}
stats = bpy.context.scene.impulse
print("PHASES", json.dumps({p: getattr(stats, f"last_{p}_seconds") for p in phases}))
"""


def _bake_in_new_session(user: Path, blend: Path, install: Path | None):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["BLENDER_USER_RESOURCES"] = str(user)
    command = [sys.executable, "-c", SESSION, str(install or ""), str(blend), *PHASES]
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    phases = next(line for line in done.stdout.splitlines() if line.startswith("PHASES "))
    return done.stdout, json.loads(phases.removeprefix("PHASES "))


def _cache_files(cache: Path) -> dict[str, int]:
    return {str(path): path.stat().st_mtime_ns for path in cache.rglob("*") if path.is_file()}


def test_first_bake_compiles_and_later_sessions_load_the_cache(scene, extension_zip, tmp_path):
    """Two new Blender sessions on one new user folder: the first bake compiles the solver and
    says how long it took; the second loads the cached kernels (compiling none) and says so."""
    small_scene()
    blend = tmp_path / "drop.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend), check_existing=False)
    user = tmp_path / "user"
    cache = user / "extensions" / ".user" / "user_default" / "impulse_bake" / "cache"

    printed, phases = _bake_in_new_session(user, blend, extension_zip)
    assert "(compiling the solver (first use only) took " in printed, printed
    assert phases["compile"] > 0.0 and phases["simulate"] > 0.0
    compiled = _cache_files(cache)
    assert any(name.endswith(".nbi") for name in compiled)

    printed, phases = _bake_in_new_session(user, blend, None)
    assert "(loading the solver took " in printed, printed
    assert phases["compile"] > 0.0
    assert _cache_files(cache) == compiled, "the second session compiled again"
