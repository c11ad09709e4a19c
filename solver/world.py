"""solver.World: bodies stepped through time, collisions answered by impulses (or springs).

Each frame is `substeps` substeps (Bullet's and Blender's scheme); each substep is a short list
of phases, each a compiled kernel (numba) looping over contact rows or bodies, phases 2 to 5
in one compiled driver (solver.substep), and a frame's substeps one compiled loop
(solver.substep_loop) that returns to Python only for the rare parts written in it (a new broad
phase within the frame, a time of impact, CCD, kinematic paths):

1. contacts: at a frame's first substep the broad phase finds the pairs that may meet within
   the frame and the narrow phase collides the new ones, with speculative points for gaps a
   pair could close within a substep (so fast bodies are caught before they overlap), and
   islands that have rested long enough fall asleep. Otherwise, in every substep and across
   frames, a pair's points are carried with its bodies and their separations refreshed from
   the motion; only pairs that moved more than their slop since they last collided collide
   again (Box2D v3's idea);
2. velocities get gravity and air forces (semi-implicit Euler);
3. the contact solver (solve_impulse: targets, warm start, up to `iterations` Gauss–Seidel
   sweeps of sequential impulses (fewer once they converge), as many towards the bounces, then
   the split-impulse push-out; or penalty: springs);
4. CCD hold: bodies moving more than a fraction of their size are held at their time of first
   contact;
5. positions and orientations advance (integrate: the rotation keeps angular momentum).
"""

import numpy as np
from numba import njit

from . import arguments, linalg, penalty, quaternion, sleep
from .bodies import (
    DYNAMIC,
    KINDS,
    KINEMATIC,
    SHAPES,
    Bodies,
    body_code,
    extents_of,
    inverse3,
    mass_and_inertia,
    solid_mass,
    thickness_of,
)
from .body_shapes import shape_parts
from .broadphase import sweep_and_prune
from .constraints import Manifolds, RowScratch, flat, new_manifolds, warm_start
from .contact_rows import carried, carry_over, collide_rows, grown_boxes, kept_rows, rows_to_solve
from .geometry import Geometry
from .impact import advance_to_impact
from .kinematic import Paths, rotation_rate
from .materials import check_rule
from .shapes import BOX, SPHERE
from .sinking import sinking_targets
from .substep import CCD, IMPACT, body_arrays, fast_bodies, move, row_arrays
from .substep_loop import ASLEEP, ESCAPED, run_substeps, tally
from .toi import pose, time_of_impact_batch
from .trajectory import Cancelled, Snapshot, Trajectory

METHODS = ("impulse", "penalty")
# A contact is kept while its gap is below what the pair can close in a frame plus this
# distance (capped at a quarter of the smaller body's half-extent, for tiny bodies).
SPECULATIVE_DISTANCE = 0.02  # m
# Penetration tolerated without push-out, so resting contacts stay rigid (no spring sag).
LINEAR_SLOP = 5e-4  # m
# rad a substep: a body turning faster is not held with the one it presses on (held_together)
SPIN_HOLD = 0.1
_NO_SPRINGS = (np.zeros(0), np.zeros(0))  # the impulse method's
_NO_ROWS = Manifolds(np.zeros((0, 2), dtype=np.int64), *np.zeros((4, 0)))  # before the first


