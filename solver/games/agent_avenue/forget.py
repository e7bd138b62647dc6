"""Agent Avenue's public model (public.py) where it forgets which cards were discarded.

**Forgetting discards** (``params.forget``: the search agent's model of the full game,
whose exact numbering has 108,901 states a seat): a state is the hand alone, and the ratio
weighs the cards it knows. A discarded card d then leaves the ratio, which multiplies each
pair's weight by (N - K + 1) / (n (c_d - D_d + 1)) (docs/search.md, "the forgotten
discard's weight"): the model would value each swap by the card it discards, not by its
worth. So from the discard to its draw the mover's state keeps the name d (a pending
numbering, as a face-down card's: hand and d), and the draw's probabilities carry
``discard_weight``: n times the chance that a card the mover has not seen is a d
(c_d less those in play and in its hand, over all such cards), the factor's mean over the
opponent's hands as the deal draws them (exact for one-copy names, which the opponent
cannot hold). A seat's weight is then kept through a discard on average over the
opponent's prior hands, not pair by pair (that needs the name until the end: the exact
numbering).
"""

from __future__ import annotations

from numba import njit

from spycfr.games.agent_avenue.multiset import digit
from spycfr.games.agent_avenue.numbering import (
    DEAD,
    cards_left,
    decode,
    scheme_size,
    swap_draw,
    swap_scheme,
)


@njit(cache=True)
def weigh_swap_draw(pub, params, hand, name, probs, m):
    """A swap's draw (:func:`private_chance`, and public_advanced.py's): its ``m`` outcomes'
    probabilities times :func:`discard_weight` of the name discarded, ``name`` (-1: the
    mover's state keeps none, nothing to weigh), so that the swap carries the discard's
    deck probability."""
    if name >= 0:
        f = discard_weight(pub, params, hand, name)
        for e in range(m):
            probs[e] *= f


@njit(cache=True)
def discard_weight(pub, params, hand, d):
    """n times the probability that a card the mover has not seen (not in play, not in
    ``hand``: what it holds after discarding a d) is a d: what a forgetting model's swap
    multiplies its weight by at the draw, so that the mover's weight summed over the
    opponent's hands as the deal draws them is the same as before the discard (the
    discarded card's deck probability in place of the model's 1/n; the module notes)."""
    unseen = 0
    for t in range(params.n):
        unseen += cards_left(pub, params, t) - digit(hand, t)
    return params.n * (cards_left(pub, params, d) - digit(hand, d)) / float(unseen)


@njit(cache=True)
def state_weight(pub, params, seat, i):
    """The weight a pair's card-removal ratio carries for ``seat``'s state i at ``pub``
    besides the cards it holds: :func:`discard_weight` at a swap's draw where the model
    forgets discards (the draw then carries it), else 1."""
    if not swap_draw(pub, params, seat):
        return 1.0
    pending, hs, ds = swap_scheme(pub, params, seat)  # scheme's, swap_draw known
    if i == DEAD or i >= scheme_size(params, pending, hs, ds):
        return 1.0
    hand, _, name = decode(params, pending, hs, ds, i)
    return discard_weight(pub, params, hand, name)
