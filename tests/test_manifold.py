"""Contact manifolds with exact expected points, and the batched `find_contacts` contract."""

import itertools

import numpy as np
import pytest

from solver import BOX, SPHERE, find_contacts
from solver import quaternion as quat
from solver.sat import box_box_sat

S2 = np.sqrt(2.0)


def _rotation(axis, angle):
    return quat.to_matrix(quat.from_axis_angle(np.asarray(axis, float), angle))


def _contacts(bodies, pairs=((0, 1),), margin=0.0):
    """bodies: (shape, centre, rotation, half-extents) tuples."""
    shape, centre, rotation, half = zip(*bodies, strict=True)
    return find_contacts(
        np.array(shape),
        np.array(centre, float),
        np.array(rotation, float),
        np.array(half, float),
        np.array(pairs),
        margin,
    )


def _same_points(actual, expected):
    """Equal as unordered sets of points, to 1e-12."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape
    distance = np.linalg.norm(actual[:, None] - expected[None], axis=2)
    assert np.all(distance.min(axis=1) < 1e-12) and np.all(distance.min(axis=0) < 1e-12)


FLOOR = (BOX, (0.0, 0.0, 0.0), np.eye(3), (2.0, 2.0, 0.5))


def test_box_resting_flat_gives_the_overlap_corners_with_equal_depth():
    """A 1 m cube overhanging the floor's x = 2 edge, sunk 0.01: the overlap is x in [1.3, 2],
    y in [-0.2, 0.8]; points midway between the surfaces (z = 0.495)."""
    cube = (BOX, (1.8, 0.3, 0.99), np.eye(3), (0.5, 0.5, 0.5))
    found = _contacts([FLOOR, cube])
    _same_points(found.point, [[x, y, 0.495] for x in (1.3, 2.0) for y in (-0.2, 0.8)])
    np.testing.assert_allclose(found.depth, 0.01, rtol=1e-12)
    np.testing.assert_allclose(found.normal, np.tile([0.0, 0.0, 1.0], (4, 1)))
    assert found.a.tolist() == [0] * 4 and found.b.tolist() == [1] * 4
    # the same pair the other way round: same points, normal still from a (the cube) to b
    swapped = _contacts([cube, FLOOR])
    _same_points(swapped.point, found.point)
    np.testing.assert_allclose(swapped.normal, np.tile([0.0, 0.0, -1.0], (4, 1)))


def test_box_turned_on_the_floor_gives_its_turned_corners():
    turn = _rotation([0, 0, 1], 0.4)
    cube = (BOX, (0.2, -0.3, 0.98), turn, (0.5, 0.3, 0.5))
    found = _contacts([FLOOR, cube])
    corners = [
        turn @ [sx * 0.5, sy * 0.3, 0.0] + [0.2, -0.3, 0.49] for sx in (-1, 1) for sy in (-1, 1)
    ]
    _same_points(found.point, corners)
    np.testing.assert_allclose(found.depth, 0.02, rtol=1e-12)


def test_diamond_over_a_corner_is_clipped_to_the_triangle():
    """A cube turned 45° centred over the floor's corner (2, 2): the clipped polygon is the
    triangle (2 - 1/√2, 2), (2, 2 - 1/√2) and the floor's own corner (2, 2)."""
    cube = (BOX, (2.0, 2.0, 0.99), _rotation([0, 0, 1], np.pi / 4), (0.5, 0.5, 0.5))
    found = _contacts([FLOOR, cube])
    r = 0.5 * S2
    _same_points(found.point, [[2 - r, 2, 0.495], [2, 2 - r, 0.495], [2, 2, 0.495]])


