"""Sequential impulses (Box2D-lite style) over the colour batches of the manifolds.

Normal impulses are accumulated and clamped (the total pushes, never pulls); friction is
clamped to the Coulomb disc |λ_t| <= μ λ_n per point, so it can only brake (the Swedish notes).
The up to four normal rows of a manifold are solved together, exactly: from the (pseudo-)inverse
of their effective-mass block, so a box lying on a face is held evenly and a flat box bounces
without spurious spin, and where that would pull at a point, by solving the manifold's linear
complementarity problem (principal pivoting over the subsets of its points).

Each substep solves in two passes, as Box2D v3 does. First the pair is pressed: a gap s beyond
the slop may close within the substep (speculative contact, v_n >= -s/h), a touching or
bouncing point may not sink (v_n >= 0), with friction. Then the normal blocks alone are driven
to the rebound targets of the points that bounce (approaching faster than
RESTITUTION_THRESHOLD, measured before the solve), so a bounce uses the velocities and geometry
of one instant and an elastic pair keeps its energy exactly; friction, already spent, cannot
turn the bounce into a gain (set_targets says which points bounce when). A point caught while
apart bounces a substep after its catch, by no more than Poisson's impulse, e times the
compression's (bounce_ceilings). Penetration is
removed by a separate solve on pseudo-velocities (split impulse) that move the bodies and are
then forgotten, so position correction adds no kinetic energy and no linear momentum (it does
move angular momentum about a fixed point, and what it lifts against gravity is counted in the
trajectory's push_out_work). It also lifts in advance what the bodies' turns will sink a
touching point beyond the slop within the substep (_push_targets). In an island that no static
body holds, whose angular momentum nothing else moves, the pressing pass parts such a point
instead, with real impulses (_curving_targets).
The sweeps alone converge slowly where loads pass through many bodies or from a heavy body
through a light one (a column of 20, 1,000 kg on 1 kg); after them the pushing points' errors
are solved by conjugate gradients (polish.py), so stacks and mass ratios hold exactly while
single contacts, already solved by their block, are left as they were.
For one point touching at zero depth, one sweep of each pass gives exactly
j = -(1 + e) m_eff v_n, the Croatian notes' impulse, with
m_eff = 1 / (1/m_a + 1/m_b + (r_a×n)·I_a⁻¹(r_a×n) + (r_b×n)·I_b⁻¹(r_b×n)).
"""

import numpy as np
from numba import njit

from . import linalg
from .constraints import CUTOFF, POINTS, apply_impulses, gather, scatter
from .manifold import box_feature, sphere_on_face
from .polish import TOLERANCE
from .shapes import BOX, SPHERE
from .sleep import _root

# Approach speed below which contacts do not bounce, so resting bodies do not buzz under
# gravity (which adds g h ≈ 0.04 m/s per 240 Hz substep).
RESTITUTION_THRESHOLD = 0.5  # m/s
BAUMGARTE = 0.2  # fraction of the penetration beyond the slop removed per substep
MAX_PUSH = 3.0  # m/s, the fastest push-out
POLISH_STEPS = 4  # conjugate-gradient steps per Gauss–Seidel sweep, at most
CAUGHT_TOLERANCE = 0.25  # of the substep's approach distance
# A point against a triangle not caught while apart and deeper than this many slops plus a
# substep of its approach was overlapped before the substep began: it does not bounce.
OVERLAPPED_SLOPS = 2.0
_TINY = np.finfo(float).tiny
# _friction's test for a point inside the disc: |λ_t|² <= limit² (1 - 1e-9) puts the rounded
# |λ_t| at or below limit whatever the rounding of the squares, for limits whose square is a
# normal float (above 1e-150).
_INSIDE = 1.0 - 1e-9
_NORMAL_LIMIT = 1e-150
# Pulling tolerated in a contact set (rounding), relative to the largest impulse; and sinking,
# relative to the largest velocity error: the pseudo-inverse drops modes below CUTOFF of the
# strongest, which leaves errors of about that size that no choice of points can remove.
_COMPLEMENTARITY_TOLERANCE = 1e-9
_SINKING_TOLERANCE = 1e-3
_GAUSS_SEIDEL_PASSES = 8 * POINTS  # on a manifold's block when its pivots cycle
_WARM_ROUNDING = 1e-12  # a warm start's energy change counted as none, relative to its terms
_PARALLEL = 1e-6  # |e_a × e_b| below which two crossing edges' normal is left unturned
_ARC_TURN = 0.05  # rad a substep: above it _sinking's second-order expansion is not trusted
_Q, _IMPULSE = 0, 1  # _complementary's scratch rows
_PUSHING, _SOLVED, _LIVE = 0, 1, 2  # and its flags' rows


