"""Run Impulse's command line from a plain Python 3.11 with the `bpy` module, no Blender install.

    python batch.py [--install ZIP] [--user-resources DIR] bake FILE.blend ... [--output DIR]
    python batch.py [--install ZIP] demo [--output DIR]
    python batch.py bake FILE.blend ... --output DIR --scheduler tcp://HOST:8786  (a Dask farm)

Same subcommands and exit codes as `blender --command impulse_bake ...`. Blender's user folder
(where the extension is installed) is BLENDER_USER_RESOURCES if set, else out/blender-user, so a
user's own Blender is never touched; it must be chosen before bpy is imported. --install puts a
built zip (python build.py) there first; later runs reuse it. A --scheduler bake needs
dask[distributed] in this Python (Blender does not bundle it); its workers may run this script
too (IMPULSE_BATCH=/path/to/batch.py dask worker tcp://HOST:8786).
"""

import argparse
import importlib
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
EXTENSION = "bl_ext.user_default.impulse_bake"


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--install", type=Path, metavar="ZIP",
                        help="install this built extension zip before running")
    parser.add_argument("--user-resources", type=Path, metavar="DIR",
                        help="Blender user folder (default: $BLENDER_USER_RESOURCES or "
                             "out/blender-user)")
    parser.add_argument("command", nargs=argparse.REMAINDER,
                        help="the impulse_bake subcommand and its arguments")
    return parser.parse_args()


def _enable(install: Path | None):
    """Install (if asked) and enable the extension; return its CLI module or exit with why."""
    import bpy

    if install is not None:
        if not install.is_file():
            raise SystemExit(f"batch.py: no such extension zip: {install}")
        result = bpy.ops.extensions.package_install_files(
            filepath=str(install.resolve()), repo="user_default", enable_on_install=True
        )
        if result != {"FINISHED"}:
            raise SystemExit(f"batch.py: installing {install} failed")
    addon_utils = importlib.import_module("addon_utils")  # on the path only once bpy is imported
    if EXTENSION not in bpy.context.preferences.addons and addon_utils.enable(EXTENSION) is None:
        raise SystemExit(
            f"batch.py: Impulse is not installed in {os.environ['BLENDER_USER_RESOURCES']}; "
            "run with --install dist/impulse_bake-<version>.zip (python build.py makes it)"
        )
    return importlib.import_module(f"{EXTENSION}.blender_addon.command_line.cli")


def main() -> int:
    args = _arguments()
    if args.user_resources is not None:
        os.environ["BLENDER_USER_RESOURCES"] = str(args.user_resources.resolve())
    os.environ.setdefault("BLENDER_USER_RESOURCES", str(ROOT / "out" / "blender-user"))
    cli = _enable(args.install)
    # Parallel jobs start this script again; they inherit the user folder through the environment.
    return cli.main(args.command, [sys.executable, str(Path(__file__).resolve())])


if __name__ == "__main__":
    sys.exit(main())
