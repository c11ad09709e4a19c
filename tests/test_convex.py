"""The convex narrow phase (solver.convex_manifold, gjk, support) against an independent library
(python-fcl's exact distance and penetration) and closed-form contacts of round shapes."""

import fcl
import numpy as np
import pytest
from scipy.spatial import ConvexHull as ScipyHull
from scipy.spatial.transform import Rotation

from solver.convex_manifold import convex_contacts, convex_gap
from solver.hull import convex_hull
from solver.shapes import BOX, CAPSULE, CONE, CYLINDER, HULL, SPHERE, TRIANGLE
from solver.support import NO_FACE_START, NO_FACE_VERTICES, NO_PLANES, NO_VERTICES

PAIRS = 2000
# Pairs whose reference distance is within this of zero count as touching: either verdict is
# right for them (none of the 2,000 seeded pairs comes that close).
TOUCHING = 1e-9
DISTANCE_TOLERANCE = 1e-9  # GJK's relative stop (1e-10) on metre-sized hulls
DEPTH_TOLERANCE = 1e-9  # EPA's stop, 1e-9 of the parts' size
NO_TABLES = (NO_VERTICES, NO_PLANES, NO_FACE_START, NO_FACE_VERTICES)


def hull_tables(points):
    """Hull vertices, planes, face_start, face_vertices (triangles, counter-clockwise from
    outside) of a random point set, and its fcl geometry."""
    vertices = points[ScipyHull(points).vertices]
    hull = ScipyHull(vertices)
    planes, faces = [], []
    for simplex, equation in zip(hull.simplices, hull.equations, strict=True):
        a, b, c = vertices[simplex]
        if np.dot(np.cross(b - a, c - a), equation[:3]) < 0.0:
            simplex = simplex[::-1]
        faces.append(simplex)
        planes.append([*equation[:3], -equation[3]])
    faces = np.array(faces, np.int64)
    tables = (vertices, np.array(planes), np.arange(0, 3 * len(faces) + 1, 3),
              faces.reshape(-1))
    flat = np.hstack([np.full((len(faces), 1), 3), faces]).reshape(-1)
    return tables, fcl.Convex(vertices, len(faces), flat)


def part(kind, size=(1.0, 1.0, 1.0), center=(0.0, 0.0, 0.0), rotation=None, tables=NO_TABLES):
    """The 8 arguments of one part for convex_contacts."""
    R = np.eye(3) if rotation is None else np.asarray(rotation, float)
    return (kind, np.asarray(size, float), np.asarray(center, float), R, *tables)


def contacts(a, b, margin=0.0):
    rows = 8
    point, normal = np.zeros((rows, 3)), np.zeros((rows, 3))
    depth, feature = np.zeros(rows), np.zeros(rows, np.int64)
    count = convex_contacts(*a, *b, margin, point, normal, depth, feature, np.int64(0))
    return point[:count], normal[:count], depth[:count], feature[:count]


def gap(a, b):
    direction = np.zeros(3)
    return convex_gap(*a, *b, direction), direction


def gap_along(a, b, n):
    """min over B of n·x minus max over A, from the hulls' vertices (a -> b along unit n)."""
    world = [p[2] + p[4] @ p[3].T for p in (a, b)]
    return (world[1] @ n).min() - (world[0] @ n).max()


def random_hull_pairs(seed, count):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        made = []
        for _ in range(2):
            points = rng.normal(size=(rng.integers(4, 30), 3)) * rng.uniform(0.2, 1.5, 3)
            tables, geometry = hull_tables(points)
            made.append((tables, geometry, Rotation.random(random_state=rng).as_matrix()))
        ca = rng.normal(size=3)
        cb = ca + rng.normal(size=3) * 1.5
        yield made, ca, cb


