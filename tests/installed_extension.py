"""One installed, compiled copy of the extension for a whole test run.

`dev.py test` prepares one user folder before pytest starts: build the zip, install it, make
every kernel ready (loaded from the kernels the linux-x64 zip ships, compiled where a zip has
none); the test processes (and the Blenders they start) then share that folder, named by
IMPULSE_TEST_BLENDER. Run alone, pytest installs per process (each build of the zip reuses the
kernels build.py keeps in out/kernel-cache).

    python -m tests.installed_extension FOLDER    prepare FOLDER (FOLDER/dist, FOLDER/user)
"""

import importlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXTENSION_MODULE = "bl_ext.user_default.impulse_bake"
PREPARED = "IMPULSE_TEST_BLENDER"  # environment: the folder `main` prepared, if any
# numba settings the extension puts into the environment of a process that enabled it (see
# blender_addon/jit_cache.py): a plain Python child must not inherit them, the locator is
# importable only where the extension is, and its kernels belong in their own cache.
EXTENSION_NUMBA = ("NUMBA_CACHE_DIR", "NUMBA_CACHE_LOCATOR_CLASSES")


def prepared() -> Path | None:
    folder = os.environ.get(PREPARED)
    return Path(folder) if folder else None


def build_zip(folder: Path) -> Path:
    """This machine's zip (linux-x64, with its bundled wheels), built into `folder`."""
    sys.path.insert(0, str(ROOT))
    import build

    return build.build(folder)


def prepared_zip(folder: Path) -> Path:
    return next((folder / "dist").glob("impulse_bake-*-linux_x64.zip"))


def install(zip_path: Path):
    """Install and enable the zip in this Blender (BLENDER_USER_RESOURCES set before bpy was
    imported); return the extension's module."""
    import bpy

    result = bpy.ops.extensions.package_install_files(
        filepath=str(zip_path), repo="user_default", enable_on_install=True
    )
    if result != {"FINISHED"}:
        raise RuntimeError(f"installing {zip_path} failed: {result}")
    return importlib.import_module(EXTENSION_MODULE)


def enable():
    """Enable the extension the prepared folder holds installed; return its module."""
    import bpy  # noqa: F401  (it puts Blender's addon_utils on sys.path)

    addon_utils = importlib.import_module("addon_utils")
    if addon_utils.enable(EXTENSION_MODULE, default_set=True) is None:
        folder = os.environ["BLENDER_USER_RESOURCES"]
        raise RuntimeError(f"{EXTENSION_MODULE} is not installed in {folder}")
    return importlib.import_module(EXTENSION_MODULE)


def prepare(folder: Path) -> None:
    """Build the zip into folder/dist and install it into folder/user; then make every kernel
    ready in its JIT cache in a new Blender started with it installed, as the tests' are
    (which puts its bundled wheels first on sys.path)."""
    os.environ["BLENDER_USER_RESOURCES"] = str(folder / "user")
    install(build_zip(folder / "dist"))
    done = subprocess.run([sys.executable, "-m", "tests.installed_extension", "--compile"],
                          cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"compiling the installed extension's kernels failed ({done.returncode})")


def compile_kernels() -> None:
    kernels = importlib.import_module(f"{enable().__name__}.blender_addon.baking.kernels")
    kernels.make_ready(other_shapes=True)


if __name__ == "__main__":
    if sys.argv[1] == "--compile":
        compile_kernels()
    else:
        prepare(Path(sys.argv[1]).resolve())
