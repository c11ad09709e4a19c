"""Collision shapes beyond the box in real Blender: fitting, defaults, errors, panel, overlay.

Fits are checked against the primitives Blender made (their radius and depth are known); every
mesh is turned and scaled first, so an axis found by luck (the object's own z) would not pass.
"""

import math

import bpy
import numpy as np
import pytest

from tests.blender_helpers import cube, select, transform
from tests.test_blender_preview import settle

TURN = (0.4, -0.7, 1.1)  # an arbitrary rotation (Euler XYZ, radians)


def add(*objects, body_type="ACTIVE", **settings):
    select(*objects)
    assert bpy.ops.impulse.add_bodies(body_type=body_type) == {"FINISHED"}
    for obj in objects:
        for name, value in settings.items():
            setattr(obj.impulse, name, value)


def fit(impulse, obj, up=None):
    """(mesh points, shape) as the bake fits them, Blender units."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    return impulse.blender_addon.reading.fitting.fit_body(obj, depsgraph, 1.0, up)


def axis_of(shape) -> np.ndarray:
    """The shape's local z in world axes."""
    w, x, y, z = shape.orientation
    return np.array([2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)])


def local_z(obj) -> np.ndarray:
    bpy.context.view_layer.update()
    axis = np.array(obj.matrix_world.to_3x3().col[2])
    return axis / np.linalg.norm(axis)


def world_vertices(obj) -> np.ndarray:
    bpy.context.view_layer.update()
    matrix = np.array(obj.matrix_world)
    local = np.array([v.co for v in obj.data.vertices])
    return local @ matrix[:3, :3].T + matrix[:3, 3]


def capsule_mesh(radius: float, half_height: float, location=(0.0, 0.0, 0.0)):
    """A UV sphere cut at its equator and pulled apart by 2 h: a closed capsule mesh."""
    bpy.ops.mesh.primitive_uv_sphere_add(radius=radius, segments=32, ring_count=16,
                                         location=location)
    obj = bpy.context.active_object
    for vertex in obj.data.vertices:
        vertex.co.z += math.copysign(half_height, vertex.co.z) if abs(vertex.co.z) > 1e-6 else 0
    obj.data.update()
    return obj


@pytest.mark.parametrize(("radius", "depth"), [(0.4, 3.0), (1.0, 2.0), (1.5, 0.5)])
def test_cylinder_is_fitted_along_its_axis(scene, impulse, radius, depth):
    # (1.0, 2.0) is as tall as wide: its box is a cube, only the fitted volume finds the axis.
    bpy.ops.mesh.primitive_cylinder_add(radius=radius, depth=depth, vertices=64, rotation=TURN,
                                        location=(1.0, 2.0, 3.0))
    can = bpy.context.active_object
    can.scale = (2.0, 2.0, 2.0)
    can.impulse.shape = "CYLINDER"
    _points, shape = fit(impulse, can)
    assert shape.kind == "cylinder"
    assert shape.size == pytest.approx((2 * radius, depth), rel=0.01)
    assert abs(axis_of(shape) @ local_z(can)) == pytest.approx(1.0, abs=1e-6)
    assert shape.center == pytest.approx([1.0, 2.0, 3.0], abs=1e-5)


@pytest.mark.parametrize(("radius", "depth"), [(0.5, 1.2), (0.4, 0.5)])
def test_cone_points_its_apex_along_the_mesh(scene, impulse, radius, depth):
    # (0.4, 0.5) is squat: its smallest box is tilted off the axis, and thicker than it is.
    bpy.ops.mesh.primitive_cone_add(radius1=radius, depth=depth, vertices=48, rotation=TURN)
    cone = bpy.context.active_object
    cone.impulse.shape = "CONE"
    _points, shape = fit(impulse, cone)
    assert shape.size == pytest.approx((radius, depth / 2), rel=0.01)
    assert axis_of(shape) @ local_z(cone) == pytest.approx(1.0, abs=1e-6)  # apex at +z


