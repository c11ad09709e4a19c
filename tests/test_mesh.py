"""Triangle meshes: the BVH against brute force, active edges, input checks, and contacts of
convex parts with tessellated floors, bowls and ramps against their closed-form geometry."""

import numpy as np
import pytest

from solver import quaternion as quat
from solver.bvh import build_bvh, query
from solver.hull import convex_hull
from solver.mesh import prepare_mesh
from solver.mesh_contacts import TRIANGLE_SHIFT, mesh_contacts
from solver.shapes import BOX, CAPSULE, CYLINDER, HULL, SPHERE

I3 = np.eye(3)
ORIGIN = np.zeros(3)
# the hull tables of a part that is no hull
NO_HULL = (np.zeros((0, 3)), np.zeros((0, 4)), np.zeros(1, np.int64), np.zeros(0, np.int64))


def grid(nx, ny, half=5.0, rng=None):
    """A flat floor z = 0 over [-half, half]², nx × ny squares of two triangles each (each
    square's diagonal picked at random when rng is given), facing +z."""
    x, y = np.meshgrid(np.linspace(-half, half, nx + 1), np.linspace(-half, half, ny + 1))
    vertices = np.column_stack([x.ravel(), y.ravel(), np.zeros(x.size)])
    index = np.arange(x.size).reshape(ny + 1, nx + 1)
    a, b = index[:-1, :-1].ravel(), index[:-1, 1:].ravel()
    c, d = index[1:, 1:].ravel(), index[1:, :-1].ravel()
    flip = rng.random(a.size) < 0.5 if rng is not None else np.zeros(a.size, bool)
    first = np.where(flip[:, None], np.column_stack([a, b, d]), np.column_stack([a, b, c]))
    second = np.where(flip[:, None], np.column_stack([b, c, d]), np.column_stack([a, c, d]))
    return vertices, np.concatenate([first, second])


def bowl(radius, rings, segments):
    """The lower half of a sphere of this radius about the origin, as triangles facing its
    centre: a fan at the pole, then quads between rings of constant polar angle."""
    polar = np.linspace(0.0, np.pi / 2, rings + 1)[1:]
    azimuth = np.linspace(0.0, 2 * np.pi, segments, endpoint=False)
    p, a = np.meshgrid(polar, azimuth, indexing="ij")
    ring = np.column_stack([np.sin(p).ravel() * np.cos(a).ravel(),
                            np.sin(p).ravel() * np.sin(a).ravel(), -np.cos(p).ravel()])
    vertices = radius * np.vstack([[0.0, 0.0, -1.0], ring])
    index = 1 + np.arange(rings * segments).reshape(rings, segments)
    after = np.roll(index, -1, axis=1)
    triangles = [np.column_stack([np.zeros(segments, int), index[0], after[0]])]
    for r in range(rings - 1):
        triangles.append(np.column_stack([index[r], index[r + 1], after[r + 1]]))
        triangles.append(np.column_stack([index[r], after[r + 1], after[r]]))
    triangles = np.concatenate(triangles)
    corners = vertices[triangles]
    normal = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    outward = np.einsum("ij,ij->i", normal, corners.sum(axis=1)) > 0.0
    triangles[outward] = triangles[outward][:, ::-1]
    return vertices, triangles


def contacts(mesh, kind, size, center, rotation=I3, margin=0.0, pose=(ORIGIN, I3),
             hull=NO_HULL):
    """(point, normal, depth, feature) of a part against the posed mesh; hull = the part's
    (vertices, planes, face_start, face_vertices) for a HULL."""
    point, normal = np.empty((4, 3)), np.empty((4, 3))
    depth, feature = np.empty(4), np.empty(4, np.int64)
    count = mesh_contacts(mesh.vertices, mesh.triangles, mesh.normals, mesh.edges, mesh.bounds,
                          mesh.links, np.asarray(pose[0], float), np.asarray(pose[1], float),
                          kind, np.asarray(size, float), np.asarray(center, float),
                          np.asarray(rotation, float), *hull, margin, point, normal, depth,
                          feature, np.int64(0))
    return point[:count], normal[:count], depth[:count], feature[:count]


def _random_rotation(rng):
    q = rng.normal(size=4)
    return quat.to_matrix(q / np.linalg.norm(q))


