"""Closed-form verification in real Blender: every canonical scene through Impulse and the
built-in world, Impulse within its validation-suite tolerances, and the outputs written: the
table, charts that say what they draw (axis labels with units, legends of what is plotted, ranges
at the scene's scale) and report.html with all of it on one page."""

import csv
import html.parser
import json
import math
import re
from dataclasses import replace

import bpy
import numpy as np
import pytest

EXPECTED_SCENES = {
    *(f"drop {shape} e={e}" for shape in ("box", "sphere") for e in ("0", "0.3", "0.5", "0.8",
                                                                      "1")),
    "slide 5 m/s mu=0.5", "incline 20 deg mu=0.5", "incline 35 deg mu=0.5", "stack of 10",
    "off-centre elastic with spin", "newton's cradle of 5", "torque-free tumbling box",
}
HARD_CASES = {  # issue 10's hard cases: rows beside the others, failed while the solver fails
    "1000 kg on 1 kg": 500, "column of 20": 1000, "billiard cut 53.13 deg": 24,  # frames
}
SHORT = 36  # frames the long hard cases run here (their full length is checked on the scene)


@pytest.fixture(scope="module")
def verification(impulse):
    """One run of every scene shared by the tests below (it is the slow part); the two long
    hard cases run SHORT frames."""
    bpy.ops.wm.read_homefile(use_empty=True)
    verify = impulse.blender_addon.verification.verify
    scenes = [replace(s, settings=replace(s.settings, frames=min(s.settings.frames, SHORT)))
              if s.name in HARD_CASES else s for s in verify.canonical_scenes()]
    lines = []
    result = verify.verify(scenes, progress=lines.append)
    return result, lines


def _outside(rows):
    return [(r["scene"], r["quantity"], r["impulse_error"], r["tolerance"])
            for r in rows if not r["impulse_error"] <= r["tolerance"]]


def test_every_canonical_scene_runs_and_impulse_is_within_tolerance(verification):
    result, lines = verification
    assert result.failures == []
    assert {row["scene"] for row in result.rows} == EXPECTED_SCENES | set(HARD_CASES)
    assert len(lines) == len(EXPECTED_SCENES) + len(HARD_CASES)  # one progress line per scene
    assert _outside([r for r in result.rows if r["scene"] in EXPECTED_SCENES]) == []
    for row in result.rows:
        assert math.isfinite(row["impulse"]) and math.isfinite(row["builtin"])
        assert row["impulse_ok"] == (row["impulse_error"] <= row["tolerance"])  # failed shows


def test_hard_cases_are_rows_with_their_closed_forms(impulse, verification):
    """Issue 10: heavy on light at 1:1000 (500 frames), a column of 20 (1000 frames), a glancing
    billiard shot; closed forms and tolerances as the issue states them."""
    scenes = {s.name: s for s in impulse.blender_addon.verification.verify.canonical_scenes()}
    assert {name: scenes[name].settings.frames for name in HARD_CASES} == HARD_CASES
    rows = {(r["scene"], r["quantity"]): r for r in verification[0].rows
            if r["scene"] in HARD_CASES}
    expected = {
        ("1000 kg on 1 kg", "1000 kg box drift, worst frame"): (0.0, 1e-3, "m"),
        ("1000 kg on 1 kg", "1 kg box drift, worst frame"): (0.0, 1e-3, "m"),
        ("column of 20", "top box drift, worst frame"): (0.0, 1e-3, "m"),
        # equal balls, cut 53.13 deg: sin = 0.8, cos = 0.6, paths at right angles, 2 m/s
        ("billiard cut 53.13 deg", "struck ball speed"): (1.2, 0.005, "m/s"),
        ("billiard cut 53.13 deg", "cue ball speed"): (1.6, 0.005, "m/s"),
        ("billiard cut 53.13 deg", "angle between the paths"): (90.0, 0.005, "deg"),
    }
    assert {key: (pytest.approx(r["closed_form"], rel=1e-4), r["tolerance"], r["unit"])
            for key, r in rows.items()} == expected
    speeds = [rows[("billiard cut 53.13 deg", q)]["impulse"] for q in ("struck ball speed",
                                                                        "cue ball speed")]
    assert sum(v * v for v in speeds) == pytest.approx(4.0, rel=0.01)  # energy kept (e = 1)


