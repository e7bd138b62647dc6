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
    """Each of ``games`` (seed, the agent's seat) played again as its head-to-head pair plays
    it (spycfr.analysis.agentplay.play_games, the same streams), told each move (its
    ``watch``): the actions for the record and, at the agent's decisions, its probabilities
    and values (and the shadow's, set up by ``shadow``: leaf_options.set_up's keywords);
    ``decisions_limit`` stops a game after the agent's first that many (0: none)."""
    from spycfr.analysis.agentplay import play_games
    from spycfr.analysis.headtohead import (
        player_args,
        player_from,
        player_probs,
        second_stream,
    )
    from spycfr.games import make_game
    from spycfr.games.agent_avenue.record import format_record
    from spycfr.runs.store import read_run

    config = read_run(agent_dir).config
    assert config is not None
    game = make_game(config.game, config.preset, config.params)
    variant = game.variant_obj
    params = variant.to_params()
    a = player_from(agent_dir, game)
    b = player_from(opponent, game)
    other = None
    if asks_anything(shadow):  # the shadow: the agent set up by the options
        other = player_from(agent_dir, game)
        set_up(other.agent, **shadow)

    for seed, seat_name in games:
        seat = 0 if seat_name == "p1" else 1
        start = time.perf_counter()
        watch = _Watch(variant, seat, other.agent.game(seat) if other is not None else None,
                       decisions_limit)
        first = seat == 0  # the pair's first game: the agent P1, the seed's own stream
        p1, _ = play_games(params, 1, seed if first else second_stream(seed), first,
                           (a, player_args(a)), (b, player_args(b)), player_probs,
                           watch=watch)
        payoff = None if np.isnan(p1[0]) else float(p1[0]) * (1 if first else -1)
        line = {"seed": seed, "seat": seat_name, "opponent": opponent, "payoff": payoff,
                "record": format_record(variant, watch.actions), "decisions": watch.decisions,
                "wall": round(time.perf_counter() - start, 1)}
        with open(out, "a") as f:
            f.write(json.dumps(line) + "\n")
        print(f"{seed} {seat_name}: {'unfinished' if payoff is None else f'{payoff:+g}'} "
              f"({line['wall']} s)", flush=True)


class _Watch:
    """A replayed game's watch (play_games'): the actions for its record and, at each of the
    agent's decisions (seat ``seat``), the moves with the agent's probabilities and values
    (its ``move_info``) and the shadow's (``shadow``: its game of the same seat, observing
    the game as the agent does); False after the agent's ``limit``-th decision (0: never)."""

    def __init__(self, variant, seat: int, shadow, limit: int) -> None:
        self.variant, self.seat, self.shadow, self.limit = variant, seat, shadow, limit
        self.actions: list[int] = []
        self.decisions: list[dict] = []

    def __call__(self, cur, p, acts, probs, x, agents) -> bool:
        from spycfr.games.agent_avenue.record import action_label

        if self.shadow is not None and self.actions:  # after each move, as the agent's
            self.shadow.observe(cur)
        if p == self.seat:
            info = agents[p].move_info(cur, p)
            d = {"at": len(self.actions), "moves": [action_label(self.variant, cur, int(y))
                                                    for y in acts],
                 "probs": [round(float(y), 4) for y in info.probs],
                 "values": _rounded(info.values),
                 "value": None if np.isnan(info.value) else round(info.value, 4)}
            if self.shadow is not None:
                si = self.shadow.move_info(cur, p)
                d["shadow_probs"] = [round(float(y), 4) for y in si.probs]
                d["shadow_values"] = _rounded(si.values)
            self.decisions.append(d)
            if len(self.decisions) == self.limit:
                return False  # left unfinished
        self.actions.append(x)
        return True


def _rounded(values) -> list:
    """Values to 4 places, None where nan (no value)."""
    return [None if np.isnan(x) else round(float(x), 4) for x in values]


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
