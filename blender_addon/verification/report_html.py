"""One self-contained HTML page per run: summary, notes, tables and charts.

The charts are embedded (base64 PNG) so the page can be mailed or archived on its own; each
image's alternative text is the axis description the chart carries in its metadata.
"""

import base64
import datetime
import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import charts, report

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 1800px; padding: 0 1.5em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 1.8em; border-bottom: 1px solid #ccc; }
p.meta { color: #666; margin-top: 0; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.8em 0; }
th, td { border: 1px solid #d8d8d8; padding: 0.25em 0.6em; text-align: right; }
th { background: #f2f2f2; position: sticky; top: 0; }
td.text { text-align: left; }
tr.fail td { background: #fbe3e0; }
figure { margin: 1em 0; }
figure img { max-width: 100%; border: 1px solid #e4e4e4; }
figcaption { color: #666; font-size: 0.8em; }
ul.notes li { margin: 0.2em 0; }
"""


@dataclass
class Section:
    """A heading with notes, one table and the charts that belong to it."""

    heading: str
    rows: Sequence[dict]
    columns: Sequence[str]
    notes: Sequence[str] = ()
    images: Sequence[Path] = ()
    failed: Sequence[bool] = field(default_factory=list)  # per row: highlight it


HEADERS = {"closed_form": "closed form", "impulse_error": "Impulse error", "impulse": "Impulse",
           "builtin": "built-in", "builtin_error": "built-in error",
           "impulse_ok": "Impulse within tolerance", "position_rms": "position RMS (m)",
           "position_max": "position max (m)", "orientation_max": "orientation max (°)",
           "first_contact_impulse": "first contact, Impulse (frame)",
           "first_contact_builtin": "first contact, built-in (frame)"}


def _table(section: Section) -> str:
    head = "".join(f"<th>{html.escape(HEADERS.get(c, c.replace('_', ' ')))}</th>"
                   for c in section.columns)
    lines = [f"<table><thead><tr>{head}</tr></thead><tbody>"]
    for index, row in enumerate(section.rows):
        bad = index < len(section.failed) and section.failed[index]
        cells = []
        for column in section.columns:
            value = row.get(column, "")
            kind = "text" if isinstance(value, str) else "number"
            cells.append(f'<td class="{kind}">{html.escape(report.cell(value))}</td>')
        lines.append(f'<tr{" class=fail" if bad else ""}>{"".join(cells)}</tr>')
    lines.append("</tbody></table>")
    return "\n".join(lines)


def _image(path: Path) -> str:
    description = charts.read_metadata(path).get("Description", "")
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (f'<figure><img src="data:image/png;base64,{data}" alt="{html.escape(description)}">'
            f"<figcaption>{html.escape(path.name)}</figcaption></figure>")


def write_page(path: Path, title: str, summary: str, sections: Sequence[Section]) -> Path:
    """report.html with a heading and summary, then per section notes, table and charts."""
    stamp = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>",
             f"<h1>{html.escape(title)}</h1>",
             f'<p class="meta">{html.escape(summary)} &middot; written {stamp}</p>']
    for section in sections:
        parts.append(f"<h2>{html.escape(section.heading)}</h2>")
        if section.notes:
            parts.append('<ul class="notes">' + "".join(
                f"<li>{html.escape(n)}</li>" for n in section.notes) + "</ul>")
        if section.rows:
            parts.append(_table(section))
        parts += [_image(image) for image in section.images]
    parts.append("</body></html>")
    path.write_text("\n".join(parts) + "\n", encoding="utf-8")
    return path