@njit(cache=True, inline="always")  # one caller: not compiled and emitted again on its own
def _set_targets(rows, a, b, points, normal, normal_rows, separation, slop, restitution, isolated,
                 thin, incoming, bias, rebound_bias, normal_impulse, ceiling, velocity,
                 angular_velocity, gravity, dynamic, h) -> bool:
    """Measure the approach and fill the velocity targets (as biases) of the normal rows.

    What one substep of gravity adds to v_n at a point is gs = h (n·g) (negative when it pulls
    the pair together). Semi-implicit Euler moves a falling body along an exact parabola; the
    speed u that the bounce reverses is that parabola's at the touching point, from the
    velocity and gap of the substep in which the point was caught, and the rebound velocity
    e u + gs / 2 starts the next parabola with speed e u there, so bounce heights scale by
    exactly e². Without gravity u is simply the approach speed. A point bounces only if u is
    above RESTITUTION_THRESHOLD and above one substep of gravity (|gs|, what a resting point
    gathers), and its rebound target e u + gs / 2 points out of the surface: at coarse steps or
    strong gravity (fps 1, g 1000) it can point in, and asking for it sinks a resting body,
    which the push-out then lifts again and again. In the bounce pass a touching point that
    was separating before the solve, at speed s, may close again at up to e s (Moreau's impact
    law, which with one e for all contacts never creates energy). Held at v_n >= 0 instead, it
    made a light ball hitting the floor fast, under a heavy one touching it but falling
    slower, throw the heavy one up at its own rebound speed (+186 % energy), and a cluster of
    boxes started deep inside each other gain 5-10 % in its first frame. A triangle is thin,
    though: a point against one (a `thin` row) deeper than OVERLAPPED_SLOPS slops plus a
    substep of its approach, not caught while apart, may be through it, with the other side's
    normal, and does not bounce; the pressing pass stops it and the push-out lifts it (with
    Moreau's law and without this rule or the two below, a Suzanne hull fell 1.9 m through the
    terrain). The arrival speed kept for a point caught while apart is the approach that the
    pair's catch took away, so it is given back (times e, and by no more than Poisson's
    impulse: bounce_ceilings, for which `ceiling` keeps the catch's impulse) once, by one
    bounce of the pair:
    when any point of a pair bounces, the block solve reverses the whole pair's approach, and
    the other points forget theirs (a box tumbling onto one corner bounced its second corner a
    substep later at the speed the first bounce had already reversed, +1 % energy). A caught
    point keeps its arrival until it bounces, even where turning brought it back towards the
    surface at less than that speed: Poisson's cap bounds what the bounce gives back (cutting
    the arrival to that present speed instead, which a heavy box spinning at up to 10 rad/s
    needed before the cap, threw away what the catch took: a plate at 100 rad/s caught by a
    box pressed against a third one lost 76 % of its energy, benchmarks/third_box.py's seed
    102, now 13 %). Random clusters of 3-11 boxes and balls at e 0.8-1: 0 of 400 gained energy
    (9 did, by up to 32 %). `bias` holds
    the targets of the pressing pass, `rebound_bias` those of the bounce. Returns whether any
    point bounces.
    """
    v12 = np.empty(12)
    bouncing = False
    for p in rows:
        gather(velocity, angular_velocity, a[p], b[p], v12)
        pull = (1.0 if dynamic[b[p]] else 0.0) - (1.0 if dynamic[a[p]] else 0.0)
        e = restitution[p]
        bounced = False
        for s in range(POINTS):
            if s >= points[p]:
                bias[p, s], rebound_bias[p, s], incoming[p, s] = 0.0, 0.0, 0.0
                ceiling[p, s] = np.inf
                continue
            speed = 0.0
            for k in range(12):
                speed -= normal_rows[p, s, k] * v12[k]
            step = h * (normal[p, s, 0] * gravity[0] + normal[p, s, 1] * gravity[1]
                        + normal[p, s, 2] * gravity[2]) * pull
            gap = separation[p, s]
            if speed > 0.0:
                arriving = np.sqrt((speed + 0.5 * step) ** 2
                                   + max(-2.0 * step * max(gap, 0.0) / h, 0.0))
            else:
                arriving = speed
            caught = incoming[p, s] > 0.0
            arrival = incoming[p, s] if caught else arriving
            # A point of a pair meeting on its own with no gravity between them (two bodies in
            # flight, or zero gravity) bounces in the substep its gap closes, with the
            # velocities and geometry of that one instant, so an elastic pair keeps its energy
            # exactly. Elsewhere a point first closes its gap and bounces from the surface in
            # the next substep, up to what turning moved it: on a floor that keeps the parabola
            # exact, and in a cluster the sweeps then push from touching bodies instead of
            # asking for rebounds the bodies behind cannot give yet.
            free = isolated[p] and step == 0.0
            if caught:
                timely = gap <= slop[p] + CAUGHT_TOLERANCE * arrival * h
            else:
                timely = ((gap <= slop[p] or (free and speed * h >= gap))
                          and not (thin[p] and gap < -(OVERLAPPED_SLOPS * slop[p]
                                                       + arrival * h)))
            # faster than a substep of gravity brings a resting point, and out of the surface
            bounce = (timely and arrival > max(RESTITUTION_THRESHOLD, -step)
                      and (e > 0.0 or free) and e * arrival + 0.5 * step >= 0.0)
            bias[p, s] = gap / h if gap > slop[p] and not bounce else 0.0
            if bounce:
                rebound_bias[p, s] = -(e * arrival + 0.5 * step)
            elif speed < 0.0 and gap <= slop[p]:  # touching, separating: Moreau's law
                rebound_bias[p, s] = max(bias[p, s], -e * speed)
            else:
                rebound_bias[p, s] = bias[p, s]
            # Poisson's cap on a caught point's bounce: the catch's impulse, here before the
            # warm start (see bounce_ceilings)
            ceiling[p, s] = normal_impulse[p, s] if bounce and caught else np.inf
            incoming[p, s] = 0.0 if bounce else arrival
            bounced |= bounce
        if bounced:  # the pair's bounce reverses its approach as a whole, through the block
            for s in range(points[p]):
                incoming[p, s] = 0.0
        bouncing |= bounced
    return bouncing