def test_octagon_is_reduced_to_the_largest_square():
    """A 1 m cube turned 45° on a 1 m cube: the clipped polygon is a regular octagon; the four
    points kept are alternate vertices (the largest quadrilateral, area 2 r^2)."""
    base = (BOX, (0.0, 0.0, 0.0), np.eye(3), (0.5, 0.5, 0.5))
    cube = (BOX, (0.0, 0.0, 0.99), _rotation([0, 0, 1], np.pi / 4), (0.5, 0.5, 0.5))
    found = _contacts([base, cube])
    t = 0.5 * (S2 - 1.0)  # where the diamond's edges cross the square's
    octagon = [[sx * 0.5, sy * t, 0.495] for sx in (-1, 1) for sy in (-1, 1)]
    octagon += [[sy * t, sx * 0.5, 0.495] for sx in (-1, 1) for sy in (-1, 1)]
    assert len(found) == 4
    distance = np.linalg.norm(found.point[:, None] - np.array(octagon)[None], axis=2)
    assert np.all(distance.min(axis=1) < 1e-12)
    r2 = 0.25 + t * t
    assert _hull_area(found.point[:, :2]) == pytest.approx(2.0 * r2, rel=1e-12)


def _hull_area(points):
    centre = points.mean(axis=0)
    order = np.argsort(np.arctan2(*(points - centre).T[::-1]))
    x, y = points[order].T
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def test_tilted_overhang_keeps_the_deepest_point():
    """A wide slab turned 45° + 0.1 and tilted 0.004 rad, overhanging the floor's corner: the
    clipped points' depths differ. The expected polygon is computed independently (vertices
    inside the other polygon plus edge crossings); the reported points must be 4 of its
    vertices including the deepest, each with its own depth."""
    turn = _rotation([1, 0, 0], 0.004) @ _rotation([0, 0, 1], np.pi / 4 + 0.1)
    h = np.array([1.5, 1.5, 0.5])
    centre = np.array([1.6, 1.5, 0.5 + (np.abs(turn[2]) * h).sum() - 0.03])
    found = _contacts([FLOOR, (BOX, centre, turn, h)])

    face = [
        centre + turn @ (np.array([sx, sy, -1.0]) * h)
        for sx, sy in ((1, 1), (-1, 1), (-1, -1), (1, -1))
    ]
    square = [np.array([sx, sy]) * 2.0 for sx, sy in ((1, 1), (-1, 1), (-1, -1), (1, -1))]
    normal = np.cross(face[1] - face[0], face[2] - face[0])

    def height(xy):  # the incident face plane over the point xy
        return face[0][2] - (normal[:2] @ (xy - face[0][:2])) / normal[2]

    vertices = [p[:2] for p in face if np.all(np.abs(p[:2]) <= 2.0)]
    vertices += [q for q in square if _inside(q, [p[:2] for p in face])]
    for p0, p1 in zip(face, face[1:] + face[:1], strict=True):
        for q0, q1 in zip(square, square[1:] + square[:1], strict=True):
            crossing = _segment_crossing(p0[:2], p1[:2], q0, q1)
            if crossing is not None:
                vertices.append(crossing)
    depth = np.array([0.5 - height(v) for v in vertices])
    expected = np.array([[*v, 0.5 - d / 2] for v, d in zip(vertices, depth, strict=True)])
    assert len(expected) > 4 and len(found) == 4
    distance = np.linalg.norm(found.point[:, None] - expected[None], axis=2)
    match = distance.argmin(axis=1)
    assert np.all(distance.min(axis=1) < 1e-12)
    np.testing.assert_allclose(found.depth, depth[match], atol=1e-12)
    assert depth.argmax() in match


def _inside(point, polygon):
    signs = [
        np.cross(b - a, point - a) for a, b in zip(polygon, polygon[1:] + polygon[:1], strict=True)
    ]
    return all(s >= 0 for s in signs) or all(s <= 0 for s in signs)


def _segment_crossing(p0, p1, q0, q1):
    m = np.column_stack([p1 - p0, q0 - q1])
    if abs(np.linalg.det(m)) < 1e-15:
        return None
    s, t = np.linalg.solve(m, q0 - p0)
    return p0 + s * (p1 - p0) if 0 <= s <= 1 and 0 <= t <= 1 else None


