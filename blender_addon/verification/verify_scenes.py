"""The canonical scenes of the closed-form verification, and how each is measured.

Every scene is one list of bodies for both engines plus checks that measure a run the same way
whichever engine made it (from positions, orientations and velocities), so the comparison with
the closed form is fair. Tolerances are those of Impulse's validation suite.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import Any

import numpy as np

from ...solver import quaternion as quat
from .builtin_world import MirrorBody, MirrorSettings
from .compare import momenta

G = 9.81
UPRIGHT = (1.0, 0.0, 0.0, 0.0)
GROUND = MirrorBody("ground", "box", (20.0, 20.0, 0.5), (0.0, 0.0, -0.5), UPRIGHT,
                    kind="static", restitution=1.0, friction=1.0)


@dataclass(frozen=True)
class Check:
    """One measured quantity with its closed form and Impulse's tolerance on the error."""

    quantity: str
    unit: str
    closed_form: float
    tolerance: float
    relative: bool
    measure: Callable[[Any], float]  # run (Trajectory or BuiltinRun) -> value

    def error(self, value: float) -> float:
        difference = abs(value - self.closed_form)
        return difference / abs(self.closed_form) if self.relative else difference


@dataclass(frozen=True)
class Canonical:
    name: str
    bodies: tuple[MirrorBody, ...]
    settings: MirrorSettings
    checks: tuple[Check, ...]
    signal: Callable[[Any], np.ndarray]  # one curve per run for the chart
    closed_form: Callable[[np.ndarray], np.ndarray] | None = None  # the signal at times t
    signal_label: str = ""  # the chart's y axis, with the unit
    signal_span: float = 0.0  # least y range of the chart: a settle is drawn at the scene's scale


# ---- measurements: the same for both engines, from positions, orientations and velocities ----

def rebound_rise(z: np.ndarray, rest: float) -> float:
    """Highest point after the first bounce above the resting height (0 if it never rises)."""
    rising = np.flatnonzero(np.diff(z) > 0)
    return max(float(z[rising[0]:].max()) - rest, 0.0) if rising.size else 0.0


def bounce_restitution(z: np.ndarray, fps: float, g: float = G) -> float:
    """-v_out / v_in at the first bounce, wherever inside a frame it happened.

    The free flights before and after the bounce are parabolas with the same g, so with
    y = z + g t²/2 each is a line through two samples, and the bounce is where the lines meet.
    The speeds are those of the sampled parabolas (what the keys show, and what sets the
    bounce heights), not an integrator's internal velocity, which lags them by g h/2.
    """
    lowest = np.flatnonzero((z[1:-1] <= z[:-2]) & (z[1:-1] < z[2:])) + 1
    if lowest.size == 0 or not 2 <= lowest[0] < len(z) - 2:
        return math.nan  # no bounce with two free-flight samples either side
    k = int(lowest[0])
    t = np.arange(len(z)) / fps
    y = z + 0.5 * g * t**2
    slope_in = (y[k - 1] - y[k - 2]) * fps
    slope_out = (y[k + 2] - y[k + 1]) * fps
    meet = (y[k + 1] - slope_out * t[k + 1] - y[k - 1] + slope_in * t[k - 1]) / (
        slope_in - slope_out)
    speed_in = slope_in - g * meet
    speed_out = slope_out - g * meet
    return float(-speed_out / speed_in)


def bounce_heights(t: np.ndarray, top: float, rest: float, e: float, g: float = G):
    """Height over time of a body dropped from rest at `top` that bounces with restitution e."""
    z = np.full(len(t), rest)
    speed = math.sqrt(2 * g * (top - rest))
    falling = t < speed / g
    z[falling] = top - 0.5 * g * t[falling] ** 2
    start, speed = speed / g, e * speed
    while speed > 1e-3 and start < t[-1]:
        tau = t - start
        flying = (tau >= 0) & (tau < 2 * speed / g)
        z[flying] = rest + speed * tau[flying] - 0.5 * g * tau[flying] ** 2
        start, speed = start + 2 * speed / g, e * speed
    return z


def _relative_change(values: np.ndarray, last_only: bool = True) -> float:
    """|value - start| / |start| at the end (or the worst frame) for a scalar or vector series."""
    values = values.reshape(len(values), -1)
    change = np.linalg.norm(values - values[0], axis=1) / np.linalg.norm(values[0])
    return float(change[-1] if last_only else change.max())