def test_capsule_radius_and_half_height(scene, impulse):
    pill = capsule_mesh(0.3, 0.5)
    pill.rotation_euler = TURN
    pill.impulse.shape = "CAPSULE"
    _points, shape = fit(impulse, pill)
    assert shape.kind == "capsule"
    assert shape.size == pytest.approx((0.3, 0.5), rel=0.01)
    assert abs(axis_of(shape) @ local_z(pill)) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize(("make", "expected"), [
    (lambda: bpy.ops.mesh.primitive_ico_sphere_add(radius=0.5), "SPHERE"),
    (lambda: bpy.ops.mesh.primitive_uv_sphere_add(radius=0.5), "SPHERE"),
    (lambda: bpy.ops.mesh.primitive_cylinder_add(rotation=TURN), "CYLINDER"),
    (lambda: bpy.ops.mesh.primitive_cone_add(), "CONE"),
    (lambda: capsule_mesh(0.3, 0.6), "CAPSULE"),
    (lambda: bpy.ops.mesh.primitive_cube_add(rotation=TURN), "BOX"),
    (lambda: bpy.ops.mesh.primitive_monkey_add(), "BOX"),
    (lambda: bpy.ops.mesh.primitive_plane_add(), "BOX"),
])
def test_new_bodies_get_the_primitive_they_are(scene, make, expected):
    make()
    obj = bpy.context.active_object
    add(obj)
    assert obj.impulse.shape == expected


def test_a_chosen_shape_is_kept_when_added_again(scene):
    bpy.ops.mesh.primitive_ico_sphere_add()
    ball = bpy.context.active_object
    add(ball)
    ball.impulse.shape = "CONVEX_HULL"
    ball.impulse.enabled = False
    add(ball)
    assert ball.impulse.shape == "CONVEX_HULL"


def test_suzanne_hull_points_are_its_vertices(scene, impulse):
    bpy.ops.mesh.primitive_monkey_add(rotation=TURN, location=(0.0, 1.0, 2.0))
    monkey = bpy.context.active_object
    monkey.impulse.shape = "CONVEX_HULL"
    _points, shape = fit(impulse, monkey)
    assert shape.kind == "hull"
    q = impulse.solver.quaternion.to_matrix(shape.orientation)
    world = shape.points @ q.T + shape.center
    vertices = world_vertices(monkey)
    distance = np.linalg.norm(world[:, None] - vertices[None], axis=2)
    assert distance.min(axis=0).max() < 1e-6  # every vertex is a hull point
    assert distance.min(axis=1).max() < 1e-6  # and nothing else is
    assert len(world) == len(np.unique(vertices.round(6), axis=0))


def test_mesh_shape_keeps_every_triangle(scene, impulse):
    bpy.ops.mesh.primitive_torus_add(rotation=TURN)
    ring = bpy.context.active_object
    add(ring, body_type="PASSIVE", shape="MESH")
    points, shape = fit(impulse, ring, up=np.array([0.0, 0.0, 1.0]))
    q = impulse.solver.quaternion.to_matrix(shape.orientation)
    assert np.allclose(shape.points @ q.T + shape.center, points.vertices, atol=1e-9)
    assert np.array_equal(shape.triangles, points.triangles)
    assert len(shape.triangles) == len(ring.data.polygons) * 2


def test_an_active_mesh_body_is_refused_and_nothing_changes(scene):
    bpy.ops.mesh.primitive_torus_add(location=(0.0, 0.0, 2.0))
    ring = bpy.context.active_object
    add(ring, shape="MESH")
    before = transform(ring)
    with pytest.raises(RuntimeError, match=r"Mesh is for passive bodies.*'?Torus.*Convex Hull"):
        bpy.ops.impulse.bake()
    assert transform(ring) == before
    assert ring.animation_data is None
    assert scene.impulse.last_bodies == 0


def chair():
    """A compound: an empty mesh parent, a seat and two legs as its child bodies."""
    parent = bpy.data.objects.new("Chair", bpy.data.meshes.new("Chair"))
    bpy.context.collection.objects.link(parent)
    parent.location = (0.0, 0.0, 1.0)
    parent.rotation_euler = (0.0, 0.0, 0.5)
    seat = cube("Seat", size=1.0)
    seat.scale = (1.0, 1.0, 0.1)
    legs = []
    for x in (-0.4, 0.4):
        bpy.ops.mesh.primitive_cylinder_add(radius=0.05, depth=0.8, location=(x, 0.0, -0.45))
        legs.append(bpy.context.active_object)
    for child in (seat, *legs):
        child.parent = parent
    add(seat, *legs)
    add(parent, shape="COMPOUND")
    return parent, seat, legs


