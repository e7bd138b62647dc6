"""Agent Avenue advanced: how often the heuristic's black market take misses a card that wins
at once. Games of the advanced heuristic against itself (its moves, the rules' chance); at
each take every card in the supply is played on ``--looks`` times to the End step of the
turn (the heuristic's moves, chance sampled), and counted as a sure win where the taker won
in every one. Prints the takes, those with a sure win in the supply, those where the
heuristic's own card is not one, and the first few of those (game, taker, cards, each card's
worst and best outcome: +1 won, 0 the game goes on, -1 lost).

    python benchmarks/advanced_takes.py [--games 300] [--looks 12] [--seed 0]

The search agent's rollout leaves play this heuristic (rollout_advanced.py): docs/search.md,
"A value that leaps at a black market take".
"""

from __future__ import annotations

import argparse

import numpy as np


def main(games: int, looks: int, seed: int) -> None:
    from spycfr.games import get_plugin, make_game
    from spycfr.games.agent_avenue import advanced as A
    from spycfr.games.agent_avenue.market import KEYS
    from spycfr.games.agent_avenue.rules import PH_OVER, PHASE, TURN, WINNER
    from spycfr.tree import CHANCE

    game = make_game("agent-avenue", "advanced", None)
    params = get_plugin("agent-avenue").numba_params(game.variant_obj)
    m = A.max_actions(params)
    rng = np.random.default_rng(seed)
    acts, probs = np.empty(m, np.int32), np.empty(m)

    def step(state: np.ndarray) -> np.ndarray:
        if A.current_player(state, params) == CHANCE:
            k = A.chance_outcomes(state, params, acts, probs)
        else:
            k = A.legal_actions(state, params, acts)
            A.heuristic_policy(state, params, acts, k, probs)
        nxt = np.empty_like(state)
        A.apply_action(state, params, acts[rng.choice(k, p=probs[:k] / probs[:k].sum())], nxt)
        return nxt

    def turn_end(state: np.ndarray, taker: int) -> int:
        turn = state[TURN]
        while state[PHASE] != PH_OVER and state[TURN] == turn:
            state = step(state)
        if state[PHASE] != PH_OVER:
            return 0
        return 1 if state[WINNER] == taker else -1

    takes = with_win = missed = 0
    shown: list[tuple] = []
    for g in range(games):
        s = A.initial_state(params)
        while s[PHASE] != PH_OVER:
            if s[PHASE] == A.PH_BM_TAKE:
                taker = int(A.current_player(s, params))
                k = A.legal_actions(s, params, acts)
                cards = acts[:k].copy()
                A.heuristic_policy(s, params, cards, k, probs)
                mine = int(np.argmax(probs[:k]))
                ends = []
                for c in cards:
                    after = np.empty_like(s)
                    A.apply_action(s, params, c, after)
                    seen = [turn_end(after.copy(), taker) for _ in range(looks)]
                    ends.append((min(seen), max(seen)))
                takes += 1
                if any(lo == 1 for lo, _ in ends):
                    with_win += 1
                    if ends[mine][0] != 1:
                        missed += 1
                        if len(shown) < 5:
                            shown.append((g, f"P{taker + 1}", [KEYS[int(c) & 31] for c in cards],
                                          ends, KEYS[int(cards[mine]) & 31]))
            s = step(s)
    print(f"{games} games: {takes} takes; a card that won by the turn's End step in all "
          f"{looks} plays in the supply at {with_win}; the heuristic's card not one at {missed}")
    for g, taker, cards, ends, mine in shown:
        print(f"  game {g}: {taker} takes {mine} from {cards}: (worst, best) {ends}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--looks", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    main(args.games, args.looks, args.seed)