# --- BVH ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_bvh_query_matches_brute_force(seed):
    """Random triangle soups (clustered and spread, some tiny, some long): every query box gets
    exactly the triangles whose own boxes overlap it."""
    rng = np.random.default_rng(seed)
    count = int(rng.integers(1, 3000))
    centres = rng.normal(size=(count, 3)) * rng.choice([0.1, 1.0, 10.0], size=(count, 1))
    vertices = (centres[:, None, :] + rng.normal(size=(count, 3, 3))
                * rng.choice([1e-3, 0.1, 2.0], size=(count, 1, 1))).reshape(-1, 3)
    triangles = np.arange(3 * count).reshape(count, 3)
    bounds, links, order = build_bvh(vertices, triangles)
    assert sorted(order) == list(range(count))
    ordered = triangles[order]
    lows, highs = vertices[ordered].min(axis=1), vertices[ordered].max(axis=1)
    out = np.empty(8, np.int64)  # short on purpose: the count still covers every triangle
    for _ in range(50):
        lo = rng.normal(size=3) * 5.0
        hi = lo + rng.exponential(size=3) * rng.choice([0.01, 1.0, 10.0])
        expected = np.flatnonzero(np.all(lows <= hi, axis=1) & np.all(highs >= lo, axis=1))
        found = query(bounds, links, vertices, ordered, lo, hi, out)
        if found > len(out):
            out = np.empty(found, np.int64)
            assert query(bounds, links, vertices, ordered, lo, hi, out) == found
        assert sorted(out[:found]) == list(expected)


def test_bvh_nodes_enclose_their_triangles():
    """Each leaf box is the union of its triangles' boxes, each inner box that of its children;
    the ranges of the leaves tile the triangle order exactly once; on a wide bumpy floor leaves
    stay a few cells wide (a thin height range must not split space like the width does)."""
    rng = np.random.default_rng(7)
    vertices, triangles = grid(30, 17, rng=rng)
    vertices[:, 2] = rng.normal(size=len(vertices)) * 0.1
    bounds, links, order = build_bvh(vertices, triangles)
    ordered = triangles[order]
    covered = np.zeros(len(triangles), int)
    for node, (first, count) in enumerate(links):
        if count:
            corners = vertices[ordered[first:first + count]].reshape(-1, 3)
            np.testing.assert_array_equal(bounds[node], np.r_[corners.min(0), corners.max(0)])
            covered[first:first + count] += 1
        else:
            children = bounds[[first, first + 1]]
            np.testing.assert_array_equal(bounds[node], np.r_[children[:, :3].min(0),
                                                              children[:, 3:].max(0)])
            assert first > node
    assert np.all(covered == 1)
    leaves = links[:, 1] > 0
    width = (bounds[leaves, 3:5] - bounds[leaves, :2]).max(axis=0)
    assert np.all(width <= 4 * np.array([10.0 / 30, 10.0 / 17]) + 1e-12)


# --- input checks ------------------------------------------------------------------------


def test_mesh_checks_name_the_argument():
    vertices, triangles = grid(2, 2)
    with pytest.raises(ValueError, match="vertices"):
        prepare_mesh(np.where(np.arange(27).reshape(9, 3) == 4, np.nan, vertices), triangles)
    with pytest.raises(ValueError, match="vertices"):
        prepare_mesh(vertices[:, :2], triangles)
    with pytest.raises(ValueError, match="triangles"):
        prepare_mesh(vertices, np.r_[triangles, [[0, 1, 9]]])
    with pytest.raises(ValueError, match="triangles"):
        prepare_mesh(vertices, np.r_[triangles, [[-1, 1, 2]]])
    with pytest.raises(ValueError, match="triangles"):
        prepare_mesh(vertices, triangles + 0.5)
    with pytest.raises(ValueError, match="triangles"):
        prepare_mesh(vertices, np.zeros((0, 3), int))
    with pytest.raises(ValueError, match="triangles are all degenerate"):
        prepare_mesh(vertices, [[0, 0, 1], [0, 1, 2]])  # a repeated vertex; collinear points


def test_degenerate_triangles_are_dropped_and_counted():
    vertices, triangles = grid(3, 3)
    extra = [[0, 0, 5], [0, 1, 2], [4, 4, 4]]  # repeated vertices; three collinear points
    mesh = prepare_mesh(vertices, np.r_[triangles, extra])
    assert mesh.dropped == 3
    assert len(mesh.triangles) == len(triangles)
    assert sorted(mesh.source) == list(range(len(triangles)))
    np.testing.assert_array_equal(mesh.triangles, triangles[mesh.source])


