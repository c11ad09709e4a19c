"""Checks for the solver's public arguments, so a bad value fails where it is given.

Without them NaN, inf or a wrong shape surfaces frames later as NaN poses or a numpy error deep
in a kernel. Each check returns the value converted (float, int or a float array) or raises
TypeError (not a number / not an integer) or ValueError (wrong value or shape), with a message
"<where>: <name> must be ..., got <value>". bool is not accepted as a number here.
"""

import numbers

import numpy as np


def _shown(value) -> str:
    """The offending value, short: floats for numbers, repr for anything else."""
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return repr(value)
    if array.ndim == 0:
        return repr(float(array))
    if array.ndim == 1 and array.size <= 8:
        return "(" + ", ".join(repr(float(v)) for v in array) + ")"
    return f"an array of shape {array.shape}"


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def finite_number(where: str, name: str, value) -> float:
    """A real, finite number."""
    if not _is_number(value):
        raise TypeError(f"{where}: {name} must be a number, got {value!r}")
    if not np.isfinite(value):
        raise ValueError(f"{where}: {name} must be a finite number, got {_shown(value)}")
    return float(value)


def non_negative(where: str, name: str, value) -> float:
    """A finite number >= 0 (friction, drag, damping)."""
    number = finite_number(where, name, value)
    if number < 0.0:
        raise ValueError(f"{where}: {name} must be a finite number >= 0, got {_shown(value)}")
    return number


def positive_finite(where: str, name: str, value) -> float:
    """A finite number > 0 (mass, density, fps, a radius)."""
    number = finite_number(where, name, value)
    if not number > 0.0:
        raise ValueError(f"{where}: {name} must be a positive finite number, got {_shown(value)}")
    return number


def in_range(where: str, name: str, value, low: float, high: float) -> float:
    """A finite number in [low, high] (restitution)."""
    number = finite_number(where, name, value)
    if not low <= number <= high:
        raise ValueError(f"{where}: {name} must be in [{low}, {high}], got {_shown(value)}")
    return number


def integer_at_least(where: str, name: str, value, minimum: int) -> int:
    """An int or numpy integer >= minimum; floats (even 2.0) and bools are refused."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{where}: {name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{where}: {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def positive_int(where: str, name: str, value) -> int:
    """An integer >= 1 (substeps, iterations, samples per frame)."""
    return integer_at_least(where, name, value, 1)


def finite_array(where: str, name: str, value, shape: tuple, what: str) -> np.ndarray:
    """A float array of exactly `shape` (-1 for any length), all finite; `what` describes it."""
    try:
        raw = np.asarray(value)
    except ValueError:  # ragged nesting
        raise ValueError(f"{where}: {name} must be {what}, got {value!r}") from None
    if raw.dtype.kind not in "iuf":  # bools, strings, None and other objects
        raise TypeError(f"{where}: {name} must be {what}, got {value!r}")
    array = raw.astype(float)
    fits = array.ndim == len(shape) and all(
        n in (-1, m) for n, m in zip(shape, array.shape, strict=False))
    if not fits or not np.all(np.isfinite(array)):
        raise ValueError(f"{where}: {name} must be {what}, got {_shown(value)}")
    return array


def finite_vector(where: str, name: str, value, length: int) -> np.ndarray:
    """`length` finite numbers (a tuple, list or 1-D array; a lone number is refused)."""
    return finite_array(where, name, value, (length,), f"{length} finite numbers")


def unit_quaternion(where: str, name: str, value) -> np.ndarray:
    """4 finite numbers (w, x, y, z), not all zero, returned normalised."""
    q = finite_vector(where, name, value, 4)
    norm = float(np.linalg.norm(q))
    if not 1e-12 < norm < np.inf:
        raise ValueError(f"{where}: {name} must be a non-zero quaternion (w, x, y, z), "
                         f"got {_shown(value)}")
    return q / norm


def optional_callable(where: str, name: str, value):
    """None or something callable (progress and cancel callbacks)."""
    if value is not None and not callable(value):
        raise TypeError(f"{where}: {name} must be callable or None, got {value!r}")
    return value


def positive_vector(where: str, name: str, value, length: int) -> np.ndarray:
    """`length` finite numbers, each > 0 (a box's half-extents)."""
    what = f"{length} positive finite numbers"
    array = finite_array(where, name, value, (length,), what)
    if not np.all(array > 0.0):
        raise ValueError(f"{where}: {name} must be {what}, got {_shown(value)}")
    return array