def test_compound_parts_are_its_child_bodies_in_its_frame(scene, impulse):
    parent, _seat, legs = chair()
    assert [leg.impulse.shape for leg in legs] == ["CYLINDER", "CYLINDER"]
    _points, shape = fit(impulse, parent)
    assert shape.kind == "compound"
    assert shape.center == pytest.approx([0.0, 0.0, 1.0])
    kinds = sorted(part.kind for part in shape.parts)
    assert kinds == ["box", "cylinder", "cylinder"]
    centres = np.array(sorted(tuple(np.round(part.center, 6)) for part in shape.parts))
    assert np.allclose(centres, [(-0.4, 0.0, -0.45), (0.0, 0.0, 0.0), (0.4, 0.0, -0.45)],
                       atol=1e-6)
    legs_fit = [p for p in shape.parts if p.kind == "cylinder"]
    assert np.allclose([p.size for p in legs_fit], [(0.05, 0.4)] * 2, rtol=0.01)


def test_compound_without_children_and_with_a_mesh_part_are_errors(scene):
    box = cube("Lonely", location=(0.0, 0.0, 2.0))
    add(box, shape="COMPOUND")
    with pytest.raises(RuntimeError, match="Compound 'Lonely' has no child bodies"):
        bpy.ops.impulse.bake()
    child = cube("Part", location=(0.0, 0.0, 2.0))
    child.parent = box
    add(child, shape="MESH")
    with pytest.raises(RuntimeError, match="'Part' is a Mesh part of compound 'Lonely'"):
        bpy.ops.impulse.bake()
    assert box.animation_data is None and child.animation_data is None


def test_copy_to_selected_and_presets_carry_the_shape(scene):
    source, target, other = cube("Source"), cube("Target", (3, 0, 0)), cube("Other", (6, 0, 0))
    add(source, target, other)
    source.impulse.shape = "CYLINDER"
    select(source, target, active=source)
    assert bpy.ops.impulse.copy_settings() == {"FINISHED"}
    assert target.impulse.shape == "CYLINDER"
    select(source)
    assert bpy.ops.impulse.add_preset(name="Barrel") == {"FINISHED"}
    try:
        select(other)
        assert bpy.ops.impulse.apply_preset(name="Barrel") == {"FINISHED"}
        assert other.impulse.shape == "CYLINDER"
    finally:
        bpy.ops.impulse.add_preset(name="Barrel", remove_name=True)


def test_body_panel_compares_volumes_and_suggests_a_hull(scene, impulse):
    panels = impulse.ui.panels
    depsgraph = bpy.context.evaluated_depsgraph_get()
    box = cube("Box")
    add(box)
    assert panels.fit_lines(box, depsgraph, scene) == [
        ("Shape volume 8 m³, mesh 8 m³ (100 %)", "MESH_DATA")]
    bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=3, location=(5.0, 0.0, 0.0))
    ball = bpy.context.active_object  # 1280 faces: its hull is simplified
    add(ball, shape="BOX")
    lines = panels.fit_lines(ball, bpy.context.evaluated_depsgraph_get(), scene)
    assert lines[0][0].startswith("Shape volume")
    ratio = float(lines[0][0].split("(")[1].split(" %")[0]) / 100.0
    assert ratio > panels.POOR_FIT
    assert lines[1] == ("The Box fills the mesh poorly: try Convex Hull", "INFO")
    ball.impulse.shape = "CONVEX_HULL"
    lines = panels.fit_lines(ball, bpy.context.evaluated_depsgraph_get(), scene)
    ratio = float(lines[0][0].split("(")[1].split(" %")[0]) / 100.0
    assert 1.0 < ratio < panels.POOR_FIT  # the hull hugs the mesh
    assert lines[1][0].startswith("Hull simplified to 64 faces: up to ")
    ball.impulse.shape = "MESH"
    lines = panels.fit_lines(ball, bpy.context.evaluated_depsgraph_get(), scene)
    assert lines == [("Mesh is for passive bodies: use Convex Hull or Compound", "ERROR")]


