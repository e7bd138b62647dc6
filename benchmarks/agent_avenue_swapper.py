"""What Agent Avenue's discards are worth to the heuristic, and when to spend them: games from
the deal of a heuristic that discards by ``rules.swap_choice`` at margin M (the rollouts'
swapper style at SWAP_MARGIN; M very low: every discard on its first turn) against the
heuristic, which never discards, in both seats; per margin the mean payoff with its 95%
interval, the discards it used a game and those on its first turn, and its games minus the
first margin's game by game (the same deals).

    python benchmarks/agent_avenue_swapper.py --games 3000 --margins=-1e9,0.5,1,1.5 [--seed 11]

(``--margins=`` with the equals sign where the first margin is negative: argparse reads a bare
``-1e9,...`` as an option.) Simple mode's presets only: the swapper is rules.py's.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from numba import njit

from spycfr.engine.rng import sample
from spycfr.errors import SpycfrError
from spycfr.games import make_variant
from spycfr.games.agent_avenue import rules as R
from spycfr.games.agent_avenue.rollout_common import draw_card
from spycfr.tree import CHANCE


@njit(cache=True)
def _play(params, state, margin, seat, first_turn):
    """P1's payoff of the game from the dealt ``state``: ``seat`` the swapper at ``margin``,
    the other the heuristic, the draws by numba's generator; and the discards ``seat``
    used (``first_turn[0]`` counts those of its first turn)."""
    nxt = np.empty(R.STATE_SIZE, np.int16)
    actions = np.empty(R.max_actions(params), np.int32)
    probs = np.empty(R.max_actions(params))
    x = np.zeros(R.MAX_NAMES, np.int64)
    while state[R.PHASE] != R.PH_OVER:
        who = R.current_player(state, params)
        if who == CHANCE:  # a swap's draw or the refill, card by card (rollout.play_out's)
            k = 1 if state[R.PHASE] == R.PH_SWAP_DRAW else R.draw_count(
                state, params, state[R.ACTIVE])
            x[:] = 0
            for _ in range(k):
                x[draw_card(state, params)] += 1
            for t in range(params.n):
                state[R.DECK + t] += x[t]
            state[R.DECKSIZE] += k
            action = R.draw_code(x, params.n)
        else:
            action = -1
            if who == seat and state[R.PHASE] == R.PH_PLAY:
                c = R.swap_choice(state, params, who, margin)
                if c >= 0:
                    action = (R.T_SWAP << 20) | c
                    first_turn[0] += state[R.TURN] < 2
            if action < 0:
                k = R.legal_actions(state, params, actions)
                R.heuristic_policy(state, params, actions, k, probs)
                action = actions[sample(probs, k, np.random.random())]
        R.apply_action(state, params, action, nxt)
        state[:] = nxt
    return R.returns_p1(state, params), params.discards - state[R.DLEFT + seat]


@njit(cache=True)
def _games(params, n, margin, seat, seed):
    np.random.seed(seed)
    payoff, used, first_turn = np.empty(n), np.empty(n), np.zeros(1, np.int64)
    codes = np.empty(4096, np.int64)
    probs = np.empty(4096)
    nxt = np.empty(R.STATE_SIZE, np.int16)
    for g in range(n):
        state = R.initial_state(params)
        while state[R.PHASE] == R.PH_DEAL0 or state[R.PHASE] == R.PH_DEAL1:
            k = R.chance_outcomes(state, params, codes, probs)
            R.apply_action(state, params, codes[sample(probs, k, np.random.random())], nxt)
            state[:] = nxt
        payoff[g], used[g] = _play(params, state, margin, seat, first_turn)
    return payoff, used, first_turn[0]


def _interval(v: np.ndarray, bound: float = 1.0) -> str:
    """The mean of payoffs in ``[-bound, bound]`` with its 95% interval (headtohead.mean_ci:
    clipped to that range, a sound small-sample bound where every payoff is the same)."""
    from spycfr.analysis.headtohead import mean_ci

    r = mean_ci(v, bound)
    return f"{r['mean']:+.3f} [{r['ci95'][0]:+.3f}, {r['ci95'][1]:+.3f}] in {v.size}"


def margins_of(text: str) -> list[float]:
    """--margins' comma-separated numbers; ValueError naming the one that is not."""
    out = []
    for m in text.split(","):
        try:
            out.append(float(m))
        except ValueError:
            raise ValueError(f"--margins: {m!r} is not a number (comma-separated margins in "
                             "spaces, e.g. --margins=-1e9,0,1)") from None
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=3000,
                    help="games per margin and seat (at least 2, for the interval)")
    ap.add_argument("--margins", default="-1e9,0.5,1,1.5",
                    help="comma-separated margins in spaces (rules.SWAP_MARGIN is the style's; "
                    "a negative first one as --margins=-1e9,...)")
    ap.add_argument("--preset", default="standard", help="a simple-mode Agent Avenue preset")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args(argv)
    if args.games < 2:
        ap.exit(2, "error: --games must be at least 2 (the interval's deviation)\n")
    try:
        margins = margins_of(args.margins)
        variant = make_variant("agent-avenue", args.preset)
        if variant.rules is not R:
            raise ValueError(f"preset {args.preset!r} is not simple mode's 1v1 game: the "
                             "swapper is rules.py's (e.g. tiny, mini, small, standard)")
    except (ValueError, SpycfrError) as e:
        ap.exit(2, f"error: {e}\n")
    params = variant.to_params()
    start = time.time()
    first_margin, first_games = None, np.empty(0)
    for margin in margins:
        both = []
        for seat in (0, 1):
            x, used, first = _games(params, args.games, margin, seat, args.seed + seat)
            mine = x if seat == 0 else -x
            both.append(mine)
            print(f"margin {margin:g}, the swapper as P{seat + 1}: {_interval(mine)}; discards "
                  f"{used.mean():.2f} a game, {first / args.games:.2f} on its first turn",
                  flush=True)
        games = np.concatenate(both)
        print(f"margin {margin:g}, both seats: {_interval(games)}", flush=True)
        if first_margin is None:
            first_margin, first_games = margin, games
        else:  # the same deals (each seat's seed), the games apart once the play differs
            print(f"margin {margin:g} minus margin {first_margin:g}, game by game (the same "
                  f"deals): {_interval(games - first_games, 2.0)}", flush=True)
    print(f"{time.time() - start:.0f} s")


if __name__ == "__main__":
    sys.exit(main())
