"""PNG charts of a verification run, drawn with numpy and written with zlib.

Inside Blender there is no matplotlib, and an off-screen GPU context is not available headless,
so the charts are raster drawings: rectangles, polylines and a 3x5 pixel font for labels.
"""

import itertools
import math
import struct
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

IMPULSE = (40, 110, 220)
BUILTIN = (235, 130, 30)
CLOSED = (120, 120, 120)
INK = (30, 30, 30)
GRID = (225, 225, 225)
WHITE = (255, 255, 255)

_GLYPHS = """
A010101111101101 B110101110101110 C011100100100011 D110101101101110 E111100110100111
F111100110100100 G011100101101011 H101101111101101 I111010010010111 J001001001101010
K101101110101101 L100100100100111 M101111111101101 N110101101101101 O010101101101010
P110101110100100 Q010101101110011 R110101110101101 S011100010001110 T111010010010010
U101101101101111 V101101101101010 W101101111111101 X101101010101101 Y101101010010010
Z111001010100111 0111101101101111 1010110010010111 2110001010100111 3110001010001110
4101101111001001 5111100110001110 6011100111101111 7111001010010010 8111101111101111
9111101111001110 .000000000000010 -000000111000000 =000111000111000 /001001010100100
%101001010100101 (010100100100010 )010001001001010 :000010000010000 +000010111010000
"""
FONT = {item[0]: np.array([int(bit) for bit in item[1:]], dtype=bool).reshape(5, 3)
        for item in _GLYPHS.split()}


def png_bytes(rgb: np.ndarray) -> bytes:
    """Encode an (H, W, 3) uint8 image as PNG (8-bit RGB, filter 0 on every row)."""
    height, width, _ = rgb.shape
    rows = np.hstack([np.zeros((height, 1), np.uint8), rgb.reshape(height, width * 3)])

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(rows.tobytes(), 9)) + chunk(b"IEND", b""))


class Canvas:
    """A white RGB image with the few drawing primitives the charts need."""

    def __init__(self, width: int, height: int):
        self.pixels = np.full((height, width, 3), 255, dtype=np.uint8)

    def rect(self, x0: float, y0: float, x1: float, y1: float, color) -> None:
        h, w, _ = self.pixels.shape
        xa, xb = sorted((round(x0), round(x1)))
        ya, yb = sorted((round(y0), round(y1)))
        self.pixels[max(ya, 0):min(yb + 1, h), max(xa, 0):min(xb + 1, w)] = color

    def polyline(self, xs: np.ndarray, ys: np.ndarray, color, width: int = 2) -> None:
        """Connect the points; non-finite points break the line."""
        points = np.column_stack([xs, ys])
        h, w, _ = self.pixels.shape
        for (xa, ya), (xb, yb) in itertools.pairwise(points):
            if not np.all(np.isfinite([xa, ya, xb, yb])):
                continue
            n = int(max(abs(xb - xa), abs(yb - ya))) + 2
            px = np.rint(np.linspace(xa, xb, n)).astype(int)
            py = np.rint(np.linspace(ya, yb, n)).astype(int)
            for dx in range(width):
                for dy in range(width):
                    inside = (px + dx >= 0) & (px + dx < w) & (py + dy >= 0) & (py + dy < h)
                    self.pixels[py[inside] + dy, px[inside] + dx] = color

    def text(self, x: float, y: float, label: str, color=INK, scale: int = 2) -> None:
        """Upper-case pixel text; characters without a glyph print as blanks."""
        for i, char in enumerate(label.upper()):
            glyph = FONT.get(char)
            if glyph is None:
                continue
            for row, col in zip(*np.nonzero(glyph), strict=True):
                left = x + (4 * i + col) * scale
                top = y + row * scale
                self.rect(left, top, left + scale - 1, top + scale - 1, color)

    def save(self, path: Path) -> Path:
        path.write_bytes(png_bytes(self.pixels))
        return path


