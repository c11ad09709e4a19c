"""Time of first contact against analytic times."""

import numpy as np
import pytest
from scipy.optimize import brentq

from solver import BOX, SPHERE, Box, Sphere, collide, time_of_impact, time_of_impact_batch
from solver import quaternion as quat

IDENTITY = (1.0, 0.0, 0.0, 0.0)
WALL = Box((1.0, 0.0, 0.0), IDENTITY, (0.005, 5.0, 5.0))  # 1 cm thick, face at x = 0.995
STILL = (0.0, 0.0, 0.0)


def test_fast_small_box_hits_a_thin_wall_at_the_analytic_time():
    """A 10 cm box at 300 m/s: it would jump through the wall within one 1/100 s step."""
    box = Box((0.0, 0.2, -0.1), IDENTITY, (0.05, 0.05, 0.05))
    speed = 300.0
    t = time_of_impact(box, WALL, (speed, 0, 0), STILL, STILL, STILL, t_max=0.01)
    assert t == pytest.approx((0.995 - 0.05) / speed, abs=1e-6)
    after = Box((speed * 0.01, 0.2, -0.1), IDENTITY, (0.05, 0.05, 0.05))
    assert len(collide(after, WALL).depths) == 0  # a discrete test at the step's end misses it


def test_spinning_box_hits_the_wall_when_its_corner_arrives():
    """A box spinning about a tilted axis while flying at the wall: the contact time is the first
    root of x(t) + (support of the turned box along x) = 0.995, found here by scanning and
    brentq on the closed-form support function."""
    q0 = quat.from_axis_angle(np.array([0.3, -0.2, 1.0]), np.array(0.4))
    h = np.array([0.2, 0.1, 0.05])
    omega = np.array([3.0, 25.0, -40.0])
    speed = 9.0
    box = Box((0.2, 0.0, 0.0), q0, h)

    def reach(t):
        turned = quat.to_matrix(quat.integrate(q0, omega, t))
        return 0.2 + speed * t + np.abs(turned[0]) @ h - 0.995

    grid = np.linspace(0.0, 0.2, 20_001)
    turned = quat.to_matrix(quat.integrate(np.tile(q0, (len(grid), 1)), omega, grid))
    first = np.argmax(0.2 + speed * grid + np.abs(turned[:, 0]) @ h - 0.995 >= 0.0)
    expected = brentq(reach, grid[first - 1], grid[first], xtol=1e-14)
    t = time_of_impact(box, WALL, (speed, 0, 0), omega, STILL, STILL, t_max=0.2)
    assert t == pytest.approx(expected, abs=1e-6)


def test_target_distance_stops_short_of_contact():
    box = Box((0.0, 0.0, 0.0), IDENTITY, (0.05, 0.05, 0.05))
    t = time_of_impact(box, WALL, (2.0, 0, 0), STILL, STILL, STILL, t_max=1.0, target_distance=0.1)
    assert t == pytest.approx((0.995 - 0.05 - 0.1) / 2.0, abs=1e-9)


def test_spheres_meeting_head_on():
    t = time_of_impact(
        Sphere((0, 0, 0), 0.5),
        Sphere((3, 0, 0), 0.25),
        (1, 0, 0),
        STILL,
        (-2, 0, 0),
        (0, 0, 7),
        t_max=2.0,
    )
    assert t == pytest.approx((3.0 - 0.75) / 3.0, abs=1e-9)


def test_sphere_falling_onto_a_turning_box():
    """A ball dropping on a box spinning about the vertical: the top face stays at z = 0.5."""
    box = Box((0, 0, 0), IDENTITY, (1.0, 1.0, 0.5))
    t = time_of_impact(
        Sphere((0.1, 0.2, 3.0), 0.25), box, (0, 0, -5), STILL, STILL, (0, 0, 4), t_max=1.0
    )
    assert t == pytest.approx((3.0 - 0.25 - 0.5) / 5.0, abs=1e-6)


@pytest.mark.parametrize(
    ("velocity", "spin"),
    [
        ((0.0, 3.0, 0.0), STILL),  # sliding past, parallel to the wall
        ((-5.0, 0.0, 0.0), (0, 0, 30)),  # flying away while spinning
        ((0.5, 0.0, 0.0), STILL),
    ],  # too slow to arrive within t_max
)
def test_pairs_that_never_meet_return_none(velocity, spin):
    box = Box((0.0, 0.0, 0.0), IDENTITY, (0.05, 0.05, 0.05))
    assert time_of_impact(box, WALL, velocity, spin, STILL, STILL, t_max=1.0) is None


