"""How the restitution and friction of two touching bodies combine into one value for the pair.

Blender's built-in rigid body world (Bullet) multiplies the two values, so "multiply" is the
default: a body with friction 0 makes every contact it has frictionless, like ice.
"""

import numpy as np

COMBINE_RULES = {
    "average": lambda x, y: 0.5 * (x + y),
    "minimum": np.minimum,
    "maximum": np.maximum,
    "multiply": np.multiply,
}


def check_rule(rule: str) -> str:
    """Fail early, when the World is built, rather than at the first contact."""
    if rule not in COMBINE_RULES:
        raise ValueError(f"unknown combine rule {rule!r}; use one of {sorted(COMBINE_RULES)}")
    return rule


def combine(rule: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The pair value of per-body values x and y (arrays over contacts) under `rule`."""
    return COMBINE_RULES[rule](np.asarray(x, dtype=float), np.asarray(y, dtype=float))
