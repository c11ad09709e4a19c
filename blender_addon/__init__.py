"""The Blender side that is neither an operator nor a panel: data model, presets, bake, batch.

MODULES is the one place registration is listed: every module in it has register() and
unregister(), called in order (and in reverse). Add a module here to hook it in.
"""

from . import cli, presets, properties, report_cli, report_state

MODULES = (properties, presets, cli, report_state, report_cli)


def register() -> None:
    for module in MODULES:
        module.register()


def unregister() -> None:
    for module in reversed(MODULES):
        module.unregister()
