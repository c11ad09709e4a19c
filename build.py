"""Build the extension: one zip per platform with Blender's own extension tool.

The tool (`blender_ext.py`) ships inside the bpy wheel, so no Blender install is needed. The
manifest's `wheels` list is the one list of what the extension ships besides its own code (numba
and llvmlite, unmodified from PyPI): build.py downloads any listed wheel not yet in wheels/ (a
local cache, not committed) with `pip download`, so a second build needs no network. The source
is validated, built into one zip per manifest platform (`--split-platforms`) and every zip is
validated again; any failure stops with the tool's output. Prints the zips, this machine's last.

On a linux-x64 machine the linux-x64 zip then gets the solver's kernels compiled (no network
needed): a new Blender (the bpy module) in an empty user folder installs that very zip, compiles
every kernel as a first bake would (numba's generic CPU, blender_addon/kernel_cache's locator,
see jit_cache) and the zip gets its cache under kernel_cache/<module name>/; the zip is then
validated again. The compiled cache is kept in out/kernel-cache/, named by what it is compiled
from (the zip's solver sources, its cache locator and numba wheels), so the next build reuses
it until those change. Other platforms' zips compile on first use.
Usage: python build.py [--output-dir DIR]
"""

import argparse
import hashlib
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
WHEELS = ROOT / "wheels"  # download cache; the manifest names files as ./wheels/<file>.whl
HOST_PLATFORM = "linux-x64"  # the zip the tests and `dev.py demo` install
PYTHON_VERSION = "3.11"  # Blender 4.5 and 5.0 run Python 3.11
EXTENSION_MODULE = "bl_ext.user_default.impulse_bake"  # installed from a file, as Blender does
KERNELS = ROOT / "out" / "kernel-cache"  # compiled caches, by kernels_key
# In a new Blender: install the zip, compile every kernel, print where numba cached them.
COMPILE = f"""
import importlib, os, sys
import bpy
result = bpy.ops.extensions.package_install_files(filepath=sys.argv[1], repo="user_default",
                                                  enable_on_install=True)
assert result == {{"FINISHED"}}, result
importlib.import_module("{EXTENSION_MODULE}.blender_addon.baking.kernels").make_ready()
print("CACHE", os.environ["NUMBA_CACHE_DIR"])
"""


def extension_tool() -> Path:
    """Locate blender_ext.py inside the installed bpy wheel without importing bpy."""
    spec = importlib.util.find_spec("bpy")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("build.py: the bpy module is not installed (pip install bpy==5.0.1)")
    bpy_dir = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(bpy_dir.glob("*/scripts/addons_core/bl_pkg/cli/blender_ext.py"))
    if not found:
        raise SystemExit(f"build.py: blender_ext.py not found under {bpy_dir}")
    return found[-1]


def _run_tool(*args: str) -> None:
    result = subprocess.run(
        [sys.executable, str(extension_tool()), *args], capture_output=True, text=True
    )
    if result.returncode != 0:
        raise SystemExit(f"build.py: blender_ext {args[0]} failed:\n{result.stdout}{result.stderr}")


def pip_download_arguments(filename: str) -> list[str]:
    """pip's platform options and `name==version` that fetch exactly this wheel (PEP 427 name:
    name-version-python-abi-platform.whl, dotted tags meaning any of them)."""
    parts = filename.removesuffix(".whl").split("-")
    if len(parts) < 5 or not filename.endswith(".whl"):
        raise SystemExit(f"build.py: not a wheel file name in the manifest: {filename}")
    platforms = parts[-1].split(".")
    pure = ["--implementation=py"] if platforms == ["any"] else []  # else pip picks a binary one
    return [*(f"--platform={tag}" for tag in platforms), *pure, f"{parts[0]}=={parts[1]}"]


def fetch_wheel(filename: str) -> Path:
    """The cached wheel, downloaded from PyPI first if missing (into a temporary folder and
    moved in whole, so parallel builds never see half a file)."""
    target = WHEELS / filename
    if target.exists():
        return target
    WHEELS.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=WHEELS) as download:
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                   "--only-binary=:all:", "--python-version", PYTHON_VERSION, "--dest", download,
                   *pip_download_arguments(filename)]
        result = subprocess.run(command, capture_output=True, text=True)
        got = Path(download) / filename
        if result.returncode != 0 or not got.exists():
            names = ", ".join(p.name for p in Path(download).iterdir()) or "nothing"
            raise SystemExit(f"build.py: could not download {filename} (got {names}):\n"
                             f"{result.stdout}{result.stderr}")
        os.replace(got, target)
    return target


