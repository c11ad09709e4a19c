"""Shapes beyond boxes (issue #11) against closed forms: rolling cylinders, capsules and cones,
a convex hull at rest, a ball in a triangle-mesh bowl, sliding on a tessellated floor, and
compound bodies on their real supports."""

import numpy as np
import pytest

from solver import World, quaternion

G = 9.81
X, Y, Z = np.eye(3)


def _turn(axis, angle) -> np.ndarray:
    return quaternion.from_axis_angle(np.asarray(axis, float), np.array(float(angle)))


def _incline(world, angle):
    """A static slab tilted by `angle` about y (downhill = -x rotated); its rotation."""
    q = _turn(Y, -angle)
    rotation = quaternion.to_matrix(q)
    world.add_body(size=(20.0, 5.0, 0.5), position=rotation @ [0, 0, -0.5], orientation=q,
                   kind="static", friction=1.0)
    return q, rotation


def _acceleration_down(trajectory, body, rotation, fps, skip=6):
    """Fitted acceleration of the body's centre along the slope, downhill."""
    downhill = rotation @ [-1.0, 0.0, 0.0]
    travel = (trajectory.positions[:, body] - trajectory.positions[0, body]) @ downhill
    t = np.arange(len(travel)) / fps
    return 2.0 * np.polyfit(t[skip:], travel[skip:], 2)[0]


def test_cylinder_rolls_down_an_incline_at_two_thirds_g_sin():
    angle, r = np.radians(20.0), 0.2
    world = World(sleeping=False)
    q, rotation = _incline(world, angle)
    lying = quaternion.multiply(q, _turn(X, np.pi / 2))  # axis along the slope's y
    body = world.add_body("cylinder", (r, 0.3), position=rotation @ [0, 0, r],
                          orientation=lying, friction=1.0)
    trajectory = world.simulate(36)
    a = _acceleration_down(trajectory, body, rotation, world.fps)
    assert a == pytest.approx(2.0 / 3.0 * G * np.sin(angle), rel=0.01)


def test_capsule_on_its_side_rolls_down_an_incline_and_standing_up_rests():
    angle, r = np.radians(20.0), 0.15
    world = World(sleeping=False)
    q, rotation = _incline(world, angle)
    lying = quaternion.multiply(q, _turn(X, np.pi / 2))
    body = world.add_body("capsule", (r, 0.25), position=rotation @ [0, 0, r],
                          orientation=lying, friction=1.0)
    trajectory = world.simulate(36)
    m, axial = world.bodies.mass[body], world.bodies.inertia[body][2, 2]
    expected = G * np.sin(angle) / (1.0 + axial / (m * r * r))  # rolling, no slip
    assert _acceleration_down(trajectory, body, rotation, world.fps) == pytest.approx(
        expected, rel=0.01)

    world = World(sleeping=False)
    world.add_body(size=(5.0, 5.0, 0.5), position=(0, 0, -0.5), kind="static")
    standing = world.add_body("capsule", (r, 0.25), position=(0, 0, 0.25 + r))
    trajectory = world.simulate(48)
    np.testing.assert_allclose(trajectory.positions[-1, standing], [0, 0, 0.25 + r], atol=1e-3)
    np.testing.assert_allclose(np.abs(trajectory.orientations[-1, standing]), [1, 0, 0, 0],
                               atol=1e-5)


def test_cone_on_its_side_rolls_in_a_circle_about_its_apex():
    r, h = 0.2, 0.3  # apex at +h, base at -h; the half-angle is atan(r / 2h)
    length = np.hypot(r, 2 * h)
    side = np.array([r, 0.0, -2 * h]) / length  # apex -> base rim, lies on the floor
    outward = np.array([2 * h, 0.0, r]) / length  # the side's normal, faces the floor
    local = np.column_stack([side, outward, np.cross(side, outward)])
    rotation = np.column_stack([X, -Z, Y]) @ local.T  # side -> x, outward -> -z
    q = quaternion.from_matrix(rotation)
    centre = -rotation @ [0, 0, h]  # the apex at the origin
    com = centre + rotation @ [0, 0, -h / 2]
    omega = 2.0 * X  # about the line of contact: no point of it slips
    world = World(sleeping=False)
    world.add_body(size=(5.0, 5.0, 0.5), position=(0, 0, -0.5), kind="static", friction=1.0)
    body = world.add_body("cone", (r, h), position=centre, orientation=q, friction=1.0,
                          linear_velocity=np.cross(omega, com), angular_velocity=omega)
    trajectory = world.simulate(48)
    rotations = quaternion.to_matrix(trajectory.orientations[:, body].astype(float))
    apex = trajectory.positions[:, body] + rotations @ [0, 0, h]
    assert np.abs(apex).max() < 1e-3
    heading = np.arctan2(*(rotations @ side)[:, 1::-1].T)  # the side's direction on the floor
    assert abs(heading[-1] - heading[0]) > 0.3  # it went round, not just rocked


