"""numba's JIT cache in the extension's user folder, chosen before anything imports numba.

Compiled kernels then survive Blender sessions (a later session loads them instead of compiling),
and the extension's own folder, which Blender replaces on every update and may be read-only, is
never written.
"""

import os
import sys

import bpy


def use_user_folder(extension: str) -> str:
    """Point NUMBA_CACHE_DIR at `extension`'s user folder ("cache"); return that folder."""
    folder = bpy.utils.extension_path_user(extension, path="cache", create=True)
    os.environ["NUMBA_CACHE_DIR"] = folder
    numba = sys.modules.get("numba")
    if numba is not None:  # imported before us (another extension, a script): re-read settings
        numba.core.config.reload_config()
    return folder
