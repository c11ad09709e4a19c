"""Impulse extension entry point: registers the Blender side, nothing else."""

from . import blender_addon, operators, ui

_PACKAGES = (blender_addon, operators, ui)


def register() -> None:
    for package in _PACKAGES:
        package.register()


def unregister() -> None:
    for package in reversed(_PACKAGES):
        package.unregister()
