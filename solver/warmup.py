"""Compile (or load from numba's cache) every kernel before the first real simulation, so a
caller can time and announce it ("Compiling the solver, first use only") apart from the bake."""

from .world import World


def warm_up() -> None:
    """Run a tiny world that touches every kernel: box and sphere contacts (one box sunk into
    the ground, for the push-out and the contact sets; a falling sphere, for the bounce and
    CCD), refreshed contacts in a second substep, sleeping, both methods."""
    for method in ("impulse", "penalty"):
        world = World(fps=24, substeps=2, iterations=2, method=method, sleeping=True)
        world.add_body(shape="box", size=(1.0, 1.0, 0.1), position=(0.0, 0.0, -0.1),
                       kind="static")
        world.add_body(shape="box", size=(0.1, 0.1, 0.1), position=(0.0, 0.0, 0.098),
                       orientation=(1.0, 0.01, 0.0, 0.0))
        world.add_body(shape="sphere", size=0.1, position=(0.05, 0.0, 0.32),
                       linear_velocity=(0.0, 0.0, -3.0))
        world.simulate(2)