def test_hull_pairs_agree_with_fcl():
    request = fcl.DistanceRequest(enable_signed_distance=True)
    disagreements, distance_errors, depth_errors = 0, [], []
    for ((ta, ga, Ra), (tb, gb, Rb)), ca, cb in random_hull_pairs(11, PAIRS):
        mine, _ = gap(part(HULL, center=ca, rotation=Ra, tables=ta),
                      part(HULL, center=cb, rotation=Rb, tables=tb))
        reference = fcl.distance(fcl.CollisionObject(ga, fcl.Transform(Ra, ca)),
                                 fcl.CollisionObject(gb, fcl.Transform(Rb, cb)),
                                 request, fcl.DistanceResult())
        assert abs(reference) > TOUCHING
        disagreements += (mine < 0.0) != (reference < 0.0)
        (distance_errors if reference > 0.0 else depth_errors).append(abs(mine - reference))
    assert disagreements == 0
    assert len(distance_errors) > PAIRS // 4 and len(depth_errors) > PAIRS // 4
    assert max(distance_errors) < DISTANCE_TOLERANCE
    assert max(depth_errors) < DEPTH_TOLERANCE


def test_hull_contacts_match_the_gap_and_lie_between_the_surfaces():
    """Every overlapping or near pair gets contacts whose deepest depth is the penetration
    along the returned normal, unit normals a -> b, ids below 2**24."""
    margin = 0.05
    checked = 0
    for ((ta, _, Ra), (tb, _, Rb)), ca, cb in random_hull_pairs(12, 300):
        a = part(HULL, center=ca, rotation=Ra, tables=ta)
        b = part(HULL, center=cb, rotation=Rb, tables=tb)
        signed, _ = gap(a, b)
        point, normal, depth, feature = contacts(a, b, margin)
        if signed > margin + 1e-9:
            assert len(depth) == 0
            continue
        checked += 1
        assert 1 <= len(depth) <= 4
        assert np.allclose(np.linalg.norm(normal, axis=1), 1.0)
        assert np.all(depth >= -margin - 1e-12)
        assert np.all((feature >= 0) & (feature < 2**24))
        assert len(set(feature.tolist())) == len(feature)
        # no point is deeper than the overlap along its normal, and the deepest point of a
        # near pair is the overlap (up to the 5 % face preference of sat.py)
        along = -gap_along(a, b, normal[0])
        assert depth.max() <= along + 1e-9
        if abs(signed) < 0.1:
            assert depth.max() >= along - 0.05 * abs(signed) - 1e-4
        # a point midway between the surfaces is at most half its depth inside either part
        for p in (a, b):
            planes = p[5]
            inside = (point - p[2]) @ p[3] @ planes[:, :3].T - planes[:, 3]
            assert np.all(inside.max(axis=1) >= -0.5 * np.abs(depth) - 1e-9)
    assert checked > 100


# --- round kinds --------------------------------------------------------------------------

ROUND_KINDS = (BOX, SPHERE, CAPSULE, CYLINDER, CONE, HULL)
# python-fcl's GJK on curved shapes stops early: its distances are off by up to 3e-3 (checked
# against an inscribed 720-gon, which this kernel matches to the polygon's 8e-6), its depths by
# up to 1e-6 (its EPA tolerance). Pairs nearer touching than FCL_SLACK count as touching.
# Depths agree to FCL_DEPTH: EPA on a cylinder or cone, sharpened by _refine, is still up to
# 5e-6 deep on 0.3 m penetrations (polytopes, spheres and capsules: 1e-6, fcl's own).
FCL_SLACK = 5e-3
FCL_DEPTH = 1e-5
# GJK's lower bound on a curved rim nearly parallel to an edge trails the distance by up to
# this (its direction converges as the square root of its distance): CCD stays safe, 2e-5 early.
RIM_LAG = 3e-5
FLOOR = part(BOX, (5.0, 5.0, 0.5), (0.0, 0.0, -0.5))  # top face at z = 0
LYING = Rotation.from_euler("y", 90, degrees=True).as_matrix()  # local z -> world -x


