"""The 15-axis separating axis test against two independent oracles on 140,000 random pairs.

Oracle 1 (vectorised, exact): two convex polyhedra intersect exactly when an edge of one meets
the other solid (a vertex of the intersection lies on two faces of one of them, hence on an
edge), so the 24 box edges are clipped against the other box (Liang-Barsky). Oracle 2: python-fcl
`collide`. A pair counts as near touching, and so excused, when growing both boxes by 1e-9 and
shrinking them by 1e-9 gives different oracle answers.
"""

import fcl
import numpy as np
import pytest

from solver import quaternion as quat
from solver.sat import box_box_sat

TOUCH = 1e-9
PER_KIND = 20_000
SIGNS = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
EDGES = np.array(
    [(i, j) for i in range(8) for j in range(8) if i < j and np.sum(SIGNS[i] != SIGNS[j]) == 1]
)


def _rotations(rng, n):
    return quat.to_matrix(quat.normalize(rng.normal(size=(n, 4))))


def _small_rotation(rng, n, low, high):
    axis = rng.normal(size=(n, 3))
    angle = 10.0 ** rng.uniform(low, high, n) * rng.choice([-1.0, 1.0], n)
    return quat.to_matrix(quat.from_axis_angle(axis, angle))


def _axis_permutations(rng, n):
    """Rotations that map axes onto axes (exactly parallel edges)."""
    perms = np.array(
        [
            np.eye(3)[list(p)]
            for p in ((0, 1, 2), (1, 2, 0), (2, 0, 1), (1, 0, 2), (0, 2, 1), (2, 1, 0))
        ]
    )
    m = perms[rng.integers(0, 6, n)] * rng.choice([-1.0, 1.0], (n, 1, 3))
    return m * np.linalg.det(m)[:, None, None]