# ---- the canonical scenes ----

def _drop(shape: str, e: float) -> Canonical:
    size, height = 0.5, 2.0
    body = MirrorBody(f"{shape}", shape, (size,) * 3, (0.0, 0.0, size + height), UPRIGHT,
                      restitution=e)
    settings = MirrorSettings(frames=40)
    if e == 0:
        check = Check("rebound height", "m", 0.0, 1e-3, False,
                      lambda run: rebound_rise(run.positions[:, 1, 2], size))
    else:
        check = Check("restitution v_out/v_in", "", e, 0.01, True,
                      lambda run: bounce_restitution(run.positions[:, 1, 2], run.fps))
    return Canonical(f"drop {shape} e={e:g}", (GROUND, body), settings, (check,),
                     lambda run: run.positions[:, 1, 2],
                     lambda t: bounce_heights(t, size + height, size, e),
                     "height of the centre (m)", size + height)


def _slide() -> Canonical:
    speed, mu = 5.0, 0.5
    body = MirrorBody("box", "box", (0.5,) * 3, (0.0, 0.0, 0.5), UPRIGHT, restitution=0.0,
                      friction=mu, linear_velocity=(speed, 0.0, 0.0))
    ground = replace(GROUND, restitution=0.0)
    check = Check("sliding distance", "m", speed**2 / (2 * mu * G), 0.02, True,
                  lambda run: float(run.positions[-1, 1, 0] - run.positions[0, 1, 0]))
    stop = speed / (mu * G)
    return Canonical("slide 5 m/s mu=0.5", (ground, body), MirrorSettings(frames=36), (check,),
                     lambda run: run.positions[:, 1, 0],
                     lambda t: speed * np.minimum(t, stop) - 0.5 * mu * G * np.minimum(t, stop)**2,
                     "distance slid (m)", 1.0)


def _incline(degrees: float) -> Canonical:
    theta, mu = math.radians(degrees), 0.5
    tilt = tuple(quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), np.array(theta)))
    normal = np.array([math.sin(theta), 0.0, math.cos(theta)])
    down = np.array([math.cos(theta), 0.0, -math.sin(theta)])
    plane = MirrorBody("incline", "box", (10.0, 2.0, 0.5), (0.0, 0.0, 0.0), tilt, kind="static",
                       restitution=0.0, friction=1.0)
    body = MirrorBody("box", "box", (0.5,) * 3, tuple(normal), tilt, restitution=0.0,
                      friction=mu)
    travel = lambda run: (run.positions[:, 1] - run.positions[0, 1]) @ down  # noqa: E731
    acceleration = max(G * (math.sin(theta) - mu * math.cos(theta)), 0.0)
    if math.tan(theta) < mu:
        frames = 96
        check = Check("slope displacement (sticks)", "m", 0.0, 1e-4, False,
                      lambda run: float(np.linalg.norm(run.positions[-1, 1] - run.positions[0, 1])))
    else:
        frames = 36
        check = Check("acceleration along slope", "m/s2", acceleration, 0.02, True,
                      lambda run: float(2 * np.polyfit(np.arange(len(run.positions)) / run.fps,
                                                       travel(run), 2)[0]))
    return Canonical(f"incline {degrees:g} deg mu=0.5", (plane, body),
                     MirrorSettings(frames=frames), (check,), travel,
                     lambda t: 0.5 * acceleration * t**2, "distance down the slope (m)", 1.0)


def _distance(run, body: int) -> np.ndarray:
    """Per frame, how far a body is from where it started."""
    return np.linalg.norm(run.positions[:, body] - run.positions[0, body], axis=1)


def _drift(run, body: int) -> float:
    """Largest distance of a body from where it started, over every frame."""
    return float(_distance(run, body).max())


def _stack(count: int = 10, frames: int = 240, name: str = "stack of",
           worst_frame: bool = False) -> Canonical:
    """Unit boxes resting on each other: they must not sink, slide or jitter (at the end, or
    at every frame)."""
    boxes = tuple(MirrorBody(f"box {i}", "box", (0.5,) * 3, (0.0, 0.0, 0.5 + i), UPRIGHT,
                             restitution=0.0) for i in range(count))
    top = lambda run: run.positions[:, -1]  # noqa: E731
    if worst_frame:
        check = Check("top box drift, worst frame", "m", 0.0, 1e-3, False,
                      lambda run: _drift(run, count))
    else:
        check = Check("top box drift", "m", 0.0, 1e-3, False,
                      lambda run: float(np.linalg.norm(top(run)[-1] - top(run)[0])))
    return Canonical(f"{name} {count}", (GROUND, *boxes), MirrorSettings(frames=frames),
                     (check,), lambda run: _distance(run, count), np.zeros_like,
                     "top box's distance from its start (m)", 1.0)