# --- active edges ------------------------------------------------------------------------


def test_flat_floor_has_only_its_rim_active():
    vertices, triangles = grid(6, 4, rng=np.random.default_rng(1))
    mesh = prepare_mesh(vertices, triangles)
    corners = mesh.vertices[mesh.triangles]
    for t in range(len(mesh.triangles)):
        for e in range(3):
            a, b = corners[t, e], corners[t, (e + 1) % 3]
            on_rim = any(a[i] == b[i] and abs(a[i]) == 5.0 for i in range(2))
            assert bool(mesh.edges[t] >> e & 1) == on_rim  # seen from the front
            assert bool(mesh.edges[t] >> (3 + e) & 1) == on_rim  # and from the back


def test_fold_edges_active_only_when_convex_and_sharp():
    """Two triangles sharing the edge x = 0 of the floor, the second folded down or up by an
    angle: the shared edge is active from the front only for a convex fold (down) beyond 5°,
    and from the back only for a fold up beyond 5° (convex seen from below)."""
    for angle, front, back in ((-30.0, True, False), (-10.0, True, False), (-2.0, False, False),
                               (2.0, False, False), (10.0, False, True), (30.0, False, True)):
        rise = np.tan(np.radians(angle))
        vertices = [[-1, -1, 0], [0, -1, 0], [0, 1, 0], [-1, 1, 0], [1, 0, rise]]
        mesh = prepare_mesh(vertices, [[0, 1, 2], [0, 2, 3], [1, 4, 2]])
        shared = [np.flatnonzero(mesh.source == t)[0] for t in (0, 2)]
        for t, e in zip(shared, (1, 2), strict=True):  # the edge 1-2 in each triangle
            assert bool(mesh.edges[t] >> e & 1) == front, angle
            assert bool(mesh.edges[t] >> (3 + e) & 1) == back, angle


# --- contacts ----------------------------------------------------------------------------


def test_sphere_on_floor_gets_one_face_contact_everywhere():
    """A sphere resting 1 mm deep anywhere on a 1,000-triangle floor (over faces, seams and
    vertices): one contact, normal +z, depth 1 mm, point midway under the centre."""
    mesh = prepare_mesh(*grid(25, 20, rng=np.random.default_rng(2)))
    rng = np.random.default_rng(3)
    points = np.r_[rng.uniform(-4.5, 4.5, (200, 2)), [[0.0, 0.0], [0.4, 0.0], [0.2, 0.25]]]
    for x, y in points:
        point, normal, depth, feature = contacts(mesh, SPHERE, [0.1] * 3, [x, y, 0.099],
                                                 margin=0.01)
        assert len(depth) == 1
        np.testing.assert_allclose(normal[0], [0.0, 0.0, 1.0], atol=1e-12)
        np.testing.assert_allclose(depth[0], 0.001, atol=1e-12)
        np.testing.assert_allclose(point[0], [x, y, -0.0005], atol=1e-12)
        assert 0 <= feature[0] >> TRIANGLE_SHIFT < len(mesh.triangles)


