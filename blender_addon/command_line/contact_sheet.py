"""A contact sheet (several frames in one PNG) rendered by Blender itself, headless.

One picture shows that a bake worked without opening Blender. Workbench renders in a fraction
of a second per small frame and needs no materials; each frame goes to a temporary PNG, is read
back into `bpy.data.images` and pasted into one grid, which Blender writes out as a PNG.
"""

import tempfile
from pathlib import Path

import bpy
import numpy as np

GUTTER = 4
"""Black pixels between frames, so frames with the same floor do not run into each other."""


def _render_frame(scene: bpy.types.Scene, frame: int, path: Path, floats: int) -> np.ndarray:
    """Render one frame to `path` and read back its `floats` RGBA values, bottom row first."""
    scene.frame_set(frame)
    scene.render.filepath = str(path)
    bpy.ops.render.render(write_still=True, scene=scene.name)
    image = bpy.data.images.load(str(path))
    pixels = np.empty(floats, dtype=np.float32)
    image.pixels.foreach_get(pixels)
    bpy.data.images.remove(image)
    return pixels


def frames_to_show(frame_start: int, frame_end: int, count: int) -> list[int]:
    """`count` frames spread evenly from start to end, both included, without repeats."""
    return sorted({round(f) for f in np.linspace(frame_start, frame_end, count)})


def render(
    scene: bpy.types.Scene,
    output: Path,
    frames: list[int],
    columns: int = 3,
    frame_size: tuple[int, int] = (320, 180),
) -> Path:
    """Render `frames` through the scene camera with Workbench and write them as one PNG grid.

    Gutters and empty cells are black. The scene's render settings and frame are restored.
    """
    width, height = frame_size
    wanted = {"engine": "BLENDER_WORKBENCH", "resolution_x": width, "resolution_y": height,
              "resolution_percentage": 100}
    saved = {key: getattr(scene.render, key) for key in wanted} | {
        "filepath": scene.render.filepath}
    frame_current = scene.frame_current
    for key, value in wanted.items():
        setattr(scene.render, key, value)
    rows = -(-len(frames) // columns)
    pitch_x, pitch_y = width + GUTTER, height + GUTTER
    sheet = np.zeros((rows * pitch_y - GUTTER, columns * pitch_x - GUTTER, 4), dtype=np.float32)
    try:
        with tempfile.TemporaryDirectory(prefix="impulse-sheet-") as folder:
            for i, frame in enumerate(frames):
                path = Path(folder) / f"{frame:05d}.png"
                pixels = _render_frame(scene, frame, path, width * height * 4)
                y = (rows - 1 - i // columns) * pitch_y  # images start at the bottom row
                x = (i % columns) * pitch_x
                sheet[y:y + height, x:x + width] = pixels.reshape(height, width, 4)
    finally:
        for key, value in saved.items():
            setattr(scene.render, key, value)
        scene.frame_set(frame_current)
    image = bpy.data.images.new("Impulse contact sheet", sheet.shape[1], sheet.shape[0])
    image.pixels.foreach_set(sheet.ravel())  # type: ignore[arg-type]  # stubs: any buffer works
    output.parent.mkdir(parents=True, exist_ok=True)
    image.filepath_raw = str(output)
    image.file_format = "PNG"
    image.save()
    bpy.data.images.remove(image)
    return output
