"""Conjugate-gradient polish of the pushing normal rows: stacks and mass ratios held exactly.

DESIGN. Gauss–Seidel sweeps converge at a rate set by the conditioning of the contact system
A = J M⁻¹ Jᵀ: each sweep passes a heavy body's weight through a light one only in proportion to
the mass ratio (1/1000 per sweep at 1:1000), and through a column of n boxes only at ~1/n² per
sweep. What the sweeps leave unsolved sinks the bodies; once inside the slop nothing lifts them
again, so a tall stack sags a slop per contact and a heavy box crushes a light one.

After the sweeps have decided which points push (the active set: accumulated impulse > 0, and
touching: within the slop, no speculative gap to close, which is the sweeps' business alone),
the polish solves the remaining velocity errors of exactly those points, A_S Δλ = -(J v + offset)_S,
by conjugate gradients, matrix-free: A d is J (M⁻¹ Jᵀ d), one scatter of d onto the bodies and
one gather back, about the cost of a sweep. CG's error falls with √cond instead of cond, and it
ends exactly after as many steps as the problem has independent modes (six for two boxes on a
ground, whatever their mass ratio; three per face contact of a column). It is preconditioned by
a symmetric block Gauss–Seidel sweep (the manifolds forward, then back, each solved by the
pseudo-inverse of its pushing points' block, the one the sweeps use), so the iterates live in
the manifolds' strong modes: the four coplanar points of a face share the load evenly, and modes
the sweeps treat as absent (below constraints.CUTOFF, such as two nearly coincident points)
cannot be asked for an unbounded impulse. Against block Jacobi (each block alone), the sweep
carries a load through a whole chain of manifolds in one step: the 20-row pyramid's error fell
1,000-fold in 20-25 steps instead of 40-fold in 40. Those pseudo-inverses make the
preconditioner only nearly symmetric: the steps use the flexible (Polak–Ribière) β, and where
the error grows again (DIVERGED-fold past its least, after about 20 steps in the pyramid) the
solve stops and keeps its best iterate. Points the correction would make pull are let go and
the rest solved again (an active-set method), and a correction that would add kinetic energy is
dropped. Warm starting carries the solved impulses into the next substep, where the residual is
only what changed: the standing pyramid takes about 20 steps a substep (with block Jacobi it hit
the 40-step cap in every substep).

The solve runs island by island (bodies joined through dynamic bodies' pushing rows), each
with its own error, step limit and active set: a settled island costs nothing while a stack
beside it still takes twenty steps, and each step costs the island's points, not the world's.

For one point, or one pair whose block the sweep already solved exactly, the residual is zero
on entry and the polish does nothing, so the documents' single-contact impulse and the
canonical bounces stay exactly as they were.
"""

import numpy as np
from numba import njit

from . import linalg
from .constraints import CUTOFF, POINTS
from .sleep import row_islands

# Velocity error (m/s) below which a point counts as solved: left in every substep for 1,000
# frames (41.7 s at 24 fps) it would move a body 0.04 mm, a tenth of the slop; 1e-9 cost the
# demo 6 % more simulation for drifts already far below that (benchmarks/heavy_on_light.py).
TOLERANCE = 1e-6
ATTEMPTS = 3  # active sets tried per polish
DIVERGED = 10.0  # an error this many times the least so far ends a solve (see _attempt)
_ROUNDING = 1e-12  # energy change counted as none, relative to its terms
_TINY = np.finfo(float).tiny