def random_part(kind, rng, center, rotation):
    """A part of the kind with random size, and its fcl geometry."""
    r, h = rng.uniform(0.2, 0.8, 2)
    if kind == HULL:
        tables, geometry = hull_tables(rng.normal(size=(12, 3)) * 0.6)
        return part(HULL, center=center, rotation=rotation, tables=tables), geometry
    if kind == BOX:
        half = rng.uniform(0.2, 0.8, 3)
        return part(BOX, half, center, rotation), fcl.Box(*(2.0 * half))
    geometry = {SPHERE: lambda: fcl.Sphere(r), CAPSULE: lambda: fcl.Capsule(r, 2.0 * h),
                CYLINDER: lambda: fcl.Cylinder(r, 2.0 * h), CONE: lambda: fcl.Cone(r, 2.0 * h)}
    size = (r, r, r) if kind == SPHERE else (r, h, 0.0)
    return part(kind, size, center, rotation), geometry[kind]()


@pytest.mark.parametrize("kind_a", ROUND_KINDS)
def test_every_kind_pair_agrees_with_fcl(kind_a):
    rng = np.random.default_rng(20 + kind_a)
    request = fcl.DistanceRequest(enable_signed_distance=True)
    for kind_b in ROUND_KINDS:
        disagreements, apart, depth_errors = 0, 0, []
        for _ in range(150):
            ca = rng.normal(size=3)
            cb = ca + rng.normal(size=3) * 0.8
            Ra, Rb = Rotation.random(2, random_state=rng).as_matrix()
            a, ga = random_part(kind_a, rng, ca, Ra)
            b, gb = random_part(kind_b, rng, cb, Rb)
            mine, _ = gap(a, b)
            reference = fcl.distance(fcl.CollisionObject(ga, fcl.Transform(Ra, ca)),
                                     fcl.CollisionObject(gb, fcl.Transform(Rb, cb)),
                                     request, fcl.DistanceResult())
            if abs(reference) < FCL_SLACK:
                continue
            disagreements += (mine < 0.0) != (reference < 0.0)
            if reference > 0.0:
                apart += 1
                if not kind_a == kind_b == BOX:  # box-box gives the SAT's lower bound
                    assert abs(mine - reference) < FCL_SLACK
            else:
                depth_errors.append(abs(mine - reference))
        assert disagreements == 0, (kind_a, kind_b)
        assert apart > 20 and len(depth_errors) > 20
        assert max(depth_errors) < FCL_DEPTH, (kind_a, kind_b)


def inscribed_polygon(kind, r, h, sides=720):
    """A cylinder's or cone's inscribed polyhedron (a 720-gon prism or pyramid) as hull tables:
    its distance to anything exceeds the true one by at most r (1 - cos(pi / sides))."""
    angle = np.linspace(0.0, 2.0 * np.pi, sides, endpoint=False)
    rim = np.c_[r * np.cos(angle), r * np.sin(angle), np.full(sides, -h)]
    top = rim + np.array([0.0, 0.0, 2.0 * h]) if kind == CYLINDER else np.array([[0.0, 0.0, h]])
    return hull_tables(np.vstack([rim, top]))[0]


@pytest.mark.parametrize("kind", [CYLINDER, CONE])
def test_cylinder_and_cone_gaps_match_their_inscribed_polyhedra(kind):
    """The analytic support of the curved part against the exact polytope path (which agrees
    with fcl to 1e-12): apart and overlapping pairs with random hulls."""
    rng = np.random.default_rng(30 + kind)
    r, h = 0.5, 0.4
    polygon = inscribed_polygon(kind, r, h)
    bound = r * (1.0 - np.cos(np.pi / 720)) + 1e-9
    signs = set()
    for _ in range(100):
        Ra, Rb = Rotation.random(2, random_state=rng).as_matrix()
        cb = rng.normal(size=3) * 0.7
        tables, _ = hull_tables(rng.normal(size=(12, 3)) * 0.6)
        b = part(HULL, center=cb, rotation=Rb, tables=tables)
        curved, _ = gap(part(kind, (r, h, 0.0), (0.0, 0.0, 0.0), Ra), b)
        flat, _ = gap(part(HULL, center=(0.0, 0.0, 0.0), rotation=Ra, tables=polygon), b)
        lag = RIM_LAG if flat > 0.0 else 1e-7
        assert flat - bound - lag <= curved <= flat + 1e-9
        signs.add(curved > 0.0)
    assert signs == {True, False}