def test_sphere_in_bowl_touches_the_facet_under_it_with_normal_to_centre():
    """A sphere pressed 10 µm into a facet of a tessellated hemispherical bowl above the facet's
    incentre (for facets wide enough that the sphere reaches no other facet): one contact, its
    normal pointing exactly at the bowl's centre (the facet's circumcentre is the foot of the
    perpendicular from there). Anywhere in the bowl every normal points at the centre to within
    the facets' angular size."""
    R, r, press = 1.0, 0.1, 1e-5
    mesh = prepare_mesh(*bowl(R, 24, 48))
    corners = mesh.vertices[mesh.triangles]
    rng = np.random.default_rng(4)
    tested = 0
    for t in rng.permutation(len(corners)):
        a, b, c = corners[t]
        u, v = b - a, c - a
        w = np.cross(u, v)
        foot = a + (np.dot(v, v) * np.cross(w, u) + np.dot(u, u) * np.cross(v, w)) / (
            2 * np.dot(w, w))
        towards = -foot / np.linalg.norm(foot)
        np.testing.assert_allclose(mesh.normals[t], towards, atol=1e-9)
        sides = np.linalg.norm([c - b, a - c, b - a], axis=1)
        inradius = np.linalg.norm(w) / sides.sum()
        if inradius < 2.0 * np.sqrt(2.0 * r * press):
            continue
        incentre = (sides[:, None] * corners[t]).sum(axis=0) / sides.sum()
        centre = incentre + towards * (r - press)
        point, normal, depth, _ = contacts(mesh, SPHERE, [r] * 3, centre)
        assert len(depth) == 1
        np.testing.assert_allclose(normal[0], towards, atol=1e-9)
        np.testing.assert_allclose(depth[0], press, atol=1e-12)
        np.testing.assert_allclose(point[0], incentre - towards * press / 2, atol=1e-12)
        tested += 1
    assert tested > 200
    facet = np.radians(90.0 / 24) * 1.5
    for _ in range(100):
        d = rng.normal(size=3)
        d[2] = -abs(d[2]) - 0.3
        d /= np.linalg.norm(d)
        centre = d * (R - r)  # tangent to the smooth sphere: a little into the facets
        point, normal, depth, _ = contacts(mesh, SPHERE, [r] * 3, centre, margin=1e-3)
        assert 1 <= len(depth) <= 4
        assert depth.max() > 0.0 and depth.min() >= -1e-3
        towards = -point / np.linalg.norm(point, axis=1)[:, None]
        assert np.all(np.einsum("ij,ij->i", normal, towards) > np.cos(facet))


def test_sphere_at_the_floor_rim_keeps_the_edge_normal():
    """The floor's boundary edges are active: a sphere beside the rim, touching its edge,
    gets the normal from the edge to its centre (45° here), not the face normal."""
    mesh = prepare_mesh(*grid(25, 20, rng=np.random.default_rng(2)))
    r = 0.1
    for y in np.linspace(-4.0, 4.0, 9):
        offset = (r - 1e-4) / np.sqrt(2.0)
        _, normal, depth, _ = contacts(mesh, SPHERE, [r] * 3, [5.0 + offset, y, offset])
        assert len(depth) == 1
        np.testing.assert_allclose(normal[0], [np.sqrt(0.5), 0.0, np.sqrt(0.5)], atol=1e-12)
        np.testing.assert_allclose(depth[0], 1e-4, atol=1e-12)


def test_triangles_collide_on_both_sides():
    """The floor flipped (normals -z) still holds a sphere and a box up, and a sphere under the
    floor is pushed down: each triangle counts from the side the part is on."""
    vertices, triangles = grid(25, 20, rng=np.random.default_rng(2))
    flipped = prepare_mesh(vertices, triangles[:, ::-1])
    assert np.all(flipped.normals[:, 2] == -1.0)
    rng = np.random.default_rng(14)
    for x, y in rng.uniform(-4.4, 4.4, (50, 2)):
        for z, up in ((0.099, 1.0), (-0.099, -1.0)):
            _, normal, depth, _ = contacts(flipped, SPHERE, [0.1] * 3, [x, y, z])
            assert len(depth) == 1
            np.testing.assert_allclose(normal[0], [0.0, 0.0, up], atol=1e-12)
            np.testing.assert_allclose(depth[0], 0.001, atol=1e-12)
        half = np.array([0.3, 0.2, 0.1])
        _, normal, depth, _ = contacts(flipped, BOX, half, [x, y, 0.099], _yaw(x), margin=0.01)
        assert len(depth) == 4
        np.testing.assert_allclose(normal, np.tile([0.0, 0.0, 1.0], (4, 1)), atol=1e-12)
        np.testing.assert_allclose(depth, 0.001, atol=1e-12)


def test_posed_mesh_contacts_are_in_world_coordinates():
    """The same sphere on the floor, with floor and sphere both moved by one rigid motion: the
    contact moves with them."""
    mesh = prepare_mesh(*grid(10, 10, rng=np.random.default_rng(5)))
    rng = np.random.default_rng(6)
    for _ in range(20):
        R, shift = _random_rotation(rng), rng.normal(size=3) * 10
        local = np.r_[rng.uniform(-4, 4, 2), 0.098]
        point, normal, depth, _ = contacts(mesh, SPHERE, [0.1] * 3, shift + R @ local,
                                           pose=(shift, R))
        assert len(depth) == 1
        np.testing.assert_allclose(normal[0], R[:, 2], atol=1e-12)
        np.testing.assert_allclose(point[0], shift + R @ np.r_[local[:2], -0.001], atol=1e-9)
        np.testing.assert_allclose(depth[0], 0.002, atol=1e-9)