def test_overlapping_pair_has_time_zero():
    box = Box((0.99, 0.0, 0.0), IDENTITY, (0.05, 0.05, 0.05))
    assert time_of_impact(box, WALL, (1, 0, 0), STILL, STILL, STILL, t_max=1.0) == 0.0


def test_batch_matches_single_pairs_and_marks_misses_with_inf():
    rng = np.random.default_rng(5)
    n = 12
    shape = np.where(rng.random(n) < 0.3, SPHERE, BOX)
    centres = rng.uniform(-3, 3, (n, 3))
    orientations = quat.normalize(rng.normal(size=(n, 4)))
    half = rng.uniform(0.1, 0.5, (n, 3))
    half[shape == SPHERE] = half[shape == SPHERE, :1]
    v = rng.normal(scale=3.0, size=(n, 3))
    w = rng.normal(scale=5.0, size=(n, 3))
    pairs = np.array([(p, q) for p in range(n) for q in range(p + 1, n)])
    batch = time_of_impact_batch(shape, centres, orientations, half, v, w, pairs, t_max=1.0)
    assert np.isfinite(batch).any() and np.isinf(batch).any()

    def record(k):
        if shape[k] == SPHERE:
            return Sphere(centres[k], half[k, 0])
        return Box(centres[k], orientations[k], half[k])

    for (p, q), t in zip(pairs, batch, strict=True):
        single = time_of_impact(record(p), record(q), v[p], w[p], v[q], w[q], t_max=1.0)
        assert (single is None) if np.isinf(t) else single == pytest.approx(t, abs=1e-12)


def test_box_spinning_on_the_ground_about_the_vertical_never_hits():
    """Resting on the floor (1e-4 deep, within the 5 mm allowance) and spinning at 80 rad/s about
    the floor's normal, the lowest face stays where it is: no contact deeper than the allowance
    comes within the step. A bound counting the whole spin as closing speed would crawl in
    steps of 5e-3 / 69 s and report an early time instead."""
    floor = Box((0.0, 0.0, -0.5), IDENTITY, (50.0, 50.0, 0.5))
    box = Box((0.0, 0.0, 0.5 - 1e-4), IDENTITY, (0.5, 0.5, 0.5))
    t = time_of_impact(box, floor, STILL, (0, 0, 80), STILL, STILL, t_max=1 / 240,
                       target_distance=-0.005)
    assert t is None


def test_tumbling_pairs_never_get_a_time_after_their_first_contact():
    """Random boxes and spheres tumbling fast near each other: at every sampled instant before
    the reported time the shapes are still apart (the SAT and sphere gaps, exact for overlap),
    so CCD is conservative even when its step budget runs out."""
    rng = np.random.default_rng(9)
    n = 60
    shape = np.where(rng.random(n) < 0.3, SPHERE, BOX)
    centres = rng.uniform(-1.0, 1.0, (n, 3))
    orientations = quat.normalize(rng.normal(size=(n, 4)))
    half = rng.uniform(0.1, 0.4, (n, 3))
    half[shape == SPHERE] = half[shape == SPHERE, :1]
    v = rng.normal(scale=2.0, size=(n, 3))
    w = rng.normal(scale=40.0, size=(n, 3))
    pairs = np.array([(p, q) for p in range(n) for q in range(p + 1, n)])
    t_max = 0.05
    times = time_of_impact_batch(shape, centres, orientations, half, v, w, pairs, t_max)
    assert np.isfinite(times).sum() > 50 and (times > 0).sum() > 20

    def record(k, t):
        centre = centres[k] + v[k] * t
        if shape[k] == SPHERE:
            return Sphere(centre, half[k, 0])
        return Box(centre, quat.integrate(orientations[k], w[k], t), half[k])

    for (p, q), t in zip(pairs, times, strict=True):
        for s in np.linspace(0.0, min(t, t_max), 50, endpoint=False)[1:] if t > 0 else []:
            assert len(collide(record(p, s), record(q, s)).depths) == 0, (p, q, s, t)
