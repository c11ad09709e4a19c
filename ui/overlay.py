"""Viewport overlay: the collision boxes and spheres of the selected bodies, as lines.

Shapes are fitted exactly as the bake fits them (blender_addon.reading.shapes), so the animator sees
what will collide. Fits are cached until the next edit or frame change, not redone per redraw.
"""

import bpy
import gpu
import numpy as np

from ..blender_addon.reading.shapes import Shape, fit_shape, mesh_points
from ..solver import quaternion

COLOR = (1.0, 0.55, 0.1, 1.0)
CIRCLE_SEGMENTS = 48
_BOX_EDGES = np.array(
    [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6), (3, 7)]
)
_CORNERS = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
_cache: dict[tuple[str, str], np.ndarray] = {}
_handle = None


def shape_lines(shape: Shape) -> np.ndarray:
    """(2L, 3) segment end points: 12 box edges, or 3 great circles of the sphere."""
    rotation = quaternion.to_matrix(shape.orientation)
    if shape.kind == "box":
        local = (_CORNERS * shape.half_extents)[_BOX_EDGES].reshape(-1, 3)
    else:
        angles = np.linspace(0.0, 2.0 * np.pi, CIRCLE_SEGMENTS + 1)
        ring = np.stack([np.cos(angles), np.sin(angles), np.zeros_like(angles)], axis=1)
        segments = np.stack([ring[:-1], ring[1:]], axis=1).reshape(-1, 3) * shape.radius
        local = np.vstack([segments, segments[:, [2, 0, 1]], segments[:, [1, 2, 0]]])
    return local @ rotation.T + shape.center


def collision_lines(objects, depsgraph) -> np.ndarray:
    """Line end points (Blender units) for every enabled mesh body among `objects`."""
    parts = []
    for obj in objects:
        if obj.type != "MESH" or not obj.impulse.enabled:
            continue
        key = (obj.name, obj.impulse.shape)
        if key not in _cache:
            points = mesh_points(obj, depsgraph)
            if len(points.vertices) == 0:
                continue
            _cache[key] = shape_lines(fit_shape(points, obj.impulse.shape.lower()))
        parts.append(_cache[key])
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


@bpy.app.handlers.persistent  # a handler that is not persistent is dropped when a file loads
def _invalidate(_scene, _depsgraph) -> None:
    _cache.clear()


def register() -> None:
    global _handle
    _handle = bpy.types.SpaceView3D.draw_handler_add(_draw, (), "WINDOW", "POST_VIEW")
    bpy.app.handlers.depsgraph_update_post.append(_invalidate)
    bpy.app.handlers.frame_change_post.append(_invalidate)


def unregister() -> None:
    global _handle
    bpy.app.handlers.frame_change_post.remove(_invalidate)
    bpy.app.handlers.depsgraph_update_post.remove(_invalidate)
    bpy.types.SpaceView3D.draw_handler_remove(_handle, "WINDOW")
    _handle = None
    _cache.clear()