@njit(cache=True, inline="always")  # one caller: not compiled and emitted again on its own
def warm_start(rows, a, b, points, normal_rows, normal_response, friction_rows, friction_response,
               normal_impulse, friction_impulse, bias, velocity, angular_velocity) -> float:
    """Apply the previous substep's impulses Λ (warm starting), scaled by α in [0, 1] where all
    of them would add energy; returns α.

    The pressing pass minimises f(λ) = ½ λ·Aλ + λ·(J v + bias) (A = J M⁻¹ Jᵀ) over λ >= 0, whose
    KKT conditions are its contact law, and f(λ) = ΔKE + λ_n·bias with bias >= 0 (but at a
    point parted by _curving_targets, whose gain its cap bounds). The sweeps
    and the polish only lower f, so from λ = 0 the pass can only take energy out; from Λ it
    can end at ΔKE up to f(Λ). Where the previous impulses fit the present velocities (a
    resting stack: f(Λ) ≈ -½ Λ·AΛ) that is negative and Λ is kept whole. Where they do not and
    the sweeps cannot undo them in time (a 393 kg ball deep in a 0.6 kg box, its load passed
    on at 1/600 per sweep, at zero gravity: +7.8 % energy in one frame at 10 iterations), f(Λ)
    is positive; Λ is then scaled to the minimum of f(αΛ) = α L + ½ α² Q, α = -L / Q, with
    L = Λ·(J v + bias) before and Q = Λ·J Δv from the velocity change Δv it made."""
    linear = _impulse_power(rows, a, b, points, normal_rows, friction_rows, normal_impulse,
                            friction_impulse, bias, velocity, angular_velocity)
    start, start_spin = velocity.copy(), angular_velocity.copy()
    apply_impulses(rows, a, b, points, normal_response, friction_response, normal_impulse,
                   friction_impulse, velocity, angular_velocity)
    quadratic = _impulse_power(rows, a, b, points, normal_rows, friction_rows, normal_impulse,
                               friction_impulse, bias, velocity, angular_velocity) - linear
    if linear + 0.5 * quadratic <= _WARM_ROUNDING * (abs(linear) + abs(quadratic)):
        return 1.0
    scale = min(max(-linear / quadratic, 0.0), 1.0) if quadratic > 0.0 else 0.0
    for i in range(len(velocity)):
        for k in range(3):
            velocity[i, k] = start[i, k] + scale * (velocity[i, k] - start[i, k])
            angular_velocity[i, k] = (start_spin[i, k]
                                      + scale * (angular_velocity[i, k] - start_spin[i, k]))
    for p in rows:
        for s in range(points[p]):
            normal_impulse[p, s] *= scale
            friction_impulse[p, s, 0] *= scale
            friction_impulse[p, s, 1] *= scale
    return scale


@njit(cache=True)
def _impulse_power(rows, a, b, points, normal_rows, friction_rows, normal_impulse,
                   friction_impulse, bias, velocity, angular_velocity) -> float:
    """Λ·(J v + bias): the rows' impulses times their velocities (bias on the normal rows)."""
    v12 = np.empty(12)
    total = 0.0
    for p in rows:
        gather(velocity, angular_velocity, a[p], b[p], v12)
        for s in range(points[p]):
            normal, slide0, slide1 = bias[p, s], 0.0, 0.0
            for k in range(12):
                normal += normal_rows[p, s, k] * v12[k]
                slide0 += friction_rows[p, s, 0, k] * v12[k]
                slide1 += friction_rows[p, s, 1, k] * v12[k]
            total += (normal_impulse[p, s] * normal + friction_impulse[p, s, 0] * slide0
                      + friction_impulse[p, s, 1] * slide1)
    return total


@njit(cache=True, inline="always")  # one caller: not compiled and emitted again on its own
def remember_incoming(rows, points, separation, slop, normal_impulse, incoming) -> None:
    """Keep the arrival speed only of points caught while apart, for the substep they touch."""
    for p in rows:
        for s in range(points[p]):
            if not (separation[p, s] > slop[p] and normal_impulse[p, s] > 0.0):
                incoming[p, s] = 0.0