def _yaw(angle):
    return quat.to_matrix(np.array([np.cos(angle / 2), 0.0, 0.0, np.sin(angle / 2)]))


def test_box_on_floor_gets_the_floor_normal_and_its_footprint_everywhere():
    """A box resting 1 mm deep on a 1,000-triangle floor at random places and headings, over
    seams and vertices alike: 4 contacts, all with normal +z and depth 1 mm (no seam normal, a
    lone triangle's edge axis, survives), on the box's bottom face and spanning at least 90 % of
    it (each triangle's own clip keeps 4 of its points, so a corner can give way to a point near
    it; most of the time they are exactly the four corners)."""
    mesh = prepare_mesh(*grid(25, 20, rng=np.random.default_rng(2)))
    rng = np.random.default_rng(8)
    half = np.array([0.3, 0.2, 0.1])
    corners = 0
    for _ in range(300):
        R = _yaw(rng.uniform(0.0, 2 * np.pi))
        centre = np.r_[rng.uniform(-4.4, 4.4, 2), half[2] - 0.001]
        point, normal, depth, feature = contacts(mesh, BOX, half, centre, R, margin=0.01)
        assert len(depth) == 4
        np.testing.assert_allclose(normal, np.tile([0.0, 0.0, 1.0], (4, 1)), atol=1e-12)
        np.testing.assert_allclose(depth, 0.001, atol=1e-12)
        local = (point - centre) @ R  # in the box frame
        np.testing.assert_allclose(local[:, 2], -half[2] + 0.0005, atol=1e-12)
        assert np.all(np.abs(local[:, :2]) <= half[:2] + 1e-12)
        angle = np.arctan2(*(local[:, :2] - local[:, :2].mean(axis=0)).T[::-1])
        x, y = local[np.argsort(angle), :2].T
        area = 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
        assert area >= 0.9 * 4 * half[0] * half[1]
        corners += np.allclose(np.abs(local[:, :2]), half[:2], atol=1e-12)
        assert np.all(feature >> TRIANGLE_SHIFT < len(mesh.triangles))
    assert corners > 250


def test_tilted_box_on_floor_touches_with_its_lowest_corner():
    """A box turned about two axes, its lowest corner 2 mm into the floor, wherever it is on the
    floor: the deepest contact is that corner, 2 mm deep; every contact has normal +z and a
    depth that is minus the height of its point on the box (points near the corner where box
    edges cross floor seams within the margin may join it)."""
    mesh = prepare_mesh(*grid(25, 20, rng=np.random.default_rng(2)))
    rng = np.random.default_rng(9)
    half = np.array([0.3, 0.2, 0.1])
    signs = np.array(np.meshgrid([-1, 1], [-1, 1], [-1, 1])).reshape(3, -1).T
    for _ in range(100):
        R = _random_rotation(rng)
        corners = (signs * half) @ R.T
        lowest = corners[np.argmin(corners[:, 2])]
        if np.sort(corners[:, 2])[1] - lowest[2] < 0.01:  # keep one corner clearly lowest
            continue
        centre = np.r_[rng.uniform(-4.4, 4.4, 2), 0.0] - [0.0, 0.0, lowest[2] + 0.002]
        point, normal, depth, _ = contacts(mesh, BOX, half, centre, R, margin=0.005)
        assert 1 <= len(depth) <= 4
        np.testing.assert_allclose(normal, np.tile([0.0, 0.0, 1.0], (len(depth), 1)), atol=1e-9)
        deepest = np.argmax(depth)
        np.testing.assert_allclose(depth[deepest], 0.002, atol=1e-9)
        np.testing.assert_allclose(point[deepest], centre + lowest + [0.0, 0.0, 0.001], atol=1e-9)
        on_box = point - normal * depth[:, None] / 2
        np.testing.assert_allclose(on_box[:, 2], -depth, atol=1e-9)
        local = np.abs((on_box - centre) @ R) / half
        np.testing.assert_allclose(local.max(axis=1), 1.0, atol=1e-9)