def segment_distance(p0, p1, q0, q1):
    """Closed form (clamped) distance of two segments, by ternary search over the first
    segment's parameter of the point-segment distance (a convex function of it)."""
    def to_segment(x):
        e = q1 - q0
        t = np.clip(np.dot(x - q0, e) / np.dot(e, e), 0.0, 1.0)
        return np.linalg.norm(x - q0 - t * e)
    lo, hi = 0.0, 1.0
    for _ in range(200):
        m1, m2 = lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0
        if to_segment(p0 + m1 * (p1 - p0)) < to_segment(p0 + m2 * (p1 - p0)):
            hi = m2
        else:
            lo = m1
    return to_segment(p0 + lo * (p1 - p0))


def test_capsule_and_sphere_distances_match_the_closed_form():
    """Capsule-capsule and sphere-capsule: the distance of the core segments (or centre) minus
    the radii, apart and overlapping, and the normal along the line of the closest points."""
    rng = np.random.default_rng(40)
    for _ in range(200):
        (ra, rb), (ha, hb) = rng.uniform(0.1, 0.5, 2), rng.uniform(0.1, 0.8, 2)
        Ra, Rb = Rotation.random(2, random_state=rng).as_matrix()
        ca, cb = rng.normal(size=3) * 0.5, rng.normal(size=3) * 0.5
        sphere = rng.random() < 0.3
        ends_a = [ca] * 2 if sphere else [ca + s * ha * Ra[:, 2] for s in (-1.0, 1.0)]
        ends_b = [cb + s * hb * Rb[:, 2] for s in (-1.0, 1.0)]
        a = part(SPHERE, (ra, ra, ra), ca) if sphere else part(CAPSULE, (ra, ha, 0.0), ca, Ra)
        b = part(CAPSULE, (rb, hb, 0.0), cb, Rb)
        expected = segment_distance(*ends_a, *ends_b) - ra - rb
        mine, _ = gap(a, b)
        assert mine == pytest.approx(expected, abs=1e-9)
        if -0.05 < expected < 0.05:
            depth = contacts(a, b, 0.05)[2]
            assert depth.max() == pytest.approx(-expected, abs=1e-9)


def test_capsule_on_its_side_gets_two_points_at_the_right_depth():
    point, normal, depth, _ = contacts(FLOOR, part(CAPSULE, (0.3, 0.5, 0.0), (0.1, 0.2, 0.29),
                                                   LYING), 0.01)
    assert len(depth) == 2
    np.testing.assert_allclose(depth, 0.01, atol=1e-12)
    np.testing.assert_allclose(normal, [[0.0, 0.0, 1.0]] * 2, atol=1e-12)
    np.testing.assert_allclose(sorted(point[:, 0]), [-0.4, 0.6], atol=1e-12)  # segment ends
    np.testing.assert_allclose(point[:, 1:], [[0.2, -0.005]] * 2, atol=1e-12)


def test_standing_capsule_gets_one_point():
    _, _, depth, _ = contacts(FLOOR, part(CAPSULE, (0.3, 0.5, 0.0), (0.0, 0.0, 0.79)), 0.005)
    np.testing.assert_allclose(depth, [0.01], atol=1e-12)


def test_standing_cylinder_gets_a_face_manifold_on_its_rim():
    point, normal, depth, _ = contacts(FLOOR, part(CYLINDER, (0.4, 0.5, 0.0), (0.1, 0.2, 0.48)),
                                       0.01)
    assert len(depth) == 4
    np.testing.assert_allclose(depth, 0.02, atol=1e-12)
    np.testing.assert_allclose(normal, [[0.0, 0.0, 1.0]] * 4, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(point[:, :2] - [0.1, 0.2], axis=1), 0.4, atol=1e-12)
    np.testing.assert_allclose(point[:, 2], -0.01, atol=1e-12)
    # spread over the rim: the four points span a square of the disc's size
    assert np.ptp(point[:, 0]) > 0.5 and np.ptp(point[:, 1]) > 0.5


