"""Viewport overlay: the collision shapes of the selected bodies, as lines.

Shapes are fitted exactly as the bake fits them (blender_addon.reading.fitting, a passive flat
ground grown downwards included), so the animator sees what will collide.
"""

import bpy
import gpu
import numpy as np

from ..blender_addon.reading.shapes import Shape
from ..solver import quaternion
from ..solver.hull import convex_hull
from . import shape_cache

COLOR = (1.0, 0.55, 0.1, 1.0)
CIRCLE_SEGMENTS = 48
SIDE_LINES = 8  # lines along a capsule's, cylinder's or cone's side
MAX_MESH_EDGES = 100_000  # a bigger triangle mesh is drawn as its bounding box
_BOX_EDGES = np.array(
    [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6), (3, 7)]
)
_CORNERS = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
_ANGLES = np.linspace(0.0, 2.0 * np.pi, CIRCLE_SEGMENTS + 1)
_RING = np.stack([np.cos(_ANGLES), np.sin(_ANGLES), np.zeros_like(_ANGLES)], axis=1)
_handle = None


def _segments(polyline: np.ndarray) -> np.ndarray:
    return np.stack([polyline[:-1], polyline[1:]], axis=1).reshape(-1, 3)


def _ring(radius: float, z: float) -> np.ndarray:
    return _segments(_RING * radius + [0.0, 0.0, z])


def _sides(bottom_radius: float, top_radius: float, h: float) -> np.ndarray:
    """SIDE_LINES segments from the circle at z = -h to the one at +h."""
    angles = np.arange(SIDE_LINES) * (2.0 * np.pi / SIDE_LINES)
    around = np.stack([np.cos(angles), np.sin(angles), np.zeros(SIDE_LINES)], axis=1)
    ends = np.stack([around * bottom_radius - [0.0, 0.0, h], around * top_radius + [0, 0, h]], 1)
    return ends.reshape(-1, 3)


def _local_lines(shape: Shape) -> np.ndarray:
    """(2L, 3) segment end points in the shape's own frame."""
    r = shape.radius
    if shape.kind == "box":
        return (_CORNERS * shape.half_extents)[_BOX_EDGES].reshape(-1, 3)
    if shape.kind == "sphere":
        ring = _ring(r, 0.0)
        return np.vstack([ring, ring[:, [2, 0, 1]], ring[:, [1, 2, 0]]])
    if shape.kind in ("cylinder", "cone"):
        h = float(shape.size[1])
        top = 0.0 if shape.kind == "cone" else r
        rings = [_ring(r, -h)] + ([_ring(r, h)] if top else [])
        return np.vstack([*rings, _sides(r, top, h)])
    if shape.kind == "capsule":
        h = float(shape.size[1])
        half = _RING[: CIRCLE_SEGMENTS // 2 + 1] * r  # upper half circle in the xy plane
        arcs = [_segments(half[:, order] * [1.0, 1.0, sign] + [0.0, 0.0, sign * h])
                for sign in (1.0, -1.0) for order in ([0, 2, 1], [2, 0, 1])]
        return np.vstack([_ring(r, h), _ring(r, -h), _sides(r, r, h), *arcs])
    if shape.kind == "hull":
        return _hull_edges(shape.points)
    if shape.kind == "mesh":
        return _mesh_edges(shape)
    parts = [_local_lines(part) @ quaternion.to_matrix(part.orientation).T + part.center
             for part in shape.parts]
    return np.vstack(parts)


def _hull_edges(points: np.ndarray) -> np.ndarray:
    """Every face polygon's edges of the hull the solver builds."""
    hull = convex_hull(points)
    lines = []
    for f in range(len(hull.face_start) - 1):
        face = hull.face_vertices[hull.face_start[f]:hull.face_start[f + 1]]
        lines.append(_segments(hull.vertices[np.append(face, face[0])]))
    return np.vstack(lines)


def _mesh_edges(shape: Shape) -> np.ndarray:
    """The triangles' edges, each once; a huge mesh as its box."""
    triangles = shape.triangles
    edges = np.sort(triangles[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1)
    edges = np.unique(edges, axis=0)
    if len(edges) > MAX_MESH_EDGES:
        return (_CORNERS * shape.half_extents)[_BOX_EDGES].reshape(-1, 3)
    return shape.points[edges].reshape(-1, 3)


def shape_lines(shape: Shape) -> np.ndarray:
    """(2L, 3) world segment end points of a fitted shape's wireframe."""
    return _local_lines(shape) @ quaternion.to_matrix(shape.orientation).T + shape.center


def collision_lines(objects, depsgraph) -> np.ndarray:
    """Line end points (Blender units) for every body among `objects` (a compound's parts
    drawn with it)."""
    parts = []
    for obj in objects:
        if obj.type != "MESH" or not obj.impulse.enabled:
            continue
        fit = shape_cache.fitted(obj, depsgraph)
        if not isinstance(fit, str):
            parts.append(shape_lines(fit[1]))
    return np.vstack(parts).astype(np.float32) if parts else np.empty((0, 3), np.float32)


def _draw() -> None:
    context = bpy.context
    if not context.scene.impulse.show_shapes:
        return
    lines = collision_lines(context.selected_objects, context.evaluated_depsgraph_get())
    if len(lines) == 0:
        return
    vertex_format = gpu.types.GPUVertFormat()
    vertex_format.attr_add(id="pos", comp_type="F32", len=3, fetch_mode="FLOAT")
    buffer = gpu.types.GPUVertBuf(vertex_format, len(lines))
    buffer.attr_fill("pos", lines.tolist())
    batch = gpu.types.GPUBatch(type="LINES", buf=buffer)
    shader = gpu.shader.from_builtin("UNIFORM_COLOR")
    shader.uniform_float("color", COLOR)
    gpu.state.depth_test_set("LESS_EQUAL")
    batch.draw(shader)
    gpu.state.depth_test_set("NONE")


def register() -> None:
    global _handle
    _handle = bpy.types.SpaceView3D.draw_handler_add(_draw, (), "WINDOW", "POST_VIEW")


def unregister() -> None:
    global _handle
    bpy.types.SpaceView3D.draw_handler_remove(_handle, "WINDOW")
    _handle = None
