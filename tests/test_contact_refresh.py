"""Contacts kept across substeps: a hull tumbling over a tessellated mesh is collided again only
after it moved more than its drift, and the points refreshed from their anchors meanwhile agree
with a new narrow phase; a sliding box keeps its points across frames until it moved its slop;
triangles the mesh contacts skip before GJK are farther from the part than the margin, and those
a hull gets contacts from are within it (python-fcl's distance)."""

import copy

import fcl
import numpy as np
import pytest

from solver import World, quaternion
from solver.constraints import refresh
from solver.contact_rows import substep_reach
from solver.hull import convex_hull
from solver.mesh import prepare_mesh
from solver.mesh_contacts import TRIANGLE_SHIFT, _beyond_faces, _half_extents, mesh_contacts
from solver.shapes import BOX, CYLINDER, HULL

NO_PLANES = np.zeros((0, 4))  # the planes of a part that is no hull
# A triangle as python-fcl's Convex (its TriangleP has no distance to other shapes): both faces.
BOTH_SIDES = np.array([3, 0, 1, 2, 3, 0, 2, 1])
MARGIN = 0.05  # m


def wavy_floor(cells=24, half=4.0, amplitude=0.15):
    """A gently rolling floor z = a sin(x) cos(0.8 y) of cells × cells squares, two triangles
    each, facing +z."""
    ticks = np.linspace(-half, half, cells + 1)
    x, y = np.meshgrid(ticks, ticks)
    vertices = np.column_stack([x.ravel(), y.ravel(),
                                amplitude * (np.sin(x) * np.cos(0.8 * y)).ravel()])
    index = np.arange(x.size).reshape(cells + 1, cells + 1)
    a, b = index[:-1, :-1].ravel(), index[:-1, 1:].ravel()
    c, d = index[1:, 1:].ravel(), index[1:, :-1].ravel()
    return vertices, np.concatenate([np.column_stack([a, b, c]), np.column_stack([a, c, d])])


def _refresh(world, m, drift):
    """constraints.refresh on rows m at the world's current state, as World does it; returns
    the stale rows' mask."""
    b = world.bodies
    rotations = b.rotations()
    h = 1.0 / (world.fps * world.substeps)
    reach = np.empty(len(b) + 1)  # h, then per body substep_reach
    reach[0] = h
    substep_reach(b.angular_velocity, world._radius, world._speculative, 0.5 * world._fall, h,
                  reach[1:])
    return refresh(m.a, m.b, b.shape, b.position, b.orientation, rotations, b.com_offset,
                   b.half_extents, world._radius, m.slop, drift, m.points, m.normal, m.point,
                   m.anchor_a, m.anchor_b, m.base, m.separation, m.relative, m.orientation_a,
                   m.orientation_b, m.margin, m.apart, b.velocity, b.angular_velocity, reach)


def test_points_refreshed_from_anchors_agree_with_a_new_narrow_phase():
    rng = np.random.default_rng(3)
    vertices, triangles = wavy_floor()
    world = World(sleeping=False)
    world.add_body(shape="mesh", vertices=vertices, triangles=triangles, kind="static",
                   friction=0.2)
    body = world.add_body("hull", friction=0.2, points=rng.normal(size=(60, 3)) * [0.3, 0.2, 0.25],
                          position=(-2.5, -0.5, 0.6),
                          orientation=quaternion.normalize(np.array([1.0, 0.3, -0.2, 0.1])),
                          linear_velocity=(2.5, 0.8, 0.0), angular_velocity=(1.0, 3.0, 0.5))
    h = 1.0 / (world.fps * world.substeps)
    kept = moved = 0
    worst = 0.0
    for _ in range(72):
        world.step()
        m = copy.deepcopy(world._contacts)
        slop_stale = _refresh(world, copy.deepcopy(m), m.slop)
        stale = _refresh(world, m, m.drift)
        rows = np.flatnonzero(~stale & (m.points > 0))
        if not len(rows):
            continue
        fresh = copy.deepcopy(world)
        fresh._collide_rows(fresh._contacts, rows, world.bodies.rotations(), h)
        new = fresh._contacts
        for p in rows:
            if new.points[p]:
                refreshed = m.separation[p, :m.points[p]].min()
                worst = max(worst, abs(refreshed - new.separation[p, :new.points[p]].min()))
        kept += len(rows)
        moved += int(np.sum(slop_stale[rows]))
    slop = world._slop()[body]
    assert kept > 36  # the hull touched the floor for most of the 3 s
    assert moved > 0.25 * kept  # most of them had moved beyond the slop: the drift kept them
    assert worst < slop  # the deepest refreshed point is within the slop of the new one


def test_a_sliding_box_keeps_its_points_across_frames_until_it_moved_its_slop():
    world = World(sleeping=False)
    world.add_body(size=(5.0, 5.0, 0.5), position=(0, 0, -0.5), kind="static", friction=0.0)
    speed = 1e-3  # m/s, frictionless: 1/24 mm a frame
    box = world.add_body(size=(0.5, 0.5, 0.5), position=(0, 0, 0.5), friction=0.0,
                         linear_velocity=(speed, 0, 0))
    world.simulate(6)  # settled on the ground
    assert world._contacts.points[0] == 4

    def frames_to_next_narrow_phase() -> int:  # the row's collided pose changes then
        collided_at = world._contacts.relative.copy()
        frames = 0
        while np.array_equal(world._contacts.relative, collided_at) and frames < 100:
            world.step()
            frames += 1
        return frames

    frames_to_next_narrow_phase()
    # Collided again only once it slid its slop (0.5 mm, 12 frames), not at every frame start.
    step = speed / world.fps
    assert frames_to_next_narrow_phase() * step == pytest.approx(world._slop()[box], abs=2 * step)


