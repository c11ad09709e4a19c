"""The benchmark scenes as plain data (numpy only), so the solver on its own and both Blender
routes (Impulse's bake and the built-in rigid body world) are given exactly the same bodies.

Every box scene stands on a static ground slab whose top face is z = 0. Sizes are half-extents in
metres, orientations quaternions (w, x, y, z); every body of those uses the BOX shape. The
Suzanne scene (issue #11) drops convex hulls on a static triangle-mesh terrain instead.
"""

from dataclasses import dataclass

import numpy as np

FPS = 24
SUBSTEPS = 10
ITERATIONS = 10
RESTITUTION = 0.5
FRICTION = 0.5
DENSITY = 1000.0  # kg/m³ for every dynamic body


@dataclass(frozen=True)
class Body:
    half: tuple[float, float, float]
    position: tuple[float, float, float]
    orientation: tuple[float, float, float, float] = (1.0, 0.0, 0.0, 0.0)
    velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)
    spin: tuple[float, float, float] = (0.0, 0.0, 0.0)  # rad/s, world frame
    static: bool = False


@dataclass(frozen=True)
class Scene:
    name: str
    frames: int
    bodies: tuple[Body, ...]  # the ground first

    @property
    def dynamic(self) -> int:
        return sum(not body.static for body in self.bodies)


def ground(half: float = 50.0) -> Body:
    return Body(half=(half, half, 0.5), position=(0.0, 0.0, -0.5), static=True)


def _boxes(centres: np.ndarray, half: float = 0.5, **extra) -> list[Body]:
    return [Body(half=(half,) * 3, position=tuple(map(float, c)), **extra) for c in centres]


