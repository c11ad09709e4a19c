"""Contact manifolds in solver form: Jacobian rows, effective masses and warm starting.

The narrow phase's points are grouped per touching pair into manifolds of up to four points
(padded; `points` says how many). Both bodies take each impulse at the same world point, so
momentum and angular momentum are exchanged exactly. Rows act on the 12 velocities
[v_a, ω_a, v_b, ω_b] of a pair: per point one normal row and two friction rows along the
tangents t1, t2 of the manifold's normal. Manifolds are in pair order (a, b sorted), which is
also the Gauss–Seidel order of the sweeps.
"""

import numpy as np
from numba import njit

from . import linalg
from .materials import combine
from .sat import sat_pair
from .shapes import BOX, HULL, MESH, SPHERE

POINTS = 4  # the narrow phase reports at most four points per pair
SUBSETS = 2**POINTS  # subsets of a manifold's points, as bit codes
# A face-on-face manifold has four (nearly) coplanar points but only three degrees of freedom:
# its normal block is singular. Modes weaker than this fraction of the strongest are treated as
# absent (pseudo-inverse), which gives the even, minimum-norm split of the load.
CUTOFF = 1e-4
# A new point inherits an old one's impulses when its anchors moved less than this fraction of
# their length from the old point's (about 5 mm at a unit box's corner): a point that merely
# changed feature id under rounding, not a different corner (matches).
MATCH_DISTANCE = 0.005
# Bodies whose contact points are corners and edges of flat faces (new_manifolds' drift).
FLAT = (BOX, HULL, MESH)


def flat(shape: np.ndarray) -> np.ndarray:
    """(N,) True for the bodies of a FLAT shape (np.isin's sort costs more on a few bodies)."""
    return (shape == BOX) | (shape == HULL) | (shape == MESH)


# A box pair is left uncollided only this much (m) beyond its margin, for the rounding of its
# separating-axis gap against the narrow phase's points (refresh).
APART_ROUNDING = 1e-9


# The arrays each substep writes before it reads them (prepare_rows, the targets), as
# (shape per row, dtype): they carry nothing from one set of rows to the next, so a World
# gives each new set the same buffers (RowScratch).
_SCRATCH = {
    "bias": ((POINTS,), np.float64),  # -(target v_n) while the pair is pressed
    "rebound_bias": ((POINTS,), np.float64),  # the same, then, for the bounce
    "normal_rows": ((POINTS, 12), np.float64),
    "normal_response": ((POINTS, 12), np.float64),  # M⁻¹Jᵀ
    "normal_block": ((POINTS, POINTS), np.float64),  # J M⁻¹ Jᵀ
    "normal_inverse": ((POINTS, POINTS), np.float64),  # its pseudo-inverse
    # the same on each subset of points (for contact sets), filled on demand each substep
    "subset_inverse": ((SUBSETS, POINTS, POINTS), np.float64),
    "subset_ready": ((SUBSETS,), np.bool_),
    "friction_rows": ((POINTS, 2, 12), np.float64),
    "friction_response": ((POINTS, 2, 12), np.float64),
    "friction_mass": ((POINTS, 2), np.float64),
}


