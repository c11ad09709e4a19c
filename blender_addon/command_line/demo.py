"""The bundled demo scene: three classic rigid-body set-ups that show what Impulse bakes.

Built from code (not shipped as a .blend) so it always matches the current data model: a row of
dominoes knocked over by a rolling sphere, a stack of boxes hit by a heavy sliding block, and a
rubber ball bouncing down a ramp, on a ground slab, with a camera and a sun for the picture.
Meshes are made at their real size (object scale 1) so what you see is what collides.
"""

import math

import bmesh
import bpy
from mathutils import Euler, Matrix, Vector

FRAME_START = 1
FRAME_END = 120

DOMINO_SIZE = (0.08, 0.25, 0.5)
DOMINO_COUNT = 10
DOMINO_SPACING = 0.3
STACK_BOX = 0.5
RAMP_TILT = math.radians(25.0)


def _box_mesh(name: str, size: tuple[float, float, float]) -> bpy.types.Mesh:
    mesh = bpy.data.meshes.new(name)
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Diagonal((*size, 1.0)))
    bm.to_mesh(mesh)
    bm.free()
    return mesh


def _sphere_mesh(name: str, radius: float) -> bpy.types.Mesh:
    mesh = bpy.data.meshes.new(name)
    bm = bmesh.new()
    bmesh.ops.create_uvsphere(bm, u_segments=24, v_segments=12, radius=radius)
    bm.to_mesh(mesh)
    bm.free()
    mesh.shade_smooth()
    return mesh


def _body(
    scene: bpy.types.Scene,
    name: str,
    mesh: bpy.types.Mesh,
    location: tuple[float, float, float],
    color: tuple[float, float, float],
    **settings: object,
) -> bpy.types.Object:
    """Link a mesh object and mark it as an Impulse body with the given `object.impulse` values."""
    obj = bpy.data.objects.new(name, mesh)
    obj.location = location
    obj.color = (*color, 1.0)  # type: ignore[assignment]  # stubs: arrays take tuples
    scene.collection.objects.link(obj)
    body = obj.impulse  # type: ignore[attr-defined]  # registered at run time by properties.py
    body.enabled = True
    for key, value in settings.items():
        setattr(body, key, value)
    return obj


def _dominoes(scene: bpy.types.Scene) -> None:
    mesh = _box_mesh("Domino", DOMINO_SIZE)
    for i in range(DOMINO_COUNT):
        x = 0.4 + i * DOMINO_SPACING
        _body(scene, f"Domino.{i:02d}", mesh, (x, -3.0, DOMINO_SIZE[2] / 2),
              (0.93, 0.90, 0.82), density=700.0, friction=0.5, restitution=0.1)
    _body(scene, "Rolling Sphere", _sphere_mesh("Rolling Sphere", 0.3), (-1.5, -3.0, 0.3),
          (0.85, 0.25, 0.2), shape="SPHERE", mass_mode="MASS", mass=8.0, restitution=0.2,
          friction=0.4, initial_linear_velocity=(3.5, 0.0, 0.0),
          initial_angular_velocity=(0.0, 3.5 / 0.3, 0.0))


def _stack(scene: bpy.types.Scene) -> None:
    mesh = _box_mesh("Stack Box", (STACK_BOX,) * 3)
    rows = ((-0.51, 0.0, 0.51), (-0.255, 0.255), (0.0,))
    for level, offsets in enumerate(rows):
        for i, y in enumerate(offsets):
            z = STACK_BOX / 2 + level * STACK_BOX
            _body(scene, f"Stack.{level}{i}", mesh, (2.0, y, z), (0.35, 0.55, 0.85),
                  density=300.0, friction=0.6, restitution=0.2)
    _body(scene, "Heavy Block", _box_mesh("Heavy Block", (0.8, 0.6, 0.6)), (-1.0, 0.0, 0.3),
          (0.3, 0.3, 0.32), mass_mode="MASS", mass=300.0, friction=0.3, restitution=0.1,
          initial_linear_velocity=(6.0, 0.0, 0.0))


def _ramp(scene: bpy.types.Scene) -> None:
    ramp = _body(scene, "Ramp", _box_mesh("Ramp", (4.0, 1.5, 0.2)), (1.5, 3.0, 1.0),
                 (0.55, 0.45, 0.35), body_type="PASSIVE", friction=0.6, restitution=0.6)
    ramp.rotation_euler = Euler((0.0, RAMP_TILT, 0.0))
    _body(scene, "Bouncing Ball", _sphere_mesh("Bouncing Ball", 0.25), (-0.2, 3.0, 3.5),
          (0.95, 0.75, 0.1), shape="SPHERE", density=1100.0, restitution=0.85, friction=0.8)


def _stage(scene: bpy.types.Scene) -> None:
    """Ground slab (top face at z = 0), camera, sun and flat-shaded look for the contact sheet."""
    _body(scene, "Ground", _box_mesh("Ground", (40.0, 40.0, 0.2)), (1.0, 0.0, -0.1),
          (0.6, 0.62, 0.6), body_type="PASSIVE", friction=0.5, restitution=0.5)
    camera = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    camera.location = (9.0, -9.0, 5.0)
    aim = Vector((2.2, 0.0, 0.6)) - camera.location
    camera.rotation_euler = aim.to_track_quat("-Z", "Y").to_euler()
    camera.data.lens = 26.0
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", type="SUN"))
    sun.rotation_euler = Euler((math.radians(40.0), math.radians(15.0), math.radians(30.0)))
    for obj in (camera, sun):
        scene.collection.objects.link(obj)
    scene.camera = camera
    scene.world = scene.world or bpy.data.worlds.new("World")
    scene.world.color = (0.05, 0.06, 0.08)
    scene.display.shading.color_type = "OBJECT"
    scene.display.shading.show_shadows = True


def build(scene: bpy.types.Scene) -> list[bpy.types.Object]:
    """Fill `scene` with the demo set-ups and set its frame range; return the Impulse bodies."""
    scene.frame_start, scene.frame_end = FRAME_START, FRAME_END
    scene.render.fps, scene.render.fps_base = 24, 1.0
    _dominoes(scene)
    _stack(scene)
    _ramp(scene)
    _stage(scene)
    return [obj for obj in scene.objects if obj.impulse.enabled]  # type: ignore[attr-defined]