@njit(cache=True)
def bounce_ceilings(rows, points, restitution, normal_impulse, ceiling) -> None:
    """Turn the catch impulses λ_c that _set_targets kept in `ceiling` for the bouncing points
    caught while apart into the most the bounce pass may accumulate there, λ + e (λ_c + λ), λ
    the pressing pass's impulse: Poisson's law, the restitution impulse at most e times the
    compression's, which was split between the substep of the catch and this one.

    Newton's target e u alone gives back the arrival speed u that the catch took away, as if
    the point's effective mass were the same at both instants; a corner of a spinning plate
    turns between them (its arm, so its effective mass, changes), and so does a chain the
    catch has set moving: e = 1 hits of a plate at 30-100 rad/s on a box touching a third one
    gained up to 32 % in the bounce. For one point of constant effective mass the two laws
    agree; where the effective mass grew between catch and bounce, Newton's target adds
    energy and Poisson's impulse does not, and where it shrank, the reverse, so the bounce
    takes the smaller of the two. A bounce without a catch (the point reached the surface
    within the slop) is Newton's alone."""
    for p in rows:
        e = restitution[p]
        for s in range(points[p]):
            if ceiling[p, s] < np.inf:
                ceiling[p, s] = normal_impulse[p, s] + e * (ceiling[p, s] + normal_impulse[p, s])


@njit(cache=True)
def _unheld(rows, a, b, points, dynamic) -> np.ndarray:
    """(N,) True for the dynamic bodies whose island (dynamic bodies joined by the rows' points)
    touches no static or kinematic body."""
    label = np.arange(len(dynamic))
    for p in rows:
        if points[p] and dynamic[a[p]] and dynamic[b[p]]:
            root_a, root_b = _root(label, a[p]), _root(label, b[p])
            label[max(root_a, root_b)] = min(root_a, root_b)
    free = dynamic.copy()
    for p in rows:
        if points[p] and not (dynamic[a[p]] and dynamic[b[p]]):
            free[_root(label, a[p] if dynamic[a[p]] else b[p])] = False
    for i in range(len(dynamic)):
        free[i] = dynamic[i] and free[_root(label, i)]
    return free


@njit(cache=True, inline="always")  # one caller: not compiled and emitted again on its own
def _curving_targets(rows, a, b, points, point, normal, normal_rows, position, velocity,
                     angular_velocity, shape, thickness, feature, rotations, separation, slop,
                     dynamic, h, bias, rebound_bias) -> None:
    """Have both passes part a touching point that the substep's turns will sink (see
    _push_targets) at the speed w that carries it out by that much in h, at most its
    approach u before the solve.

    A corner of a box turning against another box's face (two boxes knocked into a spin
    together) curves into it: held at v_n = 0, the point ends each substep ½ h² g'' deeper,
    approaches again at h g'' in the next, and the push-out held it at the slop. Its
    pseudo-velocities move the bodies without momentum: their turn turns each body's spin
    angular momentum with it (nine tenths of the drift in benchmarks/third_box.py's seed 114),
    their shift across the pair's relative velocity the orbital part, up to 5e-3 of the
    scene's angular momentum in one second. Parted at w = ½ h g'', the point ends the substep
    where it began and approaches again at w, so a lasting contact neither sinks nor loses
    energy; with w <= u it cannot gain any (½ m (w² - u²) at a lone point; coupled points of a
    manifold gained at most 1.6e-9 of a scene's energy), and the impulses keep the momentum
    exactly: 11 of 13 such hits that drifted by 5e-5 to 5e-3 keep their angular
    momentum to 1e-13. Only in islands no static or kinematic body holds (_unheld), where
    angular momentum is an invariant of the motion; where one holds the island it is not kept
    anyway and the push-out's lift stays: parting with real impulses at the edge of the
    second-order expansion (the demo's dominoes leaning on each other at 5 substeps, turning
    near _ARC_TURN) slowed the toppling row, whose last domino no longer fell within 60 frames.
    The target goes to the pressing pass (bias < 0, so the polish leaves the point to the
    sweeps), where friction sees the parting impulse."""
    v12 = np.empty(12)
    free = _unheld(rows, a, b, points, dynamic)
    for p in rows:
        if not (free[a[p]] and free[b[p]]):
            continue
        gather(velocity, angular_velocity, a[p], b[p], v12)
        for s in range(points[p]):
            if separation[p, s] > slop[p]:
                continue
            speed = 0.0
            for k in range(12):
                speed -= normal_rows[p, s, k] * v12[k]
            if speed <= 0.0:
                continue
            sinking = _sinking(p, s, a[p], b[p], point, normal, position, velocity,
                               angular_velocity, shape, feature, rotations, separation,
                               thickness, h)
            parting = min(sinking / h, speed)
            if parting > 0.0 and -parting < rebound_bias[p, s]:
                bias[p, s] = rebound_bias[p, s] = -parting