def test_convex_hull_rests_on_its_lowest_vertex_and_never_sinks_below_it():
    rng = np.random.default_rng(7)
    points = rng.normal(size=(60, 3)) * [0.3, 0.2, 0.25]
    world = World(sleeping=False)
    world.add_body(size=(5.0, 5.0, 0.5), position=(0, 0, -0.5), kind="static")
    body = world.add_body("hull", points=points, position=(0.0, 0.0, 1.0),
                          orientation=quaternion.normalize(np.array([1.0, 0.3, -0.2, 0.1])))
    trajectory = world.simulate(72)
    vertices = world.geometry.parts[body][0].hull.vertices
    rotations = quaternion.to_matrix(trajectory.orientations[:, body].astype(float))
    lowest = (trajectory.positions[:, body, None, :]
              + np.einsum("fij,vj->fvi", rotations, vertices))[..., 2].min(axis=1)
    assert lowest.min() > -1e-3
    assert abs(lowest[-1]) < 1e-3
    assert np.linalg.norm(trajectory.linear_velocities[-1, body]) < 1e-2


def _bowl(radius, cap, rings=24, sectors=64):
    """The inside of a spherical cap (centre at the origin, bottom at z = -radius, up to `cap`
    from the bottom), triangles counter-clockwise seen from inside."""
    polar = np.linspace(0.0, cap, rings + 1)[1:]
    azimuth = np.linspace(0.0, 2 * np.pi, sectors, endpoint=False)
    p, a = np.meshgrid(polar, azimuth, indexing="ij")
    ring = radius * np.stack([np.sin(p) * np.cos(a), np.sin(p) * np.sin(a), -np.cos(p)], -1)
    vertices = np.concatenate([[[0.0, 0.0, -radius]], ring.reshape(-1, 3)])
    index = 1 + np.arange(rings * sectors).reshape(rings, sectors)
    nxt = np.roll(index, -1, axis=1)
    triangles = [np.stack([np.zeros(sectors, int), index[0], nxt[0]], 1)]
    for k in range(rings - 1):
        triangles += [np.stack([index[k], index[k + 1], nxt[k + 1]], 1),
                      np.stack([index[k], nxt[k + 1], nxt[k]], 1)]
    triangles = np.concatenate(triangles)
    centre = vertices[triangles].mean(axis=1)
    normal = np.cross(vertices[triangles[:, 1]] - vertices[triangles[:, 0]],
                      vertices[triangles[:, 2]] - vertices[triangles[:, 0]])
    inward = np.einsum("ij,ij->i", normal, -centre) > 0
    return vertices, np.where(inward[:, None], triangles, triangles[:, ::-1])


def test_ball_in_a_mesh_bowl_oscillates_with_the_rolling_period_and_comes_to_rest():
    big, r, start = 1.0, 0.1, np.radians(8.0)
    vertices, triangles = _bowl(big, np.radians(15.0))
    reach = big - r
    position = reach * np.array([np.sin(start), 0.0, -np.cos(start)])
    world = World(sleeping=False)
    world.add_body("mesh", vertices=vertices, triangles=triangles, kind="static", friction=1.0,
                   restitution=0.0)
    ball = world.add_body("sphere", r, position=position, friction=1.0, restitution=0.0)
    trajectory = world.simulate(120)
    x = trajectory.positions[:, ball, 0]
    t = np.arange(len(x)) / world.fps
    crossings = np.flatnonzero((x[:-1] > 0) & (x[1:] <= 0))
    exact = t[crossings] + x[crossings] / (x[crossings] - x[crossings + 1]) / world.fps
    period = np.diff(exact).mean()
    assert len(exact) >= 2
    assert period == pytest.approx(2 * np.pi * np.sqrt(7 * reach / (5 * G)), rel=0.02)

    # with rolling resistance c_rr it stops where the slope is below c_rr: tan(angle) <= c_rr
    c_rr = 0.05
    world = World(sleeping=False)
    world.add_body("mesh", vertices=vertices, triangles=triangles, kind="static", friction=1.0,
                   restitution=0.0)
    ball = world.add_body("sphere", r, position=position, friction=1.0, restitution=0.0,
                          rolling_resistance=c_rr)
    trajectory = world.simulate(72)
    rest = trajectory.positions[-1, ball]
    assert np.hypot(rest[0], rest[1]) < 1.05 * reach * np.sin(np.arctan(c_rr))
    assert np.linalg.norm(trajectory.linear_velocities[-1, ball]) < 1e-2


def _floor_mesh(lo, hi, cells):
    """A flat grid at z = 0 over the rectangle lo..hi, 2 triangles per cell, facing up."""
    xs, ys = (np.linspace(lo[k], hi[k], cells[k] + 1) for k in range(2))
    gx, gy = np.meshgrid(xs, ys, indexing="ij")
    vertices = np.stack([gx.ravel(), gy.ravel(), np.zeros(gx.size)], 1)
    i, j = (a.ravel() for a in np.meshgrid(np.arange(cells[0]), np.arange(cells[1]),
                                           indexing="ij"))
    ny = cells[1] + 1
    a, b, c, d = i * ny + j, (i + 1) * ny + j, (i + 1) * ny + j + 1, i * ny + j + 1
    return vertices, np.concatenate([np.stack([a, b, c], 1), np.stack([a, c, d], 1)])