def _heavy_on_light(ratio: float = 1000.0) -> Canonical:
    """A heavy box resting on a light one: sequential impulses pass too little of the heavy
    body's weight through the light one, which is then crushed and squirts out."""
    light = MirrorBody("light box", "box", (0.5,) * 3, (0.0, 0.0, 0.5), UPRIGHT, mass=1.0,
                       restitution=0.0)
    heavy = MirrorBody("heavy box", "box", (0.5,) * 3, (0.0, 0.0, 1.5), UPRIGHT, mass=ratio,
                       restitution=0.0)
    checks = (
        Check(f"{ratio:g} kg box drift, worst frame", "m", 0.0, 1e-3, False,
              lambda run: _drift(run, 2)),
        Check("1 kg box drift, worst frame", "m", 0.0, 1e-3, False,
              lambda run: _drift(run, 1)),
    )
    return Canonical(f"{ratio:g} kg on 1 kg", (GROUND, light, heavy), MirrorSettings(frames=500),
                     checks, lambda run: _distance(run, 2), np.zeros_like,
                     f"{ratio:g} kg box's distance from its start (m)", 1.0)


def _off_centre() -> Canonical:
    spin = tuple(quat.from_axis_angle(np.array([0.0, 0.0, 1.0]), np.array(math.radians(30))))
    a = MirrorBody("a", "box", (0.5,) * 3, (-1.5, 0.0, 0.0), UPRIGHT, mass=1.0, restitution=1.0,
                   friction=0.0, linear_velocity=(3.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 2.0))
    b = MirrorBody("b", "box", (0.5,) * 3, (0.6, 0.45, 0.25), spin, mass=2.0, restitution=1.0,
                   friction=0.0, angular_velocity=(1.0, 0.0, 0.0))
    bodies = (a, b)
    energy = lambda run: momenta(run, bodies)[0]  # noqa: E731
    checks = (
        Check("kinetic energy change (relative)", "", 0.0, 1e-6, False,
              lambda run: _relative_change(energy(run))),
        Check("linear momentum change (relative)", "", 0.0, 1e-9, False,
              lambda run: _relative_change(momenta(run, bodies)[1])),
        Check("angular momentum change (relative)", "", 0.0, 1e-9, False,
              lambda run: _relative_change(momenta(run, bodies)[2])),
    )
    start = momenta(SimpleNamespace(
        positions=np.array([[b.position for b in bodies]]),
        orientations=np.array([[b.orientation for b in bodies]]),
        linear_velocities=np.array([[b.linear_velocity for b in bodies]]),
        angular_velocities=np.array([[b.angular_velocity for b in bodies]])), bodies)[0][0]
    return Canonical("off-centre elastic with spin", bodies,
                     MirrorSettings(frames=36, gravity=(0.0, 0.0, 0.0)), checks, energy,
                     lambda t: np.full(len(t), start), "kinetic energy (J)", 0.2 * start)


def _cradle(count: int = 5) -> Canonical:
    """Spheres in a row with small gaps, so each collision is a separate two-body event (as in
    a real cradle, where the impulse travels through the balls one contact at a time)."""
    speed, radius, gap = 2.0, 0.5, 0.1
    balls = tuple(MirrorBody(f"ball {k}", "sphere", (radius,) * 3,
                             (k * (2 * radius + gap), 0.0, 0.0), UPRIGHT, restitution=1.0,
                             friction=0.0, linear_velocity=(speed if k == 0 else 0.0, 0.0, 0.0))
                  for k in range(count))
    speeds = lambda run: np.linalg.norm(run.linear_velocities[-1], axis=1) / speed  # noqa: E731
    checks = (
        Check("last ball speed / first ball speed", "", 1.0, 0.02, True,
              lambda run: float(speeds(run)[-1])),
        Check("others' largest speed / first ball speed", "", 0.0, 0.02, False,
              lambda run: float(speeds(run)[:-1].max())),
    )
    start = balls[-1].position[0]
    leaves = (count - 1) * gap / speed  # each ball in turn crosses one gap
    return Canonical(f"newton's cradle of {count}", balls,
                     MirrorSettings(frames=24, gravity=(0.0, 0.0, 0.0)), checks,
                     lambda run: run.positions[:, -1, 0],
                     lambda t: start + speed * np.maximum(t - leaves, 0.0),
                     "x of the last ball (m)", 1.0)


