"""Impulse's physics: rigid bodies, collision detection and impulse response in numpy.

Pure Python and numpy; imports nothing from Blender, so batch scripts can use it from any
Python 3.11. Conventions used throughout: quaternions are (w, x, y, z); rotation matrices have
the body axes as columns; contact normals point from body a to body b; lengths are metres.
"""

from . import quaternion

__all__ = ["quaternion"]
