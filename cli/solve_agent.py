"""`spycfr solve --algorithm re-solving`: the search agent's options and its run directory
(the agent itself is spycfr.search.agent; its run, spycfr.runs.agent_run)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from spycfr.analysis.markdown import num
from spycfr.cli.options import parse_number, parse_seed
from spycfr.cli.progress import saying_when_compiling
from spycfr.errors import SpycfrError

if TYPE_CHECKING:
    from spycfr.search.agent import AgentConfig


def _option(*decls: str, help: str, **kwargs) -> Callable:
    """One of the search agent's options: unset by default (the game's or AgentConfig's
    setting), its help saying it is re-solving's."""
    return click.option(*decls, default=None, help=f"re-solving: {help}", **kwargs)


_OPTIONS = (
    _option("--depth", "search_depth",
            help="decision levels in each re-solved subgame (default 1: the move and its "
                 "signals, the next decision valued by --value-function)."),
    _option("--value-function",
            help="the subgame's leaf values: scored-now (the game scored as if it ended at "
                 "the leaf), rollout (games played to the end by the game's heuristic "
                 "players; Agent Hunter's default) or learned (--value-file WEIGHTS)."),
    _option("--value-file", type=click.Path(), help="the learned value function's weights file."),
    _option("--endgame",
            help="solve to the end of the game, exact, where the rest of the game takes at "
                 "most this many node-states (public nodes, row entries and terminal pairs "
                 "times private states; default 4000000; 0: never)."),
    _option("--plan-iterations",
            help="CFR+ iterations for the first plan, solved once and saved with the run "
                 "(default: the game's, Agent Hunter 300; 0: --iterations)."),
    _option("--plan-endgame",
            help="the same for the first plan from the game's root, solved once per agent "
                 "and saved with the run (default 400000000: Agent Avenue and Agent Hunter "
                 "small whole, minutes and 6-8 GiB; 0: never)."),
    _option("--plan-depth",
            help="decision levels of the first plan from the game's root where it stops "
                 "short of the end (default 2)."),
    _option("--subgame-budget",
            help="the depth rule: a depth-limited re-solve whose subgame passes this many "
                 "node-states is cut a decision level shallower, down to 1 (default: the "
                 "game's, Agent Avenue 1000000, Agent Hunter 0: off)."),
    _option("--plan-play",
            help="play the first plan's own strategy at its decisions in its first this many "
                 "decision levels instead of re-solving them (default 0: off, every decision "
                 "re-solved)."),
    _option("--needs-only", is_flag=True,
            help="at its own decisions in play the agent makes only the moves its cards "
                 "need (the game's needed_moves hook; Agent Avenue: a discard only where "
                 "its hand needs one, its plays always; default: off, every legal move)."),
)


def agent_options(f):
    """``--depth``, ``--value-function``, ``--value-file``, ``--plan-iterations``,
    ``--endgame``, ``--plan-endgame``, ``--plan-depth``, ``--subgame-budget``,
    ``--plan-play`` and ``--needs-only``: the search agent's settings."""
    for option in reversed(_OPTIONS):
        f = option(f)
    return f


def plays_by_search(game: str, preset: str | None, algorithm: str,
                    searching: tuple, others: tuple) -> bool:
    """Whether this solve makes a search agent: asked for (--algorithm re-solving), or auto
    on a preset the game plays by search (its plug-in's agent_presets) with no setting of
    the other algorithms."""
    from spycfr.games import foreign_kind, get_plugin
    from spycfr.search.agent import ALGORITHM

    if algorithm == ALGORITHM:
        given = [x for x in others if x is not None]
        if given:
            raise SpycfrError("--algorithm re-solving takes --iterations (per decision), "
                              "--plan-iterations, --depth, --value-function, --value-file, "
                              "--endgame, --plan-endgame, --plan-depth, --subgame-budget, "
                              "--plan-play, --needs-only, --seed and -o only")
        return True
    if algorithm != "auto" or foreign_kind(game) is not None:
        return False
    return preset in get_plugin(game).agent_presets and all(x is None for x in others)


