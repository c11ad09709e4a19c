"""Build dist/impulse_bake-<version>.zip with Blender's own extension tool.

The tool (`blender_ext.py`) ships inside the bpy wheel, so no Blender install is needed. The
source is validated, built, and the zip validated again; any failure stops with the tool's output.
Usage: python build.py [--output-dir DIR]
"""

import argparse
import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def extension_tool() -> Path:
    """Locate blender_ext.py inside the installed bpy wheel without importing bpy."""
    spec = importlib.util.find_spec("bpy")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("build.py: the bpy module is not installed (pip install bpy==5.0.1)")
    bpy_dir = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(bpy_dir.glob("*/scripts/addons_core/bl_pkg/cli/blender_ext.py"))
    if not found:
        raise SystemExit(f"build.py: blender_ext.py not found under {bpy_dir}")
    return found[-1]


def _run_tool(*args: str) -> None:
    result = subprocess.run(
        [sys.executable, str(extension_tool()), *args], capture_output=True, text=True
    )
    if result.returncode != 0:
        raise SystemExit(f"build.py: blender_ext {args[0]} failed:\n{result.stdout}{result.stderr}")


def build(output_dir: Path = ROOT / "dist") -> Path:
    """Validate the source, build the zip, validate the zip; return its path."""
    manifest = tomllib.loads((ROOT / "blender_manifest.toml").read_text())
    output_dir.mkdir(parents=True, exist_ok=True)
    archive = output_dir / f"{manifest['id']}-{manifest['version']}.zip"
    archive.unlink(missing_ok=True)
    _run_tool("validate", str(ROOT))
    _run_tool("build", "--source-dir", str(ROOT), "--output-filepath", str(archive))
    _run_tool("validate", str(archive))
    return archive


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-dir", type=Path, default=ROOT / "dist")
    print(build(parser.parse_args().output_dir))


if __name__ == "__main__":
    main()
