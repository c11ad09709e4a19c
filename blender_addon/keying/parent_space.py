"""From simulated world matrices to the basis matrices keys are made of (the parent space).

Whatever sits between an object's basis and its world matrix at the start frame (parents of
any type) is carried along by the parent as it moves: simulated parents by their simulated
matrices, others sampled from the scene. Object constraints need more, since what they do
depends on the keys themselves: `visual` keys, evaluates, and corrects the keys until the
constrained result is the simulation, or says how far it stays.
"""

import numpy as np

from .. import sampling

VISUAL_ITERATIONS = 4


def active_constraints(obj) -> list:
    """The object's constraints that change its world matrix."""
    return [c for c in obj.constraints if c.is_valid and not c.mute and c.influence > 0.0]


def bases(scene, depsgraph, links, frames, worlds: dict, objects: dict) -> dict:
    """(K, 4, 4) basis matrices per keyed frame for the bodies in `worlds` (name -> (K, 4, 4)
    world matrices), in the space their parents give them at each frame. `objects` maps those
    names to the objects (scene.objects finds a name by going through the scene's objects)."""
    parents = {name: objects[name].parent for name in worlds}
    outside = {p.name: p for p in parents.values() if p and p.name not in worlds}
    moving = dict(worlds)
    if outside:
        names = sorted(outside)
        samples = sampling.world_matrices(scene, depsgraph, [outside[n] for n in names], frames)
        moving.update((name, samples[:, j]) for j, name in enumerate(names))
    start = {link.name: link.parent_matrix for link in links}
    out = {}
    for name, world in worlds.items():
        parent = parents[name]
        if parent is None and not active_constraints(objects[name]):
            out[name] = world  # nothing between the basis and the world matrix
            continue
        between = start[name]
        if parent is not None:
            carried = moving[parent.name]
            between = carried @ affine_inverse(carried[0]) @ between
        out[name] = affine_inverse(between) @ world
    return out


def affine_inverse(matrices: np.ndarray) -> np.ndarray:
    """Inverses of (..., 4, 4) affine matrices (last row 0, 0, 0, 1) by cofactors: plain
    arithmetic, where np.linalg.inv's LAPACK call per matrix is slow inside Blender."""
    linear = matrices[..., :3, :3]
    a, b, c = linear[..., :, 0], linear[..., :, 1], linear[..., :, 2]
    rows = np.stack([np.cross(b, c), np.cross(c, a), np.cross(a, b)], axis=-2)
    determinant = np.sum(a * rows[..., 0, :], axis=-1)[..., None, None]
    out = np.zeros(matrices.shape)
    out[..., :3, :3] = rows / determinant
    out[..., :3, 3] = -np.einsum("...ij,...j->...i", out[..., :3, :3], matrices[..., :3, 3])
    out[..., 3, 3] = 1.0
    return out


def _distance(obj, actual: np.ndarray, target: np.ndarray) -> float:
    """Largest distance between the bounding-box corners placed by the two sets of matrices."""
    corners = np.c_[np.array(obj.bound_box), np.ones(8)].T
    return float(np.max(np.linalg.norm(((actual - target) @ corners)[:, :3], axis=1)))


def visual(scene, depsgraph, objects, frames, worlds: dict, basis: dict, key) -> dict:
    """Key `objects` (calling key(obj, basis)) until their evaluated world matrices are the
    simulated `worlds`; return the distance each stays away (Blender units)."""
    pending = list(objects)
    distances: dict = {}
    for _ in range(VISUAL_ITERATIONS):
        for obj in pending:
            key(obj, basis[obj.name])
        evaluated = sampling.world_matrices(scene, depsgraph, pending, frames)
        still = []
        for j, obj in enumerate(pending):
            actual, target = evaluated[:, j], worlds[obj.name]
            distances[obj.name] = _distance(obj, actual, target)
            if distances[obj.name] > 1e-5 * (1.0 + float(np.max(obj.dimensions))):
                between = actual @ affine_inverse(basis[obj.name])
                basis[obj.name] = affine_inverse(between) @ target
                still.append(obj)
        pending = still
        if not pending:
            break
    return distances
