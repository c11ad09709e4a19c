"""Verification and comparison tables as text, JSON and CSV: one row per measured quantity.

Rows are plain dicts so the same data goes to the console, a Text datablock and files unchanged.
"""

import csv
import json
import math
from collections.abc import Sequence
from pathlib import Path

COLUMNS = ("scene", "quantity", "unit", "closed_form", "impulse", "impulse_error", "builtin",
           "builtin_error", "tolerance", "error_kind", "impulse_ok")


def cell(value) -> str:
    """A value as the tables print it: yes/NO, 4 significant digits, exponent when tiny or huge."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "NO"
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        return f"{value:.4g}" if value == 0 or 1e-3 <= abs(value) < 1e5 else f"{value:.2e}"
    return str(value)


def format_table(rows: Sequence[dict], columns: Sequence[str] = COLUMNS) -> str:
    """Aligned plain-text table (monospace) with a header line."""
    cells = [list(columns)] + [[cell(row.get(c, "")) for c in columns] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    lines = ["  ".join(text.ljust(w) for text, w in zip(line, widths, strict=True)).rstrip()
             for line in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _strict(value):
    """JSON has no NaN or infinity: a value that could not be measured is written as null."""
    if isinstance(value, dict):
        return {key: _strict(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_strict(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write_json(rows: Sequence[dict], path: Path, **extra) -> Path:
    """Strict JSON with the rows plus any extra top-level fields (settings, notes, curves)."""
    data = _strict({**extra, "rows": list(rows)})
    path.write_text(json.dumps(data, indent=2, allow_nan=False, default=float) + "\n")
    return path


def write_csv(rows: Sequence[dict], path: Path, columns: Sequence[str] = COLUMNS) -> Path:
    with path.open("w", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=list(columns), extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path