class RowScratch:
    """The per-substep solver arrays (_SCRATCH) for a World's rows, reused by each new set.

    They are 4.7 KB of a row's 5.6. Made afresh for every new set of rows, the kernel zeroed
    every page of them again on first touch: the burst of 500 boxes makes 9 new sets of up to
    124,750 rows in its first frame, and spent 1.7 s of that frame's 4.8 in page faults.
    A new set's normal blocks and subset flags start cleared, as fresh arrays would be:
    prepare_rows keeps the pseudo-inverses of a block equal to the one it finds there."""

    def __init__(self):
        self._buffers = self._made(0)

    @staticmethod
    def _made(capacity: int) -> dict[str, np.ndarray]:
        return {name: np.zeros((capacity, *tail), dtype)
                for name, (tail, dtype) in _SCRATCH.items()}

    def rows(self, count: int) -> dict[str, np.ndarray]:
        """Views of `count` rows of each array, grown (by half at least) when too short."""
        capacity = len(self._buffers["bias"])
        if count > capacity:
            self._buffers = self._made(max(count, capacity + capacity // 2))
        views = {name: buffer[:count] for name, buffer in self._buffers.items()}
        views["normal_block"][:] = 0.0
        views["subset_ready"][:] = False
        return views


class Manifolds:
    """One row per candidate pair of the frame (pairs (P, 2), sorted), holding up to four points;
    rows are recollided or refreshed every substep and their solver rows rewritten (prepare).

    Each point keeps its anchors on both bodies (body-frame offsets from the centres of mass;
    for a sphere, the distance from its centre along the normal), so while a pair moves less
    than its tolerance since its last narrow phase, the separation is refreshed from the
    bodies' motion instead of colliding again (Box2D v3).

    The arrays each substep works out afresh are views of `scratch` (a World's RowScratch),
    which the World's next set of rows takes over, or arrays of its own without one.
    """

    def __init__(self, pairs, friction, restitution, slop, drift, scratch=None):
        count = len(pairs)
        self.pairs = pairs
        self.a, self.b = pairs[:, 0].copy(), pairs[:, 1].copy()
        self.friction, self.restitution, self.slop = friction, restitution, slop
        self.drift = drift  # how far the pair may move between narrow phases (new_manifolds)
        self.points = np.zeros(count, dtype=np.int64)
        self.feature = np.full((count, POINTS), -1, dtype=np.int64)
        self.normal = np.zeros((count, POINTS, 3))  # a -> b, world, fixed between collisions
        self.tangents = np.zeros((count, 2, 3))
        self.point = np.zeros((count, POINTS, 3))  # world, midway between the surfaces
        self.anchor_a = np.zeros((count, POINTS, 3))
        self.anchor_b = np.zeros((count, POINTS, 3))
        self.base = np.zeros((count, POINTS))  # separation when last collided
        self.separation = np.zeros((count, POINTS))  # minus the depth, 0 in unused slots
        self.relative = np.zeros((count, 3))  # x_b - x_a when last collided
        self.orientation_a = np.zeros((count, 4))  # and the orientations then
        self.orientation_b = np.zeros((count, 4))
        self.margin = np.zeros(count)  # the gap up to which points were kept when collided
        self.apart = np.full(count, -np.inf)  # box pairs without points: a floor on their gap
        self.isolated = np.ones(count, dtype=np.bool_)  # no movable body touches a third
        self.thin = np.zeros(count, dtype=np.bool_)  # a triangle mesh is in the pair
        self.normal_impulse = np.zeros((count, POINTS))  # accumulated, per substep
        self.friction_impulse = np.zeros((count, POINTS, 2))  # along t1, t2
        self.incoming = np.zeros((count, POINTS))  # arrival speed carried to the touch
        # and its eigenvectors, where the next block's search starts (zero: not yet found)
        self.normal_vectors = np.zeros((count, POINTS, POINTS))
        # what each substep works out afresh (_SCRATCH): from the World's buffers if given
        rows = (scratch or RowScratch()).rows(count)
        self.bias, self.rebound_bias = rows["bias"], rows["rebound_bias"]
        self.normal_rows, self.normal_response = rows["normal_rows"], rows["normal_response"]
        self.normal_block, self.normal_inverse = rows["normal_block"], rows["normal_inverse"]
        self.subset_inverse, self.subset_ready = rows["subset_inverse"], rows["subset_ready"]
        self.friction_rows = rows["friction_rows"]
        self.friction_response = rows["friction_response"]
        self.friction_mass = rows["friction_mass"]

    def __len__(self) -> int:
        return len(self.a)

    def kept(self) -> tuple:
        """The arrays a row keeps when its pair is found again in a new frame without colliding
        (World._collide_frame): its points, their anchors and impulses."""
        return (self.points, self.feature, self.normal, self.tangents, self.point,
                self.anchor_a, self.anchor_b, self.base, self.separation, self.relative,
                self.orientation_a, self.orientation_b, self.margin, self.apart,
                self.normal_impulse, self.friction_impulse, self.incoming, self.normal_vectors)

    @property
    def mask(self) -> np.ndarray:
        """(P, 4) True in the slots that hold a point."""
        return np.arange(POINTS) < self.points[:, None]


@njit(cache=True)
def isolated_rows(active, a, b, movable, isolated) -> None:
    """isolated (P,) = no movable body of the row touches a third body (through active rows):
    each is held by one active row at most."""
    touching = np.zeros(len(movable), dtype=np.int64)
    for p in active:
        touching[a[p]] += movable[a[p]]
        touching[b[p]] += movable[b[p]]
    for p in range(len(a)):
        isolated[p] = ((not movable[a[p]] or touching[a[p]] == 1)
                       and (not movable[b[p]] or touching[b[p]] == 1))


def new_manifolds(pairs, bodies, restitution_rule, friction_rule, slop,
                  scratch: RowScratch | None = None) -> Manifolds:
    """Empty rows for candidate pairs (P, 2), with the pairs' combined materials, slop and
    drift; their per-substep arrays from `scratch` if given.

    Drift is how far a pair may move (relative translation plus turns times radii) before its
    narrow phase runs again; the world widens the narrow phase's margin by it less the slop,
    so a feature left out then cannot come within reach meanwhile. Refreshing a point from
    its anchors errs by about drift² / size when the normal's body turns under a sliding
    point, so sqrt(slop × size) keeps that error within the slop (size: the smaller body's
    half diagonal). That holds where the points are corners and edges of flat faces (boxes,
    hulls, meshes), which stay where they are on a body as it turns; on a round surface the
    contact moves over it as it rolls, so pairs with a round body (or a compound) keep
    drift = slop, as do box pairs, whose exact kernel costs less than the extra points."""
    a, b = pairs[:, 0], pairs[:, 1]
    slop = np.minimum(slop[a], slop[b])
    size = np.linalg.norm(bodies.half_extents, axis=1)
    faces = flat(bodies.shape)
    wide = faces[a] & faces[b] & ((bodies.shape[a] != BOX) | (bodies.shape[b] != BOX))
    drift = np.where(wide, np.maximum(slop, np.sqrt(slop * np.minimum(size[a], size[b]))), slop)
    m = Manifolds(pairs, combine(friction_rule, bodies.friction[a], bodies.friction[b]),
                  combine(restitution_rule, bodies.restitution[a], bodies.restitution[b]),
                  slop, drift, scratch)
    m.thin[:] = (bodies.shape[a] == MESH) | (bodies.shape[b] == MESH)
    return m


@njit(cache=True)
def _anchor(shape, position, rotations, com_offset, body, point, normal, c, out, p, s) -> None:
    """out[p, s] (3,) = contact c's anchor on a body (point, normal (K, 3) the contacts'): its
    body-frame offset from the centre of mass, or, on a sphere, (distance from the centre
    along the normal, 0, 0). Indices, not views (see _anchored)."""
    if shape[body] == SPHERE:
        along = 0.0
        for k in range(3):
            centre = position[body, k] - (rotations[body, k, 0] * com_offset[body, 0]
                                          + rotations[body, k, 1] * com_offset[body, 1]
                                          + rotations[body, k, 2] * com_offset[body, 2])
            along += normal[c, k] * (point[c, k] - centre)
        out[p, s, 0], out[p, s, 1], out[p, s, 2] = along, 0.0, 0.0
        return
    for i in range(3):
        total = 0.0
        for k in range(3):
            total += rotations[body, k, i] * (point[c, k] - position[body, k])
        out[p, s, i] = total


@njit(cache=True)
def _anchored(shape, position, rotations, com_offset, body, anchors, normal, p, s, out) -> None:
    """out (3,) = where the anchor anchors[p, s] (see _anchor) is now in the world (normal
    (P, 4, 3) the rows'). Indices, not views: a view passed on costs two atomic reference
    counts, which in refresh's loop over points were a third of its time."""
    sphere = shape[body] == SPHERE
    if sphere:
        x, y, z, sign = com_offset[body, 0], com_offset[body, 1], com_offset[body, 2], -1.0
    else:
        x, y, z, sign = anchors[p, s, 0], anchors[p, s, 1], anchors[p, s, 2], 1.0
    for k in range(3):
        out[k] = position[body, k] + sign * (rotations[body, k, 0] * x
                                             + rotations[body, k, 1] * y
                                             + rotations[body, k, 2] * z)
        if sphere:
            out[k] += anchors[p, s, 0] * normal[p, s, k]


@njit(cache=True)
def _tangents(normal, out) -> None:
    """out (2, 3): t1 ⟂ n from the world axis least aligned with n, t2 = n × t1."""
    least = 0
    for k in range(1, 3):
        if abs(normal[k]) < abs(normal[least]):
            least = k
    # t1 = n × e_least, normalised; t2 = n × t1
    t1 = out[0]
    t1[0] = normal[1] * (least == 2) - normal[2] * (least == 1)
    t1[1] = normal[2] * (least == 0) - normal[0] * (least == 2)
    t1[2] = normal[0] * (least == 1) - normal[1] * (least == 0)
    length = linalg.norm(t1)
    for k in range(3):
        t1[k] /= length
    out[1, 0] = normal[1] * t1[2] - normal[2] * t1[1]
    out[1, 1] = normal[2] * t1[0] - normal[0] * t1[2]
    out[1, 2] = normal[0] * t1[1] - normal[1] * t1[0]


@njit(cache=True)
def fill_rows(rows, starts, point, normal, depth, feature, a, b, shape, position, orientation,
              rotations, com_offset, points, row_feature, row_normal, tangents, row_point, anchor_a,
              anchor_b, base, separation, relative, orientation_a, orientation_b,
              normal_impulse, incoming, friction_impulse, apart) -> None:
    """Rows rows[k] get the contacts starts[k]:starts[k + 1]; impulses follow the points they
    held (matches); their distance bound is unknown again (apart -inf: see refresh)."""
    old_feature = np.empty(POINTS, dtype=np.int64)
    old_anchors = np.empty((2, POINTS, 3))
    old_normal = np.empty(POINTS)
    old_incoming = np.empty(POINTS)
    old_friction = np.empty((POINTS, 3))
    match = np.empty(POINTS, dtype=np.int64)
    used = np.empty(POINTS, dtype=np.bool_)
    for k in range(len(rows)):
        p = rows[k]
        old_count = points[p]
        for t in range(old_count):
            old_feature[t] = row_feature[p, t]
            old_anchors[0, t] = anchor_a[p, t]
            old_anchors[1, t] = anchor_b[p, t]
            old_normal[t] = normal_impulse[p, t]
            old_incoming[t] = incoming[p, t]
            for i in range(3):
                old_friction[t, i] = (friction_impulse[p, t, 0] * tangents[p, 0, i]
                                      + friction_impulse[p, t, 1] * tangents[p, 1, i])
        count = starts[k + 1] - starts[k]
        points[p] = count
        if count:
            _tangents(normal[starts[k]], tangents[p])
        row_feature[p, :] = -1
        normal_impulse[p, :] = 0.0
        incoming[p, :] = 0.0
        base[p, :] = 0.0
        separation[p, :] = 0.0
        friction_impulse[p, :, :] = 0.0
        for s in range(count):
            c = starts[k] + s
            for i in range(3):
                row_point[p, s, i] = point[c, i]
                row_normal[p, s, i] = normal[c, i]
            base[p, s] = separation[p, s] = -depth[c]
            row_feature[p, s] = feature[c]
            _anchor(shape, position, rotations, com_offset, a[p], point, normal, c, anchor_a, p,
                    s)
            _anchor(shape, position, rotations, com_offset, b[p], point, normal, c, anchor_b, p,
                    s)
        matches(count, row_feature[p], anchor_a[p], anchor_b[p], old_count, old_feature,
                old_anchors[0], old_anchors[1], match, used)
        for s in range(count):
            t = match[s]
            if t < 0:
                continue
            normal_impulse[p, s] = old_normal[t]
            incoming[p, s] = old_incoming[t]
            for r in range(2):
                friction_impulse[p, s, r] = (tangents[p, r, 0] * old_friction[t, 0]
                                             + tangents[p, r, 1] * old_friction[t, 1]
                                             + tangents[p, r, 2] * old_friction[t, 2])
        for s in range(count, POINTS):  # unused slots share the normal (zero rows anyway)
            for i in range(3):
                row_normal[p, s, i] = row_normal[p, 0, i] if count else 0.0
        _collided_now(p, a[p], b[p], position, orientation, relative, orientation_a,
                      orientation_b)
        apart[p] = -np.inf


@njit(cache=True, inline="always")  # per row: called, its arrays would be reference-counted
def _collided_now(p, i, j, position, orientation, relative, orientation_a, orientation_b):
    """Row p (bodies i, j) collided at the poses of now: what refresh measures motion from."""
    for k in range(3):
        relative[p, k] = position[j, k] - position[i, k]
    orientation_a[p] = orientation[i]
    orientation_b[p] = orientation[j]


@njit(cache=True)
def matches(count, feature, anchor_a, anchor_b, old_count, old_feature, old_anchor_a,
            old_anchor_b, out, used) -> None:
    """out[s] = the old point (of the same pair) whose impulses new point s inherits, or -1:
    the one with the same feature id, else the nearest one left whose anchors on both bodies
    lie within MATCH_DISTANCE of the new ones (relative to the anchors' own lengths).

    Feature ids alone are not stable: a corner exactly on the rim of the face below (equal
    boxes stacked) is clipped as a corner or as a crossing point depending on rounding, and a
    resting stack that lost those points' impulses at a recollision would sag and jitter.
    Anchors are body-frame offsets from the centres of mass, so a point that stayed where it
    was on both bodies matches whatever the bodies did meanwhile. used is (POINTS,) scratch.
    """
    for t in range(old_count):
        used[t] = False
    for s in range(count):
        out[s] = -1
        for t in range(old_count):
            if not used[t] and old_feature[t] == feature[s]:
                out[s] = t
                used[t] = True
                break
    for s in range(count):
        if out[s] >= 0:
            continue
        nearest = MATCH_DISTANCE
        for t in range(old_count):
            if used[t]:
                continue
            apart = max(_relative_distance(anchor_a[s], old_anchor_a[t]),
                        _relative_distance(anchor_b[s], old_anchor_b[t]))
            if apart <= nearest:
                nearest = apart
                out[s] = t
        if out[s] >= 0:
            used[out[s]] = True


@njit(cache=True)
def _relative_distance(anchor, old) -> float:
    """|anchor - old| / |anchor| (0 when both are the centre)."""
    apart = np.sqrt((anchor[0] - old[0]) ** 2 + (anchor[1] - old[1]) ** 2
                    + (anchor[2] - old[2]) ** 2)
    return apart / linalg.norm(anchor) if apart > 0.0 else 0.0


@njit(cache=True)
def refresh(a, b, shape, position, orientation, rotations, com_offset, half_extents, radius,
            tolerance, drift, points, normal, point, anchor_a, anchor_b, base, separation,
            relative, orientation_a, orientation_b, margin, apart, velocity, angular_velocity,
            reach) -> np.ndarray:
    """Move every row's points with its bodies and refresh the separations from that motion;
    returns (P,) True for rows that must collide again: the pair moved more than its `drift`
    since it last collided (relative translation plus turn angles times the radii), or it may
    now close in a substep a gap wider than what the points were kept for then, less that
    motion, by more than `tolerance` (so a point left out sinks at most that far; reach is h,
    then per body its spin and fall per substep plus its speculative distance).

    A box pair without points that is still farther apart than the margin its narrow phase
    would now get (row_margins) is not stale: that narrow phase would keep nothing, since every
    point it keeps lies within the margin of the other box, and the two boxes are no nearer
    than their separating-axis gap. Its row is set as that narrow phase would leave it (the
    poses of now, that margin), and `apart` keeps the gap less the motion since as a bound, so
    the SAT runs again only once the motion could have closed it (in a falling scene a third
    of the rows collided again were such pairs)."""
    stale = np.zeros(len(a), dtype=np.bool_)
    on_a = np.empty(3)
    on_b = np.empty(3)
    for p in range(len(a)):
        i, j = a[p], b[p]
        motion = 0.0
        for k in range(3):
            motion += (position[j, k] - position[i, k] - relative[p, k]) ** 2
        motion = np.sqrt(motion)
        motion += turned(orientation, i, orientation_a, p) * radius[i]
        motion += turned(orientation, j, orientation_b, p) * radius[j]
        closing = 0.0
        for k in range(3):
            closing += (velocity[j, k] - velocity[i, k]) ** 2
        closing = np.sqrt(closing) * reach[0] + reach[1 + i] + reach[1 + j]
        if motion > drift[p] or closing > margin[p] + tolerance[p] - motion:
            within = closing + drift[p] - tolerance[p]  # the margin row_margins would give
            if not (points[p] == 0 and shape[i] == BOX and shape[j] == BOX
                    and _still_apart(p, i, j, position, rotations, com_offset, half_extents,
                                     apart, motion, within)):
                stale[p] = True
                continue
            # as a narrow phase that found nothing leaves it (fill_rows)
            _collided_now(p, i, j, position, orientation, relative, orientation_a,
                          orientation_b)
            margin[p] = within
            continue
        for s in range(points[p]):
            _anchored(shape, position, rotations, com_offset, i, anchor_a, normal, p, s, on_a)
            _anchored(shape, position, rotations, com_offset, j, anchor_b, normal, p, s, on_b)
            gap = base[p, s]
            for k in range(3):
                gap += normal[p, s, k] * (on_b[k] - on_a[k])
                point[p, s, k] = 0.5 * (on_a[k] + on_b[k])
            separation[p, s] = gap
    return stale


@njit(cache=True)
def _still_apart(p, i, j, position, rotations, com_offset, half_extents, apart, motion,
                 within) -> bool:
    """Whether boxes i and j of row p are farther apart than `within` (+ APART_ROUNDING): by
    the bound apart[p] less the motion since, else by their SAT gap now; apart[p] = the bound
    that decided, valid from now on."""
    bound = apart[p] - motion
    if not bound > within + APART_ROUNDING:
        ci, cj, n = np.empty(3), np.empty(3), np.empty(3)
        for k in range(3):  # the shape centres, as the narrow phase has them
            ci[k] = linalg.minus_rotated_row(position, rotations, com_offset, i, k)
            cj[k] = linalg.minus_rotated_row(position, rotations, com_offset, j, k)
        bound = sat_pair(ci, rotations[i], half_extents[i], cj, rotations[j], half_extents[j], n,
                         1.0)[0]
    apart[p] = bound
    return bound > within + APART_ROUNDING


@njit(cache=True)
def turned(q, i, q0, j) -> float:
    """About the angle between orientations q[i] and q0[j] (twice the quaternion chord,
    sign-free); rows by index, not views (see _anchored)."""
    dot = q[i, 0] * q0[j, 0] + q[i, 1] * q0[j, 1] + q[i, 2] * q0[j, 2] + q[i, 3] * q0[j, 3]
    sign = 1.0 if dot >= 0.0 else -1.0
    chord = 0.0
    for k in range(4):
        chord += (q[i, k] - sign * q0[j, k]) ** 2
    return 2.0 * np.sqrt(chord)


@njit(cache=True)
def warm_start_from(old_key, old_points, old_feature, old_anchor_a, old_anchor_b, old_normal,
                    old_incoming, old_friction, old_tangents, key, points, feature, anchor_a,
                    anchor_b, normal_impulse, incoming, friction_impulse, tangents) -> None:
    """Carry impulses over from the previous frame's rows by pair and matched point (matches);
    friction as a world vector projected on the new tangents, so it survives a change of basis.
    Keys (a N + b) are sorted on both sides."""
    match = np.empty(POINTS, dtype=np.int64)
    used = np.empty(POINTS, dtype=np.bool_)
    for p in range(len(key)):
        q = np.searchsorted(old_key, key[p])
        if q >= len(old_key) or old_key[q] != key[p]:
            continue
        matches(points[p], feature[p], anchor_a[p], anchor_b[p], old_points[q], old_feature[q],
                old_anchor_a[q], old_anchor_b[q], match, used)
        for s in range(points[p]):
            t = match[s]
            if t < 0:
                continue
            normal_impulse[p, s] = old_normal[q, t]
            incoming[p, s] = old_incoming[q, t]
            for r in range(2):
                total = 0.0
                for i in range(3):
                    world = (old_friction[q, t, 0] * old_tangents[q, 0, i]
                             + old_friction[q, t, 1] * old_tangents[q, 1, i])
                    total += tangents[p, r, i] * world
                friction_impulse[p, s, r] = total


def warm_start(m: Manifolds, previous: Manifolds, count: int) -> None:
    """Impulses of the previous frame's rows, matched by pair and point."""
    warm_start_from(previous.a * count + previous.b, previous.points, previous.feature,
                    previous.anchor_a, previous.anchor_b, previous.normal_impulse,
                    previous.incoming, previous.friction_impulse, previous.tangents,
                    m.a * count + m.b, m.points, m.feature, m.anchor_a, m.anchor_b,
                    m.normal_impulse, m.incoming, m.friction_impulse, m.tangents)


def prepare(m: Manifolds, rows, position, inverse_mass, world_inverse_inertia) -> None:
    """Rows, responses and effective masses of rows `rows` for the bodies' current state."""
    prepare_rows(rows, m.a, m.b, m.points, m.point, m.normal, m.tangents, position, inverse_mass,
                 world_inverse_inertia, m.normal_rows, m.normal_response, m.normal_block,
                 m.normal_inverse, m.normal_vectors, m.subset_inverse, m.subset_ready,
                 m.friction_rows, m.friction_response, m.friction_mass)


@njit(cache=True, inline="always")  # per row: its two tuples stay in registers
def _row(d, ra, rb, inverse_mass_a, inverse_mass_b, inertia, i, j) -> tuple:
    """(J, M⁻¹Jᵀ) = ([-d, -r_a×d, d, r_b×d], its response), two 12-tuples, for a direction d
    at arms r_a, r_b (3-tuples) between bodies i and j (inertia (N, 3, 3) the world inverse
    inertias). Tuples and indices, not views of the rows' arrays: each view costs two atomic
    reference counts, and there were 17 of them per point."""
    ax = ra[1] * d[2] - ra[2] * d[1]
    ay = ra[2] * d[0] - ra[0] * d[2]
    az = ra[0] * d[1] - ra[1] * d[0]
    bx = rb[1] * d[2] - rb[2] * d[1]
    by = rb[2] * d[0] - rb[0] * d[2]
    bz = rb[0] * d[1] - rb[1] * d[0]
    row = (-d[0], -d[1], -d[2], -ax, -ay, -az, d[0], d[1], d[2], bx, by, bz)
    response = (-inverse_mass_a * d[0], -inverse_mass_a * d[1], -inverse_mass_a * d[2],
                -(inertia[i, 0, 0] * ax + inertia[i, 0, 1] * ay + inertia[i, 0, 2] * az),
                -(inertia[i, 1, 0] * ax + inertia[i, 1, 1] * ay + inertia[i, 1, 2] * az),
                -(inertia[i, 2, 0] * ax + inertia[i, 2, 1] * ay + inertia[i, 2, 2] * az),
                inverse_mass_b * d[0], inverse_mass_b * d[1], inverse_mass_b * d[2],
                inertia[j, 0, 0] * bx + inertia[j, 0, 1] * by + inertia[j, 0, 2] * bz,
                inertia[j, 1, 0] * bx + inertia[j, 1, 1] * by + inertia[j, 1, 2] * bz,
                inertia[j, 2, 0] * bx + inertia[j, 2, 1] * by + inertia[j, 2, 2] * bz)
    return row, response


@njit(cache=True)
def prepare_rows(rows, a, b, points, point, normal, tangents, position, inverse_mass,
                 world_inverse_inertia, normal_rows, normal_response, normal_block,
                 normal_inverse, normal_vectors, subset_inverse, subset_ready, friction_rows,
                 friction_response, friction_mass) -> None:
    """Per manifold: normal and friction rows at each point, the normal block J M⁻¹ Jᵀ and its
    pseudo-inverse, the friction rows' effective masses; where the block changed, subset
    inverses marked stale but the whole set's, which is that pseudo-inverse (the polish and
    contact sets start from it).

    A block equal to the one it replaces (bodies that did not move since the last substep:
    most of a settled pile with sleeping off, 99 % of pile 64's rows) keeps its pseudo-inverse
    and its subsets' (the pile of 1,000 with sleeping off: 940 of 971 rows), which are
    functions of the block and the points alone; their Jacobi sweeps were most of this
    kernel's time, and of the contact sets'.

    A changed block of four points starts its eigenvectors' search from the manifold's last
    (normal_vectors, kept with the rows): a moving pair's block turns only a little in a
    substep (four-point pseudo-inverses were a tenth of the demo's simulation)."""
    held = np.zeros(POINTS, dtype=np.bool_)
    work = np.empty((POINTS, POINTS))
    for p in rows:
        i, j = a[p], b[p]
        mass_a, mass_b = inverse_mass[i], inverse_mass[j]
        for s in range(points[p]):
            ra = (point[p, s, 0] - position[i, 0], point[p, s, 1] - position[i, 1],
                  point[p, s, 2] - position[i, 2])
            rb = (point[p, s, 0] - position[j, 0], point[p, s, 1] - position[j, 1],
                  point[p, s, 2] - position[j, 2])
            row, response = _row((normal[p, s, 0], normal[p, s, 1], normal[p, s, 2]), ra, rb,
                                 mass_a, mass_b, world_inverse_inertia, i, j)
            for k in range(12):
                normal_rows[p, s, k] = row[k]
                normal_response[p, s, k] = response[k]
            for r in range(2):
                row, response = _row((tangents[p, r, 0], tangents[p, r, 1], tangents[p, r, 2]),
                                     ra, rb, mass_a, mass_b, world_inverse_inertia, i, j)
                diagonal = 0.0
                for k in range(12):
                    friction_rows[p, s, r, k] = row[k]
                    friction_response[p, s, r, k] = response[k]
                    diagonal += row[k] * response[k]
                friction_mass[p, s, r] = 1.0 / diagonal if diagonal > 0.0 else 0.0
        for s in range(points[p], POINTS):
            for k in range(12):
                normal_rows[p, s, k] = 0.0
                normal_response[p, s, k] = 0.0
        unchanged = True
        for s in range(POINTS):
            held[s] = s < points[p]
            for t in range(POINTS):
                total = 0.0
                for k in range(12):
                    total += normal_rows[p, s, k] * normal_response[p, t, k]
                unchanged &= total == normal_block[p, s, t]
                normal_block[p, s, t] = total
        if not unchanged:
            found = 0.0  # a found basis has unit columns, a row not yet solved zeros
            for s in range(POINTS):
                found += normal_vectors[p, s, 0] * normal_vectors[p, s, 0]
            if points[p] == POINTS and found > 0.5:
                linalg.pseudo_inverse_from(normal_block[p], CUTOFF, normal_inverse[p], work,
                                           normal_vectors[p])
            else:
                linalg.pseudo_inverse(normal_block[p], held, CUTOFF, normal_inverse[p], work,
                                      normal_vectors[p])
            for code in range(SUBSETS):
                subset_ready[p, code] = False
        whole = (1 << points[p]) - 1
        for s in range(POINTS):
            for t in range(POINTS):
                subset_inverse[p, whole, s, t] = normal_inverse[p, s, t]
        subset_ready[p, whole] = True


@njit(cache=True)
def gather(velocity, angular_velocity, i, j, out) -> None:
    """out (12,) = [v_i, ω_i, v_j, ω_j]."""
    for k in range(3):
        out[k] = velocity[i, k]
        out[3 + k] = angular_velocity[i, k]
        out[6 + k] = velocity[j, k]
        out[9 + k] = angular_velocity[j, k]


@njit(cache=True)
def scatter(v12, velocity, angular_velocity, i, j) -> None:
    """Write a pair's 12 velocities back to its bodies."""
    for k in range(3):
        velocity[i, k] = v12[k]
        angular_velocity[i, k] = v12[3 + k]
        velocity[j, k] = v12[6 + k]
        angular_velocity[j, k] = v12[9 + k]


@njit(cache=True)
def apply_impulses(rows, a, b, points, normal_response, friction_response, normal, friction,
                   velocity, angular_velocity) -> None:
    """Add the velocity change of (P, 4) normal and (P, 4, 2) friction impulses to both bodies
    (warm starting, and the spring forces times h of the penalty method), rows `rows`."""
    v12 = np.empty(12)
    for p in rows:
        gather(velocity, angular_velocity, a[p], b[p], v12)
        for s in range(points[p]):
            for k in range(12):
                v12[k] += (normal[p, s] * normal_response[p, s, k]
                           + friction[p, s, 0] * friction_response[p, s, 0, k]
                           + friction[p, s, 1] * friction_response[p, s, 1, k])
        scatter(v12, velocity, angular_velocity, a[p], b[p])
