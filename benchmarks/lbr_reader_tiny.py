"""The range reader's guards against a local best response on Agent Hunter ``tiny``, where the
games are fast: the one-sided search agent (rollout leaves, 20 iterations a re-solve, the
rollout budget forced down to 10 games with 8 focus samples, as tests/test_lbr_agent.py forces
it, so that only the actual cards' rows and the reader's rows are valued by games, as on
``standard``) guarding against its game's opposing continuations only (``none``), those and the
``ranger`` reading the agent's own range (``own``, 4 focus rows, 1 reading round), or the ranger
reading rows drawn from public information (``public``, the same; spycfr.search.continuation),
or the opposing continuation chosen as a decision at each leaf with a guess per row, every live
row valued (``decision``: ``choice`` "leaf", ``guesses``, the public rows with ``focus_rows``
over every private state, no ranger; ``leaf``: the same decision without guesses, the same
rows). For each: LBR (4 playouts a move, ``heuristic:hunter`` playouts, the seeds of ``spycfr
measure --lbr-games``: games 0..N-1 of each seat), and the agent head to head against
``heuristic:hunter`` (2N games from seed 1001); then each guard's LBR games less ``none``'s of
the same seeds, game by game. A real game's payoff, so every LBR mean is a lower bound on that
agent's exploitability whatever LBR's model of it (with ``public``, ``decision`` and ``leaf``
its model is exact: tests/test_lbr_agent.py).

    nice -n 10 python benchmarks/lbr_reader_tiny.py 200
    nice -n 10 python benchmarks/lbr_reader_tiny.py 200 --modes none decision
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def _interval(x: list[np.ndarray], bound: float = 1.0) -> tuple[float, list[float]]:
    """The two seats' means averaged and its 95% interval in ``[-bound, bound]``
    (headtohead.seats_ci, as LBR's summary: a sound small-sample bound where no seat's
    payoffs vary)."""
    from spycfr.analysis.headtohead import seats_ci

    return seats_ci(x, bound)


def one_sided_agent(tiny, mode: str):
    """The one-sided search agent of the module notes on ``tiny`` with the guard ``mode``
    (none, own, public, decision or leaf); benchmarks/agent_first_move_tells.py's too."""
    from spycfr.search.agent import AgentConfig, SearchAgent

    agent = SearchAgent("agent-hunter", tiny.variant_obj.as_dict(),
                        AgentConfig(iterations=20, value_function="rollout"))
    inner = agent.values.inner
    inner.budget, inner.focus_samples = 10, 8
    if mode in ("decision", "leaf"):  # the opposing decision, with or without guesses
        inner.configure(focus_rows=max(agent.model.n) + 1, reader_range="public",
                        choice="leaf", guesses=mode == "decision")
    elif mode != "none":
        ranger = agent.plugin.rollout_styles.index("ranger")
        inner.configure(opposing=(*inner.opposing_styles, ranger), focus_rows=4,
                        reader_rounds=1, reader_range=mode)
    return agent


def main() -> None:
    from spycfr.analysis.headtohead import AGENT, Player, head_to_head, player_args, player_from
    from spycfr.analysis.lbr import SECOND_SEAT_SEED, two_player_params
    from spycfr.analysis.lbr_agent import AgentOpponent, play_game
    from spycfr.games import make_game

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("games", type=int, help="LBR games per seat (and head-to-head pairs)")
    ap.add_argument("--modes", nargs="+", default=["none", "own", "public"],
                    choices=["none", "own", "public", "decision", "leaf"],
                    help="the guards measured (none is the game-by-game baseline)")
    args = ap.parse_args()
    n = args.games
    modes = list(dict.fromkeys(["none", *args.modes]))
    tiny = make_game("agent-hunter", "tiny")
    params = two_player_params(tiny)
    hunter = player_from("heuristic:hunter", tiny)
    lbr = {}
    for mode in modes:
        agent = one_sided_agent(tiny, mode)
        start = time.time()
        opponent = AgentOpponent(agent, hunter)
        pay: list[list[float]] = [[], []]
        for seat in (0, 1):
            seed = int(np.int64(1) + np.int64(seat * SECOND_SEAT_SEED))
            for g in range(n):
                pay[seat].append(play_game(params, seat, opponent, player_args(hunter), 4,
                                           seed, g)[0])
        lbr[mode] = [np.array(p) for p in pay]
        mean, (low, high) = _interval(lbr[mode])
        lbr_s = time.time() - start
        r = head_to_head(tiny, Player("agent", AGENT, agent=agent), hunter, games=2 * n,
                         seed=1001)["a_payoff"]
        print(f"{mode}: LBR {mean:+.3f} [{low:+.3f}, {high:+.3f}] in {2 * n} "
              f"games (as P1 {lbr[mode][0].mean():+.3f}, as P2 {lbr[mode][1].mean():+.3f}; "
              f"{lbr_s:.0f} s); against heuristic:hunter {r['mean']:+.3f} "
              f"[{r['ci95'][0]:+.3f}, {r['ci95'][1]:+.3f}] in {2 * n} games "
              f"({time.time() - start - lbr_s:.0f} s)", flush=True)
    for mode in modes[1:]:
        mean, (low, high) = _interval(
            [a - b for a, b in zip(lbr[mode], lbr["none"], strict=True)], bound=2.0)
        print(f"LBR against {mode} less against none, game by game: {mean:+.3f} "
              f"[{low:+.3f}, {high:+.3f}]")


if __name__ == "__main__":
    main()
