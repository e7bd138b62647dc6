"""Replay games of a search agent's head-to-head pairs (benchmarks/agent_headtohead.py: a
pair is ``head_to_head(game, agent, B, 2, seed=S)``, the agent P1 in the first game and P2 in
the second) and write what its games files do not hold: each game's full record, and at each
of the agent's decisions the legal moves with the agent's probabilities and values (its
``move_info``: the values against its model of the opponent). With leaf options
(--opposing ..., benchmarks/leaf_options.py) a second agent of the same run, so configured,
shadows the first: it observes the same game and gives its own probabilities and values at
the same decisions (the game is played by the first; where they differ the shadow's game
would have left this one), the cheap check of an option on the games it should change.
One JSON line per game appended to OUT. Agent Avenue's records (its record.py formats them).

    python benchmarks/agent_replay.py AGENT_DIR OUT.jsonl 1000:p1 1014:p2 [--opponent heuristic]
        [--opposing heuristic,cautious,bold]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from leaf_options import add_leaf_options, leaf_settings  # this folder's (a script)


def replay(agent_dir: str, out: str, games: list[tuple[int, str]], opponent: str,
           shadow: dict) -> None:
    from spycfr.analysis.headtohead import (
        player_args,
        player_from,
        player_probs,
        second_stream,
    )
    from spycfr.cfr.mccfr_kernels import advance_keys
    from spycfr.engine import protocol as P
    from spycfr.engine.rng import game_stream, root_key, sample, uniform
    from spycfr.games import make_game
    from spycfr.games.agent_avenue.record import action_label, format_record
    from spycfr.runs.store import read_run
    from spycfr.search.continuation import configure_agent
    from spycfr.tree import CHANCE, TERMINAL

    config = read_run(agent_dir).config
    assert config is not None
    game = make_game(config.game, config.preset, config.params)
    variant = game.variant_obj
    params = variant.to_params()
    a = player_from(agent_dir, game)
    b = player_from(opponent, game)
    bargs = player_args(b)
    other = None
    if any(v not in (None, False) for v in shadow.values()):
        other = player_from(agent_dir, game)
        configure_agent(other.agent, **shadow)
    impl = P._REGISTRY[type(params)]
    max_act = max(int(impl["max_actions"](params)), 2)
    acts = np.empty(max_act, dtype=np.int32)
    probs = np.empty(max_act)
    for seed, seat_name in games:
        seat = 0 if seat_name == "p1" else 1
        start = time.perf_counter()
        rng = np.empty(1, dtype=np.uint64)
        rng[0] = game_stream(np.int64(seed if seat == 0 else second_stream(seed)), np.int64(0))
        cur = impl["initial_state"](params)
        nxt = np.empty_like(cur)
        h = np.array([root_key(s) for s in range(2)], dtype=np.int64)
        ag = a.agent.game(seat)
        sh = other.agent.game(seat) if other is not None else None
        actions: list[int] = []
        decisions = []
        while True:
            p = int(impl["current_player"](cur, params))
            if p == TERMINAL:
                payoff = float(impl["returns_p1"](cur, params)) * (1 if seat == 0 else -1)
                break
            if p == CHANCE:
                k = impl["chance_outcomes"](cur, params, acts, probs)
            else:
                k = impl["legal_actions"](cur, params, acts)
                if p == seat:
                    info = ag.move_info(cur, seat)
                    probs[:k] = info.probs
                    d = {"at": len(actions), "moves": [action_label(variant, cur, int(x))
                                                       for x in acts[:k]],
                         "probs": [round(float(x), 4) for x in info.probs],
                         "values": [None if np.isnan(x) else round(float(x), 4)
                                    for x in info.values],
                         "value": None if np.isnan(info.value) else round(info.value, 4)}
                    if sh is not None:
                        si = sh.move_info(cur, seat)
                        d["shadow_probs"] = [round(float(x), 4) for x in si.probs]
                        d["shadow_values"] = [None if np.isnan(x) else round(float(x), 4)
                                              for x in si.values]
                    decisions.append(d)
                else:
                    player_probs(bargs, cur, params, p, h, acts, k, probs)
            x = int(acts[sample(probs, k, uniform(rng))])
            actions.append(x)
            advance_keys(params, cur, nxt, np.int32(x), h)
            for g in (ag, sh):
                if g is not None:
                    g.observe(cur)
        line = {"seed": seed, "seat": seat_name, "opponent": opponent, "payoff": payoff,
                "record": format_record(variant, actions), "decisions": decisions,
                "wall": round(time.perf_counter() - start, 1)}
        with open(out, "a") as f:
            f.write(json.dumps(line) + "\n")
        print(f"{seed} {seat_name}: {payoff:+g} ({line['wall']} s)", flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("agent_dir")
    ap.add_argument("out")
    ap.add_argument("games", nargs="+", help="SEED:p1 or SEED:p2 (the agent's seat)")
    ap.add_argument("--opponent", default="heuristic")
    add_leaf_options(ap)
    args = ap.parse_args()
    todo = []
    for g in args.games:
        s, _, seat = g.partition(":")
        if not s.isdigit() or seat not in ("p1", "p2"):
            ap.error(f"game {g!r}: SEED:p1 or SEED:p2")
        todo.append((int(s), seat))
    settings = leaf_settings(args)
    settings["guesses"] = settings["guesses"] or None
    replay(args.agent_dir, args.out, todo, args.opponent, settings)