def test_crossing_edges_give_one_point_between_their_closest_points():
    """a: a cube on its x edge (turned 45° about x), top edge along x at z = √2/2; b: a cube on
    its y edge (turned 45° about y) above it, sunk by 0.01 and moved to x = 0.1."""
    a = (BOX, (0.0, 0.0, 0.0), _rotation([1, 0, 0], np.pi / 4), (0.5, 0.5, 0.5))
    top = 0.5 * S2
    b = (BOX, (0.1, 0.0, top + top - 0.01), _rotation([0, 1, 0], np.pi / 4), (0.5, 0.5, 0.5))
    found = _contacts([a, b])
    assert len(found) == 1
    np.testing.assert_allclose(found.point[0], [0.1, 0.0, top - 0.005], atol=1e-12)
    np.testing.assert_allclose(found.normal[0], [0.0, 0.0, 1.0], atol=1e-12)
    assert found.depth[0] == pytest.approx(0.01, abs=1e-12)


def test_vertex_into_a_face_gives_one_point():
    """A cube standing on a corner (its (1,1,1) diagonal turned to -z), the corner 0.01 into
    the floor at (0.3, -0.4)."""
    diagonal = np.array([1.0, 1.0, 1.0]) / np.sqrt(3.0)
    axis = np.cross(diagonal, [0.0, 0.0, -1.0])
    turn = _rotation(axis, np.arccos(-diagonal[2]))
    corner = turn @ [0.5, 0.5, 0.5]
    centre = np.array([0.3, -0.4, 0.5 - 0.01]) - corner
    found = _contacts([FLOOR, (BOX, centre, turn, (0.5, 0.5, 0.5))])
    assert len(found) == 1
    np.testing.assert_allclose(found.point[0], [0.3, -0.4, 0.495], atol=1e-12)
    np.testing.assert_allclose(found.normal[0], [0.0, 0.0, 1.0], atol=1e-12)
    assert found.depth[0] == pytest.approx(0.01, abs=1e-12)


BALL = 0.5


@pytest.mark.parametrize(
    ("centre", "point", "normal", "depth"),
    [
        # above the top face, 0.1 into it
        ((0.3, 0.2, 0.9), (0.3, 0.2, 0.45), (0, 0, 1), 0.1),
        # beside the x = 2, z = 0.5 edge, 0.2 from it along the diagonal
        (
            (2 + 0.3 / S2, 1.0, 0.5 + 0.3 / S2),
            (2 - 0.1 / S2, 1.0, 0.5 - 0.1 / S2),
            (1 / S2, 0, 1 / S2),
            0.2,
        ),
        # off the (2, 2, 0.5) corner, just touching
        ((2.3, 2.0, 0.9), (2.0, 2.0, 0.5), (0.6, 0, 0.8), 0.0),
        # centre inside the floor, nearest face the top: pushed out through it
        ((1.0, 1.0, 0.4), (1.0, 1.0, 0.2), (0, 0, 1), 0.6),
    ],
)
def test_sphere_against_box(centre, point, normal, depth):
    ball = (SPHERE, centre, np.eye(3), (BALL, BALL, BALL))
    found = _contacts([FLOOR, ball])
    np.testing.assert_allclose(found.point, [point], atol=1e-12)
    np.testing.assert_allclose(found.normal, [normal], atol=1e-12)
    np.testing.assert_allclose(found.depth, [depth], atol=1e-12)
    flipped = _contacts([ball, FLOOR])
    np.testing.assert_allclose(flipped.normal, -np.array([normal]), atol=1e-12)
    np.testing.assert_allclose(flipped.point, [point], atol=1e-12)