@pytest.mark.parametrize("roll", np.linspace(0.0, 2.0 * np.pi, 7))
def test_cylinder_rolling_on_its_side_touches_along_a_line_with_the_floor_normal(roll):
    """On a hull floor (not the box kernel) at any roll angle: two points at the ends of the
    line below the axis, the exact floor normal, the same ids."""
    floor = hull_part([[x, y, z] for x in (-5, 5) for y in (-5, 5) for z in (-1, 0)])
    rotation = LYING @ Rotation.from_euler("z", roll).as_matrix()
    point, normal, depth, feature = contacts(
        floor, part(CYLINDER, (0.4, 0.5, 0.0), (0.1, 0.2, 0.39), rotation), 0.01)
    np.testing.assert_allclose(normal, [[0.0, 0.0, 1.0]] * 2, atol=1e-15)
    np.testing.assert_allclose(depth, 0.01, atol=1e-12)
    np.testing.assert_allclose(sorted(point[:, 0]), [-0.4, 0.6], atol=1e-12)
    np.testing.assert_allclose(point[:, 1], 0.2, atol=1e-12)
    assert sorted(feature.tolist()) == [2 * 8, 2 * 8 + 1]  # the side line's two ends


@pytest.mark.parametrize("phase", np.arange(0.0, 91.0, 1.0))
def test_cylinder_exactly_touching_a_ramp_gets_the_ramp_normal_at_any_phase(phase):
    """Side line on a 20° box ramp at depth 0, the cylinder turned by `phase` degrees about its
    axis: EPA's nearest face then lies a rounding error beyond the origin, which must still
    give the ramp's normal (it once gave the centres' direction, 55° off, at some phases)."""
    tilt = Rotation.from_euler("y", 20, degrees=True)
    up, downhill = tilt.apply([0.0, 0.0, 1.0]), tilt.apply([1.0, 0.0, 0.0])
    rotation = (Rotation.from_euler("x", 90, degrees=True)
                * Rotation.from_euler("z", phase, degrees=True)).as_matrix()
    ramp = part(BOX, (10.0, 2.0, 0.5), (0.0, 0.0, 0.0), tilt.as_matrix())
    cylinder = part(CYLINDER, (0.3, 0.3, 0.0), 0.8 * up - 3.0 * downhill, rotation)
    point, normal, depth, feature = contacts(ramp, cylinder, 0.01)
    np.testing.assert_allclose(normal, [up, up], atol=1e-9)
    np.testing.assert_allclose(depth, 0.0, atol=1e-9)
    np.testing.assert_allclose(np.sort(point[:, 1]), [-0.3, 0.3], atol=1e-9)
    assert sorted(feature.tolist()) == [2 * 8, 2 * 8 + 1]  # the side line's two ends


def test_cylinder_a_micrometre_above_a_ramp_is_apart_along_the_ramp_normal():
    """A pose recorded from a cylinder rolling down that ramp, 0.73 µm above it: GJK's last
    support point lay a hair from an earlier one, and the flat tetrahedron was read as holding
    the origin; EPA then reported an overlap of 1.6 m along the ramp's inward normal."""
    c, s = 0.9396926207859084, 0.34202014332566877  # the recorded 20° tilt, bit for bit
    ramp = part(BOX, (10.0, 2.0, 0.5), (0.0, 0.0, 0.0), [[c, 0.0, s], [0.0, 1.0, 0.0],
                                                         [-s, 0.0, c]])
    rotation = [[0.9799470149719962, -0.19925824411420007, -4.294897770762418e-13],
                [-4.826417043801712e-13, -2.1826984664130578e-13, -1.0000000000000002],
                [0.19925824411420007, 0.9799470149719964, -3.1019631308026874e-13]]
    centre = [-2.159192419251581, -1.9193678262011308e-13, 1.6372247653928287]
    _, normal, depth, feature = contacts(ramp, part(CYLINDER, (0.3, 0.3, 0.0), centre,
                                                    rotation), 0.05)
    up = np.array([s, 0.0, c])
    gap = np.dot(centre, up) - 0.8
    assert gap == pytest.approx(7.3e-7, rel=0.01)
    np.testing.assert_allclose(normal, [up, up], atol=1e-9)
    np.testing.assert_allclose(depth, -gap, atol=1e-10)
    assert sorted(feature.tolist()) == [2 * 8, 2 * 8 + 1]