@njit(cache=True, inline="always")  # one caller: not compiled and emitted again on its own
def polish(rows, a, b, points, normal_rows, normal_response, normal_block, subset_inverse,
           subset_ready, normal_impulse, offset, velocity, angular_velocity, dynamic,
           limit) -> int:
    """Solve the velocity errors v_n + offset of the touching (offset 0), pushing points of rows
    `rows`, island by island (bodies joined through dynamic ones), by at most `limit`
    preconditioned conjugate-gradient steps each, adding the impulses to normal_impulse and
    their velocity change to the bodies; returns the steps taken in all.

    A point the solution would make pull is let go (impulse 0) and the island's others are
    solved again without it, up to ATTEMPTS times (an active-set method). A correction that
    would add kinetic energy is not applied: an inelastic contact impulse only ever takes energy
    out, and such a correction means the active set was wrong, which the next sweeps sort out.
    """
    order, starts = _islands(rows, a, b, points, normal_impulse, offset, dynamic)
    body = np.zeros((len(velocity), 6))  # scratch, zero outside an attempt
    total = 0
    for g in range(len(starts) - 1):
        island = order[starts[g]:starts[g + 1]]
        steps = 0
        for _ in range(ATTEMPTS):
            taken, let_go = _attempt(island, a, b, points, normal_rows, normal_response,
                                     normal_block, subset_inverse, subset_ready, normal_impulse,
                                     offset, velocity, angular_velocity, body, limit - steps)
            steps += taken
            if not let_go or steps >= limit:
                break
        total += steps
    return total


@njit(cache=True)
def _islands(rows, a, b, points, normal_impulse, offset, dynamic) -> tuple:
    """(order, starts): the rows of `rows` with a touching, pushing point, grouped by island
    (bodies joined through dynamic bodies' rows), each island's rows in their order in `rows`
    and starting at order[starts[g]]; starts ends with len(order)."""
    pushing = np.zeros(len(rows), dtype=np.bool_)
    for r in range(len(rows)):
        p = rows[r]
        for s in range(points[p]):
            pushing[r] |= normal_impulse[p, s] > 0.0 and offset[p, s] == 0.0
    label, count = row_islands(rows, a, b, dynamic, pushing)
    starts = np.zeros(count + 1, dtype=np.int64)
    for r in range(len(rows)):
        if pushing[r]:
            starts[label[r] + 1] += 1
    for g in range(count):
        starts[g + 1] += starts[g]
    order = np.empty(starts[count], dtype=np.int64)
    filled = starts[:count].copy()
    for r in range(len(rows)):
        if pushing[r]:
            order[filled[label[r]]] = rows[r]
            filled[label[r]] += 1
    return order, starts


