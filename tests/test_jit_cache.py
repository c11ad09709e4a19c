"""numba's JIT cache: in the extension's user folder, filled from the kernels the linux-x64 zip
ships, else by the first bake, and loaded after.

The first bake in a new user folder loads the kernels build.py compiled into the zip (copied into
the user folder; the extension's own folder gets nothing); kernels of changed sources are not
used. Without shipped kernels (other platforms' zips), the first bake compiles the solver's
kernels and says how long it took; a new Blender session on the same user folder loads them
from the cache instead of compiling again. Either way a bake of boxes makes ready only the
kernels of boxes and spheres, and a later bake of another shape the rest.
"""

import hashlib
import importlib
import importlib.util
import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import bpy

from tests.installed_extension import EXTENSION_NUMBA
from tests.test_extension_install import PHASES, small_scene

ROOT = Path(__file__).resolve().parent.parent
VERSION = tomllib.loads((ROOT / "blender_manifest.toml").read_text())["version"]
SHIPPED = "kernel_cache/bl_ext.user_default.impulse_bake/"  # in the zip, as NUMBA_CACHE_DIR


def test_jit_cache_is_the_extension_user_folder(impulse):
    kernels = importlib.import_module(f"{impulse.__name__}.blender_addon.baking.kernels")
    kernels.make_ready()
    cache = Path(bpy.utils.extension_path_user(impulse.__name__, path=f"cache/{VERSION}"))
    assert os.environ["NUMBA_CACHE_DIR"] == str(cache)
    assert Path(sys.modules["numba"].config.CACHE_DIR) == cache
    assert any((cache / "solver").glob("*.nbi")), "no compiled kernel in the user folder"
    own_folder = Path(impulse.__file__).parent
    written = [p for p in own_folder.rglob("*.nb[ic]") if "kernel_cache" not in p.parts]
    assert not written, "numba wrote into the extension's own folder"


def test_a_kernel_loaded_or_compiled_on_its_first_call_counts_as_compile_not_as_the_phase(
        impulse):
    """A bake leaves cached kernels to load on their first calls (make_ready(load=False)):
    kernels.timed moves that time from the phase it happened in to "compile"."""
    kernels = importlib.import_module(f"{impulse.__name__}.blender_addon.baking.kernels")
    twice = sys.modules["numba"].njit(lambda x: 2 * x)
    timings = {"compile": 0.0, "simulate": 0.0}
    with kernels.timed(timings, "simulate"):
        assert twice(21) == 42
    compiled = timings["compile"]
    assert compiled > timings["simulate"] >= 0.0
    with kernels.timed(timings, "simulate"):
        assert twice(1) == 2
    assert timings["compile"] == compiled


def test_the_locator_files_solver_kernels_by_content_and_leaves_other_functions_to_numba(
        impulse, tmp_path):
    kernel_cache = importlib.import_module(f"{impulse.__name__}.blender_addon.kernel_cache")
    norm = importlib.import_module(f"{impulse.__name__}.solver.linalg").norm
    locator = norm._cache._impl.locator
    assert isinstance(locator, kernel_cache.SolverLocator)
    assert locator.get_cache_path() == os.path.join(os.environ["NUMBA_CACHE_DIR"], "solver")
    source = Path(norm.py_func.__code__.co_filename).read_bytes()
    assert locator.get_source_stamp() == (norm.py_func.__module__, len(source),
                                          hashlib.sha256(source).hexdigest())
    # A cached function of another folder: numba's own locator (NUMBA_CACHE_DIR, by path).
    other = tmp_path / "other_kernels.py"
    other.write_text("import numba\n\n@numba.njit(cache=True)\ndef twice(x):\n    return 2 * x\n")
    spec = importlib.util.spec_from_file_location("other_kernels", other)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert kernel_cache.SolverLocator.from_function(module.twice.py_func, str(other)) is None
    assert type(module.twice._cache._impl.locator).__name__ == "UserProvidedCacheLocator"
    assert module.twice(21) == 42


