"""Graph colouring of contact manifolds so Gauss–Seidel can run as numpy batches.

Sequential impulses update the two bodies of one manifold before the next one is solved. If no
body appears twice in a batch, solving the whole batch at once gives exactly the sequential
result, so the manifolds (pairs) are split into colours: within a colour every movable body
occurs at most once (static and kinematic bodies never change velocity, so they may repeat).

Each colour is grown as a maximal set by rounds of "a contact joins when it has the lowest index
among the waiting contacts at each of its movable bodies", a deterministic parallel greedy rule.
"""

import numpy as np


def color_contacts(a: np.ndarray, b: np.ndarray, movable: np.ndarray):
    """(order, starts): contacts order[starts[c]:starts[c + 1]] form colour c.

    a, b (K,) body indices; movable (N,) bool. Lower contact indices get lower colours, so the
    result depends only on the input order.
    """
    count = len(a)
    colour = np.full(count, -1, dtype=np.int64)
    index = np.arange(count)
    waiting = index
    sentinel = np.full(len(movable), count)
    c = 0
    while len(waiting):
        candidates = waiting
        used = np.zeros(len(movable), dtype=bool)
        while len(candidates):
            ca, cb = a[candidates], b[candidates]
            lowest = sentinel.copy()
            np.minimum.at(lowest, ca, candidates)
            np.minimum.at(lowest, cb, candidates)
            wins = ((~movable[ca]) | (lowest[ca] == candidates)) & (
                (~movable[cb]) | (lowest[cb] == candidates)
            )
            chosen = candidates[wins]
            colour[chosen] = c
            used[a[chosen]] = True
            used[b[chosen]] = True
            rest = candidates[~wins]
            blocked = (used[a[rest]] & movable[a[rest]]) | (used[b[rest]] & movable[b[rest]])
            candidates = rest[~blocked]
        waiting = waiting[colour[waiting] < 0]
        c += 1
    order = np.argsort(colour, kind="stable")
    starts = np.searchsorted(colour[order], np.arange(c + 1))
    return order, starts
