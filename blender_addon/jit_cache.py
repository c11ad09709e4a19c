"""numba's JIT cache in the extension's user folder, chosen before anything imports numba.

Compiled kernels then survive Blender sessions (a later session loads them instead of compiling),
and the extension's own folder, which Blender replaces on every update and may be read-only, is
never written. Each version of the extension gets a cache of its own: numba checks a cached
kernel against its own source file only, not against the kernels it calls in other files, so
kernels cached by an older version could outlive an update that changed those.
"""

import os
import sys
import tomllib
from pathlib import Path

import bpy

MANIFEST = Path(__file__).resolve().parent.parent / "blender_manifest.toml"


def use_user_folder(extension: str) -> str:
    """Point NUMBA_CACHE_DIR at `extension`'s user folder ("cache/<version>"); return it."""
    version = tomllib.loads(MANIFEST.read_text())["version"]
    folder = bpy.utils.extension_path_user(extension, path=f"cache/{version}", create=True)
    os.environ["NUMBA_CACHE_DIR"] = folder
    numba = sys.modules.get("numba")
    if numba is not None:  # imported before us (another extension, a script): re-read settings
        numba.core.config.reload_config()
    return folder
