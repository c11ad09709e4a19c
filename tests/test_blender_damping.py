"""Rolling resistance and the golf lab's air drag, set in the Body and World panels and baked in
real Blender, against their closed forms."""

import math

import bpy
import numpy as np
import pytest

from tests.blender_helpers import cube, keys, select

G = 9.81
GOLF_RADIUS, GOLF_MASS = 0.02135, 0.04593  # m, kg (the rules' smallest, heaviest ball)


def add(obj, body_type="ACTIVE", **settings):
    select(obj)
    assert bpy.ops.impulse.add_bodies(body_type=body_type) == {"FINISHED"}
    for name, value in settings.items():
        setattr(obj.impulse, name, value)


def ball(radius, location, **settings):
    bpy.ops.mesh.primitive_uv_sphere_add(radius=radius, location=location, segments=48,
                                         ring_count=24)
    obj = bpy.context.active_object
    add(obj, shape="SPHERE", **settings)
    return obj


def test_rolled_ball_with_rolling_resistance_stops_after_the_closed_form_distance(scene):
    slab = cube("Ground", location=(0.0, 0.0, -1.0))
    slab.scale = (40.0, 40.0, 1.0)
    add(slab, body_type="PASSIVE", restitution=0.0, friction=1.0)
    r, v0, c_rr = 0.1, 2.0, 0.05
    rolled = ball(r, (0.0, 0.0, r), restitution=0.0, friction=1.0, rolling_resistance=c_rr,
                  initial_linear_velocity=(v0, 0.0, 0.0),
                  initial_angular_velocity=(0.0, v0 / r, 0.0))
    a = 5.0 / 7.0 * c_rr * G  # solid sphere rolling without slipping under c_rr N r
    scene.frame_start, scene.frame_end = 1, 1 + int(1.3 * v0 / a * scene.render.fps)
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    x = keys(rolled, "location")[:, 1]
    assert x[-1] == pytest.approx(v0 ** 2 / (2.0 * a), rel=0.05)
    assert abs(x[-1] - x[-10]) < 1e-4  # at rest, not creeping


def shoot(drag_coefficient, gravity=True, frames=48, speed=70.0, angle=45.0):
    """Bake a golf ball shot from the origin in a fresh scene; returns its (K, 4) location keys
    and the scene."""
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.impulse.use_gravity = gravity
    direction = (math.cos(math.radians(angle)), 0.0, math.sin(math.radians(angle)))
    shot = ball(GOLF_RADIUS, (0.0, 0.0, 0.0), mass_mode="MASS", mass=GOLF_MASS,
                drag_coefficient=drag_coefficient,
                initial_linear_velocity=tuple(speed * d for d in direction))
    scene.frame_start, scene.frame_end = 1, frames
    assert bpy.ops.impulse.bake() == {"FINISHED"}
    return keys(shot, "location"), scene


def test_golf_ball_drag_is_half_rho_cd_area_v_squared_at_the_first_frame(scene):
    c_d = 0.25
    location, scene = shoot(c_d, gravity=False, frames=4, angle=0.0)
    dt = 1.0 / scene.render.fps
    x = location[:, 1].astype(float)
    speed = (x[2] - x[0]) / (2.0 * dt)  # at frame 2, one frame after the shot
    deceleration = -(x[2] - 2.0 * x[1] + x[0]) / dt ** 2
    rho = scene.impulse.air_density
    expected = 0.5 * rho * c_d * math.pi * GOLF_RADIUS ** 2 * speed ** 2
    assert GOLF_MASS * deceleration == pytest.approx(expected, rel=0.01)


def test_golf_ball_with_drag_flies_shorter_than_the_vacuum_parabola(scene):
    def carry(c_d):
        location, _ = shoot(c_d, frames=250)
        x, z = location[:, 1], location[:, 3]
        down = np.flatnonzero((z[1:] < 0.0) & (np.diff(z) < 0.0))[0]
        s = z[down] / (z[down] - z[down + 1])  # interpolate the landing between two keys
        return x[down] + s * (x[down + 1] - x[down])

    vacuum = carry(0.0)
    assert vacuum == pytest.approx(70.0 ** 2 / G, rel=0.01)  # v² sin 2θ / g at 45°
    assert carry(0.25) < 0.8 * vacuum
