"""numba's JIT cache in the extension's user folder, chosen before anything imports numba.

Compiled kernels then survive Blender sessions (a later session loads them instead of compiling),
and the extension's own folder, which Blender replaces on every update and may be read-only, is
never written. Each version of the extension gets a cache of its own: numba checks a cached
kernel against its own source file only, not against the kernels it calls in other files, so
kernels cached by an older version could outlive an update that changed those.

The linux-x64 zip ships its kernels already compiled (build.py), in SHIPPED/<module name>: the
first use copies them into an empty user cache, and numba loads them there as if it had compiled
them itself. They are compiled for numba's "generic" x86-64 CPU, which any x86-64 machine runs,
so the solver always compiles for it (numba puts the CPU into every kernel's cache key: kernels
of another CPU would not load). numba checks each kernel against its source (kernel_cache's
stamp: module name, size and sha256) and solver.fresh_cache checks all of them against all the
solver's sources: kernels that do not match are compiled again, never used.
"""

import os
import shutil
import sys
import tempfile
import tomllib
from pathlib import Path

import bpy

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "blender_manifest.toml"
SHIPPED = ROOT / "kernel_cache"  # in the linux-x64 zip: <module name>/ as NUMBA_CACHE_DIR holds
COPIED = "shipped-kernels-copied"  # in the user cache, once they were
LOCATORS = (f"{__package__}.kernel_cache.SolverLocator,UserProvidedCacheLocator,"
            "InTreeCacheLocator,UserWideCacheLocator,IPythonCacheLocator,ZipCacheLocator")


def use_user_folder(extension: str) -> str:
    """Point numba at `extension`'s user folder ("cache/<version>"), with the solver's kernels
    filed by kernel_cache and compiled for the generic CPU; fill it from the shipped kernels if
    it has none yet. Returns the folder."""
    version = tomllib.loads(MANIFEST.read_text())["version"]
    folder = bpy.utils.extension_path_user(extension, path=f"cache/{version}", create=True)
    os.environ["NUMBA_CACHE_DIR"] = folder
    os.environ["NUMBA_CACHE_LOCATOR_CLASSES"] = LOCATORS
    os.environ.setdefault("NUMBA_CPU_NAME", "generic")  # another CPU set: shipped kernels unused
    numba = sys.modules.get("numba")
    if numba is not None:
        # Imported before us (another extension, a script): re-read the settings. The solver's
        # functions, not yet defined, get our locator. If any jitted function was defined
        # already, numba's code generator is set up for this machine's CPU features, which enter
        # the cache key: the shipped kernels do not match and the solver compiles on first use,
        # for this CPU (numba 0.62.1, checked).
        numba.core.config.reload_config()
    copy_shipped(SHIPPED / extension, Path(folder))
    return folder


def copy_shipped(shipped: Path, folder: Path) -> bool:
    """Copy the shipped kernels into the user cache `folder` once, if it holds no solver kernels
    yet; True if copied. Once only: solver.fresh_cache may have cleared them since (sources
    changed), and a second enable in the session must not bring them back. Each file is written
    under a temporary name and renamed, so a Blender starting at the same time never loads half
    a file; the indexes come last, so such a Blender sees kernels only once their code and
    solver.fresh_cache's stamp are there."""
    done = folder / COPIED
    if not shipped.is_dir() or done.exists() or any((folder / "solver").glob("*.nbi")):
        return False
    order = {".nbc": 1, ".nbi": 2}  # the stamp and kernels.py's markers first
    files = [path for path in shipped.rglob("*") if path.is_file()]
    for source in sorted(files, key=lambda path: (order.get(path.suffix, 0), path)):
        target = folder / source.relative_to(shipped)
        target.parent.mkdir(parents=True, exist_ok=True)
        with (tempfile.NamedTemporaryFile(dir=target.parent, prefix=target.name + ".",
                                          delete=False) as temporary, source.open("rb") as data):
            shutil.copyfileobj(data, temporary)
        os.replace(temporary.name, target)
    done.touch()
    return True
