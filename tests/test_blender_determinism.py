"""The same scene baked in two fresh Blender processes gives bit-identical keys (render farms
bake a shot again and expect the same frames).

Blender does not keep a mesh's face order from one session to the next: bmesh's
create_uvsphere, run in two processes, stores the same faces in different orders. Each child
here builds the same scene in code (a sphere rolling into a row of dominoes, chaotic enough
that a last-bit difference reaches the keys within a second), the second with the sphere's
faces in reverse order, so the test does not depend on which order Blender happens to pick.
The children also run under different hash seeds, and each bakes with the Bake operator.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

DOMINOES = 6
# A new Blender session: enable Impulse, build the scene, press Bake, save every F-curve's
# keys (frames and values, in a fixed order) as one array.
SESSION = """
import importlib, sys
import bpy
import bmesh
import numpy as np
from mathutils import Matrix
out, face_order = sys.argv[1:]
importlib.import_module("addon_utils").enable("bl_ext.user_default.impulse_bake")
bpy.ops.wm.read_homefile(use_empty=True)
scene = bpy.context.scene
scene.frame_start, scene.frame_end = 1, 48


def body(name, build, location, **settings):
    bm = bmesh.new()
    build(bm)
    if face_order == "reversed":
        bm.faces.sort(key=lambda face: -face.index)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new(name, mesh)
    obj.location = location
    scene.collection.objects.link(obj)
    obj.impulse.enabled = True
    for key, value in settings.items():
        setattr(obj.impulse, key, value)


def box(size):
    return lambda bm: bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Diagonal((*size, 1.0)))


body("Ground", box((6.0, 3.0, 0.2)), (1.0, 0.0, -0.1), body_type="PASSIVE")
for i in range(DOMINOES):
    body(f"Domino.{i}", box((0.08, 0.25, 0.5)), (0.4 + 0.3 * i, 0.0, 0.25), density=700.0,
         friction=0.5, restitution=0.1)
body("Sphere", lambda bm: bmesh.ops.create_uvsphere(bm, u_segments=24, v_segments=12,
                                                     radius=0.3),
     (-0.5, 0.0, 0.3), shape="SPHERE", mass_mode="MASS", mass=8.0, friction=0.4,
     restitution=0.2, initial_linear_velocity=(3.5, 0.0, 0.0),
     initial_angular_velocity=(0.0, 3.5 / 0.3, 0.0))
assert bpy.ops.impulse.bake() == {"FINISHED"}
keys = []
for obj in sorted(scene.objects, key=lambda obj: obj.name):
    animation = obj.animation_data
    if animation is None or animation.action is None:
        continue
    curves = animation.action.layers[0].strips[0].channelbag(animation.action_slot).fcurves
    for curve in sorted(curves, key=lambda curve: (curve.data_path, curve.array_index)):
        co = np.empty(2 * len(curve.keyframe_points), dtype=np.float32)
        curve.keyframe_points.foreach_get("co", co)
        keys.append(co)
np.save(out, np.stack(keys))
""".replace("DOMINOES", str(DOMINOES))


def _bake_in_new_session(out: Path, face_order: str, hash_seed: str) -> np.ndarray:
    """The keys a fresh Blender (this session's user folder, so its JIT cache) bakes."""
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    done = subprocess.run([sys.executable, "-c", SESSION, str(out), face_order],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return np.load(out)


def test_two_fresh_processes_bake_bit_identical_keys(impulse, tmp_path):
    kernels = impulse.blender_addon.baking.kernels
    kernels.make_ready(other_shapes=False)  # compiled here once, loaded by both children

    first = _bake_in_new_session(tmp_path / "first.npy", "as built", "1")
    second = _bake_in_new_session(tmp_path / "second.npy", "reversed", "2")

    # the dominoes and the sphere (by name) x (3 location + 3 rotation) curves; 48 keys each
    # of (frame, value).
    assert first.shape == ((DOMINOES + 1) * 6, 2 * 48)
    last_domino = first[:, 1::2].reshape(DOMINOES + 1, 6, 48)[DOMINOES - 1]
    assert np.ptp(last_domino[3:], axis=1).max() > 1.0  # it fell: turned by more than 1 rad
    assert first.tobytes() == second.tobytes(), (
        f"{np.count_nonzero(first != second)} key values differ, "
        f"by up to {np.abs(first - second).max():.3g}")


def test_triangles_are_read_in_one_order_whatever_order_blender_stores(impulse):
    canonical = impulse.blender_addon.reading.shapes.canonical_triangles
    rng = np.random.default_rng(7)
    triangles = np.array([[0, 1, 2], [2, 1, 3], [3, 1, 4], [4, 1, 0], [0, 2, 4], [4, 2, 3]])
    shuffled = triangles[rng.permutation(len(triangles))]
    starts = np.array([1, 2, 0, 1, 2, 0])  # each triangle read from another corner
    turned = np.take_along_axis(shuffled, (starts[:, None] + np.arange(3)) % 3, axis=1)

    result = canonical(turned)
    assert np.array_equal(result, canonical(triangles))
    assert np.array_equal(result[:, 0], result.min(axis=1))  # each starts at its least index
    assert np.array_equal(result, result[np.lexsort(result.T[::-1])])  # rows sorted

    def directed_edges(rows):  # the winding: which way round each triangle goes
        return sorted(map(tuple, np.concatenate([rows[:, [0, 1]], rows[:, [1, 2]],
                                                 rows[:, [2, 0]]]).tolist()))

    assert directed_edges(result) == directed_edges(triangles)
