"""The impulse response against the closed forms of the source documents.

One contact and one iteration must reproduce the Croatian notes' impulse exactly; free
collisions must conserve momentum and angular momentum, and energy when e = 1.
"""

import numpy as np
import pytest

from solver import BOX, SPHERE, World, quaternion
from solver.constraints import POINTS, prepare_rows
from solver.solve_impulse import _sinking, warm_start
from solver.world import LINEAR_SLOP

TILT = quaternion.from_axis_angle(np.array([0.3, -0.5, 0.8]), 0.9)


def _corner_touching(half_extents, orientation, wall_x):
    """Place a box so its corner farthest along +x touches the plane x = wall_x exactly."""
    rotation = quaternion.to_matrix(orientation)
    reach = np.abs(rotation[0]) @ half_extents
    return np.array([wall_x - reach, 0.05, -0.03])


def _croatian_impulse(e, n, ma, mb, Ia_inv, Ib_inv, ra, rb, va, wa, vb, wb):
    """j of the Croatian notes (with the second body's arm, as the typo note says)."""
    v_rel = (va + np.cross(wa, ra)) - (vb + np.cross(wb, rb))
    ka, kb = np.cross(ra, n), np.cross(rb, n)
    return -(1 + e) * v_rel @ n / (1 / ma + 1 / mb + ka @ Ia_inv @ ka + kb @ Ib_inv @ kb)