def test_box_on_ramp_gets_the_ramp_normal():
    """A tessellated 20° ramp (the floor turned about x, then moved): a box lying on it 1 mm
    deep, at random places along it and turned about the ramp's normal, gets 4 contacts with
    the ramp's normal and depth 1 mm."""
    angle = np.radians(20.0)
    turn = quat.to_matrix(np.array([np.cos(angle / 2), np.sin(angle / 2), 0.0, 0.0]))
    vertices, triangles = grid(12, 30, rng=np.random.default_rng(10))
    lift = np.array([1.0, -2.0, 3.0])
    mesh = prepare_mesh(vertices @ turn.T + lift, triangles)
    up = turn[:, 2]
    np.testing.assert_allclose(mesh.normals, np.tile(up, (len(mesh.normals), 1)), atol=1e-12)
    rng = np.random.default_rng(11)
    half = np.array([0.25, 0.15, 0.1])
    for _ in range(100):
        R = turn @ _yaw(rng.uniform(0.0, 2 * np.pi))
        spot = np.r_[rng.uniform(-4.5, 4.5, 2), half[2] - 0.001]
        _, normal, depth, _ = contacts(mesh, BOX, half, lift + turn @ spot, R, margin=0.01)
        assert len(depth) == 4
        np.testing.assert_allclose(normal, np.tile(up, (4, 1)), atol=1e-12)
        np.testing.assert_allclose(depth, 0.001, atol=1e-12)


@pytest.mark.parametrize("kind", [CAPSULE, CYLINDER])
def test_capsule_and_cylinder_lying_on_floor_touch_along_their_length(kind):
    """A capsule or cylinder (radius 0.1, half-height 0.3) lying 1 mm deep on the tessellated
    floor, any heading: all contacts normal +z and 1 mm deep, spanning its length (within the
    capsule's caps or the cylinder's rim)."""
    mesh = prepare_mesh(*grid(25, 20, rng=np.random.default_rng(2)))
    rng = np.random.default_rng(12)
    r, h = 0.1, 0.3
    lying = quat.to_matrix(np.array([np.cos(np.pi / 4), np.sin(np.pi / 4), 0.0, 0.0]))
    for _ in range(100):
        R = _yaw(rng.uniform(0.0, 2 * np.pi)) @ lying
        centre = np.r_[rng.uniform(-4.4, 4.4, 2), r - 0.001]
        point, normal, depth, _ = contacts(mesh, kind, [r, h, 0.0], centre, R, margin=0.01)
        assert len(depth) >= 2
        np.testing.assert_allclose(normal, np.tile([0.0, 0.0, 1.0], (len(depth), 1)), atol=1e-9)
        np.testing.assert_allclose(depth, 0.001, atol=1e-9)
        along = (point - centre) @ R[:, 2]
        assert along.max() - along.min() > 2 * h - 1e-9 and np.all(np.abs(along) <= h + 1e-9)


def test_hull_on_floor_touches_with_its_lowest_vertex():
    """A random convex hull part, turned at random, its lowest vertex 1 mm into the floor: the
    deepest contact is that vertex with depth 1 mm and normal +z."""
    mesh = prepare_mesh(*grid(25, 20, rng=np.random.default_rng(2)))
    rng = np.random.default_rng(13)
    for _ in range(30):
        hull = convex_hull(rng.normal(size=(20, 3)) * [0.3, 0.2, 0.15])
        tables = (hull.vertices, hull.planes, hull.face_start, hull.face_vertices)
        size = np.abs(hull.vertices).max(axis=0)
        R = _random_rotation(rng)
        world = hull.vertices @ R.T
        lowest = world[np.argmin(world[:, 2])]
        if np.sort(world[:, 2])[1] - lowest[2] < 0.01:
            continue
        centre = np.r_[rng.uniform(-4.4, 4.4, 2), -lowest[2] - 0.001]
        point, normal, depth, _ = contacts(mesh, HULL, size, centre, R, margin=0.005,
                                           hull=tables)
        deepest = np.argmax(depth)
        np.testing.assert_allclose(depth[deepest], 0.001, atol=1e-9)
        np.testing.assert_allclose(normal, np.tile([0.0, 0.0, 1.0], (len(depth), 1)), atol=1e-9)
        np.testing.assert_allclose(point[deepest], centre + lowest + [0.0, 0.0, 0.0005],
                                   atol=1e-9)