def test_overlay_grows_a_flipped_passive_ground_downwards(scene, impulse):
    bpy.ops.mesh.primitive_plane_add(size=4.0, rotation=(math.pi, 0.0, 0.0))  # faces look down
    ground = bpy.context.active_object
    add(ground, body_type="PASSIVE")
    lines = impulse.ui.overlay.collision_lines([ground], bpy.context.evaluated_depsgraph_get())
    assert lines[:, 2].max() == pytest.approx(0.0, abs=1e-6)
    assert lines[:, 2].min() == pytest.approx(-0.04, abs=1e-6)  # 1 % of the 4 m plane


def cylinder():
    bpy.ops.mesh.primitive_cylinder_add(radius=0.5, depth=2.0, location=(0.0, 0.0, 3.0))


def cone():
    bpy.ops.mesh.primitive_cone_add(radius1=0.5, depth=2.0, location=(0.0, 0.0, 3.0))


# (mesh, shape, top of the shape above its mesh's centre)
DRAWN = {"CAPSULE": (cylinder, 1.5), "CYLINDER": (cylinder, 1.0), "CONE": (cone, 1.0),
         "MESH": (cylinder, 1.0)}


@pytest.mark.parametrize("shape", sorted(DRAWN))
def test_overlay_draws_every_shape_kind_on_its_fit(scene, impulse, shape):
    make, top = DRAWN[shape]
    make()
    obj = bpy.context.active_object
    add(obj, body_type="PASSIVE", shape=shape)
    lines = impulse.ui.overlay.collision_lines([obj], bpy.context.evaluated_depsgraph_get())
    assert len(lines) >= 24 and len(lines) % 2 == 0
    assert lines[:, 2].max() == pytest.approx(3.0 + top, abs=1e-4)
    assert lines[:, 2].min() == pytest.approx(3.0 - top, abs=1e-4)
    assert np.hypot(lines[:, 0], lines[:, 1]).max() == pytest.approx(0.5, abs=1e-4)



def lowest_point(obj) -> float:
    """The lowest z of the object's evaluated mesh, in world space."""
    bpy.context.view_layer.update()
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = obj.evaluated_get(depsgraph)
    matrix = np.array(evaluated.matrix_world)
    mesh = evaluated.to_mesh()
    local = np.array([v.co for v in mesh.vertices])
    evaluated.to_mesh_clear()
    return float((local @ matrix[:3, :3].T + matrix[:3, 3])[:, 2].min())


def bake(frames: int) -> set:
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frames
    return bpy.ops.impulse.bake()


def floor(shape="BOX"):
    """A passive ground whose top is the plane z = 0: a slab, or a tessellated grid as Mesh."""
    if shape == "MESH":
        bpy.ops.mesh.primitive_grid_add(x_subdivisions=20, y_subdivisions=20, size=20.0)
        ground = bpy.context.active_object
    else:
        ground = cube("Floor", location=(0.0, 0.0, -0.5), size=1.0)
        ground.scale = (20.0, 20.0, 1.0)
    add(ground, body_type="PASSIVE", shape=shape, restitution=0.0)
    return ground


# Meshes dropped onto the floor, each with the shape that fits it (made upright, so it rests).
DROPPED = {
    "BOX": lambda: bpy.ops.mesh.primitive_cube_add(size=0.5),
    "SPHERE": lambda: bpy.ops.mesh.primitive_uv_sphere_add(radius=0.3, segments=48,
                                                          ring_count=24),
    "CAPSULE": lambda: capsule_mesh(0.2, 0.3),
    "CYLINDER": lambda: bpy.ops.mesh.primitive_cylinder_add(radius=0.3, depth=0.5),
    "CONE": lambda: bpy.ops.mesh.primitive_cone_add(radius1=0.4, depth=0.5),
    "CONVEX_HULL": lambda: bpy.ops.mesh.primitive_monkey_add(size=0.6, rotation=(1.2, 0, 0)),
}


@pytest.mark.parametrize("shape", sorted(DROPPED))
def test_every_convex_shape_bakes_and_rests_on_its_mesh(scene, shape):
    floor()
    DROPPED[shape]()
    body = bpy.context.active_object
    body.location = (0.0, 0.0, 1.0)
    add(body, shape=shape, restitution=0.0)
    assert bake(72) == {"FINISHED"}
    scene.frame_set(72)
    # Resting on the fitted shape's true size: the mesh's lowest point is on the floor.
    tolerance = 0.02 if shape == "CONVEX_HULL" else 0.005  # Suzanne's hull is simplified
    assert lowest_point(body) == pytest.approx(0.0, abs=tolerance)


