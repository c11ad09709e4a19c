"""The bundled demo scene: classic rigid-body set-ups that show what Impulse bakes.

Built from code (not shipped as a .blend) so it always matches the current data model: a row of
dominoes knocked over by a rolling sphere, a stack of boxes hit by a heavy sliding block, a
rubber ball and Suzanne (a convex hull) coming down a curved ramp (a passive triangle mesh), a
barrel (a cylinder) rolling across the floor and a chair (a compound of seat, back and four
legs) dropped onto its legs, on a ground slab, with a camera and a sun for the picture.
Meshes are made at their real size (object scale 1) so what you see is what collides.
"""

import math
from collections.abc import Callable

import bmesh
import bpy
from mathutils import Euler, Matrix, Vector

FRAME_START = 1
FRAME_END = 120

DOMINO_SIZE = (0.08, 0.25, 0.5)
DOMINO_COUNT = 10
DOMINO_SPACING = 0.3
STACK_BOX = 0.5
RAMP_START, RAMP_LENGTH, RAMP_HEIGHT, RAMP_WIDTH = -0.8, 4.4, 2.2, 2.6
"""The ramp's top follows z = height (1 - s)², s from 0 at x = start to 1 at start + length."""
RAMP_Y = 3.2
BARREL_RADIUS, BARREL_HALF_LENGTH, BARREL_SPEED = 0.3, 0.4, 1.5
CHAIR_SEAT = (0.46, 0.46, 0.05)
CHAIR_LEG = (0.04, 0.04, 0.42)
CHAIR_BACK = (0.46, 0.04, 0.5)
CHAIR_DROP = 0.3
"""Height of the chair's feet above the ground at the start (before it tips 6°)."""


def _mesh(name: str, build: Callable[[bmesh.types.BMesh], object],
          smooth: bool = False) -> bpy.types.Mesh:
    """A new mesh datablock from a bmesh that `build` fills."""
    mesh = bpy.data.meshes.new(name)
    bm = bmesh.new()
    build(bm)
    bm.to_mesh(mesh)
    bm.free()
    if smooth:
        mesh.shade_smooth()
    return mesh


def _box_mesh(name: str, size: tuple[float, float, float]) -> bpy.types.Mesh:
    return _mesh(name, lambda bm: bmesh.ops.create_cube(
        bm, size=1.0, matrix=Matrix.Diagonal((*size, 1.0))))


def _sphere_mesh(name: str, radius: float) -> bpy.types.Mesh:
    return _mesh(name, lambda bm: bmesh.ops.create_uvsphere(
        bm, u_segments=24, v_segments=12, radius=radius), smooth=True)


def _cylinder_mesh(name: str, radius: float, half_length: float) -> bpy.types.Mesh:
    """A closed cylinder along local z, centred on the origin."""
    return _mesh(name, lambda bm: bmesh.ops.create_cone(
        bm, cap_ends=True, segments=24, radius1=radius, radius2=radius,
        depth=2.0 * half_length))


def _monkey_mesh(name: str, scale: float) -> bpy.types.Mesh:
    return _mesh(name, lambda bm: bmesh.ops.create_monkey(bm, matrix=Matrix.Scale(scale, 4)),
                 smooth=True)


def ramp_height(x: float) -> float:
    """Height of the ramp's top surface at `x` (0 beyond its foot)."""
    s = min(max((x - RAMP_START) / RAMP_LENGTH, 0.0), 1.0)
    return RAMP_HEIGHT * (1.0 - s) ** 2


def _ramp_mesh(name: str, segments: int = 24) -> bpy.types.Mesh:
    """A closed solid: the curved top, a flat bottom on the ground, two sides and a back wall,
    in the object's frame (origin on the ground below the top's start, width along y)."""
    xs = [RAMP_LENGTH * i / segments for i in range(segments + 1)]
    profile = [(x, ramp_height(RAMP_START + x)) for x in xs]
    half = RAMP_WIDTH / 2
    vertices = [(x, y, z) for y in (-half, half) for x, z in profile]
    vertices += [(0.0, -half, 0.0), (0.0, half, 0.0)]  # the back wall's foot
    n = segments + 1
    back_left, back_right = 2 * n, 2 * n + 1
    faces = [(i, i + 1, n + i + 1, n + i) for i in range(segments)]  # the curved top
    faces.append((*range(n - 1, -1, -1), back_left))  # side at -y
    faces.append((*range(n, 2 * n), back_right))  # side at +y
    faces.append((0, n, back_right, back_left))  # back wall
    faces.append((back_left, back_right, 2 * n - 1, n - 1))  # bottom
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(vertices, [], faces)
    bm = bmesh.new()
    bm.from_mesh(mesh)
    bmesh.ops.recalc_face_normals(bm, faces=list(bm.faces))
    bm.to_mesh(mesh)
    bm.free()
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
    """The curved ramp, the ball bouncing down it and Suzanne tumbling down beside the ball."""
    _body(scene, "Ramp", _ramp_mesh("Ramp"), (RAMP_START, RAMP_Y, 0.0), (0.55, 0.45, 0.35),
          body_type="PASSIVE", shape="MESH", friction=0.6, restitution=0.6)
    _body(scene, "Bouncing Ball", _sphere_mesh("Bouncing Ball", 0.25), (-0.2, RAMP_Y + 0.6, 3.5),
          (0.95, 0.75, 0.1), shape="SPHERE", density=1100.0, restitution=0.85, friction=0.8)
    suzanne = _body(scene, "Suzanne", _monkey_mesh("Suzanne", 0.5),
                    (0.0, RAMP_Y - 0.6, ramp_height(0.0) + 0.8), (0.6, 0.4, 0.75),
                    shape="CONVEX_HULL", density=500.0, friction=0.5, restitution=0.3)
    suzanne.rotation_euler = Euler((math.radians(20.0), 0.0, math.radians(-70.0)))