def _pairs(seed=1):
    """Pairs of boxes of six kinds, PER_KIND each, as (ca, Ra, ha, cb, Rb, hb)."""
    rng = np.random.default_rng(seed)
    n = PER_KIND
    kinds = []
    # general position
    kinds.append(
        (
            rng.uniform(-2, 2, (n, 3)),
            _rotations(rng, n),
            rng.uniform(0.1, 1.5, (n, 3)),
            rng.uniform(-2, 2, (n, 3)),
            _rotations(rng, n),
            rng.uniform(0.1, 1.5, (n, 3)),
        )
    )
    # nearly parallel: b = a turned by 1e-12 .. 1e-2 rad, possibly with axes permuted
    ra = _rotations(rng, n)
    rb = ra @ _axis_permutations(rng, n) @ _small_rotation(rng, n, -12, -2)
    kinds.append(
        (
            np.zeros((n, 3)),
            ra,
            rng.uniform(0.1, 1.5, (n, 3)),
            rng.uniform(-2.5, 2.5, (n, 3)),
            rb,
            rng.uniform(0.1, 1.5, (n, 3)),
        )
    )
    # exactly parallel edges (axis-aligned up to permutation), many of them face to face
    ha, hb = rng.uniform(0.1, 1.5, (n, 3)), rng.uniform(0.1, 1.5, (n, 3))
    rb = _axis_permutations(rng, n)
    d = rng.uniform(-2.5, 2.5, (n, 3))
    snap = rng.integers(0, 3, n)
    extent_b = np.abs(rb) @ hb[:, :, None]
    d[np.arange(n), snap] = (
        np.sign(d[np.arange(n), snap]) * (ha + extent_b[:, :, 0])[np.arange(n), snap]
    )
    kinds.append((np.zeros((n, 3)), np.tile(np.eye(3), (n, 1, 1)), ha, d, rb, hb))
    # touching: b's lowest vertex (in a random orientation) placed on a's top face
    ha, hb = rng.uniform(0.1, 1.5, (n, 3)), rng.uniform(0.1, 1.5, (n, 3))
    rb = _rotations(rng, n)
    vertex = np.einsum("pij,pj->pi", rb, -np.sign(rb[:, 2, :]) * hb)  # b's lowest, from b
    target = np.column_stack([rng.uniform(-1, 1, (n, 2)) * ha[:, :2], ha[:, 2]])
    d = target - vertex
    ra = np.tile(np.eye(3), (n, 1, 1))
    turn = _rotations(rng, n)  # turn the whole pair so nothing is axis-aligned
    kinds.append((np.zeros((n, 3)), turn @ ra, ha, np.einsum("pij,pj->pi", turn, d), turn @ rb, hb))
    # deeply nested: a small box well inside a big one (and the other way round)
    big = rng.uniform(2, 4, (n, 3))
    small = rng.uniform(0.01, 0.5, (n, 3))
    inside = rng.uniform(-1, 1, (n, 3)) * (big - small.sum(axis=1, keepdims=True))
    swap = rng.random(n) < 0.5
    ha = np.where(swap[:, None], small, big)
    hb = np.where(swap[:, None], big, small)
    ra, rb = _rotations(rng, n), _rotations(rng, n)
    # the small box's centre lies inside the big one, in the big box's own frame
    cb = np.where(
        swap[:, None], -np.einsum("pij,pj->pi", rb, inside), np.einsum("pij,pj->pi", ra, inside)
    )
    kinds.append((np.zeros((n, 3)), ra, ha, cb, rb, hb))
    # very different sizes: a pebble near the surface of a 10-100 m box
    big = rng.uniform(10, 100, (n, 3))
    pebble = rng.uniform(0.001, 0.01, (n, 3))
    face = rng.integers(0, 3, n)
    surface = rng.uniform(-1, 1, (n, 3)) * big
    surface[np.arange(n), face] = big[np.arange(n), face] * rng.choice([-1.0, 1.0], n)
    offset = surface + rng.normal(scale=0.01, size=(n, 3))
    ra = _rotations(rng, n)
    kinds.append(
        (np.zeros((n, 3)), ra, big, np.einsum("pij,pj->pi", ra, offset), _rotations(rng, n), pebble)
    )
    kinds.append(_crossing_edges(rng, n)[:6])
    return tuple(np.concatenate(parts) for parts in zip(*kinds, strict=True))


def _crossing_edges(rng, n):
    """Nearly parallel edges (1e-12 .. 1e-2 rad) crossing at a known signed gap g, |g| >= 1e-8.

    a's edge along x at (y, z) = (+hy, +hz); n = (0, cos phi, sin phi) points out of that edge's
    quadrant; b's edge runs along d = x turned by theta towards n x x, so it is perpendicular to
    n, and passes through a's edge point + g n. Both edges are their boxes' supports along n, so
    the boxes are exactly g apart (g < 0: b's edge dips into a). Returns the pairs and g.
    """
    ha, hb = rng.uniform(0.1, 1.5, (n, 3)), rng.uniform(0.1, 1.5, (n, 3))
    phi = rng.uniform(0.05, np.pi / 2 - 0.05, n)
    normal = np.column_stack([np.zeros(n), np.cos(phi), np.sin(phi)])
    side = np.cross(normal, [1.0, 0.0, 0.0])
    side /= np.linalg.norm(side, axis=1, keepdims=True)
    theta = 10.0 ** rng.uniform(-12, -2, n)
    d = np.cos(theta)[:, None] * [1.0, 0.0, 0.0] + np.sin(theta)[:, None] * side
    # b's other two axes: a random turn of (n, d x n) about d
    u, w = normal - np.einsum("pi,pi->p", normal, d)[:, None] * d, None
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    w = np.cross(d, u)
    turn = rng.uniform(0.1, np.pi / 2 - 0.1, n)  # keeps both b axes off the normal
    b1 = np.cos(turn)[:, None] * u + np.sin(turn)[:, None] * w
    b2 = np.cross(d, b1)
    rb = np.stack([d, b1, b2], axis=2)
    gap = 10.0 ** rng.uniform(-8, -2, n) * rng.choice([-1.0, 1.0], n)
    touch = np.column_stack([rng.uniform(-1, 1, n) * ha[:, 0], ha[:, 1], ha[:, 2]])
    edge_b = -np.sign(np.einsum("pij,pi->pj", rb, normal)) * hb
    edge_b[:, 0] = 0.0
    cb = touch + gap[:, None] * normal - np.einsum("pij,pj->pi", rb, edge_b)
    return (np.zeros((n, 3)), np.tile(np.eye(3), (n, 1, 1)), ha, cb, rb, hb, gap)


