"""Test meshes built exactly in float64 (Blender stores float32, too coarse for 1e-9 checks)."""

import numpy as np

from solver import quaternion


def box_mesh(half_extents, cuts=(3, 5, 2), seed=0):
    """Closed, outward-wound triangle mesh of a box centred at the origin, unevenly subdivided.

    Axis k is cut at cuts[k] random interior positions, so faces are grids of unequal cells;
    vertices shared between faces are merged (exactly equal coordinates).
    """
    rng = np.random.default_rng(seed)
    half = np.asarray(half_extents, dtype=float)
    ticks = [
        np.concatenate([[-h], np.sort(rng.uniform(-h, h, size=n)), [h]])
        for h, n in zip(half, cuts, strict=True)
    ]
    points, triangles = [], []
    for k in range(3):
        u, v = (k + 1) % 3, (k + 2) % 3  # e_u × e_v = e_k
        for side in (-1.0, 1.0):
            grid_u, grid_v = np.meshgrid(ticks[u], ticks[v], indexing="ij")
            face = np.zeros((grid_u.size, 3))
            face[:, k] = side * half[k]
            face[:, u], face[:, v] = grid_u.ravel(), grid_v.ravel()
            nu, nv = grid_u.shape
            i, j = np.meshgrid(np.arange(nu - 1), np.arange(nv - 1), indexing="ij")
            i, j = i.ravel(), j.ravel()
            a, b, c, d = i * nv + j, (i + 1) * nv + j, (i + 1) * nv + j + 1, i * nv + j + 1
            quads = np.concatenate([np.stack([a, b, c], 1), np.stack([a, c, d], 1)])
            if side < 0:
                quads = quads[:, ::-1]
            triangles.append(quads + sum(len(p) for p in points))
            points.append(face)
    vertices, index = np.unique(np.concatenate(points), axis=0, return_inverse=True)
    return vertices, index.reshape(-1)[np.concatenate(triangles)]


def random_rotation(rng):
    """A uniformly random rotation as (quaternion (4,), matrix (3, 3))."""
    q = quaternion.normalize(rng.normal(size=4))
    return q, quaternion.to_matrix(q)