@pytest.mark.parametrize("e", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("wall", [False, True])
def test_single_contact_one_iteration_is_the_croatian_impulse(e, wall):
    world = World(gravity=(0, 0, 0), fps=100.0, substeps=1, iterations=1)
    # Cubes: their inertia is isotropic, so free flight after the impulse does not turn ω
    # (no gyroscopic term) and the velocities after the step are the impulse's alone.
    ha = np.array([0.25, 0.25, 0.25])
    centre_a = _corner_touching(ha, TILT, 0.0)
    va, wa = np.array([2.0, 0.3, -0.2]), np.array([0.4, -1.1, 0.7])
    a = world.add_body(size=ha, position=centre_a, orientation=TILT, restitution=e, friction=0.0,
                       density=700.0, linear_velocity=va, angular_velocity=wa)
    hb = np.array([0.4, 0.4, 0.4])
    vb, wb = (np.zeros(3), np.zeros(3)) if wall else (np.array([-1.0, 0.1, 0.0]),
                                                      np.array([0.0, 0.3, -0.2]))
    b = world.add_body(size=hb, position=(0.4, 0.0, 0.0), restitution=1.0, friction=0.0,
                       kind="static" if wall else "dynamic", density=300.0,
                       linear_velocity=vb, angular_velocity=wb)
    ma = 700.0 * 8 * np.prod(ha)
    rotation = quaternion.to_matrix(TILT)
    Ia_body = ma / 3 * np.diag([ha[1]**2 + ha[2]**2, ha[0]**2 + ha[2]**2, ha[0]**2 + ha[1]**2])
    Ia_inv = rotation @ np.linalg.inv(Ia_body) @ rotation.T
    if wall:
        mb, Ib_inv = np.inf, np.zeros((3, 3))
    else:
        mb = 300.0 * 8 * np.prod(hb)
        Ib_inv = np.linalg.inv(mb / 3 * np.diag([hb[1]**2 + hb[2]**2, hb[0]**2 + hb[2]**2,
                                                 hb[0]**2 + hb[1]**2]))
    corner = centre_a + rotation @ (np.sign(rotation[0]) * ha)
    n = np.array([-1.0, 0.0, 0.0])  # the notes' normal: out of b, towards a
    ra, rb = corner - centre_a, corner - np.array([0.4, 0.0, 0.0])
    j = _croatian_impulse(e, n, ma, mb, Ia_inv, Ib_inv, ra, rb, va, wa, vb, wb)

    world.step()

    state = world.snapshot()
    assert state.contact_count == 1
    assert j > 0.0
    assert np.allclose(state.linear_velocities[a], va + j * n / ma, rtol=0, atol=1e-12)
    assert np.allclose(state.angular_velocities[a], wa + Ia_inv @ np.cross(ra, j * n),
                       rtol=0, atol=1e-12)
    if not wall:
        assert np.allclose(state.linear_velocities[b], vb - j * n / mb, rtol=0, atol=1e-12)
        assert np.allclose(state.angular_velocities[b], wb - Ib_inv @ np.cross(rb, j * n),
                           rtol=0, atol=1e-12)
    else:
        assert np.all(state.linear_velocities[b] == 0.0)


def _spinning_pair(e, friction, seed):
    """Two boxes in zero gravity, off-centre and spinning, on a collision course."""
    rng = np.random.default_rng(seed)
    world = World(gravity=(0, 0, 0), sleeping=False)
    for side in (-1.0, 1.0):
        world.add_body(
            size=rng.uniform(0.2, 0.5, 3), position=(side * 1.0, 0.3 * side * rng.random(), 0.2),
            orientation=quaternion.from_axis_angle(rng.normal(size=3), rng.uniform(0.3, 2.5)),
            density=rng.uniform(300, 3000), restitution=e, friction=friction,
            linear_velocity=(-side * 3.0, 0.2 * rng.normal(), 0.1 * rng.normal()),
            angular_velocity=rng.normal(size=3) * 2.0)
    return world


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_free_collisions_conserve_momentum_and_angular_momentum(seed):
    """Impulses act at one world point on both bodies, so they keep p and L exactly. The
    split-impulse push-out moves overlapping bodies without momentum, which shifts L about a
    fixed point; it acts only where a point sinks beyond the slop (seen as max_penetration),
    so L is checked up to the first such frame, and the collision must happen before it."""
    for e, friction in ((1.0, 0.0), (0.5, 0.0), (0.0, 0.5), (0.8, 0.8)):
        trajectory = _spinning_pair(e, friction, seed).simulate(24)
        p, L, v = (trajectory.linear_momentum, trajectory.angular_momentum,
                   trajectory.linear_velocities)
        assert np.abs(p - p[0]).max() <= 1e-9 * np.linalg.norm(p[0]) + 1e-9 * np.abs(p).max()
        clean = np.cumsum(trajectory.max_penetration > LINEAR_SLOP) == 0
        changed = np.linalg.norm(v[clean] - v[0], axis=2).max()
        assert changed > 0.5, "the boxes must collide before any push-out"
        assert np.abs(L[clean] - L[0]).max() <= 1e-9 * np.linalg.norm(L[0])


def test_push_out_keeps_momentum_and_energy():
    """Where spinning boxes left touching after an inelastic hit roll into each other, the
    push-out separates them: momentum and kinetic energy stay, L moves by a small amount."""
    trajectory = _spinning_pair(0.0, 0.5, 4).simulate(24)
    assert trajectory.max_penetration.max() > LINEAR_SLOP, "the push-out must act"
    p, L, energy = (trajectory.linear_momentum, trajectory.angular_momentum,
                    trajectory.kinetic_energy)
    assert np.abs(p - p[0]).max() <= 1e-9 * np.abs(p).max()
    assert np.all(np.diff(energy) <= 1e-9 * energy[0])
    assert np.abs(L - L[0]).max() <= 1e-2 * np.linalg.norm(L[0])


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_elastic_frictionless_collision_keeps_energy(seed):
    trajectory = _spinning_pair(1.0, 0.0, seed).simulate(24)
    energy = trajectory.kinetic_energy
    assert trajectory.contact_count.max() > 0
    assert np.abs(energy - energy[0]).max() <= 1e-6 * energy[0]


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize(("e", "friction"), [(0.0, 0.0), (0.5, 0.0), (1.0, 0.7), (0.3, 0.5)])
def test_collisions_never_gain_energy(seed, e, friction):
    energy = _spinning_pair(e, friction, seed).simulate(24).kinetic_energy
    assert energy[-1] < energy[0], "the boxes must collide"
    assert np.all(np.diff(energy) <= 1e-9 * energy[0])


def test_perfectly_inelastic_pair_leaves_with_equal_normal_velocity():
    world = World(gravity=(0, 0, 0), sleeping=False)
    a = world.add_body("sphere", 0.3, position=(-1.0, 0.0, 0.0), restitution=0.0, friction=0.0,
                       linear_velocity=(4.0, 0.0, 0.0), angular_velocity=(0.0, 3.0, 1.0))
    b = world.add_body("sphere", 0.5, position=(1.0, 0.35, 0.0), restitution=0.0, friction=0.0,
                       density=400.0, linear_velocity=(-1.0, 0.5, 0.0))
    trajectory = world.simulate(24)
    v0, v1 = trajectory.linear_velocities[0], trajectory.linear_velocities[-1]
    n = (v1[a] - v0[a]) / np.linalg.norm(v1[a] - v0[a])  # frictionless: the impulse is along n
    assert np.linalg.norm(v1[a] - v0[a]) > 1.0  # they did collide
    assert abs((v1[b] - v1[a]) @ n) < 1e-9


def test_equal_spheres_head_on_exchange_velocities():
    world = World(gravity=(0, 0, 0), sleeping=False)
    world.add_body("sphere", 0.2, position=(-1.0, 0.0, 0.0), restitution=1.0, friction=0.0,
                   linear_velocity=(2.5, 0.0, 0.0))
    world.add_body("sphere", 0.2, position=(1.0, 0.0, 0.0), restitution=1.0, friction=0.0,
                   linear_velocity=(-0.7, 0.0, 0.0))
    v = world.simulate(24).linear_velocities[-1]
    assert np.allclose(v, [[-0.7, 0, 0], [2.5, 0, 0]], rtol=0, atol=1e-6)


def test_newtons_cradle_passes_the_speed_to_the_last_ball():
    world = World(gravity=(0, 0, 0), sleeping=False)
    radius, gap, speed = 0.1, 0.02, 1.0
    for k in range(5):
        world.add_body("sphere", radius, position=(k * (2 * radius + gap), 0.0, 0.0),
                       restitution=1.0, friction=0.0,
                       linear_velocity=(speed if k == 0 else 0.0, 0.0, 0.0))
    v = world.simulate(24).linear_velocities[-1][:, 0]
    assert abs(v[4] - speed) <= 0.02 * speed
    assert np.all(np.abs(v[:4]) <= 0.02 * speed)


@pytest.mark.parametrize(("approach", "previous", "whole"),
                         [(-1.0, 6.0, False), (-1.0, 3.0, True), (1.0, 1.0, False)])
def test_warm_start_that_would_add_energy_is_scaled_to_its_best_fraction(approach, previous,
                                                                         whole):
    """A 2 kg, 0.5 m ball (I = 0.2 kg m²) on a static ground at v_z = `approach`, sliding at
    0.3 m/s, one point under it holding last substep's `previous` N s and -0.5 N s of
    friction. The pressing pass lowers f(αΛ) = α L + ½ α² Q, L = P v_z + F v_x,
    Q = P²/m + F² (1/m + r²/I): 6 N s against 1 m/s gives f(1) = +3.07 J, so it is applied at
    the minimum α = -L/Q = 0.334; 3 N s gives f(1) = -0.68 J and is applied whole; a ball
    moving away (L > 0) gets none of it."""
    mass, inertia, arm, push = 2.0, 0.2, 0.5, -0.5
    linear = previous * approach + push * 0.3
    quadratic = previous ** 2 / mass + push ** 2 * (1 / mass + arm ** 2 / inertia)
    kept = 1.0 if whole else max(-linear / quadratic, 0.0)
    position = np.array([[0.0, 0.0, -1.0], [0.0, 0.0, arm]])
    velocity = np.array([[0.0, 0.0, 0.0], [0.3, 0.0, approach]])
    spin = np.zeros((2, 3))
    inverse_mass = np.array([0.0, 1 / mass])
    world_inverse = np.stack([np.zeros((3, 3)), np.eye(3) / inertia])
    rows, a, b, points = (np.array([0]), np.array([0]), np.array([1]), np.array([1]))
    point = np.zeros((1, POINTS, 3))
    normal = np.zeros((1, POINTS, 3))
    normal[0, 0] = (0.0, 0.0, 1.0)
    tangents = np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    normal_rows, normal_response = np.zeros((1, POINTS, 12)), np.zeros((1, POINTS, 12))
    friction_rows = np.zeros((1, POINTS, 2, 12))
    friction_response = np.zeros((1, POINTS, 2, 12))
    prepare_rows(rows, a, b, points, point, normal, tangents, position, inverse_mass,
                 world_inverse, normal_rows, normal_response, np.zeros((1, POINTS, POINTS)),
                 np.zeros((1, POINTS, POINTS)), np.zeros((1, POINTS, POINTS)),
                 np.zeros((1, 1 << POINTS, POINTS, POINTS)),
                 np.zeros((1, 1 << POINTS), dtype=np.bool_),
                 friction_rows, friction_response, np.zeros((1, POINTS, 2)))
    impulse = np.zeros((1, POINTS))
    impulse[0, 0] = previous
    friction = np.zeros((1, POINTS, 2))
    friction[0, 0, 0] = push
    scale = warm_start(rows, a, b, points, normal_rows, normal_response, friction_rows,
                       friction_response, impulse, friction, np.zeros((1, POINTS)), velocity,
                       spin)
    assert (linear + 0.5 * quadratic <= 0.0) == whole
    assert scale == pytest.approx(kept, rel=1e-12)
    assert impulse[0, 0] == pytest.approx(kept * previous, rel=1e-12)
    assert friction[0, 0, 0] == pytest.approx(kept * push, rel=1e-12)
    np.testing.assert_allclose(velocity[1], [0.3 + kept * push / mass, 0.0,
                                             approach + kept * previous / mass],
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(spin[1], [0.0, -kept * push * arm / inertia, 0.0], rtol=0,
                               atol=1e-12)


@pytest.mark.parametrize("whose", ["turning", "still"])
def test_sinking_of_a_corner_on_a_turning_face_is_half_h_squared_c_omega_squared(whose):
    """A box (half-height c = 0.25 m) turning at ω = 5 rad/s about y under a still corner on its
    top face, x0 = 0.1 m from its axis: the gap is g(t) = x0 sin ωt + c cos ωt - c, so in a
    substep h the corner sinks x0 (ωh - sin ωh) + c (1 - cos ωh) beyond its straight line
    x0 ω h: ½ c ω² h² to second order (_sinking, from g'' = n·(a_b - a_a) + 2 ṅ·(u_b - u_a)
    with n turning with the face), within x0 (ωh)³/6 of the exact value. Named as the still
    box's face instead, the same points curve apart: nothing sinks."""
    c, x0, rate, h = 0.25, 0.1, 5.0, 1.0 / 240
    point = np.zeros((1, POINTS, 3))
    point[0, 0] = (x0, 0.0, c)
    normal = np.zeros((1, POINTS, 3))
    normal[0, :, 2] = 1.0
    position = np.array([[0.0, 0.0, 0.0], [x0, 0.0, c + 0.3]])
    velocity = np.zeros((2, 3))
    spin = np.array([[0.0, rate, 0.0], [0.0, 0.0, 0.0]])
    shape = np.array([BOX, BOX])
    feature = np.zeros((1, POINTS), dtype=np.int64)  # the first box's top face
    if whose == "still":
        feature[0, 0] = 6 * 6 * 64  # a face of the second box
    rotations = np.stack([np.eye(3), np.eye(3)])
    sinking = _sinking(0, 0, 0, 1, point, normal, position, velocity, spin, shape, feature,
                       rotations, np.zeros((1, POINTS)), np.ones(2), h)
    if whose == "still":
        assert sinking == 0.0
        return
    turn = rate * h
    exact = x0 * (turn - np.sin(turn)) + c * (1.0 - np.cos(turn))
    assert sinking == pytest.approx(0.5 * c * turn ** 2, rel=1e-12)
    assert abs(exact - sinking) <= x0 * turn ** 3 / 6 + c * turn ** 4 / 24


@pytest.mark.parametrize("first", ["box", "sphere"])
def test_sinking_of_a_still_sphere_on_a_turning_face_is_half_h_squared_c_plus_r_omega_squared(
        first):
    """A still ball (r = 0.3 m, spinning at 50 rad/s, which turns its surface in place) on the
    top face of a box (half-height c = 0.25 m) turning at ω = 5 rad/s about y, x0 = 0.1 m from
    its axis: the ball's centre keeps its distance from the face's plane only while the face
    does not turn, so the gap is g(t) = x0 sin ωt + (c + r) cos ωt - (c + r) and in a substep
    h the ball sinks x0 (ωh - sin ωh) + (c + r)(1 - cos ωh) beyond its straight line x0 ω h:
    ½ (c + r) ω² h² to second order (_sinking, rel 1e-12), within x0 (ωh)³/6 of the exact
    value; whichever body the pair names first."""
    c, r, x0, rate, h = 0.25, 0.3, 0.1, 5.0, 1.0 / 240
    box, ball = (0, 1) if first == "box" else (1, 0)
    point = np.zeros((1, POINTS, 3))
    point[0, 0] = (x0, 0.0, c)  # midway between the touching surfaces
    normal = np.zeros((1, POINTS, 3))
    normal[0, :, 2] = 1.0 if first == "box" else -1.0  # from the pair's first body
    position = np.zeros((2, 3))
    position[ball] = (x0, 0.0, c + r)
    velocity = np.zeros((2, 3))
    spin = np.zeros((2, 3))
    spin[box] = (0.0, rate, 0.0)
    spin[ball] = (30.0, 0.0, 40.0)
    shape = np.array([BOX, BOX])
    shape[ball] = SPHERE
    thickness = np.full(2, 0.25)
    thickness[ball] = r
    feature = np.full((1, POINTS), 1 + 3 * 1 + 9 * 2, dtype=np.int64)  # beyond the top face
    rotations = np.stack([np.eye(3), np.eye(3)])
    sinking = _sinking(0, 0, 0, 1, point, normal, position, velocity, spin, shape, feature,
                       rotations, np.zeros((1, POINTS)), thickness, h)
    turn = rate * h
    exact = x0 * (turn - np.sin(turn)) + (c + r) * (1.0 - np.cos(turn))
    assert sinking == pytest.approx(0.5 * (c + r) * turn ** 2, rel=1e-12)
    assert abs(exact - sinking) <= x0 * turn ** 3 / 6 + (c + r) * turn ** 4 / 24