@njit(cache=True)
def _attempt(rows, a, b, points, normal_rows, normal_response, normal_block, subset_inverse,
             subset_ready, normal_impulse, offset, velocity, angular_velocity, body, limit):
    """One conjugate-gradient solve over the touching points pushing now: (steps, whether a
    point was let go). body (N, 6), scratch, is zero on entry and left zero: only the rows'
    bodies are touched, so an island's solve costs its own size, not the world's."""
    count = 0
    for p in rows:
        for s in range(points[p]):
            count += normal_impulse[p, s] > 0.0 and offset[p, s] == 0.0
    if count == 0:
        return 0, False
    where = np.empty((count, 2), dtype=np.int64)  # (row, slot) of each pushing point
    held = np.zeros(POINTS, dtype=np.bool_)
    work = np.empty((POINTS, POINTS))
    vectors = np.empty((POINTS, POINTS))
    e = 0
    for p in rows:
        code = 0
        for s in range(points[p]):
            held[s] = normal_impulse[p, s] > 0.0 and offset[p, s] == 0.0
            if held[s]:
                where[e, 0], where[e, 1] = p, s
                code |= 1 << s
                e += 1
        for s in range(points[p], POINTS):
            held[s] = False
        if code and not subset_ready[p, code]:
            linalg.pseudo_inverse(normal_block[p], held, CUTOFF, subset_inverse[p, code], work,
                                  vectors)
            subset_ready[p, code] = True
    before = np.empty(count)  # v_n now
    residual = np.empty(count)
    for e in range(count):
        p, s = where[e, 0], where[e, 1]
        i, j = a[p], b[p]
        vn = 0.0
        for k in range(3):
            vn += (normal_rows[p, s, k] * velocity[i, k]
                   + normal_rows[p, s, 3 + k] * angular_velocity[i, k]
                   + normal_rows[p, s, 6 + k] * velocity[j, k]
                   + normal_rows[p, s, 9 + k] * angular_velocity[j, k])
        before[e] = vn
        residual[e] = -(vn + offset[p, s])
    solution = np.zeros(count)
    preconditioned = np.empty(count)
    product = np.empty(count)
    least = _precondition(where, normal_block, subset_inverse, residual, preconditioned)
    if least <= TOLERANCE:
        return 0, False
    best = solution.copy()  # the iterate with the least error
    previous = np.empty(count)
    starts = _runs(where)
    local = np.empty(POINTS)
    _symmetric_sweeps(where, starts, a, b, normal_rows, normal_response, subset_inverse,
                      residual, preconditioned, body, local)
    direction = preconditioned.copy()
    squared = 0.0
    for e in range(count):
        squared += residual[e] * preconditioned[e]
    steps = 0
    while steps < limit and squared > 0.0:
        steps += 1
        _respond(where, a, b, normal_response, direction, body)
        curvature = 0.0
        for e in range(count):
            product[e] = _row_times(where[e, 0], where[e, 1], a, b, normal_rows, body)
            curvature += direction[e] * product[e]
        if curvature <= _TINY:
            break
        alpha = squared / curvature
        for e in range(count):
            solution[e] += alpha * direction[e]
            residual[e] -= alpha * product[e]
        error = _precondition(where, normal_block, subset_inverse, residual, previous)
        if error < least:
            least = error
            for e in range(count):  # loops, not slice copies: each takes a counted view
                best[e] = solution[e]
        if error <= TOLERANCE or error > DIVERGED * least:
            break
        for e in range(count):
            previous[e] = preconditioned[e]
        _symmetric_sweeps(where, starts, a, b, normal_rows, normal_response, subset_inverse,
                          residual, preconditioned, body, local)
        renewed, overlap = 0.0, 0.0
        for e in range(count):
            renewed += residual[e] * preconditioned[e]
            overlap += residual[e] * previous[e]
        beta = max(renewed - overlap, 0.0) / squared
        squared = renewed
        for e in range(count):
            direction[e] = preconditioned[e] + beta * direction[e]
    for e in range(count):
        solution[e] = best[e]
    let_go = False
    for e in range(count):  # the change that keeps every impulse >= 0
        p, s = where[e, 0], where[e, 1]
        if normal_impulse[p, s] + solution[e] < 0.0:
            solution[e] = -normal_impulse[p, s]
            let_go = True
    _respond(where, a, b, normal_response, solution, body)
    # ΔKE = Δλ·(J v) + ½ Δλ·(J M⁻¹ Jᵀ Δλ), from the points alone
    gain, scale = 0.0, 0.0
    for e in range(count):
        change = _row_times(where[e, 0], where[e, 1], a, b, normal_rows, body)
        gain += solution[e] * (before[e] + 0.5 * change)
        scale += abs(solution[e] * before[e])
    if gain > _ROUNDING * scale:
        _clear(where, a, b, body)
        return steps, False
    for e in range(count):
        normal_impulse[where[e, 0], where[e, 1]] += solution[e]
    for e in range(count):  # each body's change once: added, then cleared
        for i in (a[where[e, 0]], b[where[e, 0]]):
            for k in range(3):
                velocity[i, k] += body[i, k]
                angular_velocity[i, k] += body[i, 3 + k]
            for k in range(6):
                body[i, k] = 0.0
    return steps, let_go


