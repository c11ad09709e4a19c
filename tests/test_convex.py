"""The convex narrow phase (solver.convex_manifold, gjk, support) against an independent library
(python-fcl's exact distance and penetration) and closed-form contacts of round shapes."""

import fcl
import numpy as np
from scipy.spatial import ConvexHull as ScipyHull
from scipy.spatial.transform import Rotation

from solver.convex_manifold import convex_contacts, convex_gap
from solver.shapes import HULL
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