class World:
    """A rigid-body world; add bodies, then step() frame by frame or simulate(frames).

    substeps per frame and iterations (Gauss–Seidel sweeps) per substep mean what they mean in
    Blender's rigid body world. method "penalty" uses springs and takes more substeps if its
    springs need them. restitution_combine / friction_combine pick how a pair's values follow
    from the two bodies' (materials.COMBINE_RULES; Blender's built-in multiplies). sleeping lets
    bodies at rest stop being simulated until something touches them.
    """

    # Set by every step before use (class defaults, so that pickled Worlds without them load).
    _shape = np.zeros(0, dtype=np.int64)  # the bodies' shape codes as int64, for the kernels
    _constants_of = -1  # how many bodies _body_constants was computed for

    def __init__(self, gravity=(0.0, 0.0, -9.81), fps: float = 24.0, substeps: int = 10,
                 iterations: int = 10, method: str = "impulse",
                 restitution_combine: str = "multiply", friction_combine: str = "multiply",
                 sleeping: bool = True):
        if method not in METHODS:
            raise ValueError(f"unknown method {method!r}; use one of {METHODS}")
        self.gravity = arguments.finite_vector("World", "gravity", gravity, 3)
        self.fps = arguments.positive_finite("World", "fps", fps)
        self.substeps = arguments.positive_int("World", "substeps", substeps)
        self.iterations = arguments.positive_int("World", "iterations", iterations)
        self.method = method
        self.restitution_combine = check_rule(restitution_combine)
        self.friction_combine = check_rule(friction_combine)
        self.sleeping = bool(sleeping)
        self.bodies = Bodies()
        self.geometry = Geometry()
        self.paths = Paths()
        self.frame = 0
        self._awake = np.zeros(0, dtype=bool)
        self._contacts: Manifolds | None = None  # contact rows of the frame's candidate pairs
        self._pairs = np.zeros((0, 2), dtype=np.int64)  # those pairs
        self._scratch = RowScratch()  # the per-substep arrays every new set of rows reuses
        self._room = (np.zeros((0, 3)), np.zeros((0, 4)), np.zeros(0))  # poses and reach then
        self._radius = np.zeros(0)  # bounding radius about the centre of mass
        self._speculative = np.zeros(0)  # speculative distance (capped for tiny bodies)
        self._fall = 0.0
        self._contact_count = 0
        self._max_penetration = 0.0
        self._push_out_work = 0.0

    def __getstate__(self) -> dict:
        """Pickled without the rows' reusable buffers: a copy makes its own when it steps (and
        a World pickled by a solver without them loads)."""
        return {name: value for name, value in vars(self).items() if name != "_scratch"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, _scratch=RowScratch())

    @property
    def other_shapes(self) -> bool:
        """Whether a body is neither a box nor a sphere: only then does a step run the
        part-by-part narrow phase, whose kernels are most of a first-use compile (warm_up)."""
        return bool(self.bodies.shape.max(initial=BOX) > SPHERE)

    @property
    def _g(self) -> float:
        """|g|, m/s²."""
        return float(np.linalg.norm(self.gravity))

    # ------------------------------------------------------------------ building
    def add_body(self, shape="box", size=(0.5, 0.5, 0.5), position=(0.0, 0.0, 0.0),
                 orientation=(1.0, 0.0, 0.0, 0.0), kind="dynamic", mass=None, density=None,
                 restitution=0.5, friction=0.5, linear_velocity=(0.0, 0.0, 0.0),
                 angular_velocity=(0.0, 0.0, 0.0), path=None, path_samples_per_frame=1,
                 inertia=None, center_of_mass=None, drag=0.0, lift=0.0, linear_damping=0.0,
                 angular_damping=0.0, rolling_resistance=0.0, points=None, vertices=None,
                 triangles=None, parts=None) -> int:
        """Add a body; returns its index.

        shape "box" (size = half-extents), "sphere" (size = radius), "capsule", "cylinder" or
        "cone" (size = (radius, half_height), axis along local z; a cone's base is at
        z = -half_height, its apex at +half_height), "hull" (the convex hull of `points`
        (K, 3) in the body's frame), "mesh" (`vertices` (V, 3), `triangles` (T, 3); static or
        kinematic bodies only) or "compound" (`parts`: a list of dicts with shape, size or
        points, position and orientation in the body's frame; one rigid body). Mass, centre of
        mass and inertia follow from the shape and density unless given.
        position and orientation are the shape's; velocities are of the centre of mass, ω in
        world axes. Static and kinematic bodies are infinitely heavy; a kinematic body follows
        `path` = (positions (S, 3), orientations (S, 4)) sampled path_samples_per_frame times a
        frame from frame 0.
        """
        if not isinstance(shape, str) or shape not in SHAPES:
            raise ValueError(f"add_body: unknown shape {shape!r}; use one of {list(SHAPES)}")
        if kind not in KINDS:
            raise ValueError(f"unknown kind {kind!r}; use one of {sorted(KINDS)}")
        if path is not None and kind != "kinematic":
            raise ValueError("only kinematic bodies follow a path")
        a = arguments
        body_parts = shape_parts(shape, kind, size=size, points=points, vertices=vertices,
                                 triangles=triangles, parts=parts)
        restitution = a.in_range("add_body", "restitution", restitution, 0.0, 1.0)
        friction = a.non_negative("add_body", "friction", friction)
        drag = a.non_negative("add_body", "drag", drag)
        lift = a.finite_number("add_body", "lift", lift)
        linear_velocity = a.finite_vector("add_body", "linear_velocity", linear_velocity, 3)
        angular_velocity = a.finite_vector("add_body", "angular_velocity", angular_velocity, 3)
        mass = None if mass is None else a.positive_finite("add_body", "mass", mass)
        density = None if density is None else a.positive_finite("add_body", "density", density)
        inertia = None if inertia is None else _inertia(inertia)
        path_samples_per_frame = a.positive_int("add_body", "path_samples_per_frame",
                                                path_samples_per_frame)
        path = None if path is None else _path(path)
        linear_damping = a.in_range("add_body", "linear_damping", linear_damping, 0.0, 1.0)
        angular_damping = a.in_range("add_body", "angular_damping", angular_damping, 0.0, 1.0)
        rolling_resistance = a.non_negative("add_body", "rolling_resistance", rolling_resistance)
        code, kind_code = body_code(shape, body_parts), KINDS[kind]
        half = extents_of(body_parts)
        q = a.unit_quaternion("add_body", "orientation", orientation)
        solid = np.zeros(3)
        if kind_code == DYNAMIC and code not in (BOX, SPHERE):
            mass, solid, own = solid_mass(body_parts, mass, density)
            inertia = own if inertia is None else inertia
        offset = (solid if center_of_mass is None
                  else a.finite_vector("add_body", "center_of_mass", center_of_mass, 3))
        centre = a.finite_vector("add_body", "position", position, 3)
        row = dict(shape=code, kind=kind_code, half_extents=half, com_offset=offset,
                   restitution=restitution, friction=friction, drag=drag, lift=lift,
                   linear_damping=linear_damping, angular_damping=angular_damping,
                   rolling_resistance=rolling_resistance, thickness=thickness_of(body_parts))
        if kind_code == DYNAMIC:
            m, inertia = mass_and_inertia(code, half, mass, density, inertia)
            row.update(mass=m, inverse_mass=1.0 / m, inertia=inertia,
                       inverse_inertia=inverse3(inertia), velocity=linear_velocity,
                       angular_velocity=angular_velocity)
        index = len(self.bodies)
        if path is not None:
            self.paths.add(index, path[0], path[1], path_samples_per_frame)
            poses = self.paths.poses(float(self.frame))
            centre, q = poses[0][-1], poses[1][-1]
        row.update(orientation=q, position=centre + quaternion.rotate(q, offset))
        self.bodies.append(**row)
        self.geometry.add(body_parts)
        self._awake = np.append(self._awake, kind_code == DYNAMIC)
        return index

    def hull_error(self, body: int) -> float:
        """How far (m) a given point of the body lies outside its hulls, simplified to at most
        64 faces each (0 when no hull needed simplifying)."""
        return max((part.hull.error for part in self.geometry.parts[body]
                    if part.hull is not None), default=0.0)

    def dropped_triangles(self, body: int) -> int:
        """How many of a mesh body's triangles were degenerate (zero area) and left out."""
        return sum(part.mesh.dropped for part in self.geometry.parts[body]
                   if part.mesh is not None)

    # ------------------------------------------------------------------ stepping
    def step(self) -> None:
        """Advance one frame: `substeps` substeps, each the list of phases below."""
        b = self.bodies
        frame_time = 1.0 / self.fps
        if self._resting():
            self._contact_count, self._max_penetration = 0, 0.0
            self._finish_frame(frame_time)
            return
        substeps = self.substeps
        if self.method == "penalty":
            stiffest = penalty.frequency(b.thickness.min(initial=np.inf), self._g)
            substeps = max(substeps, penalty.substeps_needed(stiffest, frame_time))
        h = frame_time / substeps
        rotations = np.empty((len(b), 3, 3))
        linalg.matrices(b.orientation, rotations)
        world_inverse = np.empty_like(rotations)
        pseudo = np.empty((2, len(b), 3))  # the push-out's pseudo-velocities
        self._body_constants()
        impulse = self.method == "impulse"
        self._fall = self._g * h * h  # a substep's fall from rest
        # the push-out work so far, most points touching, deepest penetration this frame
        stats = np.array([self._push_out_work, 0.0, 0.0])
        single = len(self.paths) > 0  # kinematic bodies move on their paths between substeps
        whole = np.ones(len(b))  # the part of the substep each body moves, unless held
        s, stage, left = 0, ESCAPED, whole
        while s < substeps:
            if single and stage != IMPACT:
                self._set_kinematic_velocities(self.frame + (s + 1) / substeps, h)
            ready = stage == ESCAPED  # the contacts of substep s are the world's to find
            if ready:
                contacts, rows = self._contacts_found(rotations, h, frame_time - s * h, s == 0)
            springs = _NO_SPRINGS if impulse else self._springs(contacts)
            stage, s, rows, pushed, candidates = run_substeps(
                s, substeps, ready, stage == IMPACT, single, rows, self.sleeping,
                self._tables, self._fall,
                *self._loop_arrays(contacts, stats, rotations, world_inverse, pseudo),
                left, *springs, self.gravity, h, self.iterations, impulse)
            if stage == ASLEEP:
                break  # everything sleeps: nothing moves this frame
            if stage == IMPACT:
                left = advance_to_impact(contacts, candidates, b, rotations, world_inverse, h)
                continue
            if stage == CCD:
                self._hold_fast(contacts, rows, pushed, left, stats, rotations, pseudo, h)
                s += 1
            left = whole
            if single and stage != ESCAPED:
                self._set_kinematic_poses(self.frame + s / substeps)
                linalg.matrices(b.orientation, rotations)
        self._push_out_work = float(stats[0])
        self._contact_count, self._max_penetration = int(stats[1]), float(stats[2])
        self._finish_frame(frame_time)

    def _body_constants(self) -> None:
        """The per-body quantities the kernels take that only adding a body changes, computed
        again only then (each a numpy call or two, frame after frame): bounding radius about
        the centre of mass, speculative distance (capped for tiny bodies), shape codes as
        int64, which are dynamic, which have flat faces, and the part tables (None for boxes
        and spheres only: the narrow phase's lighter variant)."""
        b = self.bodies
        if self._constants_of == len(b):
            return
        self._radius = (np.linalg.norm(b.half_extents, axis=1)
                        + np.linalg.norm(b.com_offset, axis=1))
        self._speculative = np.minimum(SPECULATIVE_DISTANCE, 0.25 * b.thickness)
        self._shape = b.shape.astype(np.int64)
        self._dynamic = b.dynamic
        self._faces = flat(b.shape)
        self._tables = self.geometry.tables() if self.other_shapes else None
        self._constants_of = len(b)

    def _loop_arrays(self, m: Manifolds, stats: np.ndarray, rotations: np.ndarray,
                     world_inverse: np.ndarray, pseudo: np.ndarray) -> tuple:
        """run_substeps' arrays from kind to pseudo, in its order."""
        b = self.bodies
        return (b.kind, b.rest_time, b.com_offset, b.half_extents, self._speculative,
                *self._room, m.drift, m.anchor_a, m.anchor_b, m.base, m.relative,
                m.orientation_a, m.orientation_b, m.margin, m.apart, stats,
                *body_arrays(b, self._shape, self._dynamic, self._awake, self._radius),
                *row_arrays(m), rotations, world_inverse, pseudo)

    def _hold_fast(self, m: Manifolds, rows: np.ndarray, pushed: bool, left: np.ndarray,
                   stats: np.ndarray, rotations: np.ndarray, pseudo: np.ndarray,
                   h: float) -> None:
        """The rest of a substep whose bodies move fast enough for CCD: each moves what its
        time of first contact lets it (_first_contact) of its share `left`, with the
        push-out's pseudo-velocities if `pushed`; stats gathered as run_substeps does."""
        b = self.bodies
        awake = self._awake
        count = len(b) if pushed else 0
        share = h * left  # what each body had to move; CCD lets it move step of it
        work, touching, deepest = move(
            rows, b.position, b.orientation, b.velocity, b.angular_velocity, b.inertia,
            b.inverse_inertia, b.mass, awake, share * self._first_contact(awake, rotations, h),
            share, pseudo[0, :count], pseudo[1, :count], self.gravity, rotations, m.points,
            m.separation, m.normal_impulse)
        tally(stats, rows, work, touching, deepest)

    def _resting(self) -> bool:
        """Whether nothing can move this frame: every dynamic body sleeps, standing still, and
        none is kinematic (so nothing can wake one). Its contacts and poses then stay as they
        were, and colliding them again (most of such a frame's cost) would find them again."""
        b = self.bodies
        return bool(self._contacts is not None and not self._awake.any()
                    and not (b.kind == KINEMATIC).any() and not b.velocity.any()
                    and not b.angular_velocity.any())

    def _springs(self, contacts: Manifolds) -> tuple[np.ndarray, np.ndarray]:
        """The penalty method's (ω0, ζ) per contact row."""
        b = self.bodies
        omega = penalty.frequency(np.minimum(b.thickness[contacts.a], b.thickness[contacts.b]),
                                  self._g)
        return omega, penalty.damping_ratio(contacts.restitution)

    def _first_contact(self, awake: np.ndarray, rotations: np.ndarray, h: float) -> np.ndarray:
        """(N,) fraction of the substep each body may move (continuous collision).

        A body that would move more than CCD_FRACTION of its smallest half-extent is stopped at
        its time of first contact with any body it may reach (sinking no deeper than the
        slop), so it cannot pass through a thin one; the next substep's contacts then answer
        the collision. Pairs already that deep are held where they would sink a slop deeper
        than now (solver.sinking), so an initial overlap does not switch CCD off. Bodies
        pressing on a held one are held with it (held_together), and a held body is kept
        clear of the slower bodies that move on for longer (_hold_short_of_partners).
        """
        b = self.bodies
        fraction = np.ones(len(b))
        moving = np.zeros(len(b))
        if not fast_bodies(b.velocity, b.angular_velocity, self._radius, b.thickness, awake,
                           h, moving):
            return fraction
        fast = moving > 0.0
        rows = np.flatnonzero(fast[self._pairs[:, 0]] | fast[self._pairs[:, 1]])
        pairs = self._pairs[rows]
        if not len(pairs):
            return fraction
        moving = (b.shape, b.position, b.orientation, b.half_extents, b.velocity,
                  b.angular_velocity)  # the integrator's motion (bodies=b)
        targets = -self._slop()[pairs].min(axis=1)
        toi = time_of_impact_batch(*moving, pairs, h, targets, self.geometry.tables(), b)
        deep = np.flatnonzero(toi <= 0.0)
        if len(deep):  # a batch costs its dispatch even when empty
            targets[deep] = sinking_targets(self._contacts, rows[deep], -targets[deep])
            toi[deep] = time_of_impact_batch(*moving, pairs[deep], h, targets[deep],
                                             self.geometry.tables(), b)
        toi = np.where(toi > 0.0, toi, np.inf)
        for column in (0, 1):
            np.minimum.at(fraction, pairs[:, column], np.minimum(toi / h, 1.0))
        fraction = np.where(fast, fraction, 1.0)
        if fraction.min() < 1.0:  # fast spinners' hits are the time of impact's
            spinning = np.linalg.norm(b.angular_velocity, axis=1) * h > SPIN_HOLD
            free = b.dynamic & awake & ~spinning
            held_together(self._contacts, free, fraction)
            if self._hold_short_of_partners(pairs, targets, fast, fraction, h):
                held_together(self._contacts, free, fraction)
        return fraction

    def _hold_short_of_partners(self, pairs: np.ndarray, targets: np.ndarray, fast: np.ndarray,
                                fraction: np.ndarray, h: float) -> bool:
        """Hold each fast body that CCD holds short of the slower bodies of its `pairs` that
        move on for longer, at its time of first contact (within `targets`, as in
        _first_contact) with where they will be when they stop; whether any fraction changed.

        The time of impact has both bodies of a pair moving, but only the fast one stops there:
        a plate spinning at 42 rad/s, held 0.65 of a substep short of the box it was about to
        hit while that box moved on towards it, ended 0.56 mm deep in it (its slop 0.2 mm), and
        the push-out that then parted them, moving both without their momentum, shifted the
        scene's angular momentum by 1.5e-4 (benchmarks/third_box.py's seed 153). So each such
        pair's time of impact is found again with the slower body standing at the end of its
        own move."""
        b = self.bodies
        a, c = pairs[:, 0], pairs[:, 1]
        slower = (b.velocity.any(axis=1) | b.angular_velocity.any(axis=1)) & ~fast
        first = fast[a] & slower[c] & (fraction[c] > fraction[a])
        second = fast[c] & slower[a] & (fraction[a] > fraction[c])
        if not (first.any() or second.any()):
            return False
        held = np.concatenate([pairs[first], pairs[second][:, ::-1]])  # (fast, slower)
        goal = np.concatenate([targets[first], targets[second]])
        position, orientation = b.position.copy(), b.orientation.copy()
        velocity, spin = b.velocity.copy(), b.angular_velocity.copy()
        scratch = (np.empty(3), np.empty((3, 3)), np.empty(3))
        for j in np.unique(held[:, 1]):
            later = fraction[j] * h
            pose(b.position[j], b.orientation[j], b.velocity[j], b.angular_velocity[j],
                 b.com_offset[j], b.inertia[j], b.inverse_inertia[j], b.dynamic[j], later,
                 scratch[0], orientation[j], scratch[1], scratch[2])
            position[j] = b.position[j] + later * b.velocity[j]
            velocity[j], spin[j] = 0.0, 0.0
        toi = time_of_impact_batch(b.shape, position, orientation, b.half_extents, velocity,
                                   spin, held, h, goal, self.geometry.tables(), b)
        cut = (toi > 0.0) & (toi < fraction[held[:, 0]] * h)
        np.minimum.at(fraction, held[cut, 0], toi[cut] / h)
        return bool(cut.any())

    def _kinematic_targets(self, frame: float):
        """(bodies, COM positions, orientations) of the kinematic bodies on their paths."""
        centre, q = self.paths.poses(frame)
        rows = self.paths.bodies
        return rows, centre + quaternion.rotate(q, self.bodies.com_offset[rows]), q

    def _set_kinematic_velocities(self, frame: float, h: float) -> None:
        """Velocities that carry the kinematic bodies to their path pose at `frame` in h."""
        if not len(self.paths):
            return
        rows, position, q = self._kinematic_targets(frame)
        b = self.bodies
        b.velocity[rows] = (position - b.position[rows]) / h
        b.angular_velocity[rows] = rotation_rate(b.orientation[rows], q, h)

    def _set_kinematic_poses(self, frame: float) -> None:
        """Put the kinematic bodies exactly on their paths (no drift from integration)."""
        if not len(self.paths):
            return
        rows, position, q = self._kinematic_targets(frame)
        self.bodies.position[rows] = position
        self.bodies.orientation[rows] = q

    # ------------------------------------------------------------------ contacts
    def _contacts_found(self, rotations: np.ndarray, h: float, remaining: float,
                        frame_start: bool):
        """(contact rows, rows to solve) at a frame's start, or when a body left the room its
        pairs were found for (run_substeps carries them in the other substeps): the broad
        phase finds the pairs that may meet in the `remaining` time of the frame and the
        narrow phase collides them (_collide_frame). At a frame's start, also decide which
        islands sleep; otherwise a sleeping body that an awake one touches wakes at once."""
        b = self.bodies
        m = self._collide_frame(rotations, h, remaining)
        if frame_start:  # decide, per island, who is simulated this frame
            self._awake = (sleep.decide(b.rest_time, b.kind, b.velocity, b.angular_velocity,
                                        m.points, m.a, m.b) if self.sleeping else b.dynamic)
        return m, rows_to_solve(m.points, m.a, m.b, b.kind, self._awake, b.rest_time,
                                self.sleeping and not frame_start, True, m.isolated)

    def _stale(self, m: Manifolds, rotations: np.ndarray, h: float) -> np.ndarray:
        """(P,) the rows of m that must collide again, m's points carried with the bodies and
        their separations refreshed (contact_rows.carried; run_substeps does the same in the
        other substeps)."""
        b = self.bodies
        return carried(False, b.position, b.orientation, b.velocity, b.angular_velocity,
                       self._radius, self._speculative, self._awake, b.kind, *self._room, h,
                       self._fall, m.a, m.b, self._shape, rotations, b.com_offset,
                       b.half_extents, m.slop, m.drift, m.points, m.normal, m.point, m.anchor_a,
                       m.anchor_b, m.base, m.separation, m.relative, m.orientation_a,
                       m.orientation_b, m.margin, m.apart)[1]

    def _collide_frame(self, rotations: np.ndarray, h: float, remaining: float) -> Manifolds:
        """New contact rows for every pair whose boxes, grown by what each body may move in
        the `remaining` time of the frame, overlap. A pair of flat bodies (boxes, hulls,
        meshes) the old rows held that moved less than its slop since it last collided keeps
        its points, refreshed from the motion as in a substep (most pairs of a resting pile,
        frame after frame); the others are collided now, warm-started from the old. A round
        body's contact moves over its surface as it rolls, which the anchors do not follow:
        carried for frames, a slowly rolling ball's point would lag and tilt it like a slope.
        When the broad phase finds the same pairs as before, the old rows simply stay."""
        b = self.bodies
        centers = b.shape_centers(rotations)
        lo, hi = np.empty((len(b), 3)), np.empty((len(b), 3))
        old = self._contacts
        last = _NO_ROWS if old is None else old  # their depths: what the push-out may move
        reach = grown_boxes(centers, rotations, b.half_extents, self._shape, b.velocity,
                            b.angular_velocity, self._radius, self._speculative, self._g,
                            remaining, last.a, last.b, last.points, last.separation, last.slop,
                            lo, hi)
        pairs = sweep_and_prune(lo, hi, self._dynamic)
        stale = None
        if old is not None and len(old):
            faces = self._faces
            stale = self._stale(old, rotations, h) | ~(faces[old.a] & faces[old.b])
        if old is not None and stale is not None and np.array_equal(old.pairs, pairs):
            m = old  # its stale rows collide again, warm-started from the points they held
            if stale.any():
                self._collide_rows(m, np.flatnonzero(stale), rotations, h)
        else:
            m = new_manifolds(pairs, b, self.restitution_combine, self.friction_combine,
                              self._slop(), self._scratch)
            rows, source = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
            if old is not None and stale is not None and len(m):
                rows, source = kept_rows(m.a, m.b, old.a, old.b, stale)
            collide = np.ones(len(m), dtype=bool)
            collide[rows] = False
            if collide.any():
                self._collide_rows(m, np.flatnonzero(collide), rotations, h)
            if old is not None and stale is not None and len(m):
                warm_start(m, old, len(b))  # the carried rows hold no points yet: untouched
                carry_over(rows, source, tuple(zip(m.kept(), old.kept(), strict=True)))
        self._contacts, self._pairs = m, pairs
        self._room = (b.position.copy(), b.orientation.copy(), reach)
        return m

    def _collide_rows(self, m: Manifolds, rows: np.ndarray, rotations: np.ndarray,
                      h: float) -> None:
        """The narrow phase on rows `rows`: their points, with speculative points for gaps the
        pair could close in h (contact_rows.collide_rows)."""
        b = self.bodies
        collide_rows(rows, self._tables, self._shape,
                     b.position, b.orientation, rotations, b.com_offset, b.half_extents,
                     b.velocity, b.angular_velocity, self._radius, self._speculative,
                     0.5 * self._fall, h, m.a, m.b, m.drift, m.slop, m.margin, m.points,
                     m.feature, m.normal, m.tangents, m.point, m.anchor_a, m.anchor_b, m.base,
                     m.separation, m.relative, m.orientation_a, m.orientation_b,
                     m.normal_impulse, m.incoming, m.friction_impulse, m.apart)

    def _slop(self) -> np.ndarray:
        """(N,) penetration each body tolerates without push-out (less for tiny bodies)."""
        return np.minimum(LINEAR_SLOP, 0.02 * self.bodies.thickness)

    def _finish_frame(self, frame_time: float) -> None:
        b = self.bodies
        awake = self._awake
        sleep.update_rest_time(b.rest_time, b.velocity, b.angular_velocity, awake, frame_time)
        self.frame += 1

    # ------------------------------------------------------------------ results
    def snapshot(self) -> Snapshot:
        """The current frame's state (shape centres) and statistics."""
        b = self.bodies
        rotations = np.empty((len(b), 3, 3))
        linalg.matrices(b.orientation, rotations)
        totals = np.zeros(8)  # kinetic, potential energy, linear, angular momentum
        statistics(b.position, b.velocity, b.angular_velocity, b.mass, b.inertia, rotations,
                   b.kind, self.gravity, totals)
        return Snapshot(
            frame=self.frame,
            positions=b.shape_centers(rotations),
            orientations=b.orientation.copy(),
            linear_velocities=b.velocity.copy(),
            angular_velocities=b.angular_velocity.copy(),
            contact_count=self._contact_count,
            kinetic_energy=float(totals[0]),
            potential_energy=float(totals[1]),
            linear_momentum=totals[2:5].copy(),
            angular_momentum=totals[5:8].copy(),
            max_penetration=self._max_penetration,
            push_out_work=self._push_out_work,
        )

    def simulate(self, frames: int, progress=None, should_cancel=None) -> Trajectory:
        """The snapshot now plus one after each of `frames` steps.

        progress(done, total) is called after every frame; should_cancel() returning True
        stops the run with Cancelled.
        """
        frames = arguments.integer_at_least("simulate", "frames", frames, 0)
        arguments.optional_callable("simulate", "progress", progress)
        arguments.optional_callable("simulate", "should_cancel", should_cancel)
        trajectory = Trajectory.empty(frames, len(self.bodies), self.fps)
        trajectory.record(0, self.snapshot())
        for done in range(1, frames + 1):
            if should_cancel is not None and should_cancel():
                raise Cancelled(f"cancelled after {done - 1} of {frames} frames")
            self.step()
            trajectory.record(done, self.snapshot())
            if progress is not None:
                progress(done, frames)
        return trajectory