def test_triangles_skipped_beyond_a_face_plane_are_farther_than_the_margin():
    rng = np.random.default_rng(11)
    vertices, triangles = wavy_floor(cells=12, half=2.0, amplitude=0.4)
    mesh = prepare_mesh(vertices, triangles)
    hull = convex_hull(rng.normal(size=(40, 3)) * [0.4, 0.25, 0.3])
    faces = np.diff(hull.face_start)
    polygons = np.concatenate([np.r_[k, hull.face_vertices[hull.face_start[f]:
                                                             hull.face_start[f + 1]]]
                               for f, k in enumerate(faces)])
    parts = [(HULL, np.zeros(3), hull.planes, fcl.Convex(hull.vertices, len(faces), polygons)),
             (BOX, np.array([0.4, 0.2, 0.3]), NO_PLANES, fcl.Box(0.8, 0.4, 0.6)),
             (CYLINDER, np.array([0.3, 0.4, 0.0]), NO_PLANES, fcl.Cylinder(0.3, 0.8))]
    corners = mesh.vertices[mesh.triangles]
    skipped = checked = 0
    for _ in range(100):
        kind, size, planes, geometry = parts[rng.integers(len(parts))]
        centre = np.r_[rng.uniform(-1.5, 1.5, 2), rng.uniform(-0.2, 0.9)]
        rotation = quaternion.to_matrix(quaternion.normalize(rng.normal(size=4)))
        margin = rng.uniform(0.0, 0.1)
        half = _half_extents(np.int64(kind), size)
        part = fcl.CollisionObject(geometry, fcl.Transform(rotation, centre))
        for t in range(len(mesh.triangles)):
            checked += 1
            if not _beyond_faces(mesh.vertices, mesh.triangles, t, np.int64(kind), half, centre,
                                 rotation, planes, margin, np.empty((3, 3))):
                continue
            skipped += 1
            triangle = fcl.CollisionObject(fcl.Convex(corners[t], 2, BOTH_SIDES), fcl.Transform())
            distance = fcl.distance(part, triangle, fcl.DistanceRequest(), fcl.DistanceResult())
            assert distance > margin - 1e-9
    assert skipped > 0.5 * checked  # most of the floor is skipped (the rest goes to GJK)


def test_a_hull_gets_contacts_only_from_triangles_within_the_margin():
    rng = np.random.default_rng(5)
    vertices, triangles = wavy_floor(cells=12, half=2.0, amplitude=0.4)
    mesh = prepare_mesh(vertices, triangles)
    corners = mesh.vertices[mesh.triangles]
    point, normal = np.empty((4, 3)), np.empty((4, 3))
    depth, feature = np.empty(4), np.empty(4, np.int64)
    found = 0
    for _ in range(400):
        hull = convex_hull(rng.normal(size=(40, 3)) * [0.4, 0.25, 0.3])
        faces = np.diff(hull.face_start)
        polygons = np.concatenate([np.r_[k, hull.face_vertices[hull.face_start[f]:
                                                                 hull.face_start[f + 1]]]
                                   for f, k in enumerate(faces)])
        centre = np.r_[rng.uniform(-1.5, 1.5, 2), rng.uniform(-0.2, 0.6)]
        rotation = quaternion.to_matrix(quaternion.normalize(rng.normal(size=4)))
        count = mesh_contacts(mesh.vertices, mesh.triangles, mesh.normals, mesh.edges,
                              mesh.bounds, mesh.links, np.zeros(3), np.eye(3), np.int64(HULL),
                              np.zeros(3), centre, rotation, hull.vertices, hull.planes,
                              hull.face_start, hull.face_vertices, MARGIN, point, normal, depth,
                              feature, np.int64(0))
        part = fcl.CollisionObject(fcl.Convex(hull.vertices, len(faces), polygons),
                                   fcl.Transform(rotation, centre))
        for t in set((feature[:count] >> TRIANGLE_SHIFT).tolist()):
            triangle = fcl.CollisionObject(fcl.Convex(corners[t], 2, BOTH_SIDES),
                                           fcl.Transform())
            distance = fcl.distance(part, triangle, fcl.DistanceRequest(), fcl.DistanceResult())
            assert distance <= MARGIN + 1e-6  # (a hull beside a triangle, under its edge, got
            found += 1  # the depth it reached below the triangle's plane: 0.3-0.5 m)
    assert found > 300


def test_a_box_pushed_out_of_a_deep_overlap_stays_within_its_frames_broad_phase():
    """The push-out moves a body without giving it a velocity; its broad-phase box is grown by
    its depth beyond the slop, so it is not found again in every substep (World._room holds the
    poses of the last broad phase: the frame's start, unless a body left its box)."""
    world = World(sleeping=False)
    world.add_body(size=(5.0, 5.0, 0.5), position=(0, 0, -0.5), kind="static")
    # 30 cm into the ground: the push-out (at most solve_impulse.MAX_PUSH, 12.5 cm a frame here)
    # takes three frames
    box = world.add_body(size=(0.5, 0.5, 0.5), position=(0, 0, 0.2))
    world.step()  # the first frame finds the overlap
    for _ in range(4):
        start = world.bodies.position.copy()
        world.step()
        assert np.array_equal(world._room[0], start)
    world.simulate(5)
    assert 0.5 - world.bodies.position[box, 2] < 1.1 * world._slop()[box]  # out to the slop
