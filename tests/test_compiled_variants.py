"""Each solver kernel compiles once: numba compiles a whole new variant of a kernel (typing,
lowering, LLVM) for every distinct set of argument types it meets, and a constant argument
(`f(0)`, `f(False)`, a module constant) is typed as its own literal value. So after a full
warm_up every kernel has one variant, except those whose variants are deliberate.

Runs in a new process, where no kernel is loaded yet (numba's cache is shared, so only the first
run anywhere compiles).
"""

import os
import subprocess
import sys
from pathlib import Path

from tests.installed_extension import EXTENSION_NUMBA

ROOT = Path(__file__).resolve().parent.parent

# Deliberate: the time of impact, the rows' narrow phase and the substep loop that calls it without
# part tables (None: boxes and spheres only, which leaves the part-by-part narrow phase
# uncompiled) and with them; |v| of a 3-vector held in an array or, where the integrator keeps it
# allocation-free, in a tuple.
DELIBERATE = {"toi._all_times", "contact_rows.collide_rows", "substep_loop.run_substeps",
              "linalg.norm"}

PROBE = """
import importlib, pkgutil
from numba.core.registry import CPUDispatcher
import solver

solver.warm_up()
for info in pkgutil.iter_modules(solver.__path__):
    module = importlib.import_module("solver." + info.name)
    for name, value in vars(module).items():
        if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__:
            if len(value.signatures) > 1:
                print("VARIANTS", f"{info.name}.{name}", *value.signatures, sep="  ")
"""


def test_every_kernel_compiles_one_variant_after_warm_up():
    env = {k: v for k, v in os.environ.items() if k not in EXTENSION_NUMBA}  # the in-tree cache
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line.split("  ")[1:] for line in done.stdout.splitlines()
             if line.startswith("VARIANTS")]
    extra = {kernel: variants for kernel, *variants in lines if kernel not in DELIBERATE}
    assert not extra, "kernels compiled more than once:\n" + "\n".join(
        f"{kernel}: {variants}" for kernel, variants in extra.items())