def error_chart(rows: Sequence[dict], path: Path) -> Path:
    """Bars of error / tolerance on a log axis (10^-6 .. 10^3), Impulse and built-in per row."""
    low, high = -6.0, 3.0
    left, right, top, bar = 380, 860, 60, 9
    canvas = Canvas(right + 20, top + len(rows) * (2 * bar + 6) + 20)
    canvas.text(10, 10, "ERROR / TOLERANCE (LOG)")
    canvas.rect(10, 34, 24, 44, IMPULSE)
    canvas.text(30, 34, "IMPULSE")
    canvas.rect(130, 34, 144, 44, BUILTIN)
    canvas.text(150, 34, "BUILT-IN")

    def x_of(value: float) -> float:
        return left + (right - left) * (min(max(value, low), high) - low) / (high - low)

    for exponent in range(int(low), int(high) + 1, 3):
        canvas.rect(x_of(exponent), top - 6, x_of(exponent), canvas.pixels.shape[0] - 10, GRID)
        canvas.text(x_of(exponent) - 8, top - 22, f"1E{exponent}" if exponent else "1")
    for i, row in enumerate(rows):
        y = top + i * (2 * bar + 6)
        canvas.text(10, y + 4, f"{row['scene']} {row['quantity']}"[:46])
        for j, (key, color) in enumerate((("impulse", IMPULSE), ("builtin", BUILTIN))):
            error, tolerance = row.get(f"{key}_error"), row.get("tolerance")
            if error is None or not tolerance or not math.isfinite(error):
                continue
            ratio = math.log10(max(abs(error) / tolerance, 10.0**low))
            canvas.rect(left, y + j * bar, x_of(ratio), y + (j + 1) * bar - 2, color)
    canvas.rect(x_of(0.0), top - 6, x_of(0.0) + 1, canvas.pixels.shape[0] - 10, INK)
    return canvas.save(path)


def curve_chart(panels: Sequence[dict], path: Path, columns: int = 4) -> Path:
    """Small multiples: per panel a title and its curves {"impulse": y, "builtin": y, ...}."""
    width, height, pad, header = 300, 190, 14, 30
    rows = max(1, math.ceil(len(panels) / columns))
    canvas = Canvas(columns * width, header + rows * height)
    colors = {"impulse": IMPULSE, "builtin": BUILTIN, "closed_form": CLOSED}
    for i, (name, color) in enumerate(colors.items()):
        canvas.rect(pad + 150 * i, 10, pad + 150 * i + 14, 20, color)
        canvas.text(pad + 150 * i + 20, 10, name.replace("_", " ").replace("builtin", "built-in"))
    for index, panel in enumerate(panels):
        x0, y0 = (index % columns) * width, header + (index // columns) * height
        canvas.text(x0 + pad, y0 + 6, panel["title"][:36])
        box = (x0 + pad, y0 + 26, x0 + width - pad, y0 + height - pad)
        canvas.rect(box[0], box[1], box[2], box[3], GRID)
        canvas.rect(box[0] + 1, box[1] + 1, box[2] - 1, box[3] - 1, WHITE)
        order = sorted(panel["curves"], key=lambda key: key != "closed_form")  # runs on top
        curves = {key: np.asarray(panel["curves"][key], dtype=float) for key in order}
        finite = np.concatenate([c[np.isfinite(c)] for c in curves.values()] + [np.zeros(0)])
        if finite.size == 0:
            continue
        span = max(finite.max() - finite.min(), 1e-12)
        canvas.text(box[0] + 4, box[1] + 4, f"{finite.max():.5g}", CLOSED)
        canvas.text(box[0] + 4, box[3] - 14, f"{finite.min():.5g}", CLOSED)
        for key, values in curves.items():
            xs = box[0] + (box[2] - box[0]) * np.arange(len(values)) / max(len(values) - 1, 1)
            ys = box[3] - (box[3] - box[1]) * (values - finite.min()) / span
            canvas.polyline(xs, ys, colors.get(key, INK))
    return canvas.save(path)