@njit(cache=True, inline="always")  # one caller: not compiled and emitted again on its own
def _push_targets(rows, a, b, points, point, normal, normal_rows, position, velocity,
                  angular_velocity, shape, thickness, feature, rotations, separation, slop, h,
                  target) -> bool:
    """Fill the push-out's targets (velocity offsets) of points deeper than the slop, or that
    the substep's turns will take beyond it; whether there are any.

    The sweeps hold a touching point at v_n >= 0, but a point of turning bodies still sinks:
    the gap g = n·(p_b - p_a) of the two material points at the contact, n turning with the
    body whose face it is (or with both crossing edges), has g'' = n·(a_b - a_a) + 2 ṅ·(u_b -
    u_a) at constant velocities (u the points' velocities, a their centripetal accelerations),
    so it ends the substep ½ h² g'' off its straight line. The demo's last two dominoes,
    turning together at 5-8 rad/s, sank 0.15 mm a substep that way, which the push-out's
    BAUMGARTE share of the excess only caught up with at 1.2 mm (slop 0.5 mm). Where that
    sinking, less what the point's v_n carries it out, would take it beyond the slop, it is
    lifted in advance (in pseudo-velocities, so it adds no energy), and the point ends the
    substep at the slop, or as much closer to it as BAUMGARTE takes a deeper one."""
    deep = False
    v12 = np.empty(12)
    for p in rows:
        gather(velocity, angular_velocity, a[p], b[p], v12)
        for s in range(points[p]):
            excess = separation[p, s] + slop[p]
            sinking = _sinking(p, s, a[p], b[p], point, normal, position, velocity,
                               angular_velocity, shape, feature, rotations, separation,
                               thickness, h)
            if sinking > 0.0:
                leaving = 0.0
                for k in range(12):
                    leaving += normal_rows[p, s, k] * v12[k]
                sinking -= h * max(leaving, 0.0) + max(excess, 0.0)
            lift = BAUMGARTE * max(-excess, 0.0) + max(sinking, 0.0)
            if lift > 0.0:
                target[p, s] = max(-lift / h, -MAX_PUSH)
                deep = True
    return deep


@njit(cache=True)
def _sinking(p, s, i, j, point, normal, position, velocity, angular_velocity, shape, feature,
             rotations, separation, thickness, h) -> float:
    """How much deeper than along its straight line point s of row p (bodies i, j) gets in
    h: -½ h² g'' (see _push_targets), 0 where it curves away; for two boxes, whose feature ids
    say whose face the normal is (0 for two nearly parallel crossing edges), and for a sphere
    on a box's face. A sphere's spin only turns its surface in place: its material point is
    its centre, r + s/2 off the contact point along n (r = its thickness), so g'' gains
    n̈·(p_b - p_a) = -|ṅ|² n·(p_b - p_a) (the demo's ball pressed 0.66 mm into the turning
    first domino at 10 substeps, 3.4 mm at 5). Only while the boxes turn less than _ARC_TURN
    in h: faster (a plate spun at 30 rad/s and more, whose hits the time of impact handles),
    the expansion is off by its third-order term and lifted speculative points that were never
    to touch (80 such hits: 10 lost 2e-4 to 3e-2 of their angular momentum to those lifts).
    Vectors are tuples: views of scratch rows cost two atomic reference counts each, which
    were a third of pile 64's substep driver."""
    if shape[i] == BOX and shape[j] == BOX:
        owner, ei, ej = box_feature(feature[p, s])
    elif (((shape[i] == BOX and shape[j] == SPHERE) or (shape[i] == SPHERE and shape[j] == BOX))
          and sphere_on_face(feature[p, s])):
        owner, ei, ej = (0 if shape[i] == BOX else 1), -1, -1
    else:
        return 0.0
    spin_a, spin_b = linalg.row(angular_velocity, i), linalg.row(angular_velocity, j)
    if (spin_a[0] == 0.0 and spin_a[1] == 0.0 and spin_a[2] == 0.0 and spin_b[0] == 0.0
            and spin_b[1] == 0.0 and spin_b[2] == 0.0):
        return 0.0  # neither turns, so nothing curves (a settled pile's points: its bodies rest)
    if ((shape[i] == BOX and linalg.norm(spin_a) * h > _ARC_TURN)
            or (shape[j] == BOX and linalg.norm(spin_b) * h > _ARC_TURN)):
        return 0.0
    n = (normal[p, s, 0], normal[p, s, 1], normal[p, s, 2])
    relative, accelerating = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    apart = 0.0  # n·(p_b - p_a)
    for body, sign, spin in ((i, -1.0, spin_a), (j, 1.0, spin_b)):
        # a sphere's centre: from the point midway between the surfaces, out of the box's face
        out = 0.0 if shape[body] == BOX else sign * (thickness[body] + 0.5 * separation[p, s])
        arm = (point[p, s, 0] + out * n[0] - position[body, 0],
               point[p, s, 1] + out * n[1] - position[body, 1],
               point[p, s, 2] + out * n[2] - position[body, 2])
        for k in range(3):
            apart += sign * out * n[k] * n[k]
        moving = linalg.crossed(spin, arm)
        curving = linalg.crossed(spin, moving)
        relative = (relative[0] + sign * (velocity[body, 0] + moving[0]),
                    relative[1] + sign * (velocity[body, 1] + moving[1]),
                    relative[2] + sign * (velocity[body, 2] + moving[2]))
        accelerating = (accelerating[0] + sign * curving[0], accelerating[1] + sign * curving[1],
                        accelerating[2] + sign * curving[2])
    if owner >= 0:  # turning = ṅ
        turning = linalg.crossed(spin_b if owner else spin_a, n)
    else:
        ea = (rotations[i, 0, ei], rotations[i, 1, ei], rotations[i, 2, ei])
        eb = (rotations[j, 0, ej], rotations[j, 1, ej], rotations[j, 2, ej])
        across = linalg.crossed(ea, eb)  # across both edges
        length = linalg.norm(across)
        if length < _PARALLEL:
            return 0.0
        sign = 1.0 if across[0] * n[0] + across[1] * n[1] + across[2] * n[2] >= 0.0 else -1.0
        one = linalg.crossed(linalg.crossed(spin_a, ea), eb)
        other = linalg.crossed(ea, linalg.crossed(spin_b, eb))
        summed = (one[0] + other[0], one[1] + other[1], one[2] + other[2])
        along = 0.0
        for k in range(3):
            along += summed[k] * n[k]
        turning = (sign * (summed[0] - along * n[0]) / length,
                   sign * (summed[1] - along * n[1]) / length,
                   sign * (summed[2] - along * n[2]) / length)
    second = 0.0
    for k in range(3):
        second += (n[k] * accelerating[k] + 2.0 * turning[k] * relative[k]
                   - turning[k] * turning[k] * apart)
    return max(-0.5 * h * h * second, 0.0)