def pile(count: int, frames: int = 250) -> Scene:
    """`count` 1 m boxes in a cube-ish grid, 1.5 m apart, lowest layer 2 m above the ground."""
    side = round(count ** (1 / 3))
    index = np.arange(count)
    i, j, k = index % side, (index // side) % side, index // (side * side)
    offset = (side - 1) / 2 * 1.5
    centres = np.stack([i * 1.5 - offset, j * 1.5 - offset, 2.5 + k * 1.5], axis=1)
    return Scene(f"pile {count}", frames, (ground(), *_boxes(centres)))


def stack(count: int = 10, frames: int = 250) -> Scene:
    """`count` 1 m boxes resting on each other (1 mm gaps)."""
    centres = np.array([[0.0, 0.0, 0.5 + 1.001 * n] for n in range(count)])
    return Scene(f"stack {count}", frames, (ground(), *_boxes(centres)))


def jittered(count: int = 50, frames: int = 250) -> Scene:
    """`count` 1 m boxes at random spots and tilts in a 6 × 6 × 12 m column above the ground."""
    rng = np.random.default_rng(7)
    centres = rng.uniform((-3.0, -3.0, 1.0), (3.0, 3.0, 13.0), size=(count, 3))
    tilts = rng.normal(size=(count, 4))
    tilts /= np.linalg.norm(tilts, axis=1, keepdims=True)
    bodies = [Body(half=(0.5,) * 3, position=tuple(map(float, c)), orientation=tuple(map(float, q)))
              for c, q in zip(centres, tilts, strict=True)]
    return Scene(f"jittered {count}", frames, (ground(), *bodies))


def spinning(frames: int = 72) -> Scene:
    """One 1 m box spinning at 80 rad/s, dropped from 1 m (the rotation and CCD cliff)."""
    box = Body(half=(0.5,) * 3, position=(0.0, 0.0, 1.5), spin=(80.0, 0.0, 0.0))
    return Scene("spin 80 rad/s", frames, (ground(), box))


def burst(count: int = 500, frames: int = 48) -> Scene:
    """`count` 0.2 m boxes all starting at one point 2 m up (the total-overlap cliff)."""
    centres = np.tile([0.0, 0.0, 2.0], (count, 1))
    return Scene(f"burst {count}", frames, (ground(), *_boxes(centres, half=0.1)))


def cluster(count: int = 60, frames: int = 120) -> Scene:
    """`count` boxes of mixed sizes (0.1-0.6 m) and shapes packed touching in a 4 × 4 column."""
    rng = np.random.default_rng(3)
    halves = rng.uniform(0.05, 0.3, size=(count, 3))
    bodies = []
    for n, half in enumerate(halves):
        column, level = n % 16, n // 16
        position = ((column % 4 - 1.5) * 0.6, (column // 4 - 1.5) * 0.6, 0.3 + level * 0.6)
        bodies.append(Body(half=tuple(map(float, half)), position=position))
    return Scene(f"cluster {count}", frames, (ground(), *bodies))


PILE_SIZES = (8, 27, 64, 125, 343, 1000, 2197)


def by_name() -> dict[str, Scene]:
    """Every scene but the demo (which is built by the extension itself), by a short key."""
    scenes = {"stack10": stack(), "jitter50": jittered(), "spin80": spinning(),
              "burst500": burst(), "cluster60": cluster()}
    scenes |= {f"pile{n}": pile(n) for n in PILE_SIZES}
    return scenes


@dataclass(frozen=True)
class MeshScene:
    """Identical convex bodies (one mesh, e.g. Suzanne) dropped on a static triangle-mesh terrain.

    The body mesh itself is Blender's (bmesh.ops.create_monkey), so it is not stored here: each
    body is its object's pose, the mesh's own vertices in the object's frame.
    """

    name: str
    frames: int
    terrain_vertices: np.ndarray  # (V, 3) world = the terrain object's frame
    terrain_triangles: np.ndarray  # (T, 3) int
    positions: np.ndarray  # (N, 3) object origins
    orientations: np.ndarray  # (N, 4) unit quaternions (w, x, y, z)


def terrain_height(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Smooth hills (±1 m, 16 m and 23 m waves) in a shallow bowl (+2.3 m at 24 m out), so the
    bodies collect towards the middle and never roll off the edge."""
    hills = np.sin(2 * np.pi * x / 16.0) * np.cos(2 * np.pi * y / 16.0)
    ridges = 0.5 * np.sin(2 * np.pi * (x + 0.6 * y) / 23.0)
    return hills + ridges + 0.004 * (x * x + y * y)


def terrain(cells: int = 64, extent: float = 48.0) -> tuple[np.ndarray, np.ndarray]:
    """A `cells` × `cells` grid of quads over an `extent` m square, two triangles per quad,
    displaced by terrain_height; triangles counter-clockwise seen from above."""
    ticks = np.linspace(-extent / 2, extent / 2, cells + 1)
    x, y = np.meshgrid(ticks, ticks, indexing="xy")
    vertices = np.stack([x.ravel(), y.ravel(), terrain_height(x, y).ravel()], axis=1)
    row = cells + 1
    i, j = np.meshgrid(np.arange(cells), np.arange(cells), indexing="xy")
    a = (j * row + i).ravel()
    b, c, d = a + 1, a + row + 1, a + row
    triangles = np.concatenate([np.stack([a, b, c], 1), np.stack([a, c, d], 1)])
    return vertices, triangles.astype(np.int64)


def suzannes(count: int = 200, frames: int = 120, spacing: float = 3.0) -> MeshScene:
    """`count` Suzannes (2.7 × 2.0 × 1.7 m each) at random tilts in layers of a 10 × 10 grid
    `spacing` m apart, the lowest 3 m above the hills under it, each layer 3.5 m higher."""
    rng = np.random.default_rng(11)
    side = 10
    index = np.arange(count)
    column, layer = index % (side * side), index // (side * side)
    x = (column % side - (side - 1) / 2) * spacing + rng.uniform(-0.3, 0.3, count)
    y = (column // side - (side - 1) / 2) * spacing + rng.uniform(-0.3, 0.3, count)
    z = terrain_height(x, y) + 3.0 + 3.5 * layer
    tilts = rng.normal(size=(count, 4))
    tilts /= np.linalg.norm(tilts, axis=1, keepdims=True)
    vertices, triangles = terrain()
    return MeshScene(f"suzannes {count}", frames, vertices, triangles,
                     np.stack([x, y, z], axis=1), tilts)
