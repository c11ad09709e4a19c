"""Glancing hits of free bodies against the closed form of the impact, wherever in a substep
the bodies touch: the bounce must use the normal and contact point of the instant of contact,
not those of the substep's start (when the bodies are still apart)."""

import numpy as np
import pytest

from solver import World, quaternion

PHASES = [0.05, 0.37, 0.63, 0.95]  # where in its substep the contact falls
FPS, SUBSTEPS = 24.0, 10


def _touch_time(phase: float) -> float:
    """Contact in frame 2, `phase` of the way through one of its substeps."""
    return (2 * SUBSTEPS + 3 + phase) / (FPS * SUBSTEPS)


@pytest.mark.parametrize("phase", PHASES)
def test_billiard_cut_shot_matches_closed_form_at_any_phase(phase):
    """Equal, frictionless, elastic balls; the cue ball hits the struck one 53.13° off the line
    of centres. The struck ball leaves along the line of centres at v cos(cut), the cue ball
    keeps the rest, v minus that (at right angles): both velocities to 0.5 % of v (the bounce
    from the substep's start geometry was 3–5 % off)."""
    radius, mass, speed, cut = 0.028575, 0.17, 2.0, np.radians(53.13)
    offset = 2 * radius * np.sin(cut)
    start = 2 * radius * np.cos(cut) + speed * _touch_time(phase)
    world = World(gravity=(0, 0, 0), fps=FPS, substeps=SUBSTEPS, sleeping=False)
    cue = world.add_body("sphere", radius, position=(-start, -offset, 0.0), mass=mass,
                         restitution=1.0, friction=0.0, linear_velocity=(speed, 0.0, 0.0))
    struck = world.add_body("sphere", radius, mass=mass, restitution=1.0, friction=0.0)
    trajectory = world.simulate(5)
    line = np.array([np.cos(cut), np.sin(cut), 0.0])  # centres' line at contact, cue -> struck
    exact_struck = speed * np.cos(cut) * line
    exact_cue = np.array([speed, 0.0, 0.0]) - exact_struck
    velocities = trajectory.linear_velocities[-1]
    assert np.linalg.norm(velocities[struck] - exact_struck) < 0.005 * speed
    assert np.linalg.norm(velocities[cue] - exact_cue) < 0.005 * speed


@pytest.mark.parametrize("phase", PHASES)
def test_glancing_box_corner_on_face_matches_closed_form_at_any_phase(phase):
    """A cube flying corner first (its body diagonal along +x) at 45° onto the face of a cube at
    rest, frictionless and elastic. The corner meets the face at P = (-s, y0 + v_y t*, z0); the
    impulse j along x follows from the effective mass there, j = 2 v_x / (2/m + (r×x)·I⁻¹(r×x)/1)
    with r = P − x_struck (the corner's own arm is along x, so the cue cube does not spin), and
    both velocities and the struck cube's spin match to 0.5 %."""
    s, mass, speed, angle = 0.25, 10.0, 2.0, np.radians(45.0)
    velocity = speed * np.array([np.cos(angle), np.sin(angle), 0.0])
    diagonal = quaternion.from_axis_angle(np.array([0.0, 1.0, -1.0]), np.arccos(1 / np.sqrt(3)))
    t_touch = _touch_time(phase)
    corner = np.array([-s, 0.1, 0.07])  # where the corner meets the struck cube's -x face
    start = corner - np.array([s * np.sqrt(3), 0.0, 0.0]) - velocity * t_touch
    world = World(gravity=(0, 0, 0), fps=FPS, substeps=SUBSTEPS, sleeping=False)
    struck = world.add_body(size=(s, s, s), mass=mass, restitution=1.0, friction=0.0)
    cue = world.add_body(size=(s, s, s), position=start, orientation=diagonal, mass=mass,
                         restitution=1.0, friction=0.0, linear_velocity=velocity)
    trajectory = world.simulate(5)
    arm = np.cross(corner, [1.0, 0.0, 0.0])
    inertia = 2.0 / 3.0 * mass * s * s
    j = 2.0 * velocity[0] / (2.0 / mass + arm @ arm / inertia)
    exact_cue = velocity - j / mass * np.array([1.0, 0.0, 0.0])
    exact_struck = j / mass * np.array([1.0, 0.0, 0.0])
    exact_spin = j * arm / inertia
    v, w = trajectory.linear_velocities[-1], trajectory.angular_velocities[-1]
    assert np.linalg.norm(v[cue] - exact_cue) < 0.005 * np.linalg.norm(exact_cue)
    assert np.linalg.norm(v[struck] - exact_struck) < 0.005 * np.linalg.norm(exact_struck)
    assert np.linalg.norm(w[struck] - exact_spin) < 0.005 * np.linalg.norm(exact_spin)
    assert np.linalg.norm(w[cue]) < 0.005 * np.linalg.norm(exact_spin)


@pytest.mark.parametrize("shape", ["box", "sphere"])
def test_small_body_pressed_into_a_slab_by_a_fast_heavy_one_stays_on_it(shape):
    """A 1 cm body lying 5 mm deep in a 10 cm static slab, under a 1,000 kg box that overlaps
    it by 3 mm and comes down at 50 m/s. CCD must guard the pairs that start overlapped: the
    small body's centre never gets deeper than its own half-size below the slab's top (it used
    to leave through the slab's far side, 9 m down)."""
    world = World(sleeping=False)
    world.add_body(size=(1.0, 1.0, 0.05), kind="static")  # top at z = 0.05
    small = world.add_body(shape, (0.01, 0.01, 0.01) if shape == "box" else 0.01,
                           position=(0.0, 0.0, 0.055), mass=0.1)
    world.add_body(size=(0.2, 0.2, 0.2), position=(0.0, 0.0, 0.262), mass=1000.0,
                   linear_velocity=(0.0, 0.0, -50.0))
    trajectory = world.simulate(12)
    assert np.all(np.isfinite(trajectory.positions))
    assert trajectory.positions[:, small, 2].min() > 0.05 - 0.01