def solve_agent(game: str, preset: str | None, params: dict, iterations: str | None,
                depth: str | None, value_function: str | None, value_file: str | None,
                seed: str | None, output: str | None, overwrite: bool, quiet: bool,
                as_json: bool, endgame: str | None = None,
                plan_endgame: str | None = None, plan_iterations: str | None = None,
                plan_depth: str | None = None, subgame_budget: str | None = None,
                plan_play: str | None = None, needs_only: bool | None = None) -> None:
    """Write a search agent's run directory (spycfr.runs.agent_run)."""
    from pathlib import Path

    from spycfr.games import get_plugin
    from spycfr.runs.agent_run import write_agent_run
    from spycfr.runs.store import holds_run
    from spycfr.search.agent import AgentConfig, no_needed_moves

    defaults = AgentConfig.default(game)
    config = AgentConfig(
        iterations=parse_number("iterations", iterations, int, 1, strict=False)
        or defaults.iterations,
        plan_iterations=_or(parse_number("plan-iterations", plan_iterations, int, 0,
                                         strict=False), defaults.plan_iterations),
        depth=parse_number("depth", depth, int, 1, strict=False) or defaults.depth,
        value_function=value_function or defaults.value_function,
        # absolute: the solve reads it from here, and the run's readers (play, query) take a
        # relative path as relative to the run directory (agent_run._in_run)
        value_file=None if value_file is None else str(Path(value_file).resolve()),
        endgame=_or(parse_number("endgame", endgame, int, 0, strict=False), defaults.endgame),
        plan_endgame=_or(parse_number("plan-endgame", plan_endgame, int, 0, strict=False),
                         defaults.plan_endgame),
        plan_depth=parse_number("plan-depth", plan_depth, int, 1, strict=False)
        or defaults.plan_depth,
        subgame_budget=_or(parse_number("subgame-budget", subgame_budget, int, 0,
                                        strict=False), defaults.subgame_budget),
        plan_play=_or(parse_number("plan-play", plan_play, int, 0, strict=False),
                      defaults.plan_play),
        needs_only=bool(needs_only))
    config.check()
    if config.needs_only and get_plugin(game).needed_moves is None:  # before any line
        raise SpycfrError(f"--needs-only: {no_needed_moves(game)}")
    out = Path(output or f"{game}-{preset or 'default'}-agent")
    if out.is_file():
        raise SpycfrError(f"{str(out)!r} is a file, not a run directory")
    if out.is_dir() and holds_run(out) and not overwrite:
        raise SpycfrError(f"{str(out)!r} already holds a run: give --overwrite to replace it")

    def say(text: str) -> None:
        if not quiet:
            click.echo(text, err=True)

    say(settings_line(game, config))
    with saying_when_compiling(say):
        result = write_agent_run(out, game, preset, params, config,
                                 parse_seed(seed) or 0, say)
    if as_json:
        click.echo(json.dumps({**result.to_json(), "run_dir": str(out)}))
        return
    exact = result.record.get("exact_measure") if result.exploitability is not None else None
    strength = (f"exploitability {result.exploitability:.4g}, exact (best responses: P1 "
                f"{num(exact['br_p1'])}, P2 {num(exact['br_p2'])}; {exact['re_solves']:,} "
                "re-solves)" if exact else
                f"exploitability unknown: measure it with `spycfr head-to-head {out} "
                "heuristic` or `spycfr measure`")
    click.echo(f"wrote the agent's run directory {out} (algorithm re-solving, {strength}); "
               f"it plays with `spycfr play {out}`, answers `spycfr query {out} --seat P1 "
               f"RECORD`, and reports with `spycfr report {out}`")


def settings_line(game: str, config: AgentConfig) -> str:
    """The agent's settings as solve's first progress line says them: its value function in
    words (spycfr.runs.agent_run.value_words, as play and the report say it), not its
    option value ('leaves valued rollout')."""
    from spycfr.runs.agent_run import value_words

    return (f"re-solving agent: {config.iterations} CFR+ iterations per decision, subgames "
            f"{config.depth} decision level(s) deep"
            + (f" (a level less while one passes {config.subgame_budget:,} node-states)"
               if config.subgame_budget else "")
            + f", to the end where at most {config.endgame:,} node-states are left "
            f"({config.plan_endgame:,} for the first plan, solved by "
            f"{config.plan_iterations or config.iterations} CFR+ iterations, "
            f"{config.plan_depth} decision levels deep where it stops short"
            + (f"; its first {config.plan_play} decision level(s) played as planned"
               if config.plan_play else "")
            + ("; at its own decisions only the moves its cards need" if config.needs_only
               else "")
            + "); where a subgame stops short, the positions there valued by "
            + value_words(game, config.value_function))


def _or(value: int | None, default: int) -> int:
    """``value`` where given (0 included), else ``default``."""
    return default if value is None else value
