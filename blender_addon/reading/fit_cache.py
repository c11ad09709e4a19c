"""The costly parts of fitting a mesh, computed once per mesh: its box's frame and its solid.

Both turn and scale with the mesh, so an object that shows its mesh through a rotation and a
uniform scale (every box of a pile sharing one mesh, most instances) gets them from the mesh's
own coordinates, rotated and scaled; a shear or non-uniform scale changes them, so such an
object is fitted with its matrix applied (and shares only with objects of the same matrix).
They are remembered for the session by a hash of exactly what they are computed from (vertex
coordinates, triangles, that matrix): a mesh edited between bakes is fitted anew. The box's
extents and thickening are measured per object, and the world axes compete with the turned
frame as they do in the search (a box is never larger than the one fitted in place); that
measure is remembered too, by the mesh's key and the object's placement, as is the weight of
an open mesh (its world-fitted box's), so baking again (the animator's loop: change a mass,
bake, look) reads an unmoved object without fitting or weighing it again.
"""

from collections import OrderedDict

import numpy as np

from ... import solver
from ...solver.obb import obb_frame, obb_in_frames
from .shapes import MeshPoints, determinant

MEMORY = 4096  # meshes remembered (least recently used first out)

_frames: OrderedDict[bytes, np.ndarray] = OrderedDict()
_boxes: OrderedDict[bytes, solver.OrientedBox] = OrderedDict()
_solids: OrderedDict[bytes, solver.MassProperties] = OrderedDict()
_boxes_weighed: OrderedDict[bytes, solver.MassProperties] = OrderedDict()  # open meshes'


def box(points: MeshPoints, up=None) -> solver.OrientedBox:
    """solver.obb_from_points(points.vertices, points.triangles, up), its frame search shared
    (read-only arrays: the box may be handed out again)."""
    if points.local is None or points.placement is None:
        return solver.obb_from_points(points.vertices, points.triangles, up)
    key = points.fit_space[2] + points.placement.tobytes()
    if up is not None:
        key += np.asarray(up, dtype=float).tobytes()
    return _remember(_boxes, key, lambda: _measured(points, up))


def _measured(points: MeshPoints, up) -> solver.OrientedBox:
    coordinates, turn, key = points.fit_space
    frame = _remember(_frames, key, lambda: obb_frame(coordinates, points.triangles))
    # The search's own frame, turned to world axes, or the world axes (the candidate the mesh's
    # own coordinates do not offer), whichever box is smaller.
    frames = [frame] if turn is None else [np.eye(3), _orthonormal(turn @ frame)]
    fitted = obb_in_frames(points.vertices, frames, points.triangles, up)
    for array in (fitted.center, fitted.orientation, fitted.half_extents):
        array.flags.writeable = False
    return fitted


def mass_properties(points: MeshPoints) -> solver.MassProperties:
    """solver.mass_properties(points.vertices, points.triangles) at density 1, shared."""
    if points.local is None or points.placement is None:
        return solver.mass_properties(points.vertices, points.triangles, density=1.0)
    coordinates, turn, key = points.fit_space
    solid = _remember(_solids, key,
                      lambda: solver.mass_properties(coordinates, points.triangles, density=1.0))
    if not solid.closed:  # weighed as its box, which is the world-fitted one
        return _remember(_boxes_weighed, key + points.placement.tobytes(), lambda: (
            solver.mass_properties(points.vertices, points.triangles, density=1.0)))
    linear = np.eye(3) if turn is None else points.placement[:3, :3]
    scale = 1.0 if turn is None else determinant(linear)
    volume = solid.volume * scale
    return solver.MassProperties(volume, volume, linear @ solid.center_of_mass
                                 + points.placement[:3, 3],
                                 scale * (linear @ solid.inertia @ linear.T), solid.closed)


def _remember(memo: OrderedDict, key: bytes, compute):
    if key in memo:
        memo.move_to_end(key)
        return memo[key]
    value = memo[key] = compute()
    if len(memo) > MEMORY:
        memo.popitem(last=False)
    return value


def _orthonormal(m: np.ndarray) -> np.ndarray:
    """The rotation nearest a nearly orthonormal matrix's first two columns (Gram-Schmidt)."""
    x = m[:, 0] / np.linalg.norm(m[:, 0])
    y = m[:, 1] - (m[:, 1] @ x) * x
    y /= np.linalg.norm(y)
    z = np.array([x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]])
    return np.stack([x, y, z], axis=1)
