"""Random Agent Avenue games for the tests: moves uniform over the legal ones, chance by the
rules' probabilities, seeded (the loop that test_agent_avenue_rollout.py and
test_agent_avenue_advanced.py each wrote)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from spycfr.games.agent_avenue import rules as R
from spycfr.tree import CHANCE


def random_states(rules, params, games: int, seed: int,
                  keep: Callable[[np.ndarray], Any]) -> list:
    """What ``keep`` makes of each state (None: nothing kept) of ``games`` random games of
    ``rules`` (a rules module of Agent Avenue: simple or advanced) played under ``params``
    from a generator seeded with ``seed``, game by game, state by state."""
    rng = np.random.default_rng(seed)
    acts = np.zeros(rules.max_actions(params), np.int32)
    probs = np.zeros(rules.max_actions(params))
    out = []
    for _ in range(games):
        state = rules.initial_state(params)
        while state[R.PHASE] != R.PH_OVER:
            got = keep(state)
            if got is not None:
                out.append(got)
            if rules.current_player(state, params) == CHANCE:
                k = rules.chance_outcomes(state, params, acts, probs)
                a = acts[rng.choice(k, p=probs[:k] / probs[:k].sum())]
            else:
                a = acts[rng.integers(rules.legal_actions(state, params, acts))]
            nxt = np.empty_like(state)
            rules.apply_action(state, params, a, nxt)
            state = nxt
    return out


def recruitments(rules, params, games: int, seed: int) -> list[np.ndarray]:
    """Every recruitment (the state) of random games (:func:`random_states`)."""
    return random_states(rules, params, games, seed,
                         lambda s: s.copy() if s[R.PHASE] == R.PH_RECRUIT else None)