def cone_on_its_side(r, h, turn, apex):
    """A cone lying on its side on z = 0 with its apex at `apex`, turned by `turn` about the
    vertical through the apex, sunk 0.01: (centre, rotation)."""
    slant = np.hypot(2.0 * h, r)
    lie = Rotation.align_vectors([[0.0, 0.0, -1.0]], [[2.0 * h / slant, 0.0, r / slant]])[0]
    rotation = (Rotation.from_euler("z", turn) * lie).as_matrix()
    centre = np.asarray(apex, float) - rotation @ [0.0, 0.0, h] + [0.0, 0.0, -0.01]
    return centre, rotation


@pytest.mark.parametrize("turn", [0.0, 0.7, 2.0, 4.0])
def test_cone_on_its_side_touches_along_a_line_from_its_apex(turn):
    """Rolling about its apex (turned about the vertical through it): two points, one at the
    apex, which stays put, the other at the base rim a slant length away."""
    r, h, apex = 0.4, 0.6, np.array([0.3, -0.2, 0.0])
    centre, rotation = cone_on_its_side(r, h, turn, apex)
    point, normal, depth, feature = contacts(FLOOR, part(CONE, (r, h, 0.0), centre, rotation),
                                             0.005)
    assert len(depth) == 2
    np.testing.assert_allclose(depth, 0.01, atol=1e-12)
    np.testing.assert_allclose(normal, [[0.0, 0.0, 1.0]] * 2, atol=1e-12)
    distance = np.linalg.norm(point[:, :2] - apex[:2], axis=1)
    np.testing.assert_allclose(sorted(distance), [0.0, np.hypot(2.0 * h, r)], atol=1e-9)
    assert sorted(feature.tolist()) == [8, 9]


def test_barrels_side_by_side_touch_along_a_line():
    """Two parallel cylinders (curved on curved, EPA's path): two points along the line of
    contact, the normal square to both axes (to 1e-8: EPA's error refined away)."""
    point, normal, depth, _ = contacts(part(CYLINDER, (0.4, 0.5, 0.0), (0.0, 0.0, 0.0), LYING),
                                       part(CYLINDER, (0.3, 0.6, 0.0), (0.2, 0.0, 0.69), LYING),
                                       0.01)
    assert len(depth) == 2
    np.testing.assert_allclose(depth, 0.01, atol=1e-9)
    np.testing.assert_allclose(normal, [[0.0, 0.0, 1.0]] * 2, atol=1e-8)
    np.testing.assert_allclose(sorted(point[:, 0]), [-0.4, 0.5], atol=1e-9)


@pytest.mark.parametrize("angle", [0.0, 0.3, 1.0])
def test_crossed_barrels_normal_is_smooth(angle):
    """A cylinder lying square across another, on it at an angle: one point, the normal along
    the line between their axes to 1e-8 (EPA alone is off by ~2e-5 on curved parts)."""
    up = np.array([0.0, np.sin(angle), np.cos(angle)])
    across = np.column_stack([[1.0, 0.0, 0.0], up, np.cross([1.0, 0.0, 0.0], up)])  # z: x × up
    _, normal, depth, _ = contacts(part(CYLINDER, (0.4, 0.5, 0.0), (0.0, 0.0, 0.0), LYING),
                                   part(CYLINDER, (0.3, 0.3, 0.0), 0.69 * up, across), 0.01)
    assert len(depth) == 1
    np.testing.assert_allclose(normal[0], up, atol=1e-8)
    assert depth[0] == pytest.approx(0.01, abs=1e-8)


