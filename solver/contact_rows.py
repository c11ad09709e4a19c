"""The world's contact bookkeeping between narrow phases, as few compiled calls per substep.

A substep that collides nothing new costs two calls from Python: `carried` (whether a body
left the room its pairs were found for; if not, every row's points carried with its bodies and
the rows that must collide again) and `rows_to_solve` (sleeping bodies touched by awake ones
woken, the rows the driver solves, their isolation); colliding rows again is one more,
`collide_rows`. Each was several small kernels and numpy calls, whose dispatch cost more than
their loops (issue #9).
"""

import numpy as np
from numba import literal_unroll, njit

from . import linalg
from .bodies import DYNAMIC, KINEMATIC
from .broadphase import aabbs_into
from .constraints import fill_rows, isolated_rows, refresh, turned
from .contacts import contacts_of_pairs, contacts_of_parts
from .manifold import MAX_MANIFOLD
from .solve_impulse import MAX_PUSH


@njit(cache=True)
def carried(check, position, orientation, velocity, angular_velocity, radius, speculative, awake,
            kind, start_position, start_orientation, start_reach, h, fall, a, b, shape,
            rotations, com_offset, half_extents, slop, drift, points, normal, point, anchor_a,
            anchor_b, base, separation, relative, orientation_a, orientation_b, margin, apart):
    """(escaped, stale (P,), its rows): with `check`, whether a moving body could leave its
    room this substep (escaped; nothing else is done then); otherwise every row refreshed
    (constraints.refresh, with the substep's reach: h, then substep_reach per body) and the
    rows that must collide again."""
    if check and escaped(position, orientation, velocity, angular_velocity, radius, speculative,
                         awake, kind, start_position, start_orientation, start_reach, h, fall):
        return True, np.zeros(0, dtype=np.bool_), np.zeros(0, dtype=np.int64)
    reach = np.empty(len(radius) + 1)
    reach[0] = h
    substep_reach(angular_velocity, radius, speculative, 0.5 * fall, h, reach[1:])
    stale = refresh(a, b, shape, position, orientation, rotations, com_offset, half_extents,
                    radius, slop, drift, points, normal, point, anchor_a, anchor_b, base,
                    separation, relative, orientation_a, orientation_b, margin, apart, velocity,
                    angular_velocity, reach)
    return False, stale, np.flatnonzero(stale)


@njit(cache=True)
def collide_rows(rows, tables, shape, position, orientation, rotations, com_offset,
                 half_extents, velocity, angular_velocity, radius, speculative, drop, h, a, b,
                 drift, slop, margin, points, feature, normal, tangents, point, anchor_a,
                 anchor_b, base, separation, relative, orientation_a, orientation_b,
                 normal_impulse, incoming, friction_impulse, apart) -> None:
    """The narrow phase on rows `rows` (pairs a-b) within their row_margins, its points written
    into them by fill_rows (the rows' arrays after drop and h, as fill_rows names them): in a
    falling scene most rows collide again in most substeps, and as a numpy wrapper around
    three kernels this call's glue cost as much as its narrow phase. tables None: boxes and
    spheres only (contacts_of_pairs; numba then compiles this without the parts kernel)."""
    keep = np.empty(len(rows))
    widest = row_margins(rows, a, b, velocity, angular_velocity, radius, speculative, drop, h,
                         drift, slop, keep, margin)
    centers = np.empty((len(position), 3))
    linalg.minus_rotated(position, rotations, com_offset, centers)
    pairs = np.empty((len(rows), 2), dtype=np.int64)
    for k in range(len(rows)):
        pairs[k, 0], pairs[k, 1] = a[rows[k]], b[rows[k]]
    room = MAX_MANIFOLD * len(rows)
    first, second = np.empty(room, dtype=np.int64), np.empty(room, dtype=np.int64)
    found_point, found_normal = np.empty((room, 3)), np.empty((room, 3))
    depth, found_feature = np.empty(room), np.empty(room, dtype=np.int64)
    starts = np.empty(len(rows) + 1, dtype=np.int64)
    if tables is None:
        contacts_of_pairs(shape, centers, rotations, half_extents, pairs, widest, keep, first,
                          second, found_point, found_normal, depth, found_feature, starts)
    else:
        contacts_of_parts(shape, centers, rotations, half_extents, pairs, widest, keep, tables,
                          first, second, found_point, found_normal, depth, found_feature,
                          starts)
    fill_rows(rows, starts, found_point, found_normal, depth, found_feature, a, b, shape,
              position, orientation, rotations, com_offset, points, feature, normal, tangents,
              point, anchor_a, anchor_b, base, separation, relative, orientation_a,
              orientation_b, normal_impulse, incoming, friction_impulse, apart)