def test_the_builtin_world_is_measured_not_assumed(verification):
    """Facts of the issue: the built-in multiplies restitution pairs but bounces off e, and gains
    energy in elastic off-centre collisions (7-35 %)."""
    rows = {(r["scene"], r["quantity"]): r for r in verification[0].rows}
    bounce = rows[("drop sphere e=0.5", "restitution v_out/v_in")]
    assert 0.5 < bounce["builtin"] < 0.7
    energy = rows[("off-centre elastic with spin", "kinetic energy change (relative)")]
    assert energy["builtin_error"] > 0.01


class _Page(html.parser.HTMLParser):
    """The report's table rows (cell texts, failed or not) and images (source, description)."""

    def __init__(self):
        super().__init__()
        self.rows, self.failed, self.images, self._row = [], [], [], None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr":
            self._row = []
            self.failed.append(attrs.get("class") == "fail")
        elif tag == "img":
            self.images.append((attrs["src"], attrs["alt"]))

    def handle_endtag(self, tag):
        if tag == "tr":
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._row is not None and data.strip():
            self._row.append(data.strip())


def test_outputs_table_json_csv_png_and_report_page(impulse, verification, tmp_path):
    result, _ = verification
    verify = impulse.blender_addon.verification.verify
    charts = impulse.blender_addon.verification.charts
    files = verify.write_outputs(result, tmp_path)
    assert sorted(f.name for f in files) == ["report.html", "verify.csv", "verify.json",
                                             "verify_curves.png", "verify_errors.png"]
    data = json.loads((tmp_path / "verify.json").read_text())
    assert len(data["rows"]) == len(result.rows) and data["failures"] == []
    with (tmp_path / "verify.csv").open() as stream:
        rows = list(csv.DictReader(stream))
    assert len(rows) == len(result.rows)
    assert float(rows[0]["closed_form"]) == result.rows[0]["closed_form"]
    for name in ("verify_errors.png", "verify_curves.png"):
        data = (tmp_path / name).read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert width > 300 and height > 100
        image = bpy.data.images.load(str(tmp_path / name))  # Blender itself can read it
        assert tuple(image.size) == (width, height)
        bpy.data.images.remove(image)
    table = impulse.blender_addon.verification.report.format_table(result.rows)
    assert all(scene in table for scene in EXPECTED_SCENES)

    # The curves: one panel per scene, time and the signal with its unit on the axes, a legend
    # of exactly the lines drawn (no closed form where there is none).
    panels = json.loads(charts.read_metadata(tmp_path / "verify_curves.png")["Impulse axes"])
    by_title = {p["title"]: p for p in panels}
    assert set(by_title) == {row["scene"] for row in result.rows}
    for panel in panels:
        assert panel["xlabel"] == "time (s)" and panel["fits"], panel
        assert re.search(r"\((m|m/s|J|rad/s)\)$", panel["ylabel"]), panel["ylabel"]
        assert panel["legend"] == panel["lines"]
        assert {"Impulse", "built-in (Bullet)"} <= set(panel["lines"])
    assert "closed form" not in by_title["torque-free tumbling box"]["lines"]
    assert "closed form" in by_title["stack of 10"]["lines"]
    low, high = by_title["stack of 10"]["ylim"]  # the top box settles < 1 mm: drawn on 1 m
    assert high - low >= 1.0 and -0.1 < low < 0 < 1 < high
    errors = json.loads(charts.read_metadata(tmp_path / "verify_errors.png")["Impulse axes"])
    assert errors[0]["xlabel"].startswith("error ÷ tolerance")

    # report.html: every row of the table, failed rows marked, both charts embedded with their
    # axis descriptions.
    page = _Page()
    page.feed((tmp_path / "report.html").read_text(encoding="utf-8"))
    checks, settings = page.rows[:len(result.rows) + 1], page.rows[len(result.rows) + 1:]
    assert checks[0][:5] == ["scene", "quantity", "unit", "closed form", "Impulse"]
    assert [r[:2] for r in checks[1:]] == [[r["scene"], r["quantity"]] for r in result.rows]
    assert page.failed[1:len(checks)] == [not r["impulse_ok"] for r in result.rows]
    assert settings[0] == ["scene", "bodies", "frames", "fps", "substeps", "iterations",
                           "gravity"]
    assert ["stack of 10", "10 moving, 1 fixed", "240", "24", "10", "10", "-9.81 m/s² (z)"] in (
        settings)
    assert len(page.images) == 2
    assert all(src.startswith("data:image/png;base64,") for src, _ in page.images)
    assert "stack of 10: x time (s), y top box's distance from its start (m)" in page.images[1][1]


