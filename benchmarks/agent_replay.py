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
        [--opposing heuristic,cautious,bold] [--turn-levels] [--decisions N]
    python benchmarks/agent_replay.py --summary OUT.jsonl ...
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from leaf_options import (  # this folder's (a script)
    add_leaf_options,
    asks_anything,
    leaf_settings,
    set_up,
)


def replay(agent_dir: str, out: str, games: list[tuple[int, str]], opponent: str,
           shadow: dict, decisions_limit: int = 0) -> None:
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
    if asks_anything(shadow):  # the shadow: the agent set up by the options
        other = player_from(agent_dir, game)
        set_up(other.agent, **shadow)
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
        limit = decisions_limit
        payoff: float | None = None
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
                    if len(decisions) == limit:
                        payoff = None  # left unfinished
                        break
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
        print(f"{seed} {seat_name}: {'unfinished' if payoff is None else f'{payoff:+g}'} "
              f"({line['wall']} s)", flush=True)


def summary(paths: list[str]) -> None:
    """Per replayed game: the agent's seat and payoff, its discard-and-draws (its most likely
    moves) before each of its plays, its value at the last swap before its first play and at
    that play, the leaps of at least LEAP between its consecutive decisions' values, and
    where a shadow agent's most likely move differs from its own; then over the games."""
    rows = [json.loads(line) for p in paths for line in open(p)]
    drops, leaps, differ, decided, first = [], 0, 0, 0, []
    for r in rows:
        ds, runs, run, words = r["decisions"], [], 0, ""
        for d in ds:
            if _top(d).startswith("swap:"):
                run += 1
            elif _top(d).startswith("play:"):
                runs.append(run)
                run = 0
        # the last swap before the first play, and that play
        for a, b in zip(ds[:-1], ds[1:], strict=True):
            if _top(a).startswith("swap:") and _top(b).startswith("play:"):
                drops.append(a["value"] - b["value"])
                words = (f"value at the last swap {a['value']:+.3f}, at the play "
                         f"{b['value']:+.3f}")
                break
        big = [1 for a, b in zip(ds[:-1], ds[1:], strict=True) if a["value"] is not None
               and b["value"] is not None and abs(b["value"] - a["value"]) >= LEAP]
        leaps += len(big)
        shadow = [d for d in ds if "shadow_probs" in d]
        diff = sum(_top(d) != _top(d, "shadow_probs") for d in shadow)
        differ, decided = differ + diff, decided + len(shadow)
        first.append(runs[0] if runs else run)
        payoff = "unfinished" if r["payoff"] is None else f"{r['payoff']:+g}"
        print(f"{r['seed']} {r['seat']} {payoff}: swaps before each play "
              f"{','.join(map(str, runs)) or '-'}; {words or 'no swap then play'}; "
              f"{len(big)} leap(s) >= {LEAP} between consecutive decisions"
              + (f"; the shadow's most likely move differs at {diff} of {len(shadow)}"
                 if shadow else ""))
    if rows:
        print(f"{len(rows)} games: swaps before the first play {first}; the value's drop from "
              f"the last swap to the play after it: mean {sum(drops) / max(len(drops), 1):+.3f} "
              f"in {len(drops)} ({min(drops, default=0):+.3f} to {max(drops, default=0):+.3f}); "
              f"{leaps} leaps >= {LEAP}"
              + (f"; the shadow differs at {differ} of {decided} decisions" if decided else ""))


LEAP = 0.5


def _top(d: dict, key: str = "probs") -> str:
    """A decision's most likely move (``key``: the agent's probabilities or the shadow's)."""
    return d["moves"][max(range(len(d[key])), key=d[key].__getitem__)]


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("agent_dir", nargs="?")
    ap.add_argument("out", nargs="?")
    ap.add_argument("games", nargs="*", help="SEED:p1 or SEED:p2 (the agent's seat)")
    ap.add_argument("--opponent", default="heuristic")
    add_leaf_options(ap)
    ap.add_argument("--decisions", type=int, default=0, metavar="N",
                    help="stop each game after the agent's first N decisions (0: play it out; "
                    "the payoff then null)")
    ap.add_argument("--summary", nargs="+", metavar="OUT.jsonl",
                    help="per game and over them: swaps before each play, the value's drop "
                    "at the first play, leaps, where the shadow differs")
    args = ap.parse_args()
    from spycfr.errors import SpycfrError
    if args.summary:
        try:
            summary(args.summary)
        except (OSError, ValueError, KeyError) as e:  # a replays file unreadable
            ap.exit(2, f"error: {e if not isinstance(e, KeyError) else f'a game lacks {e}'}\n")
        raise SystemExit(0)
    if not (args.agent_dir and args.out and args.games):
        ap.error("give AGENT_DIR OUT.jsonl SEED:SEAT ..., or --summary OUT.jsonl ...")
    todo = []
    for g in args.games:
        s, _, seat = g.partition(":")
        if not s.isdigit() or seat not in ("p1", "p2"):
            ap.error(f"game {g!r}: SEED:p1 or SEED:p2")
        todo.append((int(s), seat))
    try:
        replay(args.agent_dir, args.out, todo, args.opponent, leaf_settings(args),
               args.decisions)
    except (OSError, ValueError, SpycfrError) as e:  # no such run, an unknown opponent ...
        ap.exit(2, f"error: {e}\n")