@njit(cache=True)
def _sweep(rows, a, b, points, normal_rows, normal_response, normal_block, normal_inverse,
           subset_inverse, subset_ready, friction_rows, friction_response, friction_mass,
           friction, normal_impulse, friction_impulse, offset, ceiling, velocity,
           angular_velocity, sweeps, with_friction, island) -> int:
    """Up to `sweeps` passes over the manifolds (returns the most any island ran): drive
    v_n + offset to zero with impulses >= 0 (the block solve, or its complementarity problem
    where that would pull), each at most its `ceiling` (P, 4) if that is not empty (the
    bounce's, bounce_ceilings), then, if asked, friction point by point within the Coulomb
    disc |λ_t| <= μ λ_n.

    A manifold with no velocity, impulse or target (_still, _resting) is passed over: its solve
    would change nothing (most of the push-out's, far from the deep points). A body at rest
    (the static ground of most pairs, most bodies in the push-out) adds nothing to v_n, so its
    six terms are skipped (_still). A manifold whose points all push nothing and close no gap
    (apart: a speculative one, most of a falling scene's) keeps impulses 0, which solve its
    complementarity problem (_complementary settles there at once), so its block solve is
    skipped; a point that pushes nothing and holds no friction would have it clamped back to
    zero at limit 0, so its Coulomb step is skipped: the velocities change by ±0 either way.

    The passes end island by island (`island`, each row's, sleep.row_islands: no impulse in
    one island moves another's bodies), once one changes none of the island's points'
    velocities along their rows by more than the polish's TOLERANCE: Gauss–Seidel has then
    converged there as far as it matters (the polish solves what is left of the normal rows).
    A resting, warm-started pile needs one pass, not `sweeps` (the pile of 1,000 with
    sleeping off: 9.1 -> 5.3 s, solver alone), and a settled island is not swept again while
    another still settles (the demo with sleeping off: 31 % fewer rows solved)."""
    v12 = np.empty(12)
    error = np.empty(POINTS)
    new = np.empty(POINTS)
    scratch = np.empty((2, POINTS))
    flags = np.empty((3, POINTS), dtype=np.bool_)
    conflicting = _conflicting(rows, points, normal_block, normal_inverse, offset)
    islands = 0
    for r in range(len(rows)):
        islands = max(islands, island[r] + 1)
    unsettled = np.ones(islands, dtype=np.bool_)
    largest = np.zeros(islands)  # the largest velocity change along a row this sweep
    done = 0
    while done < sweeps:
        done += 1
        largest[:] = 0.0
        for q in range(len(rows)):
            if not unsettled[island[q]]:
                continue
            p = rows[q]
            moved = 0.0
            gather(velocity, angular_velocity, a[p], b[p], v12)
            count = points[p]
            still_a, still_b = _still(v12, 0), _still(v12, 6)
            if still_a and still_b and _resting(p, count, normal_impulse, friction_impulse,
                                                offset, with_friction):
                continue
            for s in range(count):
                vn = 0.0
                if not still_a:
                    for k in range(6):
                        vn += normal_rows[p, s, k] * v12[k]
                if not still_b:
                    for k in range(6, 12):
                        vn += normal_rows[p, s, k] * v12[k]
                error[s] = vn + offset[p, s]
            apart = True  # no point pushes or closes: λ = 0 is the solution
            for s in range(count):  # a loop of its own, left at once by a pushing point
                if normal_impulse[p, s] != 0.0 or not error[s] >= 0.0:
                    apart = False
                    break
            if not apart:
                pulling = False
                for s in range(count):
                    total = normal_impulse[p, s]
                    for t in range(count):
                        total -= normal_inverse[p, s, t] * error[t]
                    new[s] = total
                    pulling |= total < 0.0
                if pulling or conflicting[p]:
                    _complementary(p, count, normal_impulse, error, normal_block,
                                   subset_inverse, subset_ready, new, scratch, flags)
                if len(ceiling):
                    for s in range(count):
                        new[s] = min(new[s], ceiling[p, s])
                for s in range(count):
                    change = new[s] - normal_impulse[p, s]
                    moved = max(moved, abs(change) * normal_block[p, s, s])
                    for k in range(12):
                        v12[k] += change * normal_response[p, s, k]
                    normal_impulse[p, s] = new[s]
            if with_friction:
                for s in range(count):
                    limit = friction[p] * normal_impulse[p, s]
                    if (limit == 0.0 and friction_impulse[p, s, 0] == 0.0
                            and friction_impulse[p, s, 1] == 0.0):
                        continue  # not pushing, no friction held: it would stay zero
                    old0, old1 = friction_impulse[p, s, 0], friction_impulse[p, s, 1]
                    _friction(p, s, v12, limit, friction_rows, friction_response,
                              friction_mass, friction_impulse, _still(v12, 0), _still(v12, 6))
                    for r, old in ((0, old0), (1, old1)):
                        if friction_mass[p, s, r] > 0.0:
                            moved = max(moved, abs(friction_impulse[p, s, r] - old)
                                        / friction_mass[p, s, r])
            scatter(v12, velocity, angular_velocity, a[p], b[p])
            largest[island[q]] = max(largest[island[q]], moved)
        settled = True
        for g in range(islands):
            unsettled[g] = largest[g] > TOLERANCE
            settled &= not unsettled[g]
        if settled:
            break
    return done