def _tumble() -> Canonical:
    body = MirrorBody("box", "box", (0.6, 0.35, 0.15), (0.0, 0.0, 0.0), UPRIGHT,
                      angular_velocity=(0.02, 4.0, 0.02))
    bodies = (body,)
    checks = (
        Check("|L| change, worst frame (relative)", "", 0.0, 1e-9, False,
              lambda run: _relative_change(
                  np.linalg.norm(momenta(run, bodies)[2], axis=1), last_only=False)),
        Check("kinetic energy change, worst frame (relative)", "", 0.0, 1e-6, False,
              lambda run: _relative_change(momenta(run, bodies)[0], last_only=False)),
    )
    return Canonical("torque-free tumbling box", bodies,
                     MirrorSettings(frames=240, gravity=(0.0, 0.0, 0.0)), checks,
                     lambda run: quat.rotate(quat.conjugate(run.orientations[:, 0]),
                                             run.angular_velocities[:, 0])[:, 1],
                     signal_label="spin about the middle axis (rad/s)", signal_span=8.0)


def _billiard(cut_degrees: float = 53.13, speed: float = 2.0) -> Canonical:
    """A glancing shot between two free, equal, frictionless, elastic balls (billiard size).

    The struck ball leaves along the line of centres at v cos(cut) and the cue ball at right
    angles to it at v sin(cut). Contact is placed 0.37 of a substep into frame 6, so a bounce
    computed from the normal at the start of the substep (balls still apart) shows up.
    """
    radius, mass = 0.028575, 0.17
    cut = math.radians(cut_degrees)
    settings = MirrorSettings(frames=24, gravity=(0.0, 0.0, 0.0))
    touch = (6 * settings.substeps + 0.37) / (settings.fps * settings.substeps)
    offset = 2 * radius * math.sin(cut)
    start = 2 * radius * math.cos(cut) + speed * touch
    cue = MirrorBody("cue ball", "sphere", (radius,) * 3, (-start, -offset, 0.0), UPRIGHT,
                     mass=mass, restitution=1.0, friction=0.0, linear_velocity=(speed, 0.0, 0.0))
    struck = MirrorBody("struck ball", "sphere", (radius,) * 3, (0.0, 0.0, 0.0), UPRIGHT,
                        mass=mass, restitution=1.0, friction=0.0)
    velocity = lambda run, k: run.linear_velocities[-1, k]  # noqa: E731

    def angle(run) -> float:
        a, b = velocity(run, 0), velocity(run, 1)
        return math.degrees(math.acos(np.clip(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)),
                                              -1.0, 1.0)))

    checks = (
        Check("struck ball speed", "m/s", speed * math.cos(cut), 0.005, True,
              lambda run: float(np.linalg.norm(velocity(run, 1)))),
        Check("cue ball speed", "m/s", speed * math.sin(cut), 0.005, True,
              lambda run: float(np.linalg.norm(velocity(run, 0)))),
        Check("angle between the paths", "deg", 90.0, 0.005, True, angle),
    )
    return Canonical(f"billiard cut {cut_degrees:g} deg", (cue, struck), settings, checks,
                     lambda run: np.linalg.norm(run.linear_velocities[:, 1], axis=1),
                     lambda t: np.where(t >= touch, speed * math.cos(cut), 0.0),
                     "speed of the struck ball (m/s)", speed)


def canonical_scenes(only: str = "") -> list[Canonical]:
    """Every canonical scene, or those whose name contains `only` (case-insensitive)."""
    drops = [_drop(shape, e) for shape in ("box", "sphere") for e in (0, 0.3, 0.5, 0.8, 1)]
    scenes = [*drops, _slide(), _incline(20), _incline(35), _stack(), _off_centre(), _cradle(),
              _tumble(), _heavy_on_light(), _stack(20, 1000, "column of", worst_frame=True),
              _billiard()]
    return [scene for scene in scenes if only.lower() in scene.name.lower()]
