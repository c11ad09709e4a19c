"""A row of dominoes toppled by a rolling ball, the bundled demo's set-up, solver only."""

import numpy as np

from solver import World

THICKNESS = 0.08  # m; the demo's dominoes are 8 cm x 25 cm x 50 cm, 0.3 m apart, 700 kg/m³


def _demo_dominoes(substeps: int = 10) -> World:
    """The demo's row at its bake settings (24 fps, 10 substeps, 10 iterations): ten dominoes
    on a ground slab, an 8 kg ball of 0.3 m rolling into the first at 3.5 m/s."""
    world = World(substeps=substeps)
    world.add_body(size=(20.0, 20.0, 0.1), position=(1.0, 0.0, -0.1), kind="static",
                   friction=0.5, restitution=0.5)
    for i in range(10):
        world.add_body(size=(THICKNESS / 2, 0.125, 0.25), position=(0.4 + 0.3 * i, -3.0, 0.25),
                       density=700.0, friction=0.5, restitution=0.1)
    world.add_body("sphere", 0.3, position=(-1.5, -3.0, 0.3), mass=8.0, restitution=0.2,
                   friction=0.4, linear_velocity=(3.5, 0.0, 0.0),
                   angular_velocity=(0.0, 3.5 / 0.3, 0.0))
    return world


def test_toppling_dominoes_do_not_sink_into_each_other():
    world = _demo_dominoes()
    trajectory = world.simulate(60)
    # every domino has fallen (its centre from 25 cm to below 12 cm)
    assert np.all(world.bodies.position[1:11, 2] < 0.12)
    # and no contact point was ever deeper than 5 % of a domino's thickness (a top edge closing
    # on the next face as one edge-edge point twisted and sank 7 mm in a substep)
    assert trajectory.max_penetration.max() < 0.05 * THICKNESS


def test_the_ball_pressing_on_the_turning_first_domino_stays_within_the_slop():
    """The demo's row, 10 substeps: the ball pushes the first domino over and presses on its
    back face as it turns, which sinks the ball's centre ½ (c + r) ω² h² a substep beyond its
    straight line (c the domino's half-thickness, r the ball's radius); lifted in advance like
    a box's corner, no contact gets deeper than 0.6 mm (slop 0.5 mm; measured 0.54 mm, the
    ball 0.50 mm; it pressed 0.66 mm unlifted)."""
    world = _demo_dominoes()
    trajectory = world.simulate(60)
    assert np.all(world.bodies.position[1:11, 2] < 0.12)  # every domino has fallen
    assert trajectory.max_penetration.max() < 0.6e-3


def test_dominoes_at_five_substeps_sink_no_more_than_six_slops():
    """The demo's row at 5 substeps. Its dominoes turn fast enough for CCD, which held a
    domino where the body pressing on it would sink a slop deeper, while that body (the ball
    on the first, the ninth domino on the last) moved the whole substep: they sank 3.4 and
    11 mm. A body pressing on a held one is now held with it: no contact gets deeper than
    3 mm (slop 0.5 mm; measured 2.53 mm, the last two dominoes turning together at over
    0.05 rad a substep, beyond the push-out's lift; the ball 0.50 mm)."""
    world = _demo_dominoes(substeps=5)
    trajectory = world.simulate(60)
    assert np.all(world.bodies.position[1:11, 2] < 0.12)
    assert trajectory.max_penetration.max() < 3e-3


def test_dominoes_turning_together_stay_within_the_slop():
    """The demo's row toppled by a push on its first domino (no ball, so every contact is a box
    on a box), 10 substeps: the dominoes lean on each other as they turn, and the turning faces
    sink each edge on them 0.15 mm a substep beyond its straight line; lifted in advance, no
    contact gets deeper than 0.65 mm (slop 0.5 mm; measured 0.58 mm, 1.21 mm before)."""
    world = World()
    world.add_body(size=(20.0, 20.0, 0.1), position=(1.0, 0.0, -0.1), kind="static",
                   friction=0.5, restitution=0.5)
    for i in range(10):
        world.add_body(size=(THICKNESS / 2, 0.125, 0.25), position=(0.4 + 0.3 * i, -3.0, 0.25),
                       density=700.0, friction=0.5, restitution=0.1,
                       linear_velocity=(0.75 if i == 0 else 0.0, 0.0, 0.0),
                       angular_velocity=(0.0, 3.0 if i == 0 else 0.0, 0.0))
    trajectory = world.simulate(60)
    assert np.all(world.bodies.position[1:11, 2] < 0.12)  # every domino has fallen
    assert trajectory.max_penetration.max() < 0.65e-3
