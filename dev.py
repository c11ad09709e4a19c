"""One entry point for a fresh machine: set up .venv with the pinned tools, then run a job.

    python3 dev.py test    lint, type-check, the test suite in real Blender 5.0, then the
                           Blender-side tests again in Blender 4.5 LTS
    python3 dev.py demo    build the extension and bake the bundled demo scene into out/
    python3 dev.py build   build dist/impulse_bake-<version>.zip

Needs Python 3.11 (the bpy wheel exists only for it) and access to PyPI.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
PYTHON = VENV / "bin" / "python"
VENV45 = ROOT / ".venv-blender45"  # bpy 4.5 LTS, for the Blender-side tests only
WORKERS = "2"  # pytest-xdist processes: this project's machines have 2 cores
TYPED = ("blender_addon", "operators", "ui")  # type-checked against fake-bpy-module's stubs


def _python311() -> str:
    if sys.version_info[:2] == (3, 11):
        return sys.executable
    found = shutil.which("python3.11")
    if found is None:
        raise SystemExit("dev.py: Python 3.11 is required (bpy 5.0.1 is built for it only)")
    return found


def _run(*command: str, env: dict[str, str] | None = None) -> None:
    result = subprocess.run(command, cwd=ROOT, env=env)
    if result.returncode != 0:
        raise SystemExit(f"dev.py: failed ({result.returncode}): {' '.join(command)}")


def ensure_venv(folder: Path = VENV, group: str = "dev") -> Path:
    """Create a venv with a pinned dependency group of pyproject.toml; skip when pyproject.toml
    is unchanged. Returns its python."""
    python = folder / "bin" / "python"
    stamp = folder / ".impulse-installed"
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if stamp.exists() and stamp.read_text() == wanted:
        return python
    if not python.exists():
        if sys.version_info[:2] == (3, 11):
            venv.create(folder, with_pip=True)
        else:
            _run(_python311(), "-m", "venv", str(folder))
    _run(str(python), "-m", "pip", "install", "--quiet", "--upgrade", "pip>=25.1")
    _run(str(python), "-m", "pip", "install", "--quiet", "--group", group)
    stamp.write_text(wanted)
    return python


def build() -> Path:
    """Build one zip per platform into dist/; return this machine's (linux-x64)."""
    _run(str(PYTHON), "build.py")
    return next((ROOT / "dist").glob("impulse_bake-*-linux_x64.zip"))


def typecheck() -> None:
    """mypy on the Blender side (settings: [tool.mypy] in pyproject.toml).

    mypy names the root package after its folder, which a clone may call anything (mktemp's
    tmp.XXXX is no identifier), so it checks a copy named after the extension; its reports
    name files under out/typecheck/impulse_bake/.
    """
    copy = ROOT / "out" / "typecheck" / "impulse_bake"
    shutil.rmtree(copy, ignore_errors=True)
    for name in ("blender_addon", "operators", "ui", "solver"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "__init__.py", copy)
    _run(str(PYTHON), "-m", "mypy", *(str(copy / name) for name in TYPED))


def test() -> None:
    # Meanwhile the solver's kernels compile into its numba cache, and the extension is built
    # with its kernels compiled (or kept from an earlier build, build.py) and installed into one
    # user folder (tests/installed_extension.py), so the pytest workers of both Blender versions
    # load them instead of each compiling them again.
    os.environ.setdefault("NUMBA_CPU_NAME", "generic")  # as the tests' kernels (conftest.py)
    prepared = ROOT / "out" / "test-blender"
    shutil.rmtree(prepared, ignore_errors=True)
    prepared.mkdir(parents=True)
    warming = [subprocess.Popen([str(PYTHON), *command], cwd=ROOT) for command in (
        ("-c", "import solver; solver.warm_up()"),
        ("-m", "tests.installed_extension", str(prepared)))]
    _run(str(PYTHON), "-m", "ruff", "check", ".")
    typecheck()
    for process in warming:
        if process.wait() != 0:
            raise SystemExit(f"dev.py: failed ({process.returncode}): {' '.join(process.args)}")
    env = {**os.environ, "IMPULSE_TEST_BLENDER": str(prepared)}
    _run(str(PYTHON), "-m", "pytest", "-n", WORKERS, "--durations=15", env=env)
    python45 = ensure_venv(VENV45, "blender45")
    _run(str(python45), "-m", "pytest", "-n", WORKERS, "--durations=15", "-m", "blender",
         *blender_test_files(), env=env)


def blender_test_files() -> list[str]:
    """The test files holding Blender-side tests, as .venv collects them: the 4.5 venv has no
    numba (the extension's bundled wheels are what it tests), so it cannot import the solver's
    own test files to find out that they hold none."""
    listed = subprocess.run(
        [str(PYTHON), "-m", "pytest", "--collect-only", "-q", "-m", "blender"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout
    return sorted({line.split("::")[0] for line in listed.splitlines() if "::" in line})


def demo() -> None:
    archive = build()
    _run(str(PYTHON), "batch.py", "--install", str(archive), "demo", "--output", "out")


JOBS = {"test": test, "demo": demo, "build": build}


def main() -> None:
    if len(sys.argv) != 2 or sys.argv[1] not in JOBS:
        raise SystemExit(__doc__)
    ensure_venv()
    JOBS[sys.argv[1]]()


if __name__ == "__main__":
    main()
