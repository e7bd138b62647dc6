"""Commands that read a run directory: openings, best-response, exploitability, export
(query has its own module, spycfr.cli.query)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import click
import numpy as np

from spycfr.cli.options import (
    build_game,
    game_command,
    memory_limit_option,
    output_option,
    seat_option,
)
from spycfr.cli.show import load_run, run_header, value_text
from spycfr.errors import SpycfrError
from spycfr.io import check_output_file
from spycfr.words import params_text


def _run_fields(result, keys: tuple[str, ...]) -> dict:
    """Some of run.json's fields, as written (for --json)."""
    record = result.to_json()
    return {k: record.get(k) for k in keys}


@click.command()
@click.argument("run_dir", type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--csv", "as_csv", is_flag=True, help="Print the openings table as CSV.")
@click.option("--top", default=None, type=click.IntRange(min=1),
              help="Rows per player (per situation where the game has several): 10 in the "
                   "text output by default, all in --json and --csv unless given.")
@memory_limit_option
def openings(run_dir: str, as_json: bool, as_csv: bool, top: int | None) -> None:
    """Optimal openings (e.g. Agent Hunter's placements): their equilibrium distribution and
    the value of every opening move against the equilibrium opponent."""
    from spycfr.analysis.openings import (
        columns_note,
        openings_by_group,
        openings_spec,
        openings_table,
        treeless_table,
    )
    from spycfr.cli.show import read_run_warning
    from spycfr.runs.store import treeless_openings

    if as_json and as_csv:
        raise SpycfrError("--json and --csv are two formats of the same table: give one")
    meta = read_run_warning(run_dir)
    spec = openings_spec(meta.game)
    if (meta.record.get("agent") or {}).get("opening_file") and not as_csv:
        _table_openings(run_dir, meta, spec, as_json, top)
        return
    treeless = treeless_openings(run_dir)
    if top is None and not (as_json or as_csv):
        top = 10
    if treeless is not None:
        meta, raw = treeless
        _treeless_openings(meta, treeless_table(meta.game, raw), spec, as_json, as_csv,
                           top)
        return
    run = load_run(run_dir)
    table = openings_table(run.tree, run.strategy, run.result.exploitability)
    listed = _head(table, spec, top)  # --json and --csv: --top rows when given, else all
    if as_csv:
        click.echo(listed.to_csv(index=False, float_format="%.17g"), nl=False)
        return
    group = spec.group_name
    by_group = openings_by_group(table, group, spec.context_name)
    words = {p: _words(table[table.player == p], spec, p) for p in ("P1", "P2")}
    if as_json:
        out = {"run": _run_fields(run.result, ("game", "variant", "algorithm", "iterations",
                                                "value_p1", "exploitability"))}
        for player in ("P1", "P2"):
            out[player] = {**_player_json(listed, by_group, spec, player, top),
                           "summary": words[player]}
        click.echo(json.dumps(out))
        return
    assert top is not None  # the text output lists 10 by default (set above)
    click.echo(run_header(run))
    click.echo(textwrap.fill(columns_note(spec), 100))
    columns = (f"  {'rank':>4}  {spec.what:<16} {'eq prob':>8} {'BR value':>9} "
               f"{'eq value':>9} {'loss':>8}")

    def show(rows) -> None:
        click.echo(columns)
        for r in rows.head(top).itertuples():
            loss = "tie" if r.tie else f"{r.loss:.4f}"
            click.echo(f"  {r.rank:>4}  {r.opening:<16} {r.probability:>8.4f} "
                       f"{value_text(r.br_value):>9} {value_text(r.eq_value):>9} {loss:>8}")
        if len(rows) > top:
            click.echo(f"  ... {len(rows) - top} more (--top, --csv or --json for all)")
        if spec.context_name:
            for line in _words(rows, spec, rows.player.iloc[0]):
                click.echo(textwrap.fill(line, 100, initial_indent="  ",
                                         subsequent_indent="    "))

    for player in ("P1", "P2"):
        rows = table[table.player == player]
        click.echo(f"\n{player} {spec.whats}, best first (equilibrium value "
                   f"{value_text(_player_value(run, player))})")
        _by_situation(rows, spec.context_name, top, show)
        sets = by_group[(by_group.player == player) & (by_group.probability > 1e-6)]
        click.echo(f"  {spec.group_title} played at equilibrium: " + ", ".join(
            f"{{{c}}} {p:.3f}" for c, p in zip(sets[group], sets.probability, strict=True)))
        if not spec.context_name:
            click.echo(textwrap.fill("In words: " + " ".join(words[player]), 100,
                                     initial_indent="  ", subsequent_indent="  "))


def _head(table, spec, top: int | None):
    """The first ``top`` rows of each player (of each situation where the game has several;
    the table lists them best or most played first); all rows when ``top`` is None."""
    if top is None:
        return table
    keys = ["player"] + ([spec.context_name] if spec.context_name else [])
    return table.groupby(keys, sort=False, group_keys=False).head(top)


def _words(rows, spec, player: str) -> list[str]:
    """The plain-language summary of one player's openings (per situation where the game
    has several)."""
    from spycfr.analysis.openings import openings_words

    if not spec.context_name:
        return openings_words(rows, spec, player)
    out = []
    for situation, mine in rows.groupby(spec.context_name, sort=False):
        lines = openings_words(mine, spec, player)
        out.append(f"{spec.context_name} {situation}: " + " ".join(lines))
    return out


def _by_situation(rows, context: str | None, top: int, show) -> None:
    """Print the ``top`` situations (the most frequent first, where the table knows how often
    each arises), each with its moves; all the rows at once where the game has no
    situations (``context`` None)."""
    if not context:
        show(rows)
        return
    order = rows.drop_duplicates(context)
    if "reach" in rows:
        order = order.sort_values("reach", ascending=False, kind="stable")
    for situation in order[context].head(top):
        mine = rows[rows[context] == situation]
        arises = f" (arises {100 * mine.reach.iloc[0]:.1f}% of games)" if "reach" in mine else ""
        click.echo(f"  {context} {situation}{arises}:")
        show(mine)
    if len(order) > top:
        click.echo(f"  ... {len(order) - top} more {context}s (--top, --csv or --json for all)")


def _key(title: str) -> str:
    return title.replace(" ", "_")


def _player_json(rows, sets, spec, player: str, top: int | None) -> dict:
    """One player's part of openings --json: its rows (as listed) and its ``top`` sets
    (e.g. card sets) by the group's title."""
    return {spec.whats: rows[rows.player == player].drop(columns="player")
            .to_dict(orient="records"),
            _key(spec.group_title): sets[sets.player == player].drop(columns="player")
            .head(top).to_dict(orient="records")}


def _table_openings(run_dir: str, meta, spec, as_json: bool, top: int | None) -> None:
    """Openings of a search agent that opens by its openings table (a matrix game)."""
    from spycfr.runs.agent_run import opening_table

    table = opening_table(run_dir, meta)
    if as_json:
        click.echo(json.dumps({"run": _run_fields(meta, ("game", "variant", "algorithm")),
                               **table.summary(top or 10**9)}))
        return
    variant = params_text(meta.variant)
    click.echo(f"{meta.game} {variant}: {meta.algorithm} agent, opening by its table")
    for line in table.lines(top or 10, spec.whats, spec.group_name.rstrip("s") + " set"
                            if spec.group_name == "cards" else spec.group_name):
        click.echo(line if line.startswith("  ") else textwrap.fill(line, 100))


def _treeless_openings(meta, table, spec, as_json: bool, as_csv: bool,
                       top: int | None) -> None:
    """Openings of a run without a tree: an MCCFR run's average probabilities, or a search
    agent's first plan (no values)."""
    from spycfr.analysis.bound import lower_bound_json
    from spycfr.analysis.openings import agent_openings_words, openings_by_group, sampled_caveat
    from spycfr.runs.agent_run import is_agent_run

    agent_caveat = agent_openings_words(meta) if is_agent_run(meta) else None
    if as_csv:
        click.echo(_head(table, spec, top).to_csv(index=False, float_format="%.17g"), nl=False)
        return
    group = spec.group_name
    by_group = openings_by_group(table, group, spec.context_name)
    estimate = meta.exploitability_estimate
    measured = meta.measured or {}
    caveat = agent_caveat or sampled_caveat(measured, estimate, meta.record.get("code"))
    if as_json:
        listed = _head(table, spec, top)
        clean = listed.astype(object).where(listed.notna(), None)
        sets = by_group.astype(object).where(by_group.notna(), None)
        # the text's caveat line: what was measured (a lower bound) where it was
        out = {"caveat": caveat,
               "run": _run_fields(meta, ("game", "variant", "algorithm", "iterations",
                                         "value_p1", "exploitability",
                                         "exploitability_estimate")),
               "exploitability_lower_bound": lower_bound_json(measured)}
        for player in ("P1", "P2"):
            out[player] = _player_json(clean, sets.drop(columns="best_br_value"), spec,
                                       player, top)
        click.echo(json.dumps(out))
        return
    assert top is not None  # the text output lists 10 by default (set by the caller)
    variant = params_text(meta.variant)
    if agent_caveat is not None:
        click.echo(f"{meta.game} {variant}: search agent ({meta.algorithm}, {meta.iterations} "
                   "CFR+ iterations per decision)")
        click.echo(textwrap.fill(agent_caveat, 100, break_on_hyphens=False))
    else:
        click.echo(f"{meta.game} {variant}: {meta.algorithm}, {meta.iterations:,} iterations")
        click.echo(caveat)

    column = "avg prob" if agent_caveat is None else "plan prob"

    def show(rows) -> None:
        click.echo(f"  {'rank':>4}  {spec.what:<16} {column:>8}")
        for r in rows.head(top).itertuples():
            click.echo(f"  {r.rank:>4}  {r.opening:<16} {r.probability:>8.4f}")
        if len(rows) > top:
            click.echo(f"  ... {len(rows) - top} more (--top, --csv or --json for all)")

    for player in ("P1", "P2"):
        rows = table[table.player == player]
        order = (f"by {spec.context_name}, most played first in each" if spec.context_name
                 else "most played first")
        click.echo(f"\n{player} {spec.whats} {order}")
        _by_situation(rows, spec.context_name, top, show)
        sets = by_group[by_group.player == player].head(top)
        weighting = " (situations weighted equally)" if spec.context_name else ""
        click.echo(f"  most played {spec.group_title}{weighting}: " + ", ".join(
            f"{{{c}}} {p:.3f}" for c, p in zip(sets[group], sets.probability, strict=True)))


def _player_value(run, player: str) -> float:
    v = run.result.value_p1
    return v if player == "P1" else -v


@click.command("best-response")
@click.argument("run_dir", type=click.Path())
@seat_option("The best-responding player: P1 or P2 (--player is an older name).",
             required=True, choices=("P1", "P2"))
@click.option("--against", default=None,
              help="Opponent strategy: a run directory, a strategy table file or 'uniform' "
                   "(default: the run's own strategy).")
@output_option("Write the best-response strategy table (.csv, .parquet or .json).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@memory_limit_option
def best_response_cmd(run_dir: str, seat: str, against: str | None, output: str | None,
                      as_json: bool) -> None:
    """The best response of PLAYER to the opponent's strategy: its value and the strategy."""
    from spycfr.analysis.query import combine, opponent_strategy
    from spycfr.exact.best_response import best_response, expected_value
    from spycfr.formats.strategy_table import strategy_table, table_format, write_table

    player = seat
    if output is not None:  # a bad target fails before the work
        check_output_file(output, "-o")
        table_format(output)
    run = load_run(run_dir)
    tree = run.tree
    p = 0 if player.upper() == "P1" else 1
    profile = run.strategy
    if against is not None:
        profile = combine(run.strategy, opponent_strategy(tree, against), tree, p)
    value, best = best_response(tree, profile, p)
    own = expected_value(tree, profile) * (1 if p == 0 else -1)
    br_strategy = np.zeros_like(run.strategy)
    rows = np.flatnonzero(tree.infoset_player == p)
    br_strategy[rows, best[rows]] = 1.0
    written = None
    if output is not None:
        table = strategy_table(tree, br_strategy)
        # a pure strategy: one row per infoset of the player, its chosen action (probability 1)
        chosen = (table.player == player.upper()) & (table.probability == 1.0)
        written = str(write_table(table[chosen].reset_index(drop=True), output))
    out = {"player": player.upper(), "against": against or "run strategy",
           "best_response_value": value, "strategy_value": own, "gain": value - own,
           "infosets": int(len(rows)), "table": written}
    if as_json:
        click.echo(json.dumps(out))
        return
    click.echo(run_header(run))
    click.echo(f"{out['player']} best response against {out['against']}: value {value:+.6f} "
               f"(the run's own strategy gets {own:+.6f}; gain {value - own:.6g})")
    if written:
        click.echo(f"best-response strategy ({len(rows)} infosets) written to {written}")


@game_command(game_option="--game")
@click.argument("source", type=click.Path())
@click.option("--game", default=None, help="With a strategy table: the game it plays.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@memory_limit_option
def exploitability(source: str, game: str | None, preset: str | None, variant_params: dict,
                   as_json: bool) -> None:
    """Exploitability of a run (RUN_DIR) or of a strategy table (a .csv/.parquet/.json file).

    A table needs --game and the variant (--preset or parameters). Columns: player (P1/P2),
    infoset (the player's view record), action (record notation), probability; infosets the
    table omits play uniformly at random.
    """
    from spycfr.exact.best_response import best_response, expected_value
    from spycfr.formats.strategy_table import read_table, strategy_from_table
    from spycfr.games import build_tree

    path = Path(source)
    defaulted = 0
    if path.is_dir():
        run = load_run(source)
        tree, strategy = run.tree, run.strategy
    elif path.is_file():
        if game is None:
            raise SpycfrError("a strategy table needs --game (and its variant options)")
        tree = build_tree(build_game(game, preset, variant_params))
        strategy, defaulted = strategy_from_table(tree, read_table(path))
    else:
        raise SpycfrError(f"{source!r} is neither a run directory nor a strategy table file")
    br0 = best_response(tree, strategy, 0)[0]
    br1 = best_response(tree, strategy, 1)[0]
    out = {"source": source, "game": tree.game, "variant": tree.variant,
           "value_p1": expected_value(tree, strategy), "best_response_p1": br0,
           "best_response_p2": br1, "nash_conv": br0 + br1, "exploitability": (br0 + br1) / 2,
           "infosets": tree.num_infosets, "infosets_defaulted_uniform": defaulted}
    if as_json:
        click.echo(json.dumps(out))
        return
    click.echo(f"{tree.game} {params_text(tree.variant)}")
    click.echo(f"  value (P1)               {out['value_p1']:+.6f}")
    click.echo(f"  P1 best response (vs P2) {br0:+.6f}")
    click.echo(f"  P2 best response (vs P1) {br1:+.6f}")
    click.echo(f"  NashConv                 {out['nash_conv']:.6g}")
    click.echo(f"  exploitability           {out['exploitability']:.6g}")
    if defaulted:
        click.echo(f"  ({defaulted} of {tree.num_infosets} infosets not in the table: uniform)")


@click.command()
@click.argument("run_dir", type=click.Path())
@click.option("--format", "fmt", required=True, type=click.Choice(["csv", "json", "parquet"]),
              help="Table format (floats are written losslessly).")
@output_option("Output file (default: RUN_DIR/strategy.FORMAT).")
@memory_limit_option
def export(run_dir: str, fmt: str, output: str | None) -> None:
    """Export a run's average strategy as a tidy table. Written to its default place in the
    run (RUN_DIR/strategy.FORMAT), the table becomes one of the run's files: run.json vouches
    for it (its sha256), as for a table the solve wrote."""
    from spycfr.formats.strategy_table import write_sampled_table, write_table
    from spycfr.runs.lock import RunLock
    from spycfr.runs.store import read_run, strategy_run_table, vouch_files

    target = Path(output) if output else Path(run_dir) / f"strategy.{fmt}"
    if read_run(run_dir).treeless:  # sampled: the table of the infosets it stored
        from spycfr.runs.sampled import load_sampled_solver

        check_output_file(target, "-o")
        solver = load_sampled_solver(run_dir)
        rows = write_sampled_table(solver.average_table(), target, fmt)
        keys = "information abstraction" if solver.abstraction else "observation history"
        click.echo(f"wrote {target}: {rows:,} rows ({solver.num_infosets:,} infosets stored; "
                   f"infoset_key is the {keys} key, action_index the rules' order of legal "
                   "moves)", err=not target.is_file())
        return
    run = load_run(run_dir)
    check_output_file(target, "-o")
    table = strategy_run_table(run.tree, run.strategy)
    own = target.resolve() == (Path(run_dir) / f"strategy.{fmt}").resolve()
    if own:  # the run's own table (e.g. one left out of a repository): run.json vouches for it
        with RunLock(run_dir):
            write_table(table, target, fmt)
            vouch_files(run_dir, written=(target.name,))
    else:
        write_table(table, target, fmt)
    click.echo(f"wrote {target}: {len(table):,} rows ({run.tree.num_infosets:,} infosets)",
               err=not target.is_file())  # -o /dev/stdout: the table alone on stdout