@njit(cache=True)
def _precondition(where, normal_block, subset_inverse, residual, out) -> float:
    """out = each manifold's block pseudo-inverse (over its pushing points) times its residual;
    returns the largest velocity error that leaves solvable, max |diag(A) out| (m/s)."""
    largest = 0.0
    e = 0
    while e < len(where):
        p = where[e, 0]
        end = e
        code = 0
        while end < len(where) and where[end, 0] == p:
            code |= 1 << where[end, 1]
            end += 1
        for u in range(e, end):
            s = where[u, 1]
            total = 0.0
            for v in range(e, end):
                total += subset_inverse[p, code, s, where[v, 1]] * residual[v]
            out[u] = total
            largest = max(largest, abs(total) * normal_block[p, s, s])
        e = end
    return largest


@njit(cache=True)
def _runs(where) -> np.ndarray:
    """(M + 1,) where each manifold's run of points in `where` starts, then len(where)."""
    count = 0
    for e in range(len(where)):
        count += e == 0 or where[e, 0] != where[e - 1, 0]
    starts = np.empty(count + 1, dtype=np.int64)
    g = 0
    for e in range(len(where)):
        if e == 0 or where[e, 0] != where[e - 1, 0]:
            starts[g] = e
            g += 1
    starts[count] = len(where)
    return starts


@njit(cache=True)
def _symmetric_sweeps(where, starts, a, b, normal_rows, normal_response, subset_inverse,
                      residual, out, body, local) -> None:
    """out = B r: block Gauss–Seidel on A_S out = r from zero, over the manifolds forward and
    back (each solved by its pushing points' block pseudo-inverse), body (N, 6) scratch. One
    way only, B would not be symmetric and CG would not be CG; both ways it is (up to the modes
    the pseudo-inverses cut), and a sweep in the order of the load's path hands it down a whole
    column or through a heavy body onto a light one at once, which block Jacobi (one level per
    step) does not."""
    _clear(where, a, b, body)
    for e in range(len(out)):
        out[e] = 0.0
    runs = len(starts) - 1
    for step in range(2 * runs - 1):  # the last run once: solved, its residual is already 0
        g = step if step < runs else 2 * runs - 2 - step
        e, end = starts[g], starts[g + 1]
        p = where[e, 0]
        code = 0
        for u in range(e, end):
            code |= 1 << where[u, 1]
            local[u - e] = residual[u] - _row_times(p, where[u, 1], a, b, normal_rows, body)
        i, j = a[p], b[p]
        for u in range(e, end):
            s = where[u, 1]
            change = 0.0
            for v in range(e, end):
                change += subset_inverse[p, code, s, where[v, 1]] * local[v - e]
            out[u] += change
            for k in range(6):
                body[i, k] += change * normal_response[p, s, k]
                body[j, k] += change * normal_response[p, s, 6 + k]


@njit(cache=True)
def _respond(where, a, b, normal_response, impulse, body) -> None:
    """body (N, 6) = M⁻¹ Jᵀ impulse: the velocity change of impulses at the listed points."""
    _clear(where, a, b, body)
    for e in range(len(where)):
        p, s = where[e, 0], where[e, 1]
        i, j = a[p], b[p]
        for k in range(6):
            body[i, k] += impulse[e] * normal_response[p, s, k]
            body[j, k] += impulse[e] * normal_response[p, s, 6 + k]


@njit(cache=True)
def _row_times(p, s, a, b, normal_rows, body) -> float:
    """J_ps · (velocity change of both bodies in `body`)."""
    i, j = a[p], b[p]
    total = 0.0
    for k in range(6):
        total += normal_rows[p, s, k] * body[i, k] + normal_rows[p, s, 6 + k] * body[j, k]
    return total


@njit(cache=True, inline="always")
def _clear(where, a, b, body) -> None:
    """body (N, 6) = 0 at the bodies of the points `where`, by index (a slice assignment takes
    a reference-counted view); the others are zero already."""
    for e in range(len(where)):
        for i in (a[where[e, 0]], b[where[e, 0]]):
            for k in range(6):
                body[i, k] = 0.0