def test_long_labels_are_fitted_to_their_panel(impulse, tmp_path):
    charts = impulse.blender_addon.verification.charts
    t = np.linspace(0, 1, 25)
    long = charts.Panel("a scene whose name is far too long for one small panel title", t,
                        {"impulse": t}, "time (s)", "a quantity with a very long name that "
                        "would run off the panel (m)", "m")
    path = charts.curve_chart([long, long], tmp_path / "long.png", "long labels", columns=2)
    panels = json.loads(charts.read_metadata(path)["Impulse axes"])
    assert [p["fits"] for p in panels] == [True, True]
    assert panels[0]["legend"] == ["Impulse"]  # no closed form, no built-in: none in the legend


def test_chart_ranges_show_a_settle_as_a_settle(impulse):
    """A 0.8 mm settle of a box 9.5 m up is drawn on the scene's scale (1 m), not autoscaled
    into what looks like a collapse; a real collapse still fits; constant curves get a range."""
    value_range = impulse.blender_addon.verification.charts.value_range
    settle = 9.5 - 0.0008 * (1 - np.exp(-np.arange(240) / 20))
    low, high = value_range([settle, np.full(240, 9.5)], 1.0)
    assert high - low >= 1.0 and low < settle.min() and settle.max() < high
    assert (9.5 - settle.min()) / (high - low) < 0.001  # the settle is a sliver of the range
    low, high = value_range([settle])  # without a given span: at least 5 % of the magnitude
    assert high - low >= 0.05 * 9.5
    collapse = np.linspace(9.5, 0.5, 50)
    low, high = value_range([collapse, [np.nan, np.inf]], 1.0)
    assert low < 0.5 and 9.5 < high < 10.2
    low, high = value_range([[0.0, 0.0008]], 1.0)  # a distance is not given negative room
    assert -0.1 < low < 0 and 1.0 < high < 1.1
    assert value_range([np.zeros(5)])[1] > 0 and value_range([[]]) == (0.0, 1.0)


def test_verify_operator_writes_text_curves_and_files(scene, tmp_path):
    scene.impulse_report.output_dir = str(tmp_path)
    assert bpy.ops.impulse.verify(only="cradle") == {"FINISHED"}
    text = bpy.data.texts["Impulse Verification"].as_string()
    assert "newton's cradle of 5" in text and "last ball speed" in text
    empty = bpy.data.objects["Impulse Verification"]
    assert "newton_s_cradle_of_5_impulse" in empty
    assert empty.animation_data.action is not None
    assert re.fullmatch(r"Impulse within tolerance on [0-2]/2 checks \([0-9.]+ s\)",
                        scene.impulse_report.last_verify)
    assert (tmp_path / "verify.csv").exists() and (tmp_path / "verify_errors.png").exists()
    assert scene.impulse_report.last_report == str(tmp_path / "report.html")
    assert "newton&#x27;s cradle of 5" in (tmp_path / "report.html").read_text(encoding="utf-8")
    assert len(bpy.data.scenes) == 1  # the throwaway scenes are gone


def test_a_scene_that_cannot_be_built_is_reported_and_the_rest_run(impulse, scene):
    verify = impulse.blender_addon.verification.verify
    good = verify.canonical_scenes("slide")[0]
    broken = replace(good, name="broken", bodies=(
        replace(good.bodies[0], half_extents=(-1.0, 1.0, 1.0)), *good.bodies[1:]))
    lines = []
    result = verify.verify([broken, good], progress=lines.append)
    assert len(result.failures) == 1 and result.failures[0].startswith("broken: could not be run")
    assert [row["scene"] for row in result.rows] == ["slide 5 m/s mu=0.5"]
    assert lines[0].startswith("[1/2] broken: could not be run") and len(lines) == 2


def test_verify_command_line(impulse, scene, tmp_path, capsys):
    cli = impulse.blender_addon.command_line.cli
    code = cli.main(["verify", "--only", "incline", "--output", str(tmp_path)], [])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    progress = [line for line in out if line.startswith("impulse_bake: [")]
    assert len(progress) == 2 and "incline 20 deg" in progress[0]
    assert (tmp_path / "verify.json").exists() and (tmp_path / "verify_curves.png").exists()
    assert (tmp_path / "report.html").exists()

    assert cli.main(["verify", "--only", "no such scene", "--output", str(tmp_path)], []) == 2
    assert "no verification scene matches" in capsys.readouterr().err
