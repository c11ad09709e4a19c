"""The live preview's hooks into Blender: frame changes, edits, undo and file loads.

Persistent, so they survive loading a file; each one hands its work to `preview` through
`preview.guarded`, which never lets an error reach Blender. With no preview running (always the
case in background Blender) each costs one dictionary look-up.
"""

import bpy
from bpy.app.handlers import persistent

from . import preview


@persistent
def _frame_changed(scene, depsgraph) -> None:
    if preview.running(scene):
        preview.guarded(preview.frame_changed, scene, depsgraph)


@persistent
def _depsgraph_updated(scene, depsgraph) -> None:
    if preview.running(scene):
        preview.guarded(preview.depsgraph_updated, scene, depsgraph)


@persistent
def _undone(scene, _data=None) -> None:
    """Undo and redo may bring back other start transforms or settings: simulate again."""
    if preview.running(scene):
        preview.guarded(preview.restart, scene)


@persistent
def _loading(_path, _data=None) -> None:
    preview.forget_all()


_HOOKS = (
    (bpy.app.handlers.frame_change_post, _frame_changed),
    (bpy.app.handlers.depsgraph_update_post, _depsgraph_updated),
    (bpy.app.handlers.undo_post, _undone),
    (bpy.app.handlers.redo_post, _undone),
    (bpy.app.handlers.load_pre, _loading),
)


def register() -> None:
    for handlers, function in _HOOKS:
        if function not in handlers:
            handlers.append(function)


def unregister() -> None:
    preview.stop_all()
    if bpy.app.timers.is_registered(preview.tick):
        bpy.app.timers.unregister(preview.tick)
    for handlers, function in _HOOKS:
        if function in handlers:
            handlers.remove(function)
