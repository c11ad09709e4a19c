"""Impulse's physics: rigid bodies, collision detection and impulse response.

Python, numpy and numba (the inner loops are compiled, cached on first use); imports nothing
from Blender, so batch scripts can use it from any Python 3.11 with numpy and numba.
Conventions used throughout: quaternions are (w, x, y, z); rotation matrices have the body axes
as columns; contact normals point from body a to body b; lengths are metres.
"""

from . import quaternion
from .fresh_cache import source_digest  # clears stale cached kernels before any is loaded

__all__ = ["quaternion", "source_digest"]

# --- geometry (A1): oriented boxes, mass properties, broad phase ---
from .broadphase import aabbs, sweep_and_prune
from .mass import MassProperties, box_inertia, mass_properties, sphere_inertia
from .obb import MIN_HALF_EXTENT, OrientedBox, obb_from_points

__all__ += [
    "MIN_HALF_EXTENT",
    "MassProperties",
    "OrientedBox",
    "aabbs",
    "box_inertia",
    "mass_properties",
    "obb_from_points",
    "sphere_inertia",
    "sweep_and_prune",
]
# --- end geometry (A1) ---

# --- narrow phase (A2): SAT, contact manifolds, time of impact ---
from .collision import Manifold, collide  # noqa: E402
from .contacts import Contacts, find_contacts  # noqa: E402
from .shapes import (  # noqa: E402
    BOX,
    CAPSULE,
    CONE,
    CYLINDER,
    HULL,
    MESH,
    SPHERE,
    Box,
    Capsule,
    Cone,
    ConvexHull,
    Cylinder,
    Sphere,
)
from .toi import time_of_impact, time_of_impact_batch  # noqa: E402

__all__ += ["BOX", "CAPSULE", "CONE", "CYLINDER", "HULL", "MESH", "SPHERE", "Box", "Capsule",
            "Cone", "Contacts", "ConvexHull", "Cylinder", "Manifold", "Sphere", "collide",
            "find_contacts", "time_of_impact", "time_of_impact_batch"]
# --- end narrow phase (A2) ---

# --- dynamics (B): the World, its trajectories ---
from .trajectory import Cancelled, Trajectory  # noqa: E402
from .warmup import warm_up  # noqa: E402
from .world import World  # noqa: E402

__all__ += ["Cancelled", "Trajectory", "World", "warm_up"]
# --- end dynamics (B) ---
