"""PNG charts of verification and comparison runs, drawn with matplotlib.

matplotlib comes with the extension as PyPI wheels. It is imported only when a chart is
written, and figures are drawn on the Agg canvas directly (no pyplot, no backend switch), in
matplotlib's default style for the duration of the drawing only, so a user's own matplotlib set-up
neither leaks into the charts nor is changed by them. Each PNG carries
what it shows (per panel: title, axis labels, y range, legend) as text metadata, which the HTML
report reuses as the image's description.
"""

import functools
import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

ENGINES = {  # curve key -> legend label, colour, line style, width; the closed form on top
    "impulse": ("Impulse", "#1f5fbf", "-", 1.8),
    "builtin": ("built-in (Bullet)", "#e07b1a", "-", 1.8),
    "difference": ("distance", "#7a3fb0", "-", 1.8),
    "closed_form": ("closed form", "#111111", "--", 1.3),
}
FAIL = "#c0392b"
METADATA_KEY = "Impulse axes"  # PNG text chunk with the JSON list of panels as drawn


@dataclass
class Panel:
    """One small chart: curves over a shared x, labelled axes and the least y range to show."""

    title: str
    x: np.ndarray
    curves: dict[str, np.ndarray]  # keys of ENGINES, drawn in that order
    xlabel: str
    ylabel: str  # with the unit, e.g. "height of the top box (m)"
    unit: str = ""
    span: float = 0.0  # least y range (a 0.8 mm settle of a 1 m box is drawn on 1 m)
    notes: list[str] = field(default_factory=list)


def value_range(curves: Iterable[Any], min_span: float = 0.0) -> tuple[float, float]:
    """y limits that hold every finite value and span at least `min_span` (centred on the data),
    plus a margin, so tiny motions are drawn at the scale of the scene, not blown up to fill
    the panel. Without a given span the least range is 5 % of the largest magnitude; values that
    are never negative get no negative room beyond the margin."""
    arrays = [np.asarray(c, dtype=float).ravel() for c in curves]
    values = np.concatenate([a[np.isfinite(a)] for a in arrays] + [np.zeros(0)])
    if values.size == 0:
        return 0.0, 1.0
    low, high = float(values.min()), float(values.max())
    floor = min_span if min_span > 0 else 0.05 * float(np.abs(values).max())
    span = max(high - low, floor, 1e-12 * max(1.0, abs(high)))
    middle = 0.5 * (low + high)
    low, high = min(low, middle - span / 2), max(high, middle + span / 2)
    if values.min() >= 0 > low:
        low, high = 0.0, high - low
    margin = 0.06 * (high - low)
    return low - margin, high + margin


def _default_style(draw: Callable[..., Path]) -> Callable[..., Path]:
    """Run a chart function in matplotlib's default style (a style never holds the backend);
    a clear error if the bundled matplotlib is missing."""

    @functools.wraps(draw)
    def drawn(*args, **kwargs) -> Path:
        try:
            import matplotlib.style
        except ImportError as error:
            raise RuntimeError(f"charts need matplotlib, which is bundled with Impulse; "
                               f"reinstall the extension for this platform ({error})") from error
        with matplotlib.style.context("default"):
            return draw(*args, **kwargs)

    return drawn


