"""The measured strength of a run whose exploitability cannot be computed (a sampled run on a
game too big to enumerate): head-to-head results against the uniform player and the game's
heuristic players, the lower bound on exploitability they imply, and the stability of the
openings against other runs (other seeds, other lengths). Written into run.json
(``measured``), so that every command that prints the run can say what was measured and
call the rest "unknown".

Lower bound: in a zero-sum game, a player B who plays half its games as each seat against
the run's strategy sigma scores at most (BR_P1(sigma) + BR_P2(sigma)) / 2, the
exploitability (NashConv / 2). So B's mean payoff against the run bounds the
exploitability from below, and the lower end of its 95% interval is a statistical bound; the
bound recorded is the opponent whose low end is highest, as the words pick it
(:mod:`spycfr.analysis.bound`, its ``value`` that low end). The opponents are the
uniform and heuristic players and, when asked (``lbr_games``), a local best response
(:mod:`spycfr.analysis.lbr`), which reads its belief of the hidden information from the
run's own strategy and so plays against it far better than a fixed heuristic.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from spycfr.analysis.bound import METHOD, opponents_bounds, strongest
from spycfr.analysis.headtohead import head_to_head, player_from
from spycfr.analysis.lbr import check_lbr_options, check_particle_states, local_best_response
from spycfr.errors import ParameterError, SpycfrError, parameters_named
from spycfr.games import get_plugin, make_game
from spycfr.io import write_json
from spycfr.runs.lock import RunLock
from spycfr.runs.result import RunResult
from spycfr.runs.store import RUN_JSON, read_run, treeless_openings

# no opponent played (measure_run always plays one: a guard); lower_bound reads it as None
NOBODY = {"value": 0.0, "opponent": "nobody", "mean": 0.0, "low95": 0.0, "high95": 0.0,
          "games": 0, "method": METHOD}


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
                compare: tuple[str, ...] = (), lbr_games: int = 0, lbr_rollouts: int = 16,
                lbr_rollout: str | None = None,
                progress: Callable[[str], None] | None = None, scheduler: str | None = None,
                workers: int | None = None, lbr_particle_states: int | None = None) -> dict:
    """Measure a tree-less run (see the module notes) and record it in its run.json:
    ``games`` head to head against each opponent (0: none); with ``lbr_games`` > 0 also a
    local best response in that many games (``lbr_rollouts`` playouts per action, LBR
    continuing as the player ``lbr_rollout``, None: as the run, or the game's heuristic
    against a search agent, whose games run on Dask: ``scheduler``, ``workers``; against a
    search agent ``lbr_particle_states`` K re-solves only the K private states LBR's belief
    weighs most at each of the agent's decisions: ``agent_lbr``)."""
    meta = read_run(run_dir)
    config = meta.config
    assert config is not None  # read_run requires it
    game = make_game(config.game, config.preset, config.params)
    if lbr_games != 0:
        with parameters_named(games="lbr_games", rollouts="lbr_rollouts"):
            check_lbr_options(lbr_games, lbr_rollouts)
    if games < 0 or (games == 0 and lbr_games == 0):
        raise ParameterError(f"nothing to measure: {{games}} {games} and {{lbr_games}} "
                             f"{lbr_games} (give {{games}} N > 0 for head to head, "
                             "{lbr_games} N >= 4 for a local best response)",
                             "games", "lbr_games")
    roll = None if lbr_rollout is None else player_from(lbr_rollout, game)
    if lbr_particle_states is not None:  # before the agent loads (minutes on big games)
        from spycfr.runs.agent_run import is_agent_run

        if not is_agent_run(meta):
            raise ParameterError("{lbr_particle_states} is for a search agent's run (the "
                                 "private states LBR re-solves at its decisions); this run is "
                                 "a stored strategy, read at every particle",
                                 "lbr_particle_states")
        with parameters_named(particle_states="lbr_particle_states"):
            check_particle_states(lbr_particle_states)
    openings = _openings_to_compare(run_dir, meta, compare)  # before any game is played
    run = player_from(str(run_dir), game)
    if run.agent is not None:
        run.agent.progress = progress  # its long solves say how far they are
    matches = []
    for name in opponents(game) if games > 0 else []:
        if progress:
            progress(f"{games:,} games against {name}")
        result = head_to_head(game, run, player_from(name, game), games, seed, progress)
        matches.append({"opponent": name, "payoff": result["a_payoff"],
                        "as_p1": result["a_as_p1"]["mean"], "as_p2": result["a_as_p2"]["mean"],
                        "wins": result["a_wins"], "draws": result["draws"],
                        "losses": result["a_losses"], "table_misses": result["table_misses"],
                        "method": result["method"]})
    lbr = None
    if lbr_games > 0 and run.agent is not None:
        from spycfr.analysis.lbr_agent_dask import agent_lbr

        lbr = agent_lbr(run_dir, lbr_games, seed, lbr_rollouts, lbr_rollout, scheduler,
                        workers, progress, particle_states=lbr_particle_states)
    elif lbr_games > 0:
        lbr = local_best_response(
            game, run, lbr_games, seed, lbr_rollouts, roll,
            progress=(lambda done, total: progress(f"local best response: {done:,} of "
                                                   f"{total:,} games")) if progress else None)
    stability = _stability(meta, openings)
    if lbr is not None and run.agent is not None:
        lbr_rollout = lbr["rollout_policy"]  # the default chosen for an agent: say which
    measured = {"games": games, "lbr_games": lbr_games, "seed": seed, "head_to_head": matches,
                "local_best_response": lbr}
    bound = strongest(opponents_bounds(measured))  # the words' rule (spycfr.analysis.bound)
    measured |= {"exploitability_lower_bound": dict(NOBODY) if bound is None else bound.record(),
                 "openings_stability": stability,
                 "command": _command(run_dir, games, seed, compare, lbr_games, lbr_rollouts,
                                     lbr_rollout, lbr_particle_states)}
    with RunLock(run_dir):  # no solve may rewrite the run meanwhile
        write_json(Path(run_dir) / RUN_JSON, read_run(run_dir).with_measured(measured).to_json())
    return measured


# a tree-less run's openings table, and each run it is compared with: (name, run, table)
Openings = tuple[pd.DataFrame, list[tuple[str, RunResult, pd.DataFrame]]]


def _openings_to_compare(run_dir, meta: RunResult, compare: tuple[str, ...]
                         ) -> Openings | None:
    """This tree-less run's openings table and each ``compare`` run's (None: the run has a
    tree, nothing to compare), checked before any game is played: a run to compare with
    must be tree-less and of the same game and variant."""
    mine = treeless_openings(run_dir)
    if mine is None:
        if compare:
            raise ParameterError(f"{{compare}} compares the openings of tree-less (sampled) "
                                 f"runs; {str(run_dir)!r} has a tree (its openings: "
                                 "`spycfr openings`)", "compare")
        return None
    others = []
    for other in compare:
        theirs = treeless_openings(other)
        if theirs is None:
            raise ParameterError(f"{{compare}} {other!r}: not a sampled run without a tree",
                                 "compare")
        if theirs[0].variant != meta.variant or theirs[0].game != meta.game:
            raise ParameterError(f"{{compare}} {other!r} plays another game or variant",
                                 "compare")
        others.append((str(other), *theirs))
    return mine[1], others


def _stability(meta: RunResult, openings: Openings | None) -> dict | None:
    """Openings against other runs of the same variant, and against uniform play."""
    if openings is None:
        return None
    table, compared = openings
    others = [{"run": name, "seed": run.seed, "iterations": run.iterations,
               **opening_distance(table, theirs)} for name, run, theirs in compared]
    return {"method": "total variation distance between the opening distributions "
                      "(0: identical, 1: disjoint), per player, situations weighted equally; "
                      "top5_shared: how many of the five most played openings both runs share",
            "iterations": meta.iterations, "seed": meta.seed,
            "against_uniform": opening_distance(table, _uniform_like(table)),
            "against_runs": others}


def _command(run_dir, games: int, seed: int, compare: tuple[str, ...], lbr_games: int,
             lbr_rollouts: int, lbr_rollout: str | None,
             lbr_particle_states: int | None = None) -> str:
    extra = "".join(f" --compare {c}" for c in compare)
    if lbr_games > 0:
        extra += f" --lbr-games {lbr_games} --lbr-rollouts {lbr_rollouts}"
        extra += f" --lbr-rollout {lbr_rollout}" if lbr_rollout else ""
        extra += (f" --lbr-particle-states {lbr_particle_states}"
                  if lbr_particle_states is not None else "")
    return f"spycfr measure {run_dir} --games {games} --seed {seed}{extra}"
