"""Compile (or load from numba's cache) every kernel before the first real simulation, so a
caller can time and announce it ("Compiling the solver, first use only") apart from the bake."""

import numpy as np

from .world import World

_TETRAHEDRON = np.array([[0.1, 0.0, -0.05], [-0.05, 0.09, -0.05], [-0.05, -0.09, -0.05],
                         [0.0, 0.0, 0.1]])
_FLOOR = (np.array([[-1.0, -1.0, 0.0], [1.0, -1.0, 0.0], [1.0, 1.0, 0.0], [-1.0, 1.0, 0.0]]),
          np.array([[0, 1, 2], [0, 2, 3]]))


def warm_up(other_shapes: bool = True, boxes_and_spheres: bool = True) -> None:
    """Run tiny worlds that touch every kernel a world of boxes and spheres uses: box and
    sphere contacts (one box sunk into the ground, for the push-out and the contact sets; a
    falling sphere, for the bounce and CCD), refreshed contacts in a second substep, sleeping,
    both methods. With other_shapes (World.other_shapes), also every other shape (capsule,
    cylinder, cone, hull, compound) on a mesh floor and on each other, two of them fast enough
    for CCD: that part takes most of a first-use compile, so callers skip it until needed.
    boxes_and_spheres=False skips the first part, for a session that ran it already (its
    worlds cost about 0.1 s even with every kernel loaded)."""
    if boxes_and_spheres:
        _boxes_and_spheres()
    if other_shapes:
        _other_shapes()


def _boxes_and_spheres() -> None:
    for method in ("impulse", "penalty"):
        world = World(fps=24, substeps=2, iterations=2, method=method, sleeping=True)
        world.add_body(shape="box", size=(1.0, 1.0, 0.1), position=(0.0, 0.0, -0.1),
                       kind="static")
        world.add_body(shape="box", size=(0.1, 0.1, 0.1), position=(0.0, 0.0, 0.098),
                       orientation=(1.0, 0.01, 0.0, 0.0))
        world.add_body(shape="sphere", size=0.1, position=(0.05, 0.0, 0.32),
                       linear_velocity=(0.0, 0.0, -3.0))
        world.simulate(2)
    # Bodies in flight meeting head on, fast enough for CCD: the time-of-impact bounce; a box
    # spinning about the line to another, near enough for its spin to reach it, which never
    # touches it (kept apart); and a spinning box hitting one that touches a third, which
    # CCD holds short of them (World._hold_short_of_partners).
    world = World(gravity=(0.0, 0.0, 0.0), fps=24, substeps=2, iterations=2)
    world.add_body(shape="box", size=(0.1, 0.1, 0.1), position=(0.0, -3.0, 0.0),
                   linear_velocity=(20.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 30.0))
    for x in (1.0, 1.2):
        world.add_body(shape="box", size=(0.1, 0.1, 0.1), position=(x, -3.0, 0.0))
    world.add_body(shape="box", size=(0.1, 0.1, 0.1), position=(0.0, 3.0, 0.0),
                   angular_velocity=(0.0, 50.0, 0.0))
    world.add_body(shape="box", size=(0.1, 0.1, 0.1), position=(0.0, 3.25, 0.0))
    world.add_body(shape="box", size=(0.1, 0.1, 0.1), linear_velocity=(20.0, 0.0, 0.0))
    world.add_body(shape="box", size=(0.1, 0.1, 0.1), position=(1.0, 0.0, 0.0))
    world.add_body(shape="sphere", size=0.1, position=(0.0, 1.0, 0.0),
                   linear_velocity=(20.0, 0.0, 0.0))
    world.add_body(shape="sphere", size=0.1, position=(1.0, 1.0, 0.0))
    world.simulate(2)


def _other_shapes() -> None:
    world = World(fps=24, substeps=2, iterations=2)
    world.add_body(shape="mesh", vertices=_FLOOR[0], triangles=_FLOOR[1], kind="static")
    world.add_body(shape="box", size=(0.3, 0.3, 0.05), position=(0.6, 0.6, 0.05),
                   kind="static")
    world.add_body(shape="capsule", size=(0.05, 0.1), position=(-0.5, 0.0, 0.049),
                   orientation=(0.7071, 0.7071, 0.0, 0.0))
    world.add_body(shape="cylinder", size=(0.1, 0.1), position=(0.0, 0.0, 0.099))
    world.add_body(shape="cone", size=(0.1, 0.1), position=(0.0, 0.0, 0.3))
    world.add_body(shape="hull", points=_TETRAHEDRON, position=(0.5, 0.0, 0.3),
                   linear_velocity=(0.0, 0.0, -8.0))
    world.add_body(shape="compound", position=(0.6, 0.6, 0.2), parts=[
        dict(shape="box", size=(0.05, 0.05, 0.05)), dict(shape="sphere", size=0.05,
                                                         position=(0.0, 0.0, 0.1))])
    # a spinning cylinder falling fast onto a box on the floor: CCD holds it short of the box
    world.add_body(shape="cylinder", size=(0.1, 0.1), position=(0.5, -0.5, 0.5),
                   linear_velocity=(0.0, 0.0, -8.0), angular_velocity=(30.0, 0.0, 0.0))
    world.add_body(shape="box", size=(0.05, 0.05, 0.05), position=(0.5, -0.5, 0.05))
    world.simulate(2)