def _figure(width: float, height: float,
            layout: Literal["constrained"] | None = "constrained"):
    """A figure on its own Agg canvas (pyplot and the user's backend are not involved)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=100, layout=layout)
    FigureCanvasAgg(figure)
    return figure


def _describe(figure) -> list[dict]:
    """What each drawn panel shows, read back from matplotlib (not from our inputs), and whether
    its title and y label fit the panel."""
    panels = []
    renderer = figure.canvas.get_renderer()
    for axes in figure.axes:
        if not axes.get_visible():
            continue
        legend = axes.get_legend()
        box = axes.get_window_extent(renderer)
        panels.append({
            "title": axes.get_title(), "xlabel": axes.get_xlabel(), "ylabel": axes.get_ylabel(),
            "ylim": [float(v) for v in axes.get_ylim()],
            "lines": [line.get_label() for line in axes.get_lines()
                      if not line.get_label().startswith("_")],
            "legend": [text.get_text() for text in legend.get_texts()] if legend else [],
            "fits": bool(axes.title.get_window_extent(renderer).width <= box.width + 0.5
                         and axes.yaxis.label.get_window_extent(renderer).height
                         <= box.height + 0.5),
        })
    return panels


def _save(figure, path: Path, title: str) -> Path:
    panels = _describe(figure)
    description = "; ".join(f"{p['title']}: x {p['xlabel']}, y {p['ylabel']}" for p in panels)
    figure.savefig(path, format="png", metadata={
        "Title": title, "Description": description, METADATA_KEY: json.dumps(panels)})
    return path


def quantity(value: float, unit: str) -> str:
    """A value with its unit; lengths under 10 cm in millimetres, under 0.1 mm in micrometres."""
    if unit == "m" and 1e-7 <= abs(value) < 1e-4:
        return f"{value * 1e6:.3g} µm"
    if unit == "m" and (value == 0 or 1e-4 <= abs(value) < 0.1):
        return f"{value * 1000:.3g} mm"
    return f"{value:.3g} {unit}".rstrip()


def _gap(curves: dict[str, np.ndarray], key: str) -> float:
    reference, values = curves.get("closed_form"), curves.get(key)
    if reference is None or values is None:
        return math.nan
    difference = np.abs(np.asarray(values, float) - np.asarray(reference, float))
    return float(np.nanmax(difference)) if np.isfinite(difference).any() else math.nan


def _fit(text, room: float, renderer) -> None:
    """Make a label no longer than `room` pixels (labels that fit): a smaller font, down to
    6.5 pt, then the words on two lines."""
    start, words = text.get_fontsize(), text.get_text().split(" ")
    vertical = text.get_rotation() % 180 == 90
    middle = (len(words) + 1) // 2
    for lines in (text.get_text(), " ".join(words[:middle]) + "\n" + " ".join(words[middle:])):
        text.set_text(lines)
        size = start
        while True:
            text.set_fontsize(size)
            extent = text.get_window_extent(renderer)
            if (extent.height if vertical else extent.width) <= room:
                return
            if size <= 6.5:
                break
            size -= 0.5


def _draw_panel(axes, panel: Panel) -> None:
    for key, (label, color, style, width) in ENGINES.items():
        values = panel.curves.get(key)
        if values is None or not np.isfinite(np.asarray(values, float)).any():
            continue  # nothing drawn, so no legend entry either
        axes.plot(panel.x[:len(values)], values, style, color=color, linewidth=width,
                  label=label)
    axes.set_title(panel.title, fontsize=10)
    axes.set_xlabel(panel.xlabel, fontsize=9)
    axes.set_ylabel(panel.ylabel, fontsize=9)
    axes.set_ylim(*value_range(panel.curves.values(), panel.span))
    axes.ticklabel_format(axis="y", useOffset=False)
    axes.tick_params(labelsize=8)
    axes.grid(True, color="#e4e4e4", linewidth=0.8)
    notes = list(panel.notes)
    gaps = {ENGINES[k][0]: _gap(panel.curves, k) for k in ("impulse", "builtin")}
    if not all(math.isnan(v) for v in gaps.values()):
        notes.append("largest gap to closed form: " + ", ".join(
            f"{name} {quantity(value, panel.unit)}" for name, value in gaps.items()
            if not math.isnan(value)))
    if notes:  # under the x axis label, where no curve can be hidden by it
        axes.annotate("\n".join(notes), (0.0, 0.0), xycoords="axes fraction",
                      xytext=(-28, -31), textcoords="offset points", va="top", ha="left",
                      fontsize=7, color="#333333")
    if axes.get_lines():
        axes.legend(fontsize=7, loc="best", framealpha=0.85)


@_default_style
def curve_chart(panels: Sequence[Panel], path: Path, title: str, columns: int = 4) -> Path:
    """Small multiples, one panel per scene (or quantity), each with its own axes and legend.

    The margins are fixed (in inches, room for the tick labels, axis labels and one note line)
    instead of matplotlib's constrained layout, which costs seconds for twenty panels.
    """
    columns = max(1, min(columns, len(panels)))
    rows = max(1, math.ceil(len(panels) / columns))
    cell_width, cell_height, gap_x, gap_y = 4.3, 3.2, 0.85, 1.05
    top, bottom, left, right = 0.75, 0.8, 0.85, 0.2
    width = left + columns * cell_width - gap_x + right
    height = top + rows * cell_height - gap_y + bottom
    figure = _figure(width, height, layout=None)
    figure.suptitle(title, fontsize=13, y=1 - 0.25 / height)
    grid = figure.subplots(rows, columns, squeeze=False, gridspec_kw={
        "left": left / width, "right": 1 - right / width, "top": 1 - top / height,
        "bottom": bottom / height, "wspace": gap_x / (cell_width - gap_x),
        "hspace": gap_y / (cell_height - gap_y)})
    renderer = figure.canvas.get_renderer()
    for index, axes in enumerate(grid.ravel()):
        if index < len(panels):
            _draw_panel(axes, panels[index])
            box = axes.get_window_extent(renderer)
            _fit(axes.title, box.width, renderer)
            _fit(axes.yaxis.label, box.height, renderer)
            for note in axes.texts:  # may reach into the gap to the next panel
                _fit(note, box.width + gap_x * figure.dpi, renderer)
        else:
            axes.set_visible(False)
    return _save(figure, path, title)


@_default_style
def error_chart(rows: Sequence[dict], path: Path, title: str) -> Path:
    """Per check, error ÷ tolerance of Impulse and of the built-in on a log axis; the line at 1
    is the tolerance. Checks where Impulse is outside its tolerance are labelled in red."""
    floor, ceiling = 1e-6, 1e4
    figure = _figure(11.0, 1.2 + 0.36 * len(rows))
    axes = figure.subplots()
    positions = np.arange(len(rows))[::-1]
    bar = 0.38
    for offset, key in ((bar / 2, "impulse"), (-bar / 2, "builtin")):
        label, color, _style, _width = ENGINES[key]
        errors = np.array([float(row.get(f"{key}_error", math.nan)) for row in rows])
        tolerance = np.array([float(row["tolerance"]) for row in rows])
        ratio = np.clip(errors / tolerance, floor, ceiling)
        if not np.isfinite(ratio).any():
            continue
        axes.barh(positions + offset, ratio - floor, left=floor, height=bar, color=color,
                  label=label)
        for y, value, error, row in zip(positions + offset, ratio, errors, rows, strict=True):
            unit = "relative" if row.get("error_kind") == "relative" else row["unit"]
            text = "not measured" if math.isnan(error) else (
                f"{error:.2g} relative" if unit == "relative" else quantity(error, unit))
            axes.text(value if math.isfinite(value) else floor, y, " " + text, va="center",
                      fontsize=6.5, color="#333333")
    axes.axvline(1.0, color="#222222", linewidth=1.2, label="tolerance")
    axes.set_xscale("log")
    axes.set_xlim(floor, ceiling)
    axes.set_yticks(positions, [f"{row['scene']}: {row['quantity']}" for row in rows], fontsize=8)
    for tick, row in zip(axes.get_yticklabels(), rows, strict=True):
        if not row["impulse_ok"]:
            tick.set_color(FAIL)
    axes.set_ylim(-0.7, len(rows) - 0.3)
    axes.set_xlabel("error ÷ tolerance (log scale; left of 1 is within Impulse's tolerance; "
                    "bar labels: the error itself)", fontsize=9)
    figure.suptitle(title, fontsize=12)
    axes.tick_params(axis="x", labelsize=8)
    axes.grid(True, axis="x", color="#e4e4e4", linewidth=0.8)
    axes.legend(fontsize=8, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncols=3,
                frameon=False)
    return _save(figure, path, title)


def read_metadata(path: Path) -> dict[str, str]:
    """The PNG's text chunks (tEXt, iTXt without compression): what the chart says it shows."""
    data = path.read_bytes()
    found, at = {}, 8
    while at + 8 <= len(data):
        length = int.from_bytes(data[at:at + 4], "big")
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + length]
        if kind == b"tEXt":
            key, _, value = body.partition(b"\0")
            found[key.decode("latin-1")] = value.decode("latin-1")
        elif kind == b"iTXt":
            key, _, rest = body.partition(b"\0")
            if rest[:1] == b"\0":  # uncompressed
                _lang, _, rest = rest[2:].partition(b"\0")
                _translated, _, value = rest.partition(b"\0")
                found[key.decode("latin-1")] = value.decode("utf-8")
        at += 12 + length
    return found