@njit(cache=True)
def rows_to_solve(points, a, b, kind, awake, rest_time, wake, collided, isolated):
    """The rows the driver solves (active_rows); first, with `wake`, sleeping bodies an awake
    one touches woken (wake_touched); if anything collided or woke, `isolated` (P,) rewritten
    (constraints.isolated_rows)."""
    if wake:
        collided |= wake_touched(points, a, b, kind, awake, rest_time)
    active = active_rows(points, a, b, awake)
    if collided:
        isolated_rows(active, a, b, awake, isolated)
    return active


@njit(cache=True)
def grown_boxes(centers, rotations, half_extents, shape, velocity, angular_velocity, radius,
                speculative, g, duration, a, b, points, separation, slop, lo, hi) -> np.ndarray:
    """lo, hi (N, 3) = the bodies' AABBs grown by their reach, which is returned: how far each
    may move in `duration` at its current speed and spin, plus a fall from rest (|g| g), its
    speculative distance and how far the push-out may move it out of an overlap without giving
    it a velocity: the depth beyond the slop of its deepest point in the rows found last (a, b,
    points, separation, slop), at most MAX_PUSH × duration. A body that left its box costs a
    new broad phase (the demo's Suzanne, started deep in the ramp, cost one every substep for
    five frames)."""
    aabbs_into(centers, rotations, half_extents, shape, lo, hi)
    reach = np.zeros(len(radius))
    for p in range(len(a)):
        for s in range(points[p]):
            excess = min(-separation[p, s] - slop[p], MAX_PUSH * duration)
            reach[a[p]] = max(reach[a[p]], excess)
            reach[b[p]] = max(reach[b[p]], excess)
    fall = g * duration * duration
    for i in range(len(radius)):
        spin = linalg.norm(linalg.row(angular_velocity, i)) * radius[i]
        reach[i] += ((linalg.norm(linalg.row(velocity, i)) + spin) * duration + fall
                     + speculative[i])
        for k in range(3):
            lo[i, k] -= reach[i]
            hi[i, k] += reach[i]
    return reach


@njit(cache=True)
def escaped(position, orientation, velocity, angular_velocity, radius, speculative, awake,
            kind, start_position, start_orientation, reach, h, fall) -> bool:
    """Whether a moving (awake or kinematic) body, having moved (translation plus turn angle
    times radius) since the pairs were found, could move beyond its reach then in one more
    substep h."""
    for i in range(len(position)):
        if not (awake[i] or kind[i] == KINEMATIC):
            continue
        moved = 0.0
        for k in range(3):
            moved += (position[i, k] - start_position[i, k]) ** 2
        moved = np.sqrt(moved) + turned(orientation, i, start_orientation, i) * radius[i]
        ahead = ((linalg.norm(linalg.row(velocity, i))
                  + linalg.norm(linalg.row(angular_velocity, i)) * radius[i]) * h
                 + fall + speculative[i])
        if moved + ahead > reach[i]:
            return True
    return False


