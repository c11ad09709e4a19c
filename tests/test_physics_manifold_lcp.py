"""A manifold's complementarity problem solved exactly even where Murty's pivoting needs more
pivots than the manifold has points (solve_impulse._complementary)."""

import numpy as np

from solver.constraints import POINTS
from solver.solve_impulse import _complementary

# The block J M⁻¹ Jᵀ (1/kg) and velocity errors v_n + bias (m/s) of a Suzanne hull's four
# speculative points on a terrain mesh, two of them on triangles 1.5° apart: a positive
# definite but nearly singular block (eigenvalues 1.2e-7 to 3.4e-3).
BLOCK = np.array([
    [0.0009781678516080998, 0.0008861639561796687, 0.0008779829082522052, 0.000898109669645373],
    [0.0008861639561796687, 0.0008226092509813971, 0.000819409973609727, 0.0008278318945943501],
    [0.0008779829082522052, 0.0008194099736097269, 0.0008175313093404588, 0.0008235324565549976],
    [0.000898109669645373, 0.00082783189459435, 0.0008235324565549976, 0.0008351404861748953]])
ERROR = np.array([9.589689143507155, -0.8041601033964874, -4.228499200419105, 1.8558607682816177])


def test_nearly_singular_block_gets_its_unique_complementary_solution():
    out = np.empty(POINTS)
    _complementary(0, 4, np.zeros((1, POINTS)), ERROR.copy(), BLOCK[None].copy(),
                   np.zeros((1, 1 << POINTS, POINTS, POINTS)),
                   np.zeros((1, 1 << POINTS), dtype=np.bool_), out, np.empty((2, POINTS)),
                   np.empty((3, POINTS), dtype=np.bool_))
    # A positive definite block has exactly one solution: here the third point alone pushes,
    # with the impulse that stops its error, and the other three separate. (Stopping after
    # four pivots clamped a wrong set's solution: 1.6e5 and 2.9e5 N s at two points, which
    # flung the hull off the terrain at 100 m/s.)
    alone = -ERROR[2] / BLOCK[2, 2]
    assert np.allclose(out, [0.0, 0.0, alone, 0.0], rtol=1e-9, atol=1e-9 * alone)
    reached = ERROR + BLOCK @ out
    assert np.all(reached[[0, 1, 3]] > 0.0)