@njit(cache=True)
def _conflicting(rows, points, normal_block, normal_inverse, offset) -> np.ndarray:
    """(P,) True for the rows whose targets conflict in a mode their block solve drops.

    J v lies in the range of the block A = J M⁻¹ Jᵀ, so the block solve λ - A⁺ (J v + offset)
    meets every target unless the offsets have a part in the modes the pseudo-inverse drops
    (below CUTOFF): then it meets none. A domino's top edge touching the next one's face and
    its other top edge 2 mm off it, 6 mm away on the same strip of face, make two nearly
    coincident rows whose targets differ (0 and a gap closing at 0.42 m/s); the block solve
    gave both -0.21 m/s, and the touching edge sank 0.9 mm in a substep. Such rows go to the
    complementarity problem, which lets go of a point that would part while it pushes."""
    conflicting = np.zeros(len(points), dtype=np.bool_)
    solved = np.empty(POINTS)
    for p in rows:
        count = points[p]
        largest, missed = 0.0, 0.0
        for s in range(count):
            solved[s] = 0.0
            for t in range(count):
                solved[s] += normal_inverse[p, s, t] * offset[p, t]
            largest = max(largest, abs(offset[p, s]))
        for s in range(count):
            reached = offset[p, s]
            for t in range(count):
                reached -= normal_block[p, s, t] * solved[t]
            missed = max(missed, abs(reached))
        conflicting[p] = missed > _SINKING_TOLERANCE * (largest + _TINY)
    return conflicting


@njit(cache=True, inline="always")  # per manifold per sweep, as _friction
def _still(v12, first) -> bool:
    """Whether one body's six velocities v12[first:first + 6] are all zero. Its terms of a
    row's v_n are then ±0 products, which leave a sum begun at +0 exactly as it was (+0 + -0
    is +0), so they are skipped with the same bits. Both bodies still, with _resting: _sweep
    passes the pair over, as its sweep would leave everything so, exactly: the impulses stay
    +0, and so does friction (at limit 0 its clamp scales 0 by 0)."""
    k = first
    while k < first + 6 and v12[k] == 0.0:
        k += 1
    return k == first + 6


@njit(cache=True)  # not inline="always": inlined, its arrays were reference-counted per pair
def _resting(p, count, normal_impulse, friction_impulse, offset, with_friction) -> bool:
    """Whether manifold p's impulses (friction's too, if solved) and targets are all zero
    (asked only of pairs at rest: _still). One check with _still, inlined, took and dropped
    three atomic reference counts per pair per sweep, most of a push-out sweep's time."""
    for s in range(count):
        if normal_impulse[p, s] != 0.0 or offset[p, s] != 0.0:
            return False
        if with_friction and (friction_impulse[p, s, 0] != 0.0
                              or friction_impulse[p, s, 1] != 0.0):
            return False
    return True


