"""The command line: `blender --command impulse_bake`, batch bakes of .blend files, the demo."""

import bpy

register, unregister = bpy.utils.register_submodule_factory(__name__, ["cli", "report_cli"])