def _edges_hit(c_from, R_from, h_from, c_to, R_to, h_to):
    """Does any edge of box `from` meet the solid box `to`? (Liang-Barsky per edge.)"""
    corners = c_from[:, None] + np.einsum("pij,pvj->pvi", R_from, SIGNS[None] * h_from[:, None])
    local = np.einsum("pki,pvk->pvi", R_to, corners - c_to[:, None])
    start, stop = local[:, EDGES[:, 0]], local[:, EDGES[:, 1]]
    step = stop - start
    h = h_to[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        t_low = np.where(step != 0, (-np.sign(step) * h - start) / step, -np.inf)
        t_high = np.where(step != 0, (np.sign(step) * h - start) / step, np.inf)
    within = (step != 0) | (np.abs(start) <= h)
    enter = np.maximum(t_low.max(axis=2), 0.0)
    leave = np.minimum(t_high.min(axis=2), 1.0)
    return ((enter <= leave) & within.all(axis=2)).any(axis=1)


def _oracle(ca, Ra, ha, cb, Rb, hb, grow=0.0):
    ha, hb = ha + grow, hb + grow
    return _edges_hit(ca, Ra, ha, cb, Rb, hb) | _edges_hit(cb, Rb, hb, ca, Ra, ha)


@pytest.fixture(scope="module")
def pairs():
    return _pairs()


@pytest.fixture(scope="module")
def sat_overlap(pairs):
    return box_box_sat(*pairs).separation <= 0.0


@pytest.fixture(scope="module")
def robust(pairs):
    """(surely overlapping, surely apart) by the edge oracle with a 1e-9 band."""
    return _oracle(*pairs, grow=-TOUCH), ~_oracle(*pairs, grow=TOUCH)


def test_the_sweep_has_every_kind_in_numbers(pairs, robust, sat_overlap):
    assert len(pairs[0]) >= 100_000
    overlapping, apart = robust
    kinds = np.arange(len(pairs[0])) // PER_KIND
    for kind in range(7):
        here = kinds == kind
        # every kind has both outcomes, and the touching kinds really sit in the 1e-9 band
        assert sat_overlap[here].any(), kind
        if kind == 4:
            assert sat_overlap[here].all()
        else:
            assert (~sat_overlap[here]).any(), kind
    near = ~overlapping & ~apart
    assert near[kinds == 3].mean() > 0.9


def test_sat_agrees_with_the_edge_oracle(pairs, robust, sat_overlap):
    overlapping, apart = robust
    wrong = (sat_overlap & apart) | (~sat_overlap & overlapping)
    assert np.count_nonzero(wrong) == 0, np.flatnonzero(wrong)[:20]


def _fcl_pair(ca, qa, ha, cb, qb, hb, p):
    return (
        fcl.CollisionObject(fcl.Box(*(2 * ha[p])), fcl.Transform(qa[p], ca[p])),
        fcl.CollisionObject(fcl.Box(*(2 * hb[p])), fcl.Transform(qb[p], cb[p])),
    )


def test_sat_agrees_with_fcl(pairs, robust, sat_overlap):
    """fcl's `collide` calls boxes a few 1e-8 apart colliding (a tolerance of its box-box
    routine); for those its own `distance` query measures the gap, agreeing with the SAT."""
    ca, Ra, ha, cb, Rb, hb = pairs
    boxes = (ca, quat.from_matrix(Ra), ha, cb, quat.from_matrix(Rb), hb)
    request = fcl.CollisionRequest()
    hit = np.array(
        [
            fcl.collide(*_fcl_pair(*boxes, p), request, fcl.CollisionResult()) > 0
            for p in range(len(ca))
        ]
    )
    overlapping, apart = robust
    wrong = np.flatnonzero((hit != sat_overlap) & (overlapping | apart))
    gaps = np.array(
        [
            fcl.distance(*_fcl_pair(*boxes, p), fcl.DistanceRequest(), fcl.DistanceResult())
            for p in wrong
        ]
    )
    assert len(wrong) < 100
    assert not sat_overlap[wrong].any()
    assert np.all((gaps > TOUCH) & (gaps < 1e-7)), gaps


def test_nearly_parallel_crossing_edges_at_a_known_gap():
    """Where only the nearly degenerate edge axis separates, the skip threshold must not hide
    gaps as small as 1e-8 (a threshold of 1e-3 would)."""
    *boxes, gap = _crossing_edges(np.random.default_rng(7), PER_KIND)
    result = box_box_sat(*boxes)
    np.testing.assert_array_equal(result.separation > 0.0, gap > 0.0)


def test_exactly_parallel_edges_are_skipped_not_trusted():
    """Identical orientations: every Ai x Bj is zero or a face axis; rounding noise in c_ij
    must neither separate overlapping boxes nor pick a meaningless edge axis."""
    q = quat.from_axis_angle(np.array([[1.0, 2.0, 3.0]]), np.array([0.7]))
    R = quat.to_matrix(q)
    h = np.array([[1.0, 0.5, 0.25]])
    offset = np.einsum("pij,j->pi", R, [1.8, 0.3, 0.1])
    result = box_box_sat(np.zeros((1, 3)), R, h, offset, R, h)
    assert result.axis[0] == 0
    assert result.separation[0] == pytest.approx(-0.2, abs=1e-12)
    np.testing.assert_allclose(result.normal[0], R[0, :, 0], atol=1e-15)


def test_resting_contact_keeps_the_face_axis():
    """A box tilted by 1e-3 rad resting on a floor: the edge axes penetrate about as little as
    the floor's face axis, and the face must win so the manifold does not flip."""
    floor_h = np.array([[5.0, 5.0, 0.5]])
    tilt = quat.to_matrix(quat.from_axis_angle(np.array([[1.0, 1.0, 0.0]]), np.array([1e-3])))
    h = np.array([[0.5, 0.5, 0.5]])
    lowest = (np.abs(tilt[:, 2, :]) * h).sum()
    centre = np.array([[0.2, -0.1, 0.5 + lowest - 1e-3]])
    result = box_box_sat(np.zeros((1, 3)), np.eye(3)[None], floor_h, centre, tilt, h)
    assert result.axis[0] == 2
    np.testing.assert_allclose(result.normal[0], [0.0, 0.0, 1.0])
    assert result.axis_separation[0] == pytest.approx(-1e-3, rel=1e-9)


def test_separation_is_the_gap_along_the_best_axis():
    """Two unit cubes side by side 0.25 apart: the gap is 0.25 along x, normal from a to b."""
    R = np.tile(np.eye(3), (2, 1, 1))
    h = np.full((2, 3), 0.5)
    ca = np.zeros((2, 3))
    cb = np.array([[1.25, 0.0, 0.0], [-1.25, 0.1, 0.0]])
    result = box_box_sat(ca, R, h, cb, R, h)
    np.testing.assert_allclose(result.separation, [0.25, 0.25])
    np.testing.assert_allclose(result.normal, [[1, 0, 0], [-1, 0, 0]])