def _inertia(inertia) -> np.ndarray:
    """add_body's inertia: 3 principal moments or a (3, 3) matrix, finite."""
    shape, what = ((3,), "3 finite numbers") if np.ndim(inertia) == 1 else (
        (3, 3), "3 finite numbers or a finite (3, 3) matrix")
    return arguments.finite_array("add_body", "inertia", inertia, shape, what)


def _path(path) -> tuple[np.ndarray, np.ndarray]:
    """add_body's kinematic path: (positions (S, 3), non-zero quaternions (S, 4)), finite."""
    if not isinstance(path, (tuple, list)) or len(path) != 2:
        raise TypeError(f"add_body: path must be (positions, orientations), got {path!r}")
    positions = arguments.finite_array("add_body", "path positions", path[0], (-1, 3),
                                       "a finite (S, 3) array")
    orientations = arguments.finite_array("add_body", "path orientations", path[1], (-1, 4),
                                          "a finite (S, 4) array of quaternions")
    if len(positions) != len(orientations) or len(positions) == 0:
        raise ValueError("add_body: path positions and orientations must have the same number "
                         f"S >= 1 of samples, got {len(positions)} and {len(orientations)}")
    norms = np.linalg.norm(orientations, axis=1)
    if not np.all(norms > 1e-12):
        raise ValueError("add_body: path orientations must be non-zero quaternions, got a zero "
                         f"one at sample {int(np.argmin(norms))}")
    return positions, orientations