def test_sphere_deep_in_a_hull_takes_the_nearest_face():
    """The sphere's centre inside the hull (its core overlaps: EPA on the whole sphere)."""
    cube = hull_part([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
    point, normal, depth, _ = contacts(cube, part(SPHERE, (0.2, 0.2, 0.2), (0.1, 0.05, 0.4)))
    np.testing.assert_allclose(normal, [[0.0, 0.0, 1.0]], atol=1e-12)
    np.testing.assert_allclose(depth, [0.3], atol=1e-9)  # radius + centre's depth below the top
    np.testing.assert_allclose(point, [[0.1, 0.05, 0.35]], atol=1e-9)


def test_box_on_a_triangle_edge_is_clipped_to_the_triangle():
    """A TRIANGLE part (3 vertices, no face tables) under a box straddling its edge y = -2:
    the manifold covers only the half over the triangle."""
    triangle = np.array([[-2.0, -2.0, 0.0], [2.0, -2.0, 0.0], [0.0, 2.0, 0.0]])
    tri = (TRIANGLE, np.zeros(3), np.zeros(3), np.eye(3), triangle, *NO_TABLES[1:])
    point, normal, depth, feature = contacts(tri, part(BOX, (0.5, 0.5, 0.5), (0.0, -2.0, 0.49)),
                                             0.01)
    assert len(depth) == 4
    np.testing.assert_allclose(depth, 0.01, atol=1e-12)
    np.testing.assert_allclose(normal, [[0.0, 0.0, 1.0]] * 4, atol=1e-12)
    np.testing.assert_allclose(sorted(point[:, 1]), [-2.0, -2.0, -1.5, -1.5], atol=1e-12)
    assert len(set(feature.tolist())) == 4


def hull_part(points, center=(0.0, 0.0, 0.0), rotation=None):
    """A HULL part from solver.hull (merged faces) of the points."""
    made = convex_hull(np.asarray(points, float))
    return part(HULL, np.abs(made.vertices).max(axis=0), center, rotation,
                (made.vertices, made.planes, made.face_start, made.face_vertices))


@pytest.mark.parametrize("name", ["hull box", "capsule", "standing cylinder", "barrels",
                                  "cone"])
def test_feature_ids_are_stable_under_tiny_motions(name):
    """The same touching features keep their ids when the pose moves by 1e-7 (m and rad)."""
    rng = np.random.default_rng(50)
    cube = [[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]
    cone_centre, cone_rotation = cone_on_its_side(0.4, 0.6, 0.5, (0.0, 0.0, 0.0))
    scenes = {
        "hull box": (FLOOR, lambda c, R: hull_part(cube, np.add(c, (0.0, 0.0, 0.49)), R)),
        "capsule": (FLOOR, lambda c, R: part(CAPSULE, (0.3, 0.5, 0.0), np.add(c, (0, 0, 0.29)),
                                             R @ LYING)),
        "standing cylinder": (FLOOR, lambda c, R: part(CYLINDER, (0.4, 0.5, 0.0),
                                                       np.add(c, (0.0, 0.0, 0.49)), R)),
        "barrels": (part(CYLINDER, (0.4, 0.5, 0.0), (0.0, 0.0, 0.0), LYING),
                    lambda c, R: part(CYLINDER, (0.3, 0.6, 0.0), np.add(c, (0.2, 0.0, 0.69)),
                                      R @ LYING)),
        "cone": (FLOOR, lambda c, R: part(CONE, (0.4, 0.6, 0.0), c + cone_centre,
                                          R @ cone_rotation)),
    }
    base, moved = scenes[name]
    _, _, _, first = contacts(base, moved(np.zeros(3), np.eye(3)), 0.01)
    assert len(first) >= 2
    for _ in range(20):
        turn = Rotation.from_rotvec(rng.normal(scale=1e-7, size=3)).as_matrix()
        _, _, _, ids = contacts(base, moved(rng.normal(scale=1e-7, size=3), turn), 0.01)
        assert sorted(ids.tolist()) == sorted(first.tolist())