def test_sphere_against_turned_box_uses_the_box_frame():
    turn = _rotation([0, 0, 1], 0.5)
    box = (BOX, (1.0, 2.0, 3.0), turn, (1.0, 0.5, 0.25))
    up = turn @ [0.0, 1.0, 0.0]
    ball = (SPHERE, np.array([1.0, 2.0, 3.0]) + 0.9 * up, np.eye(3), (BALL, BALL, BALL))
    found = _contacts([box, ball])
    np.testing.assert_allclose(found.normal, [up], atol=1e-12)
    assert found.depth[0] == pytest.approx(0.1, abs=1e-12)
    np.testing.assert_allclose(found.point, [np.array([1.0, 2.0, 3.0]) + 0.45 * up], atol=1e-12)


def test_sphere_sphere():
    balls = [
        (SPHERE, (0.0, 0.0, 0.0), np.eye(3), (1.0,) * 3),
        (SPHERE, (0.6, 0.8, 0.0), np.eye(3), (0.5,) * 3),
        (SPHERE, (5.0, 0.0, 0.0), np.eye(3), (0.5,) * 3),
    ]
    found = _contacts(balls, pairs=[(0, 1), (0, 2)])
    assert len(found) == 1
    np.testing.assert_allclose(found.normal, [[0.6, 0.8, 0.0]], atol=1e-15)
    assert found.depth[0] == pytest.approx(0.5)
    np.testing.assert_allclose(found.point, [[0.45, 0.6, 0.0]], atol=1e-15)


def test_margin_reports_speculative_contacts_with_negative_depth():
    cube = (BOX, (0.0, 0.0, 1.05), np.eye(3), (0.5, 0.5, 0.5))
    ball = (SPHERE, (1.0, 1.0, 1.05), np.eye(3), (0.5,) * 3)
    assert len(_contacts([FLOOR, cube, ball], pairs=[(0, 1), (0, 2)])) == 0
    found = _contacts([FLOOR, cube, ball], pairs=[(0, 1), (0, 2)], margin=0.1)
    assert found.b.tolist() == [1, 1, 1, 1, 2]
    np.testing.assert_allclose(found.depth, -0.05, atol=1e-12)
    np.testing.assert_allclose(found.point[:, 2], 0.525, atol=1e-12)
    assert len(_contacts([FLOOR, cube, ball], pairs=[(0, 1), (0, 2)], margin=0.04)) == 0


def test_crossing_edges_apart_give_a_speculative_point_at_the_gap():
    a = (BOX, (0.0, 0.0, 0.0), _rotation([1, 0, 0], np.pi / 4), (0.5, 0.5, 0.5))
    top = 0.5 * S2
    b = (BOX, (0.1, 0.0, top + top + 0.01), _rotation([0, 1, 0], np.pi / 4), (0.5, 0.5, 0.5))
    assert len(_contacts([a, b])) == 0
    found = _contacts([a, b], margin=0.02)
    assert len(found) == 1
    np.testing.assert_allclose(found.point[0], [0.1, 0.0, top + 0.005], atol=1e-12)
    assert found.depth[0] == pytest.approx(-0.01, abs=1e-12)


def test_every_box_pair_within_the_margin_gets_contacts_that_never_overstate():
    """Random box pairs near each other: each pair whose SAT gap is within the margin gets a
    contact (including corners beyond the reference face's rim), and no contact of a pair that
    is apart reports a gap smaller than the SAT gap (a lower bound of the true distance)."""
    rng = np.random.default_rng(11)
    p = 20_000
    centres = rng.uniform(-1, 1, (2 * p, 3))
    rotations = quat.to_matrix(quat.normalize(rng.normal(size=(2 * p, 4))))
    half = rng.uniform(0.1, 0.5, (2 * p, 3))
    reach = np.linalg.norm(half[:p], axis=1) + np.linalg.norm(half[p:], axis=1)
    direction = rng.normal(size=(p, 3))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    centres[p:] = centres[:p] + direction * (rng.uniform(0.3, 1.0, p) * reach)[:, None]
    pairs = np.column_stack([np.arange(p), np.arange(p, 2 * p)])
    margin = 0.05
    found = find_contacts(np.full(2 * p, BOX), centres, rotations, half, pairs, margin)
    gap = box_box_sat(
        centres[:p], rotations[:p], half[:p], centres[p:], rotations[p:], half[p:]
    ).separation
    near = gap <= margin
    assert near.sum() > 10_000 and ((gap > 0) & near).sum() > 1_000
    np.testing.assert_array_equal(np.isin(np.arange(p), found.a), near)
    apart = gap[found.a] > 0
    assert np.all(found.depth[apart] <= -gap[found.a][apart] + 1e-12)