def held_together(m: Manifolds, free: np.ndarray, fraction: np.ndarray) -> None:
    """Hold the bodies `free` to move that press on a held one (a point within the slop
    pushing) at its fraction of the substep, through their chain of pressing bodies (in
    place); the time of impact that held it moved both. Moving on alone, each would sink
    into the held one by the rest of their relative motion: at 5 substeps, the demo's last
    domino, held where the one leaning on it would sink a slop deeper, let it sink 11 mm, and
    the first let the ball pressing on it sink 3.3 mm. Not through isolated pairs, whose hits
    the time of impact solves at the instant they touch: holding both there froze a spinning
    plate and the box it hit at a thousandth of a substep, substep after substep; the world
    leaves bodies turning faster than SPIN_HOLD out of `free` for the same reason (with a
    third box touching the one hit, such holds lost up to 1.4e-2 of the angular momentum)."""
    pressing = m.mask & (m.separation <= m.slop[:, None]) & (m.normal_impulse > 0.0)
    rows = np.flatnonzero(free[m.a] & free[m.b] & ~m.isolated & pressing.any(axis=1))
    a, b = m.a[rows], m.b[rows]
    while len(rows):
        least = np.minimum(fraction[a], fraction[b])
        if np.array_equal(least, fraction[a]) and np.array_equal(least, fraction[b]):
            return
        np.minimum.at(fraction, a, least)
        np.minimum.at(fraction, b, least)


