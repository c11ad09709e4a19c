"""The Blender side that is neither an operator nor a panel, in rooms by concern.

properties and presets are the data model saved in .blend files; a bake reads the scene into
bodies (reading), runs a job (baking) and writes keys (keying); verification mirrors the scene
into Blender's built-in world and checks closed-form scenes; command_line is the CLI. Imports run
downhill: command_line -> verification, baking -> keying, reading -> solver.

The lists of register_submodule_factory are the one place registration is listed: each module
has register() and unregister(), called in this order (and in reverse).
"""

import bpy

from . import jit_cache

# Before any module below imports the solver (and so numba): operators and ui import this package
# first, and its own submodules are imported only at register().
jit_cache.use_user_folder(__name__.rpartition(".")[0])

register, unregister = bpy.utils.register_submodule_factory(
    __name__, ["properties", "presets", "verification", "command_line"]
)