def kernels_key(archive: Path) -> str:
    """sha256 of what the kernels are compiled from and filed by: the zip's solver sources, its
    cache locator (the kernels' stamps) and numba's and llvmlite's wheels (their names; the
    version is in them)."""
    digest = hashlib.sha256(EXTENSION_MODULE.encode())
    with zipfile.ZipFile(archive) as opened:
        for name in sorted(opened.namelist()):
            if name == "blender_addon/kernel_cache.py" or (name.startswith("solver/")
                                                           and name.endswith(".py")):
                digest.update(b"\0" + name.encode() + b"\0" + opened.read(name))
            elif name.startswith(("wheels/numba-", "wheels/llvmlite-")):
                digest.update(b"\0" + name.encode())
    return digest.hexdigest()


def compiled_kernels(archive: Path) -> Path:
    """The folder of the kernels compiled from `archive` (as NUMBA_CACHE_DIR holds them):
    kept from an earlier build, or compiled now by a new Blender that installed it."""
    kept = KERNELS / kernels_key(archive)
    if kept.is_dir():
        return kept
    KERNELS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="impulse-build-user-") as user:
        env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
        env["BLENDER_USER_RESOURCES"] = user
        done = subprocess.run([sys.executable, "-c", COMPILE, str(archive)], env=env,
                              capture_output=True, text=True)
        cache = [line[6:] for line in done.stdout.splitlines() if line.startswith("CACHE ")]
        if done.returncode != 0 or not cache:
            raise SystemExit(f"build.py: compiling the kernels failed:\n{done.stdout}{done.stderr}")
        staged = Path(tempfile.mkdtemp(dir=KERNELS, prefix="staging-"))
        shutil.copytree(cache[0], staged, dirs_exist_ok=True)
    try:
        staged.rename(kept)  # whole, so parallel builds never see half a cache
    except OSError:
        shutil.rmtree(staged)  # another build kept the same one first
    for old in KERNELS.iterdir():  # kept for sources that have changed since
        if old != kept and not old.name.startswith("staging-"):
            shutil.rmtree(old, ignore_errors=True)
    return kept


def add_kernels(archive: Path) -> None:
    """Add the kernels compiled from `archive` to it, under kernel_cache/<module name>/."""
    kernels = compiled_kernels(archive)
    with zipfile.ZipFile(archive, "a", compression=zipfile.ZIP_DEFLATED) as opened:
        for path in sorted(kernels.rglob("*")):
            if path.is_file():
                name = f"kernel_cache/{EXTENSION_MODULE}/{path.relative_to(kernels).as_posix()}"
                opened.write(path, name)


def build_all(output_dir: Path = ROOT / "dist") -> dict[str, Path]:
    """Fetch the wheels, validate the source, build and validate one zip per platform."""
    manifest = tomllib.loads((ROOT / "blender_manifest.toml").read_text())
    for wheel in manifest.get("wheels", []):
        fetch_wheel(Path(wheel).name)
    output_dir.mkdir(parents=True, exist_ok=True)
    stem = f"{manifest['id']}-{manifest['version']}"
    for old in output_dir.glob(f"{stem}*.zip"):
        old.unlink()
    _run_tool("validate", str(ROOT))
    _run_tool("build", "--source-dir", str(ROOT), "--output-filepath",
              str(output_dir / f"{stem}.zip"), "--split-platforms")
    archives = {platform: output_dir / f"{stem}-{platform.replace('-', '_')}.zip"
                for platform in manifest["platforms"]}
    for archive in archives.values():
        _run_tool("validate", str(archive))
    if sys.platform == "linux" and platform.machine() == "x86_64":
        add_kernels(archives[HOST_PLATFORM])
        _run_tool("validate", str(archives[HOST_PLATFORM]))
    return archives


def build(output_dir: Path = ROOT / "dist") -> Path:
    """Build every platform's zip; return this machine's (linux-x64), which tests install."""
    return build_all(output_dir)[HOST_PLATFORM]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-dir", type=Path, default=ROOT / "dist")
    archives = build_all(parser.parse_args().output_dir)
    for name in sorted(archives, key=lambda name: name == HOST_PLATFORM):
        print(archives[name])


if __name__ == "__main__":
    main()