def test_a_box_rests_on_a_passive_triangle_mesh_floor(scene):
    floor("MESH")
    box = cube("Box", location=(0.3, 0.2, 1.0), size=0.5)
    add(box, restitution=0.0)
    assert bake(48) == {"FINISHED"}
    scene.frame_set(48)
    assert lowest_point(box) == pytest.approx(0.0, abs=0.005)


def test_a_compound_bakes_on_its_parent_and_children_ride_along(scene):
    floor()
    parent, seat, legs = chair()
    before = [transform(child) for child in (seat, *legs)]
    assert bake(72) == {"FINISHED"}
    assert parent.animation_data is not None and parent.animation_data.action is not None
    assert all(child.animation_data is None for child in (seat, *legs))
    scene.frame_set(72)
    # It stands on its legs: their lowest points are on the floor, the seat's above it.
    assert min(lowest_point(leg) for leg in legs) == pytest.approx(0.0, abs=0.005)
    assert lowest_point(seat) > 0.7
    scene.frame_set(1)
    for child, start in zip((seat, *legs), before, strict=True):
        assert np.allclose(transform(child)[-1], start[-1], atol=1e-6)


def test_live_preview_carries_a_compounds_parts(scene, impulse):
    preview = impulse.blender_addon.baking.preview
    scene.impulse.use_gravity = False
    scene.frame_start, scene.frame_end = 1, 25
    parent, seat, _legs = chair()
    parent.impulse.initial_linear_velocity = (1.0, 0.0, 0.0)  # 1 m/s, nothing in the way
    scene.frame_set(1)
    start = np.array(seat.matrix_world.translation)
    preview.start(scene)
    try:
        settle(preview, scene)
        scene.frame_set(25)
        depsgraph = bpy.context.evaluated_depsgraph_get()
        shown = np.array(seat.evaluated_get(depsgraph).matrix_world.translation)
        assert shown - start == pytest.approx([1.0, 0.0, 0.0], abs=1e-3)  # 24 frames = 1 s
    finally:
        preview.stop(scene)


def bowl(radius: float, rings: int = 12, segments: int = 48):
    """The lower half of a sphere (open at the top, a pole at the bottom): a passive Mesh bowl,
    its bottom at z = -radius."""
    angles = np.arange(segments) * (2.0 * math.pi / segments)
    vertices = [(0.0, 0.0, -radius)]
    for ring in range(1, rings + 1):
        polar = ring * (0.5 * math.pi / rings)  # from the bottom pole up to the rim
        vertices += [(radius * math.sin(polar) * math.cos(a), radius * math.sin(polar) *
                      math.sin(a), -radius * math.cos(polar)) for a in angles]
    faces = [(0, 1 + (j + 1) % segments, 1 + j) for j in range(segments)]
    for ring in range(rings - 1):
        low, high = 1 + ring * segments, 1 + (ring + 1) * segments
        faces += [(low + j, low + (j + 1) % segments, high + (j + 1) % segments, high + j)
                  for j in range(segments)]
    mesh = bpy.data.meshes.new("Bowl")
    mesh.from_pydata(vertices, [], faces)
    obj = bpy.data.objects.new("Bowl", mesh)
    bpy.context.collection.objects.link(obj)
    add(obj, body_type="PASSIVE", shape="MESH", restitution=0.0)
    return obj


def test_start_overlaps_are_measured_on_the_real_shapes(scene, capsys):
    bowl(2.0)
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.3, location=(0.0, 0.0, -1.69))
    ball = bpy.context.active_object
    ball.name = "Ball"
    add(ball, shape="SPHERE", restitution=0.0)  # inside the bowl's box, clear of the bowl
    sunk = cube("Sunk", location=(1.0, 0.0, -1.5), size=0.6)  # through the bowl's wall
    add(sunk, restitution=0.0)
    capsys.readouterr()
    assert bake(5) == {"FINISHED"}
    out = capsys.readouterr().out
    assert "'Ball'" not in out.split("Baked")[0]
    assert "'Bowl' and 'Sunk' overlap by" in out or "'Sunk' and 'Bowl' overlap by" in out
