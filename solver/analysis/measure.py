"""The measured strength of a run whose exploitability cannot be computed (a sampled run on a
game too big to enumerate): head-to-head results against the uniform player and the game's
heuristic players, the lower bound on exploitability they imply, and the stability of the
openings against other runs (other seeds, other lengths). Written into run.json
(``measured``), so that every command that prints the run can say what was measured and
call the rest "unknown".

Lower bound: in a zero-sum game, a player B who plays half its games as each seat against
the run's strategy sigma scores at most (BR_P1(sigma) + BR_P2(sigma)) / 2, the
exploitability (NashConv / 2). So B's mean payoff against the run bounds the
exploitability from below; the bound here is the largest such mean over the opponents
played, with the lower end of its 95% interval (a statistical bound, not a best response).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from solver.analysis.headtohead import head_to_head, player_from
from solver.errors import SpycfrError
from solver.games import get_plugin, make_game
from solver.io import write_json
from solver.runs.lock import RunLock
from solver.runs.store import RUN_JSON, read_run_meta, treeless_openings

LOWER_BOUND_METHOD = (
    "the best mean payoff of the measured opponents against the run (each playing half its "
    "games as each seat): every such payoff is at most the exploitability, (BR_P1 + BR_P2) / "
    "2; the interval is that opponent's 95% interval, its lower end a statistical lower bound. "
    "Not a best response: the exploitability itself may be larger")


def opponents(game) -> list[str]:
    """The players a run is measured against: uniform and every heuristic of the game."""
    plugin = get_plugin(game.name)
    if plugin.heuristic_styles:
        return ["uniform"] + [f"heuristic:{s}" for s in plugin.heuristic_styles]
    try:
        player_from("heuristic", game)
    except SpycfrError:
        return ["uniform"]
    return ["uniform", "heuristic"]


def opening_distance(a: pd.DataFrame, b: pd.DataFrame) -> dict:
    """Per player, the total variation distance between two openings tables (player,
    [context], opening, probability), situations weighted equally, and how many of the five
    most played openings they share."""
    keys = [c for c in a.columns if c not in ("probability", "seen", "rank")]
    both = a[keys + ["probability"]].merge(b[keys + ["probability"]], on=keys, how="outer",
                                           suffixes=("_a", "_b")).fillna(0.0)
    context = [c for c in keys if c not in ("player", "opening")]
    out = {}
    for player, rows in both.groupby("player"):
        groups = rows.groupby(context) if context else [(None, rows)]
        tvd = [0.5 * float((g.probability_a - g.probability_b).abs().sum()) for _, g in groups]
        top_a = set(rows.nlargest(5, "probability_a").opening)
        top_b = set(rows.nlargest(5, "probability_b").opening)
        out[player] = {"tvd": sum(tvd) / len(tvd), "top5_shared": len(top_a & top_b)}
    return out


def _uniform_like(table: pd.DataFrame) -> pd.DataFrame:
    """The same openings, each situation's moves equally likely."""
    context = [c for c in table.columns if c not in ("probability", "seen", "rank",
                                                     "opening")]
    out = table.copy()
    out["probability"] = 1.0 / table.groupby(context)["opening"].transform("count")
    return out


def measure_run(run_dir: str | Path, games: int = 20_000, seed: int = 1,
                compare: tuple[str, ...] = (),
                progress: Callable[[str], None] | None = None) -> dict:
    """Measure a tree-less run (see the module notes) and record it in its run.json."""
    meta = read_run_meta(run_dir)
    config = meta["config"]
    game = make_game(config["game"], config["preset"], config["params"])
    run = player_from(str(run_dir), game)
    matches = []
    for name in opponents(game):
        if progress:
            progress(f"{games:,} games against {name}")
        result = head_to_head(game, run, player_from(name, game), games, seed)
        matches.append({"opponent": name, "payoff": result["a_payoff"],
                        "as_p1": result["a_as_p1"]["mean"], "as_p2": result["a_as_p2"]["mean"],
                        "wins": result["a_wins"], "draws": result["draws"],
                        "losses": result["a_losses"], "table_misses": result["table_misses"],
                        "method": result["method"]})
    worst = min(matches, key=lambda m: m["payoff"]["mean"])
    low, high = worst["payoff"]["ci95"]
    bound = {"value": max(0.0, -worst["payoff"]["mean"]), "by": worst["opponent"],
             "ci95": [max(0.0, -high), max(0.0, -low)], "method": LOWER_BOUND_METHOD}
    stability = _stability(run_dir, meta, compare)
    measured = {"games": games, "seed": seed, "head_to_head": matches,
                "exploitability_lower_bound": bound, "openings_stability": stability,
                "command": _command(run_dir, games, seed, compare)}
    with RunLock(run_dir):  # no solve may rewrite the run meanwhile
        meta = read_run_meta(run_dir)
        meta["measured"] = measured
        write_json(Path(run_dir) / RUN_JSON, meta)
    return measured


def _stability(run_dir, meta: dict, compare: tuple[str, ...]) -> dict | None:
    """Openings against other runs of the same variant, and against uniform play."""
    mine = treeless_openings(run_dir)
    if mine is None:
        return None
    table = mine[1]
    others = []
    for other in compare:
        theirs = treeless_openings(other)
        if theirs is None:
            raise SpycfrError(f"--compare {other!r}: not a sampled run without a tree")
        if theirs[0]["variant"] != meta["variant"] or theirs[0]["game"] != meta["game"]:
            raise SpycfrError(f"--compare {other!r} plays another game or variant")
        others.append({"run": str(other), "seed": theirs[0]["seed"],
                       "iterations": theirs[0]["iterations"],
                       **opening_distance(table, theirs[1])})
    return {"method": "total variation distance between the opening distributions "
                      "(0: identical, 1: disjoint), per player, situations weighted equally; "
                      "top5_shared: how many of the five most played openings both runs share",
            "iterations": meta["iterations"], "seed": meta["seed"],
            "against_uniform": opening_distance(table, _uniform_like(table)),
            "against_runs": others}


def _command(run_dir, games: int, seed: int, compare: tuple[str, ...]) -> str:
    extra = "".join(f" --compare {c}" for c in compare)
    return f"spycfr measure {run_dir} --games {games} --seed {seed}{extra}"