# A new Blender session: enable Impulse (installing the zip first if given), then for each file:
# open it, press Bake (the operator; headless it runs to the end) and print the bake's phases and
# which solver kernels numba has loaded from its cache so far (the part-by-part narrow phase is
# compiled into the variant of its caller that takes the part tables); then how many solver
# kernels it loaded and how many it compiled.
SESSION = """
import importlib, json, pkgutil, sys
import bpy
zip_path, phases, *blends = sys.argv[1:]
if zip_path:
    bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default",
                                             enable_on_install=True)
extension = "bl_ext.user_default.impulse_bake"
importlib.import_module("addon_utils").enable(extension)

def kernels():
    from numba.core.registry import CPUDispatcher
    solver = importlib.import_module(extension + ".solver")
    return {f"{value.py_func.__module__.rpartition('.')[2]}.{value.__name__}": value
            for info in pkgutil.iter_modules(solver.__path__)
            for value in vars(importlib.import_module(f"{solver.__name__}.{info.name}")).values()
            if isinstance(value, CPUDispatcher)}  # once each, imported in many files

for blend in blends:
    bpy.ops.wm.open_mainfile(filepath=blend)
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    stats = bpy.context.scene.impulse
    print("PHASES", json.dumps({p: getattr(stats, f"last_{p}_seconds") for p in phases.split()}))
    print("LOADED", json.dumps(sorted(  # a variant taking the part tables marked ":parts"
        name + (":parts" if "Tables(" in str(signature) else "")
        for name, kernel in kernels().items() for signature in kernel.stats.cache_hits)))
if not blends:  # one kernel of each of two files
    import numpy as np
    linalg = importlib.import_module(extension + ".solver.linalg")
    integrate = importlib.import_module(extension + ".solver.integrate")
    linalg.norm(np.ones(3)), integrate.eigenvalue_bounds(np.eye(3))
print("KERNELS", json.dumps({
    "loaded": sum(sum(kernel.stats.cache_hits.values()) for kernel in kernels().values()),
    "compiled": sum(sum(kernel.stats.cache_misses.values()) for kernel in kernels().values())}))
"""


def _loaded_after_each_bake(printed: str) -> list[set[str]]:
    """The solver kernels ("module.function") loaded from the cache by the end of each bake."""
    return [set(json.loads(line.removeprefix("LOADED "))) for line in printed.splitlines()
            if line.startswith("LOADED ")]


def _bake_in_new_session(user: Path, install: Path | None, *blends: Path):
    """(what the session printed, each bake's phase times, solver kernels loaded and compiled)."""
    env = {k: v for k, v in os.environ.items() if k not in EXTENSION_NUMBA}
    env["BLENDER_USER_RESOURCES"] = str(user)
    command = [sys.executable, "-c", SESSION, str(install or ""), " ".join(PHASES),
               *map(str, blends)]
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("PHASES ")]
    kernels = next(line for line in done.stdout.splitlines() if line.startswith("KERNELS "))
    return (done.stdout, [json.loads(line.removeprefix("PHASES ")) for line in lines],
            json.loads(kernels.removeprefix("KERNELS ")))


def _cache_files(cache: Path) -> dict[str, int]:
    return {str(path): path.stat().st_mtime_ns for path in cache.rglob("*") if path.is_file()}


def _saved(path: Path) -> Path:
    bpy.ops.wm.save_as_mainfile(filepath=str(path), check_existing=False)
    return path


def _rewritten(archive: Path, target: Path, keep=lambda name: True, edit=None) -> Path:
    """A copy of the zip with only the members `keep` accepts, `edit` (name -> bytes) applied."""
    with zipfile.ZipFile(archive) as source, zipfile.ZipFile(target, "w") as copy:
        for item in source.infolist():
            if keep(item.filename):
                data = source.read(item)
                copy.writestr(item, edit(item.filename, data) if edit else data)
    return target


COMPILING, LOADING = "(compiling the solver (first use only) took ", "(loading the solver took "
USER_EXTENSION = ("extensions", "user_default", "impulse_bake")
USER_CACHE = ("extensions", ".user", "user_default", "impulse_bake", "cache", VERSION)


def test_the_first_bake_in_a_new_user_folder_loads_the_kernels_the_zip_ships(
        scene, extension_zip, tmp_path):
    small_scene()
    boxes = _saved(tmp_path / "drop.blend")
    user = tmp_path / "user"
    printed, phases, kernels = _bake_in_new_session(user, extension_zip, boxes)
    assert printed.count(LOADING) == 1 and COMPILING not in printed, printed
    assert kernels["loaded"] > 0 and kernels["compiled"] == 0, kernels
    assert phases[0]["compile"] > 0.0 and phases[0]["simulate"] > 0.0
    with zipfile.ZipFile(extension_zip) as opened:
        members = [name for name in opened.namelist() if not name.endswith("/")]
    shipped = {name.removeprefix(SHIPPED) for name in members if name.startswith(SHIPPED)}
    assert any(name.endswith(".nbi") for name in shipped)
    cache = user.joinpath(*USER_CACHE)
    copied = {p.relative_to(cache).as_posix() for p in cache.rglob("*") if p.is_file()}
    assert copied == shipped | {"shipped-kernels-copied"}
    installed = user.joinpath(*USER_EXTENSION)
    files = {p.relative_to(installed).as_posix() for p in installed.rglob("*")
             if p.is_file() and "__pycache__" not in p.parts}
    assert files <= set(members), "the extension's own folder got new files"


