"""numba checks a cached kernel against its own file only; solver.fresh_cache clears the
solver's cache whenever any of its sources changed, so an edit in one file reaches the cached
kernels of the others that call it."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.installed_extension import EXTENSION_NUMBA

ROOT = Path(__file__).resolve().parent.parent

# constraints._relative_distance divides by linalg.norm, a kernel of another file.
CALL = """
import numpy as np
import solver
from solver.constraints import _relative_distance
print(_relative_distance(np.array([2.0, 0.0, 0.0]), np.array([1.0, 0.0, 0.0])))
"""
NORM = "    return np.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])"


def _call(folder: Path) -> float:
    env = {k: v for k, v in os.environ.items() if k not in EXTENSION_NUMBA}  # the in-tree cache
    done = subprocess.run([sys.executable, "-c", CALL], cwd=folder, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return float(done.stdout.split()[-1])


def test_a_changed_callee_in_another_file_is_not_loaded_stale_from_the_cache(tmp_path):
    shutil.copytree(ROOT / "solver", tmp_path / "solver",
                    ignore=shutil.ignore_patterns("__pycache__"))
    assert _call(tmp_path) == 0.5  # |(1, 0, 0)| / |(2, 0, 0)|, compiled and cached
    assert any((tmp_path / "solver" / "__pycache__").glob("constraints.*.nbi"))
    linalg = tmp_path / "solver" / "linalg.py"
    source = linalg.read_text()
    assert source.count(NORM) == 1
    linalg.write_text(source.replace(NORM, NORM.replace("return", "return 2.0 *")))
    assert _call(tmp_path) == 0.25  # numba alone would load constraints' kernel with the old norm
    assert _call(tmp_path) == 0.25  # and the new one stays cached