@njit(cache=True)
def statistics(position, velocity, angular_velocity, mass, inertia, rotations, kind, gravity,
               out) -> None:
    """out (8,) = kinetic and potential energy, linear momentum and angular momentum (about the
    origin) of the dynamic bodies; spin = R I Rᵀ ω."""
    spin = np.empty(3)
    tensor = np.empty((1, 3, 3))
    for i in range(len(position)):
        if kind[i] != DYNAMIC:
            continue
        m, v, w, x = mass[i], velocity[i], angular_velocity[i], position[i]
        # np.int64: the literal 0 would compile sandwich a second variant
        linalg.sandwich(rotations, inertia, i, tensor, np.int64(0))
        for k in range(3):
            spin[k] = tensor[0, k, 0] * w[0] + tensor[0, k, 1] * w[1] + tensor[0, k, 2] * w[2]
        out[0] += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + 0.5 * (
            w[0] * spin[0] + w[1] * spin[1] + w[2] * spin[2])
        out[1] -= m * (x[0] * gravity[0] + x[1] * gravity[1] + x[2] * gravity[2])
        for k in range(3):
            out[2 + k] += m * v[k]
        out[5] += m * (x[1] * v[2] - x[2] * v[1]) + spin[0]
        out[6] += m * (x[2] * v[0] - x[0] * v[2]) + spin[1]
        out[7] += m * (x[0] * v[1] - x[1] * v[0]) + spin[2]