@njit(cache=True, inline="always")  # per point per sweep: a call passing four arrays cost 10 %
def _friction(p, s, v12, limit, rows, response, mass, impulse, still_a, still_b) -> None:
    """Stop the sliding at point s within the Coulomb disc |λ_t| <= limit = μ λ_n; still_a,
    still_b: whether a body's velocities are all zero (_still: its terms are skipped).

    Inside the disc, clear of its edge (a sticking point, most of a resting pile's), the
    clamp's scale is limit / limit = 1 exactly, so its square root and division are skipped."""
    old0, old1 = impulse[p, s, 0], impulse[p, s, 1]
    slide0, slide1 = 0.0, 0.0
    if not still_a:
        for k in range(6):
            slide0 += rows[p, s, 0, k] * v12[k]
            slide1 += rows[p, s, 1, k] * v12[k]
    if not still_b:
        for k in range(6, 12):
            slide0 += rows[p, s, 0, k] * v12[k]
            slide1 += rows[p, s, 1, k] * v12[k]
    new0 = old0 - mass[p, s, 0] * slide0
    new1 = old1 - mass[p, s, 1] * slide1
    squared = new0 * new0 + new1 * new1
    if not (limit >= _NORMAL_LIMIT and squared <= limit * limit * _INSIDE):
        scale = limit / max(max(np.sqrt(squared), limit), _TINY)
        new0 *= scale
        new1 *= scale
    for k in range(12):
        v12[k] += (new0 - old0) * response[p, s, 0, k] + (new1 - old1) * response[p, s, 1, k]
    impulse[p, s, 0], impulse[p, s, 1] = new0, new1


# one caller, per manifold per sweep: called, its eight array arguments cost eight reference
# count pairs each time (the demo's driver 2.5 % slower)
@njit(cache=True, inline="always")
def _complementary(p, count, old, error, block, subset_inverse, subset_ready, out, scratch,
                   flags) -> None:
    """out = impulses >= 0 with v_n + offset >= 0 at every point and = 0 where they push (the
    manifold's linear complementarity problem), by Murty's principal pivoting: solve with the
    pushing points held, then let go of the first point that would pull or hold the first one
    that would sink, and repeat. That can take more pivots than there are points (two nearly
    parallel rows, such as two terrain triangles 1.5° apart, took five), and four coplanar
    points span only three directions, so with uneven targets the pivots can cycle: after as
    many pivots as there are sets, projected Gauss–Seidel on the block takes over, whose
    impulses stay bounded (clamping the last set's solution instead handed out the 10^5 N s of
    such a nearly singular pair and flung a hull at 100 m/s). Block pseudo-inverses of each
    set are worked out once per substep; old (P, 4) holds the rows' accumulated impulses.
    scratch (2, 4) holds q and the impulses, flags (3, 4) the pushing, solved and live points,
    indexed in place: a view of a row, or an array argument more, costs two atomic reference
    counts per call (the pseudo-inverse's scratch is made only when a set's is missing)."""
    largest = 0.0
    for s in range(POINTS):
        total = error[s] if s < count else 0.0
        for t in range(count):
            total -= block[p, s, t] * old[p, t]
        scratch[_Q, s] = total
        largest = max(largest, abs(total))
        flags[_LIVE, s] = block[p, s, s] > 0.0
        flags[_PUSHING, s] = s < count and old[p, s] > 0.0
        flags[_SOLVED, s] = flags[_PUSHING, s]
        scratch[_IMPULSE, s] = 0.0
    tolerance = _SINKING_TOLERANCE * (largest + _TINY)
    settled = False
    for _ in range(1 << POINTS):
        code = 0
        for s in range(POINTS):
            flags[_SOLVED, s] = flags[_PUSHING, s]
            if flags[_PUSHING, s]:
                code |= 1 << s
        if not subset_ready[p, code]:
            linalg.pseudo_inverse(block[p], flags[_PUSHING], CUTOFF, subset_inverse[p, code],
                                  np.empty((POINTS, POINTS)), np.empty((POINTS, POINTS)))
            subset_ready[p, code] = True
        biggest = 0.0
        for s in range(POINTS):
            total = 0.0
            for t in range(POINTS):
                if flags[_PUSHING, t]:
                    total -= subset_inverse[p, code, s, t] * scratch[_Q, t]
            scratch[_IMPULSE, s] = total
            biggest = max(biggest, abs(total))
        flip = -1
        for s in range(POINTS):
            reached = scratch[_Q, s]
            for t in range(POINTS):
                reached += block[p, s, t] * scratch[_IMPULSE, t]
            if flags[_PUSHING, s]:  # pulling, or parting where it pushes (see _conflicting)
                wrong = (scratch[_IMPULSE, s] < -_COMPLEMENTARITY_TOLERANCE * biggest
                         or reached > tolerance)
            else:
                wrong = flags[_LIVE, s] and reached < -tolerance
            if wrong:
                flip = s
                break
        if flip < 0:
            settled = True
            break
        flags[_PUSHING, flip] = not flags[_PUSHING, flip]
    if settled:
        for s in range(POINTS):
            out[s] = max(scratch[_IMPULSE, s], 0.0) if flags[_SOLVED, s] else 0.0
        return
    for s in range(POINTS):
        out[s] = 0.0
    for _ in range(_GAUSS_SEIDEL_PASSES):
        for s in range(count):
            if flags[_LIVE, s]:
                reached = scratch[_Q, s]
                for t in range(count):
                    reached += block[p, s, t] * out[t]
                out[s] = max(out[s] - reached / block[p, s, s], 0.0)