def _barrel(scene: bpy.types.Scene) -> None:
    """A barrel lying across the floor (axis along y), rolling along +x without slipping."""
    barrel = _body(scene, "Barrel", _cylinder_mesh("Barrel", BARREL_RADIUS, BARREL_HALF_LENGTH),
                   (-1.5, -4.6, BARREL_RADIUS), (0.6, 0.35, 0.15), shape="CYLINDER",
                   density=600.0, friction=0.6, restitution=0.2,
                   initial_linear_velocity=(BARREL_SPEED, 0.0, 0.0),
                   initial_angular_velocity=(0.0, BARREL_SPEED / BARREL_RADIUS, 0.0))
    barrel.rotation_euler = Euler((math.radians(90.0), 0.0, 0.0))


def _chair(scene: bpy.types.Scene) -> None:
    """A chair as one compound body: its parts (seat, back, legs) are the enabled children of a
    mesh without geometry, which holds the body's settings and gets the keys, as a Compound
    Parent does in Blender's own rigid body world."""
    chair = bpy.data.objects.new("Chair", bpy.data.meshes.new("Chair"))
    chair.location = (4.6, -1.6, CHAIR_DROP + CHAIR_LEG[2])  # the seat's underside
    chair.rotation_euler = Euler((0.0, math.radians(6.0), math.radians(15.0)))
    scene.collection.objects.link(chair)
    body = chair.impulse  # type: ignore[attr-defined]  # registered at run time by properties.py
    body.enabled, body.shape = True, "COMPOUND"
    body.density, body.friction, body.restitution = 600.0, 0.6, 0.2
    inset_x = CHAIR_SEAT[0] / 2 - CHAIR_LEG[0] / 2
    inset_y = CHAIR_SEAT[1] / 2 - CHAIR_LEG[1] / 2
    leg_mesh = _box_mesh("Chair Leg", CHAIR_LEG)
    parts = [("Chair Seat", _box_mesh("Chair Seat", CHAIR_SEAT), (0.0, 0.0, CHAIR_SEAT[2] / 2))]
    parts += [(f"Chair Leg.{i}", leg_mesh, (sx * inset_x, sy * inset_y, -CHAIR_LEG[2] / 2))
              for i, (sx, sy) in enumerate(((-1, -1), (1, -1), (1, 1), (-1, 1)))]
    parts.append(("Chair Back", _box_mesh("Chair Back", CHAIR_BACK),
                  (0.0, inset_y, CHAIR_SEAT[2] + CHAIR_BACK[2] / 2)))
    for name, mesh, offset in parts:
        part = bpy.data.objects.new(name, mesh)
        part.parent = chair
        part.location = offset
        part.color = (0.3, 0.6, 0.35, 1.0)  # type: ignore[assignment]  # stubs: arrays take tuples
        scene.collection.objects.link(part)
        part.impulse.enabled, part.impulse.shape = True, "BOX"  # type: ignore[attr-defined]


def _stage(scene: bpy.types.Scene) -> None:
    """Ground slab (top face at z = 0), camera, sun and flat-shaded look for the contact sheet."""
    _body(scene, "Ground", _box_mesh("Ground", (40.0, 40.0, 0.2)), (1.0, 0.0, -0.1),
          (0.6, 0.62, 0.6), body_type="PASSIVE", friction=0.5, restitution=0.5)
    camera = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    camera.location = (6.5, -9.5, 5.0)
    aim = Vector((1.0, 0.0, 0.8)) - camera.location
    camera.rotation_euler = aim.to_track_quat("-Z", "Y").to_euler()
    camera.data.lens = 33.0
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
    """Fill `scene` with the demo set-ups and set its frame range; return the Impulse bodies
    (a compound's parts included)."""
    scene.frame_start, scene.frame_end = FRAME_START, FRAME_END
    scene.render.fps, scene.render.fps_base = 24, 1.0
    _dominoes(scene)
    _stack(scene)
    _ramp(scene)
    _barrel(scene)
    _chair(scene)
    _stage(scene)
    return [obj for obj in scene.objects if obj.impulse.enabled]  # type: ignore[attr-defined]
