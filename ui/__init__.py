"""Sidebar panels, the preset menu and the collision-shape overlay: drawing only.

MODULES is the one place registration is listed: each module has register() and unregister(),
called in order (and in reverse). Add a module here to hook it in.
"""

from . import overlay, panels, verify_panel

MODULES = (panels, overlay, verify_panel)


def register() -> None:
    for module in MODULES:
        module.register()


def unregister() -> None:
    for module in reversed(MODULES):
        module.unregister()