@njit(cache=True)
def substep_reach(angular_velocity, radius, speculative, drop, h, out) -> None:
    """out (N,) = |ω| radius h + drop + speculative distance, per body: two of these plus the
    relative speed times h make a pair's narrow-phase margin (drop: half a substep's fall)."""
    for i in range(len(radius)):
        out[i] = _body_reach(angular_velocity, radius, speculative, drop, h, i)


@njit(cache=True)
def _body_reach(angular_velocity, radius, speculative, drop, h, i) -> float:
    """Body i's entry of substep_reach."""
    return (linalg.norm(linalg.row(angular_velocity, i)) * radius[i] * h + drop
            + speculative[i])


@njit(cache=True)
def row_margins(rows, a, b, velocity, angular_velocity, radius, speculative, drop, h, drift,
                slop, out, margin) -> float:
    """out (R,) and margin[rows] = the narrow phase's margin for rows `rows`: the pair's
    relative speed times h plus both bodies' substep_reach, widened by its drift less its slop
    (so a feature left out stays out of reach while the rows are refreshed instead); returns
    the widest (0 if none is wider)."""
    widest = 0.0
    for k in range(len(rows)):
        p = rows[k]
        i, j = a[p], b[p]
        closing = 0.0
        for d in range(3):
            closing += (velocity[j, d] - velocity[i, d]) ** 2
        out[k] = (np.sqrt(closing) * h
                  + _body_reach(angular_velocity, radius, speculative, drop, h, i)
                  + _body_reach(angular_velocity, radius, speculative, drop, h, j) + drift[p]
                  - slop[p])
        margin[p] = out[k]
        widest = max(widest, out[k])
    return widest


@njit(cache=True)
def kept_rows(a, b, old_a, old_b, stale):
    """(rows of the pairs a-b, rows of the old pairs old_a-old_b): the pairs both hold whose
    old rows need no narrow phase (stale False); both sides sorted."""
    rows = np.empty(len(a), dtype=np.int64)
    source = np.empty(len(a), dtype=np.int64)
    count, q = 0, 0
    for p in range(len(a)):
        while q < len(old_a) and (old_a[q] < a[p] or (old_a[q] == a[p] and old_b[q] < b[p])):
            q += 1
        if q < len(old_a) and old_a[q] == a[p] and old_b[q] == b[p] and not stale[q]:
            rows[count], source[count] = p, q
            count += 1
    return rows[:count], source[:count]


@njit(cache=True)
def carry_over(rows, source, arrays) -> None:
    """new[rows] = old[source] for each (new, old) in arrays: the points, anchors and
    impulses of the rows kept_rows found, carried into the new frame's rows in one call (in
    numpy, 36 fancy-index operations)."""
    for new_old in literal_unroll(arrays):
        new, old = new_old
        for k in range(len(rows)):
            new[rows[k]] = old[source[k]]


@njit(cache=True)
def active_rows(points, a, b, awake) -> np.ndarray:
    """The contact rows holding points with an awake body, in order."""
    out = np.empty(len(a), dtype=np.int64)
    count = 0
    for p in range(len(a)):
        if points[p] > 0 and (awake[a[p]] or awake[b[p]]):
            out[count] = p
            count += 1
    return out[:count]


@njit(cache=True)
def wake_touched(points, a, b, kind, awake, rest_time) -> bool:
    """Between sleep decisions, a sleeping body that an awake one touches (as awake was on
    entry) wakes at once, its rest timer restarted (its own sleeping neighbours follow at the
    next substep); whether any woke."""
    woke = np.zeros(len(awake), dtype=np.bool_)
    for p in range(len(a)):
        if points[p] == 0:
            continue
        i, j = a[p], b[p]
        woke[i] |= kind[i] == DYNAMIC and not awake[i] and awake[j]
        woke[j] |= kind[j] == DYNAMIC and not awake[j] and awake[i]
    anyone = False
    for i in range(len(awake)):
        if woke[i]:
            awake[i] = True
            rest_time[i] = 0.0
            anyone = True
    return anyone