def test_features_are_distinct_and_stable_while_the_same_faces_touch():
    cube = (BOX, (0.2, 0.1, 0.99), _rotation([0, 0, 1], 0.3), (0.5, 0.5, 0.5))
    moved = (BOX, (0.25, 0.08, 0.985), _rotation([0, 0, 1], 0.31), (0.5, 0.5, 0.5))
    before, after = _contacts([FLOOR, cube]), _contacts([FLOOR, moved])
    assert len(set(before.feature.tolist())) == 4
    assert sorted(before.feature.tolist()) == sorted(after.feature.tolist())
    # a different face of the cube down (turned 90° about x) gives different ids
    other = (BOX, (0.2, 0.1, 0.99), _rotation([1, 0, 0], np.pi / 2), (0.5, 0.5, 0.5))
    assert not set(_contacts([FLOOR, other]).feature.tolist()) & set(before.feature.tolist())


@pytest.mark.parametrize("shift", [(1e-13, 1e-13), (-1e-13, 1e-13), (1e-13, -1e-13),
                                   (-1e-13, -1e-13)])
def test_equal_stacked_boxes_keep_their_corner_ids_under_rounding_noise(shift):
    """Equal boxes face on face put the top's corners exactly on the lower face's rim; a shift
    of rounding size must not swap a corner for clipped points with other ids (warm starting
    and the bounce's arrival speed follow the ids from substep to substep)."""
    lower = (BOX, (0.0, 0.0, 0.0), np.eye(3), (0.5, 0.5, 0.5))
    exact = _contacts([lower, (BOX, (0.0, 0.0, 1.0), np.eye(3), (0.5, 0.5, 0.5))])
    noisy = _contacts([lower, (BOX, (shift[0], shift[1], 1.0), _rotation([0, 0, 1], 1e-15),
                               (0.5, 0.5, 0.5))])
    assert len(exact.feature) == 4
    assert sorted(noisy.feature.tolist()) == sorted(exact.feature.tolist())


def test_batched_contacts_equal_one_pair_at_a_time():
    """A pile of random boxes and spheres: the batched call returns, pair by pair, exactly what
    each pair gives on its own (nothing mixed up between pairs)."""
    rng = np.random.default_rng(3)
    n = 40
    shape = np.where(rng.random(n) < 0.3, SPHERE, BOX)
    centres = rng.uniform(-1.5, 1.5, (n, 3))
    rotations = quat.to_matrix(quat.normalize(rng.normal(size=(n, 4))))
    half = rng.uniform(0.2, 0.8, (n, 3))
    half[shape == SPHERE] = half[shape == SPHERE, :1]
    pairs = np.array(list(itertools.combinations(range(n), 2)))
    batched = find_contacts(shape, centres, rotations, half, pairs, margin=0.05)
    assert len(batched) > 100
    assert np.all(batched.depth >= -0.05)
    np.testing.assert_allclose(np.linalg.norm(batched.normal, axis=1), 1.0, atol=1e-12)
    singles = [
        find_contacts(shape, centres, rotations, half, pair[None], margin=0.05) for pair in pairs
    ]
    for field in ("a", "b", "point", "normal", "depth", "feature"):
        np.testing.assert_array_equal(
            getattr(batched, field), np.concatenate([getattr(s, field) for s in singles])
        )