def test_shipped_kernels_of_changed_sources_are_not_used(extension_zip, tmp_path):
    """One solver file changed since the kernels were compiled: neither its kernels nor those of
    the other files (which may call it) are loaded; they compile."""
    def edit(name: str, data: bytes) -> bytes:
        return data + b"# changed\n" if name == "solver/linalg.py" else data

    changed = _rewritten(extension_zip, tmp_path / "changed.zip", edit=edit)
    printed, _phases, kernels = _bake_in_new_session(tmp_path / "user", changed)
    assert kernels == {"loaded": 0, "compiled": 2}, printed
    cache = (tmp_path / "user").joinpath(*USER_CACHE, "solver")
    assert {p.name.split("-")[0] for p in cache.glob("*.nbi")} == {"linalg.norm",
                                                                   "integrate.eigenvalue_bounds"}


def test_first_bakes_compile_what_they_need_and_later_sessions_load_the_cache(
        scene, extension_zip, tmp_path):
    """New Blender sessions on one new user folder, with a zip without shipped kernels (as the
    other platforms' are). A box scene's first bake compiles the kernels of boxes and spheres
    only; a cylinder's bake then compiles the rest, each saying how long it took. A later
    session loads them all from the cache (compiling none) and says so."""
    small_scene()
    boxes = _saved(tmp_path / "drop.blend")
    barrel = next(o for o in scene.objects if o.name == "Box")
    barrel.impulse.shape = "CYLINDER"
    barrel_blend = _saved(tmp_path / "barrel.blend")
    bare = _rewritten(extension_zip, tmp_path / "bare.zip",
                      keep=lambda name: not name.startswith("kernel_cache/"))
    user = tmp_path / "user"
    cache = user.joinpath(*USER_CACHE[:-1])

    printed, phases, _kernels = _bake_in_new_session(user, bare, boxes)
    assert printed.count(COMPILING) == 1, printed
    assert phases[0]["compile"] > 0.0 and phases[0]["simulate"] > 0.0
    box_kernels = _cache_files(cache)
    assert not any("parts" in name for name in box_kernels), "a box scene compiled shape kernels"

    printed, phases, _kernels = _bake_in_new_session(user, None, boxes, barrel_blend)
    assert printed.count(LOADING) == 1 and printed.count(COMPILING) == 1, printed
    assert phases[0]["compile"] > 0.0 and phases[1]["compile"] > 0.0
    every_kernel = _cache_files(cache)
    assert any("contacts_of_parts" in name for name in every_kernel)

    printed, phases, kernels = _bake_in_new_session(user, None, barrel_blend)
    assert printed.count(LOADING) == 1 and COMPILING not in printed, printed
    assert kernels["compiled"] == 0 and kernels["loaded"] > 0, kernels
    assert phases[0]["compile"] > 0.0
    assert _cache_files(cache) == every_kernel, "the last session compiled again"


def test_a_box_bake_loads_no_shape_kernel_and_a_cylinder_bake_after_loads_them(
        scene, extension_zip, tmp_path):
    """A new session with every kernel in its cache (the zip's shipped ones): a bake of boxes
    makes ready only the kernels of boxes and spheres (World.other_shapes is False), so none of
    the part-by-part narrow phase's is loaded; a cylinder's bake after it in the same session
    loads those, compiles nothing, and says both times that it loaded the solver."""
    small_scene()
    boxes = _saved(tmp_path / "drop.blend")
    barrel = next(o for o in scene.objects if o.name == "Box")
    barrel.impulse.shape = "CYLINDER"
    barrel_blend = _saved(tmp_path / "barrel.blend")
    printed, phases, kernels = _bake_in_new_session(tmp_path / "user", extension_zip, boxes,
                                                    barrel_blend)
    after_boxes, after_barrel = _loaded_after_each_bake(printed)
    assert "contact_rows.collide_rows" in after_boxes  # the narrow phase of boxes and spheres
    parts = {"contact_rows.collide_rows:parts", "toi._all_times:parts", "gjk.separation"}
    assert not parts & after_boxes, after_boxes
    assert "contact_rows.collide_rows:parts" in after_barrel and after_boxes < after_barrel
    assert kernels["compiled"] == 0, kernels
    assert printed.count(LOADING) == 2 and COMPILING not in printed, printed
    assert phases[0]["compile"] > 0.0 and phases[1]["compile"] > 0.0