def test_box_slides_across_a_tessellated_mesh_floor_v2_over_2_mu_g():
    vertices, triangles = _floor_mesh((-2.0, -2.0), (8.0, 2.0), (25, 20))
    assert len(triangles) == 1000
    world = World(sleeping=False)
    world.add_body("mesh", vertices=vertices, triangles=triangles, kind="static", friction=1.0)
    body = world.add_body(size=(0.25, 0.25, 0.25), position=(0, 0.05, 0.25), friction=0.5,
                          linear_velocity=(5.0, 0.0, 0.0))
    trajectory = world.simulate(48)
    distance = trajectory.positions[-1, body, 0] - trajectory.positions[0, body, 0]
    assert distance == pytest.approx(25.0 / (2 * 0.5 * G), rel=0.02)
    assert np.abs(trajectory.positions[:, body, 2] - 0.25).max() < 2e-3  # no seam bumps


TABLE = [dict(shape="box", size=(0.5, 0.3, 0.025), position=(0.0, 0.0, 0.475))] + [
    dict(shape="box", size=(0.025, 0.025, 0.225), position=(sx * 0.45, sy * 0.25, 0.225))
    for sx in (-1, 1) for sy in (-1, 1)]
L_SHAPE = [dict(shape="box", size=(0.4, 0.1, 0.05), position=(0.0, 0.0, 0.05)),
           dict(shape="box", size=(0.05, 0.1, 0.3), position=(-0.35, 0.0, 0.4))]


def test_compounds_rest_on_their_real_supports():
    world = World(sleeping=False)
    world.add_body(size=(5.0, 5.0, 0.5), position=(0, 0, -0.5), kind="static")
    # a block under the table's top, between its legs: the legs, not the block, hold it up
    world.add_body(size=(0.2, 0.1, 0.15), position=(0, 0, 0.15), kind="static")
    table = world.add_body("compound", parts=TABLE, position=(0.0, 0.0, 0.01))
    shape_l = world.add_body("compound", parts=L_SHAPE, position=(2.0, 0.0, 0.01))
    trajectory = world.simulate(48)
    for body in (table, shape_l):
        np.testing.assert_allclose(trajectory.positions[-1, body] - [0, 0, 0],
                                   [2.0 * (body == shape_l), 0, 0], atol=1e-3)
        np.testing.assert_allclose(np.abs(trajectory.orientations[-1, body]), [1, 0, 0, 0],
                                   atol=1e-4)


def test_compound_inertia_is_the_parallel_axis_sum_of_its_parts():
    world = World()
    density = 700.0
    body = world.add_body("compound", parts=TABLE, density=density)
    masses = [density * 8 * np.prod(p["size"]) for p in TABLE]
    centres = np.array([p["position"] for p in TABLE])
    com = np.average(centres, axis=0, weights=masses)
    expected = np.zeros((3, 3))
    for m, part, centre in zip(masses, TABLE, centres, strict=True):
        h2 = np.square(part["size"])
        d = centre - com
        expected += np.diag(m / 3 * (h2.sum() - h2)) + m * (d @ d * np.eye(3) - np.outer(d, d))
    b = world.bodies
    assert b.mass[body] == pytest.approx(sum(masses), rel=1e-12)
    np.testing.assert_allclose(b.com_offset[body], com, rtol=0, atol=1e-12)
    np.testing.assert_allclose(b.inertia[body], expected, rtol=1e-9, atol=1e-9 * expected.max())


@pytest.mark.parametrize("wall", ["box", "mesh"])
@pytest.mark.parametrize("shape", ["capsule", "hull"])
def test_fast_small_shapes_do_not_pass_through_a_thin_wall(shape, wall):
    world = World(gravity=(0, 0, 0), sleeping=False)
    if wall == "box":
        world.add_body(size=(0.005, 1.0, 1.0), position=(0.0, 0.0, 0.0), kind="static")
    else:  # a single sheet facing the bullet
        vertices = np.array([[0.0, -1, -1], [0.0, 1, -1], [0.0, 1, 1], [0.0, -1, 1]])
        world.add_body("mesh", vertices=vertices, triangles=[[0, 2, 1], [0, 3, 2]],
                       kind="static")
    shapes = dict(capsule=dict(size=(0.01, 0.01)),
                  hull=dict(points=np.random.default_rng(3).normal(size=(12, 3)) * 0.01))
    bullet = world.add_body(shape, position=(-1.0, 0.0, 0.0), linear_velocity=(200.0, 0, 0),
                            restitution=0.5, **shapes[shape])
    trajectory = world.simulate(12)
    assert trajectory.positions[:, bullet, 0].max() < 0.0
    assert trajectory.linear_velocities[-1, bullet, 0] <= 0.0
