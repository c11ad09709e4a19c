"""The shape a mesh gets when it becomes a body: the primitive it is, else the PCA box.

An icosphere, a UV sphere, a cylinder or a cone (a barrel, a can, a ball) should roll the moment
it is added; anything else keeps the box, the default and the fastest (the Body panel suggests
Convex Hull when the box fills the mesh poorly).
"""

from ... import solver
from .shapes import MeshPoints, fit_shape

# A primitive's volume within this factor of the closed mesh's: the mesh is that primitive (a
# 32-sided cylinder is 1.007, a subdivision-2 icosphere about 1.1).
GOOD_FIT = 1.15
# A shape is chosen over the box, or over an earlier candidate, only when its volume is smaller
# by this factor: a cube stays a box, a sphere does not become a capsule of no length.
BETTER = 0.98
CANDIDATES = (("SPHERE", "sphere"), ("CYLINDER", "cylinder"), ("CAPSULE", "capsule"),
              ("CONE", "cone"))


def guess_shape(points: MeshPoints) -> str:
    """An Object.impulse.shape identifier for a new body of this (world-space) mesh."""
    if len(points.vertices) < 4:
        return "BOX"
    mesh = solver.mass_properties(points.vertices, points.triangles)
    if not mesh.closed or mesh.volume <= 0.0:
        return "BOX"
    box = solver.obb_from_points(points.vertices, points.triangles)
    best, smallest = "BOX", fit_shape(points, "box", box=box).volume()
    for name, kind in CANDIDATES:
        volume = fit_shape(points, kind, box=box).volume()
        if volume < smallest * BETTER:
            best, smallest = name, volume
    return best if smallest <= GOOD_FIT * mesh.volume else "BOX"
