"""solver.quaternion against Blender's mathutils and against float64 identities.

mathutils stores and computes in float32, so agreement with it is checked to float32 precision
(inputs are float32-representable, tolerance a few float32 ulps). The float64 properties the
solver relies on (round trips, composition, exact exponential map) are checked to 1e-12.
"""

import math

import numpy as np
import pytest

from solver import quaternion as quat

N = 10_000
F32 = 2e-6  # a few float32 ulps on unit-sized values


@pytest.fixture(scope="module")
def mathutils():
    import bpy  # noqa: F401  (mathutils is importable once bpy is)
    import mathutils

    return mathutils


def _unit(rng, n):
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return q.astype(np.float32).astype(float)


def _vectors(rng, n):
    return rng.uniform(-5, 5, size=(n, 3)).astype(np.float32).astype(float)


def test_product_conjugate_rotate_match_mathutils(mathutils):
    rng = np.random.default_rng(1)
    p, q, v = _unit(rng, N), _unit(rng, N), _vectors(rng, N)
    ours_pq = quat.multiply(p, q)
    ours_conj = quat.conjugate(q)
    ours_rot = quat.rotate(q, v)
    for i in range(N):
        mp, mq = mathutils.Quaternion(p[i]), mathutils.Quaternion(q[i])
        np.testing.assert_allclose(ours_pq[i], tuple(mp @ mq), atol=F32)
        np.testing.assert_allclose(ours_conj[i], tuple(mq.conjugated()), atol=F32)
        np.testing.assert_allclose(ours_rot[i], tuple(mq @ mathutils.Vector(v[i])), atol=5 * F32)


def test_matrix_conversions_match_mathutils(mathutils):
    rng = np.random.default_rng(2)
    q = _unit(rng, N)
    ours_m = quat.to_matrix(q)
    back = quat.from_matrix(ours_m)
    for i in range(N):
        mq = mathutils.Quaternion(q[i])
        theirs = np.array(mq.to_matrix())
        np.testing.assert_allclose(ours_m[i], theirs, atol=F32)
        expected = np.array(tuple(theirs_q := mathutils.Matrix(theirs).to_quaternion()))
        sign = 1.0 if theirs_q.w >= 0 else -1.0
        np.testing.assert_allclose(back[i], sign * expected, atol=F32)


def test_axis_angle_matches_mathutils(mathutils):
    rng = np.random.default_rng(3)
    axis = _vectors(rng, N)
    angle = rng.uniform(-2 * math.pi, 2 * math.pi, N).astype(np.float32).astype(float)
    ours = quat.from_axis_angle(axis, angle)
    for i in range(N):
        theirs = np.array(mathutils.Quaternion(mathutils.Vector(axis[i]).normalized(), angle[i]))
        sign = 1.0 if np.dot(theirs, ours[i]) >= 0 else -1.0  # mathutils wraps |angle| > π
        np.testing.assert_allclose(ours[i], sign * theirs, atol=F32)


def test_float64_identities():
    rng = np.random.default_rng(4)
    p, q = quat.normalize(rng.normal(size=(2, N, 4)))
    v = rng.uniform(-5, 5, size=(N, 3))
    # to_matrix / from_matrix round trip (up to the sign of q).
    back = quat.from_matrix(quat.to_matrix(q))
    sign = np.sign(np.sum(back * q, axis=1, keepdims=True))
    np.testing.assert_allclose(back * sign, q, atol=1e-12)
    # Composition: rotating by p ⊗ q equals rotating by q, then p; and matches matrix products.
    np.testing.assert_allclose(
        quat.rotate(quat.multiply(p, q), v), quat.rotate(p, quat.rotate(q, v)), atol=1e-12
    )
    np.testing.assert_allclose(
        quat.to_matrix(quat.multiply(p, q)), quat.to_matrix(p) @ quat.to_matrix(q), atol=1e-12
    )
    np.testing.assert_allclose(
        quat.rotate(q, v), np.einsum("nij,nj->ni", quat.to_matrix(q), v), atol=1e-12
    )
    # q ⊗ q* is the identity.
    np.testing.assert_allclose(quat.multiply(q, quat.conjugate(q)), quat.identity(N), atol=1e-12)


def test_normalize_handles_scale_and_zero():
    q = np.array([[0.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]])
    np.testing.assert_allclose(
        quat.normalize(q), [[1, 0, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0.5, 0.5]], atol=1e-15
    )


def test_integrate_is_the_exact_exponential_map():
    rng = np.random.default_rng(5)
    q0, axis = quat.normalize(rng.normal(size=(N, 4))), rng.normal(size=(N, 3))
    rate = rng.uniform(0, 50, N)
    omega = axis / np.linalg.norm(axis, axis=1, keepdims=True) * rate[:, None]
    dt = 0.1
    # One big step equals the closed-form rotation by |ω| dt about ω, applied in the world frame.
    expected = quat.multiply(quat.from_axis_angle(omega, rate * dt), q0)
    np.testing.assert_allclose(quat.integrate(q0, omega, dt), expected, atol=1e-12)
    # Ten small steps equal one big one for a fixed axis (no first-order error).
    q = q0
    for _ in range(10):
        q = quat.integrate(q, omega, dt / 10)
    np.testing.assert_allclose(q, expected, atol=1e-12)
    assert np.allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-14)
