"""How much the one-sided search agent's first move after its placement tells a reader of its
strategy, on Agent Hunter ``tiny``: the agent of benchmarks/lbr_reader_tiny.py (rollout leaves,
20 iterations a re-solve, the rollout budget forced down to 10 games with 8 focus samples) as
P1, P2's first placement, each of P1's 6 placements alike likely; the rows LBR reads for them
(its re-solve of the particles, exact for both settings: tests/test_lbr_agent.py), and from
them the reader's expected probability of the actual placement after the move and the
expected entropy of its belief (log2 6 = 2.585 bits before). Settings: ``none`` (the game's
opposing continuations, max_a min_b per row), ``decision`` (the opposing continuation a
decision at each leaf with a guess per row, every row valued: spycfr.search.continuation) and
``leaf`` (the same decision without guesses).

    nice -n 10 python benchmarks/agent_first_move_tells.py
"""

from __future__ import annotations

import numpy as np


def main() -> None:
    from lbr_reader_tiny import one_sided_agent  # this folder's (run as a script)

    from spycfr.analysis.headtohead import player_from
    from spycfr.analysis.lbr import two_player_params
    from spycfr.analysis.lbr_agent import AgentOpponent
    from spycfr.games import make_game

    tiny = make_game("agent-hunter", "tiny")
    params = two_player_params(tiny)
    for mode in ("none", "leaf", "decision"):
        agent = one_sided_agent(tiny, mode)
        start = agent.initial()
        placements = agent.legal(start)
        theirs = int(agent.legal(agent.after(start, int(placements[0])))[0])
        histories = [[start, agent.after(start, int(a))] for a in placements]
        for h in histories:
            h.append(agent.after(h[-1], theirs))
        bs = np.array([h[-1] for h in histories])
        opponent = AgentOpponent(agent, player_from("heuristic", tiny))
        view = opponent.game(0)
        for state in histories[0]:
            view.observe(state)
        acts = agent.legal(bs[0])
        view.move(params, bs[0], None, acts, len(acts), np.zeros(len(acts)))
        rows = view.particle_rows(params, bs, np.full(len(bs), 1.0 / len(bs)), len(bs), 16)
        joint = rows[:, :len(acts)] / len(bs)  # P(placement, move)
        post = joint / joint.sum(axis=0, keepdims=True).clip(1e-300)
        hit = float((joint * post).sum())
        bits = float(-(joint * np.log2(post.clip(1e-300))).sum())
        moves = [int(((row > 0.1) & (joint.sum(0) > 0)).sum()) for row in rows[:, :len(acts)]]
        print(f"{mode}: the actual placement's expected probability after the first move "
              f"{hit:.3f}, the belief's expected entropy {bits:.3f} bits of "
              f"{np.log2(len(bs)):.3f}; moves played over 0.1 by each placement {moves}",
              flush=True)


if __name__ == "__main__":
    main()
