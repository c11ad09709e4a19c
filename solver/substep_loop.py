"""A frame's substeps as one compiled call, returning to Python only where Python is needed.

Each substep after the frame's first carries the contact rows with their bodies, collides the
stale ones again, picks the rows to solve (contact_rows) and runs the driver (substep). Called
one by one from Python, those were four dispatches and their glue a substep, a sixth of the
demo's time (issue #9); here they are a loop. It stops, handing the world the substep it
stopped at, where the world's Python part takes over: a body may leave the room its pairs
were found for (ESCAPED: the broad phase runs again), a free pair's time of impact or CCD
(IMPACT, CCD, as the driver says), or everything sleeps (ASLEEP). The world then does that part
and calls again from the same substep (`ready`: its contacts are found; `resume`: after the
time of impact) or the next. With kinematic paths (`single`) it runs one substep a call, so
the world moves those bodies along their paths between substeps.
"""

import numpy as np
from numba import njit

from .contact_rows import carried, collide_rows, rows_to_solve
from .substep import CCD, IMPACT, substep

DONE, ASLEEP, ESCAPED = np.int64(0), np.int64(3), np.int64(4)


@njit(cache=True)
def run_substeps(first, last, ready, resume, single, given, sleeping, tables, fall, kind,
                 rest_time, com_offset, half_extents, speculative, start_position,
                 start_orientation, start_reach, drift, anchor_a, anchor_b, base, relative,
                 orientation_a, orientation_b, margin, apart, stats, position, orientation,
                 velocity, angular_velocity, mass, inverse_mass, inertia, inverse_inertia, drag,
                 lift, linear_damping, angular_damping, rolling_resistance, shape, dynamic,
                 awake, radius, thickness, a, b, points, point, normal, tangents, separation,
                 slop, restitution, friction, isolated, thin, incoming, bias, rebound_bias,
                 normal_rows, normal_response, normal_block, normal_inverse, normal_vectors,
                 subset_inverse, subset_ready, friction_rows, friction_response, friction_mass,
                 normal_impulse, friction_impulse, feature, rotations, world_inverse, pseudo,
                 left, omega, zeta, gravity, h, sweeps, impulse):
    """Substeps first .. last - 1 of a frame (module notes), the arguments after `stats` those
    of the driver (substep) less its rows and resume; `given`: the rows to solve at `first`
    when ready or resume (else found here); fall: a substep's fall from rest; tables: the
    bodies' parts (None for boxes and spheres only, as collide_rows). stats (3,) gathers the
    push-out work (added to stats[0], substep by substep), the most points touching and the
    deepest penetration (maxima).

    Returns (stage, substep, rows, pushed, candidates): DONE and the substep to go on from
    (last, or first + 1 with `single`); ASLEEP; ESCAPED at a substep whose contacts the world
    must find; IMPACT or CCD at a substep, with its rows, whether the push-out moved anything
    (CCD) and the candidates of advance_to_impact (IMPACT), as the driver returns them."""
    none = np.empty(0, dtype=np.int64)
    rows = given
    whole = np.ones(len(position))
    for s in range(first, last):
        handed = s == first and (ready or resume)
        if not handed:
            escaped, _, stale = carried(
                True, position, orientation, velocity, angular_velocity, radius, speculative,
                awake, kind, start_position, start_orientation, start_reach, h, fall, a, b,
                shape, rotations, com_offset, half_extents, slop, drift, points, normal, point,
                anchor_a, anchor_b, base, separation, relative, orientation_a, orientation_b,
                margin, apart)
            if escaped:
                return ESCAPED, s, none, False, none
            if len(stale):
                collide_rows(stale, tables, shape, position, orientation, rotations, com_offset,
                             half_extents, velocity, angular_velocity, radius, speculative,
                             0.5 * fall, h, a, b, drift, slop, margin, points, feature, normal,
                             tangents, point, anchor_a, anchor_b, base, separation, relative,
                             orientation_a, orientation_b, normal_impulse, incoming,
                             friction_impulse, apart)
            rows = rows_to_solve(points, a, b, kind, awake, rest_time, sleeping,
                                 len(stale) > 0, isolated)
        resumed = s == first and resume
        share = left if resumed else whole  # numba: no conditional inside a long call
        if not resumed and not single and not awake.any():
            return ASLEEP, s, none, False, none
        stage, pushed, work, count, deepest, candidates = substep(
            rows, position, orientation, velocity, angular_velocity, mass, inverse_mass,
            inertia, inverse_inertia, drag, lift, linear_damping, angular_damping,
            rolling_resistance, shape, dynamic, awake, radius, thickness, a, b, points, point,
            normal, tangents, separation, slop, restitution, friction, isolated, thin, incoming,
            bias, rebound_bias, normal_rows, normal_response, normal_block, normal_inverse,
            normal_vectors, subset_inverse, subset_ready, friction_rows, friction_response,
            friction_mass, normal_impulse, friction_impulse, feature, rotations, world_inverse,
            pseudo, share, omega, zeta, gravity, h, sweeps, impulse,
            resumed)
        if stage in (IMPACT, CCD):
            return stage, s, rows, pushed, candidates
        tally(stats, rows, work, count, deepest)
        if single:
            return DONE, s + 1, none, False, none
    return DONE, last, none, False, none


@njit(cache=True)
def tally(stats, rows, work, touching, deepest) -> None:
    """stats (3,) (run_substeps) gathers a substep's push-out work, and with contact rows its
    points touching and deepest penetration."""
    stats[0] += work
    if len(rows):
        stats[1] = max(stats[1], touching)
        stats[2] = max(stats[2], deepest)
