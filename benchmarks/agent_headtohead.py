"""A search agent's run head to head, in pairs of games (one per seat, the same seed), the
opponents interleaved so that a measurement stopped at any time has as many pairs against
each; one JSON line per pair (A's payoff as P1 and as P2, the wall seconds, the seconds of
each of the agent's solves, the code that played it: spycfr's version and git commit),
appended to OUT so that a rerun with --first past the last seed goes on. The agent is loaded
once (its first plan solved once). Summary: --summary OUT (which code played its games, too);
with --write AGENT_DIR also a head-to-head result file per opponent in the agent's directory
(headtohead-B.json, as `spycfr head-to-head --json` writes them, which `spycfr report` lists).

    python benchmarks/agent_headtohead.py AGENT_DIR OUT.jsonl heuristic RUN_DIR --first 1000
    python benchmarks/agent_headtohead.py --summary OUT.jsonl [--write AGENT_DIR --note TEXT]
        [--compare OTHER.jsonl]

--compare OTHER.jsonl sets each game beside the game of OTHER with the same opponent, seed
and seat (e.g. the same agent directory played by earlier code): the mean game-by-game
difference with its 95% interval, over the seeds both files hold.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Iterator

from games_file import json_lines  # this folder's
from leaf_options import add_leaf_options, leaf_settings, set_up  # this folder's (a script)


def play(agent_dir: str, out: str, opponents: list[str], first: int, pairs: int,
         **settings) -> None:
    """The agent of ``agent_dir``, set up by ``settings`` (leaf_options.set_up's keywords),
    against each of ``opponents``: :func:`play_pairs`."""
    from spycfr.analysis.headtohead import player_from
    from spycfr.games import make_game
    from spycfr.runs.store import read_run

    config = read_run(agent_dir).config
    assert config is not None  # read_run requires it
    game = make_game(config.game, config.preset, config.params)
    a = player_from(agent_dir, game)
    set_up(a.agent, **settings)  # the experiment's options (nothing asked, nothing done)
    for _ in play_pairs(game, a, {name: player_from(name, game) for name in opponents}, out,
                        first, pairs):
        pass


def play_pairs(game, a, opponents: dict, out: str, first: int, pairs: int) -> Iterator[dict]:
    """``a`` (a head-to-head player holding a search agent) against each of ``opponents``
    (name: player), a pair of games (one per seat, the same seed) per seed from ``first``,
    interleaved: each pair's JSON line (the module notes) appended to ``out``, then
    yielded (also agent_exact_walk.py --versus's)."""
    from spycfr.analysis.headtohead import head_to_head, payoff_bound
    from spycfr.provenance import code_version

    bound = payoff_bound(game)
    seconds = time_solves(a.agent)
    detection = getattr(a.agent, "detection", None)
    for seed in range(first, first + pairs):
        for name, b in opponents.items():
            done, start = len(seconds), time.time()
            before = dict(detection.counts) if detection is not None else {}
            r = head_to_head(game, a, b, games=2, seed=seed)
            line = {"opponent": name, "seed": seed, "p1": r["a_as_p1"]["mean"],
                    "p2": r["a_as_p2"]["mean"], "bound": bound,
                    "wall": round(time.time() - start, 1),
                    "solve_seconds": [round(x, 3) for x in seconds[done:]],
                    "code": code_version()}
            if detection is not None:  # --detect: the pair's re-solves with each leaves
                line["leaves"] = {k: v - before[k] for k, v in detection.counts.items()}
            with open(out, "a") as f:
                f.write(json.dumps(line) + "\n")
            yield line


def time_solves(agent, clock: Callable[[], float] = time.perf_counter) -> list[float]:
    """The seconds of each of ``agent``'s solves from now on (its ``solve`` wrapped), by
    ``clock`` (wall by default; ``time.process_time``: CPU), appended as they end (also
    bench_agent_resolve_cpu.py's and agent_first_resolves_cpu.py's)."""
    seconds: list[float] = []
    solve = agent.solve

    def timed(*args, **kw):
        start = clock()
        result = solve(*args, **kw)
        seconds.append(clock() - start)
        return result

    agent.solve = timed
    return seconds


def _mean_interval(x: list[float], bound: float) -> tuple[float, float, float]:
    """Mean of ``x`` and its 95% interval in ``[-bound, bound]`` (head to head's
    :func:`~spycfr.analysis.headtohead.mean_ci`, as the result files written here)."""
    import numpy as np

    from spycfr.analysis.headtohead import mean_ci

    got = mean_ci(np.asarray(x, dtype=float), bound)
    return got["mean"], *got["ci95"]


def games(path: str) -> list[dict]:
    """The pairs of a games file, one JSON line each (games_file.json_lines); a file
    without any is one error naming the file."""
    rows = json_lines(path, "a pair of games as this script writes them")
    if not rows:
        raise ValueError(f"{path}: no games in it")
    return rows


def summary(out: str, write: str | None = None, note: str = "",
            compare: str | None = None) -> None:
    """Each opponent's mean with its 95% interval (head to head's, in the payoff range: the
    game's bound, recorded in each line since; 1, Agent Hunter's and Agent Avenue's, before),
    as P1 and as P2, games won and lost; with ``compare`` each game against the same
    opponent, seed and seat in that file: the mean difference (this file's payoff minus
    the other's) with its interval, in twice the payoff range."""
    from spycfr.provenance import count_codes, played_by_words

    rows = games(out)
    bound = max((r.get("bound", 1.0) for r in rows), default=1.0)
    other = {(r["opponent"], r["seed"]): r for r in games(compare)} if compare else {}
    for name in dict.fromkeys(r["opponent"] for r in rows):
        mine = [r for r in rows if r["opponent"] == name]
        x = [v for r in mine for v in (r["p1"], r["p2"])]
        m, lo, hi = _mean_interval(x, bound)
        seeds = sorted(r["seed"] for r in mine)
        print(f"{name}: {m:+.3f} [{lo:+.3f}, {hi:+.3f}] in {len(x)} games "
              f"({len(x) // 2} pairs, seeds {seeds[0]}..{seeds[-1]})")
        print(f"  as P1 {statistics.mean(r['p1'] for r in mine):+.3f}, as P2 "
              f"{statistics.mean(r['p2'] for r in mine):+.3f}; won {sum(v > 0 for v in x)}, "
              f"lost {sum(v < 0 for v in x)}, drawn {sum(v == 0 for v in x)}")
        both = [(r, other[name, r["seed"]]) for r in mine if (name, r["seed"]) in other]
        if compare and both:
            d = [r[k] - o[k] for r, o in both for k in ("p1", "p2")]
            dm, dlo, dhi = _mean_interval(d, 2 * bound)
            theirs = statistics.mean(o[k] for _, o in both for k in ("p1", "p2"))
            print(f"  game by game against {compare} ({len(d)} games of the same seeds, "
                  f"there {theirs:+.3f}): {dm:+.3f} [{dlo:+.3f}, {dhi:+.3f}]")
        elif compare:
            print(f"  no seed against {name} in {compare}")
        if write:
            write_result(write, name, [r for r in rows if r["opponent"] == name], bound,
                         out, note)
    print(played_by_words(count_codes(rows, games_per_row=2)))
    # the first pair's first solve is the opening plan (numba compiles there)
    s = [v for k, r in enumerate(rows) for v in r["solve_seconds"][1 if k == 0 else 0:]]
    if s:
        print(f"{len(s)} re-solves: median {statistics.median(s):.2f} s, 90th percentile "
              f"{sorted(s)[int(0.9 * len(s))]:.2f} s; "
              f"{statistics.mean(r['wall'] for r in rows):.0f} s a pair")


def write_result(agent_dir: str, name: str, rows: list[dict], bound: float, out: str,
                 note: str) -> None:
    """AGENT_DIR/headtohead-NAME.json: the pairs against ``name`` as one head-to-head result
    (the keys `spycfr head-to-head --json` writes; A's payoff per game, as P1 and as P2)."""
    from pathlib import Path

    import numpy as np

    from spycfr.analysis.headtohead import interval_words, mean_ci
    from spycfr.io import write_json
    from spycfr.runs.store import read_run

    meta = read_run(agent_dir)
    p1 = np.array([r["p1"] for r in rows])
    p2 = np.array([r["p2"] for r in rows])
    mine = np.concatenate([p1, p2])
    seeds = sorted(r["seed"] for r in rows)
    solves = [v for r in rows for v in r["solve_seconds"]]
    result = {
        "game": meta.game, "variant": meta.variant, "a": agent_dir, "b": name,
        "seed": f"games in pairs (one per seat), seeds {seeds[0]}..{seeds[-1]}"
                + ("" if len(seeds) == seeds[-1] - seeds[0] + 1 else
                   f" ({len(seeds)} of them)"),
        "a_payoff": mean_ci(mine, bound), "a_as_p1": mean_ci(p1, bound),
        "a_as_p2": mean_ci(p2, bound),
        "a_wins": float(np.mean(mine > 0)), "draws": float(np.mean(mine == 0)),
        "a_losses": float(np.mean(mine < 0)), "table_misses": 0,
        "seconds_per_game": float(np.mean([r["wall"] for r in rows])) / 2,
        "median_seconds_per_decision": statistics.median(solves) if solves else None,
        "method": f"{len(mine)} games, the agent as P1 in {len(p1)} and as P2 in {len(p2)}: "
                  "head_to_head(game, agent, B, 2, seed=S) for each seed S (one game per "
                  f"seat), by benchmarks/agent_headtohead.py (every pair in "
                  f"{Path(out).name}); {note}{'; ' if note else ''}"
                  f"{interval_words(mine, p1, p2)}",
    }
    path = Path(agent_dir) / f"headtohead-{name.replace(':', '-').replace('/', '-')}.json"
    write_json(path, result)
    print(f"  wrote {path}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("agent_dir", nargs="?")
    ap.add_argument("out", nargs="?")
    ap.add_argument("opponents", nargs="*", default=["heuristic"])
    ap.add_argument("--first", type=int, default=1000)
    ap.add_argument("--pairs", type=int, default=1000)
    add_leaf_options(ap)
    ap.add_argument("--summary")
    ap.add_argument("--write", metavar="AGENT_DIR",
                    help="with --summary: write AGENT_DIR/headtohead-B.json per opponent B")
    ap.add_argument("--note", default="", help="with --write: words added to each method")
    ap.add_argument("--compare", metavar="OTHER.jsonl",
                    help="with --summary: each game beside OTHER's of the same opponent, seed "
                    "and seat (the mean difference and its interval)")
    args = ap.parse_args()
    if not args.summary and not (args.agent_dir and args.out):
        ap.error("give AGENT_DIR and OUT.jsonl to play, or --summary OUT.jsonl")
    from spycfr.errors import SpycfrError
    try:
        if args.summary:
            summary(args.summary, args.write, args.note, args.compare)
        else:
            play(args.agent_dir, args.out, args.opponents, args.first, args.pairs,
                 **leaf_settings(args))
    except (OSError, ValueError, KeyError, SpycfrError) as e:  # a games file unreadable
        ap.exit(2, f"error: {e if not isinstance(e, KeyError) else f'a game lacks {e}'}\n")
