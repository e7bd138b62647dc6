"""`spycfr query`: the best move from a position, as each kind of run answers it (a run with
a tree, a sampled run, a search agent's run, a team run)."""

from __future__ import annotations

import json
import math
import textwrap

import click

from spycfr.analysis.markdown import num
from spycfr.cli.options import memory_limit_option, seat_option
from spycfr.cli.show import load_run, run_header, value_text
from spycfr.errors import SpycfrError


@click.command()
@click.argument("run_dir", type=click.Path())
@click.argument("record", nargs=-1)
@seat_option("Whose view the record is written from: P1 or P2; on a team run (spycfr "
             "team) a seat, S1..S4. (--as is an older name.)", required=True,
             choices=("P1", "P2", "S1", "S2", "S3", "S4"))
@click.option("--against", default=None,
              help="Value moves against this opponent instead: a run directory, a strategy "
                   "table file, or 'uniform'.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@memory_limit_option
def query(run_dir: str, record: tuple[str, ...], seat: str, against: str | None,
          as_json: bool) -> None:
    """Best move from a position: RECORD is the game so far as that player saw it ('?' hidden).

    With no RECORD (or an empty one) the position is the start of the game. Moves whose
    values are within the run's exploitability of each other are ties; the equilibrium's
    mix and the best reply against the opponent are shown apart.
    """
    from spycfr.analysis.query import opponent_strategy, written_alternatives
    from spycfr.analysis.query import query as run_query
    from spycfr.analysis.team import is_team_run
    from spycfr.runs.store import read_run

    team = is_team_run(run_dir)
    if team != seat.upper().startswith("S"):
        raise SpycfrError("--seat names a seat (S1..S4) on a team run of `spycfr team`, and a "
                          f"player (P1 or P2) on other runs; {run_dir!r} is "
                          + ("a team run" if team else "not a team run"))
    if team:
        if against is not None:
            raise SpycfrError("--against is for two-player runs; a team run answers from its "
                              "TMECor plans")
        _team_query(run_dir, int(seat[1:]) - 1, " ".join(record), as_json)
        return
    player = 0 if seat.upper() == "P1" else 1
    from spycfr.analysis.query import view_of_full_record
    from spycfr.runs.agent_run import is_agent_run

    meta = read_run(run_dir)
    # a whole game's record pasted (from play, review or the opponent's side): the player's
    # view of it, said in one line
    text, note = view_of_full_record(meta.game, meta.variant, " ".join(record), player)
    if note and not as_json:
        click.echo(textwrap.fill(f"note: {note}", 100, subsequent_indent="  "))
    if is_agent_run(meta) or meta.treeless:  # no tree: no values against an opponent
        if against is not None:
            raise SpycfrError("--against needs a run with a tree (values against an opponent)")
        answer = _agent_query if is_agent_run(meta) else _sampled_query
        answer(run_dir, player, text, as_json, note, meta.record.get("code"))
        return
    run = load_run(run_dir)
    other = None if against is None else opponent_strategy(run.tree, against)
    result = run_query(run, player, text, other)
    result["against"] = against or "equilibrium"
    result["exploitability"] = run.result.exploitability
    if as_json:
        click.echo(json.dumps(_noted(result, note)))
        return
    from spycfr.analysis.play import loss_text

    name = result["player"]
    click.echo(run_header(run))
    click.echo(f"{name} to move after: {result['information_state'] or '(start)'}")
    reach = result["equilibrium_reach_probability"]
    click.echo(f"opponent: {result['against']}; values are {name}'s expected payoff; this "
               f"position arises in {_share(reach)} of games at equilibrium")
    if result["warning"]:
        click.echo(textwrap.fill(f"warning: {result['warning']}", 100, subsequent_indent="  "))
    click.echo(f"  {'move':<22} {'eq prob':>8} {'value':>9} {'loss':>8} {'BR value':>9}")
    for m in sorted(result["moves"], key=lambda m: (
            -(m["value"] if m["value"] is not None else -math.inf), -m["probability"])):
        loss = loss_text({**m, "unranked": m["move"] in result.get("unranked", ())}, "-")
        click.echo(f"  {m['move']:<22} {m['probability']:>8.4f} {value_text(m['value']):>9} "
                   f"{loss:>8} {value_text(m['br_value']):>9}")
    tol = result["tolerance"]
    tie = ("not ranked here: off the equilibrium path" if tol is None else
           f"within {tol:.2g}, what the exploitability allows at a position reached this often"
           + (f"; '~': within that, but more than {result['precision']:.2g} (the run's "
              "precision at a frequent position) below the best, so not ranked"
              if result.get("unranked") else ""))
    click.echo(textwrap.fill(
        f"value: {name}'s payoff when the game then goes on at equilibrium; loss: below the "
        f"best move's value (tie: {tie}); BR value: with {name}'s best play afterwards", 100,
        initial_indent="  ", subsequent_indent="  "))
    for line in result["advice"]:
        click.echo(textwrap.fill(line, 100, subsequent_indent="  "))
    click.echo(f"position value: {value_text(result['position_value'])}")
    written = [m for m in result["moves"] if m["record"] != [m["move"]]]
    if written:
        click.echo("in the record, these moves are written with the result they get:")
        for m in written:
            click.echo(f"  {m['move']:<22} {written_alternatives(m['record'])}")


def _team_query(run_dir: str, seat: int, record: str, as_json: bool) -> None:
    """query on a team run: what the TMECor plans prescribe from the seat's view."""
    from spycfr.analysis.team import load_team_run, team_query

    run = load_team_run(run_dir)
    result = team_query(run, seat, record)
    if as_json:
        click.echo(json.dumps(result))
        return
    meta, name = run.meta, result["seat"]
    click.echo(f"{meta['game']} {meta['preset'] or ''}  team equilibrium (TMECor): team 0's "
               f"value {meta['value_team0']:+.6f}, exploitability {meta['exploitability']:.2e}")
    click.echo(f"{name} (team {result['team']}) to move after: "
               f"{result['information_state'] or '(start)'}")
    click.echo(textwrap.fill(
        f"source: {result['source']}: {result['plans_consistent']} of the team's "
        f"{result['plans_in_support']} plans; this position arises in "
        f"{_share(result['reach_probability'])} of games at equilibrium", 100,
        subsequent_indent="  "))
    if result["warning"]:
        click.echo(textwrap.fill(f"warning: {result['warning']}", 100, subsequent_indent="  "))
    click.echo(f"  {'move':<22} {'plan prob':>9} {'plan value':>10} {'forced':>9}")
    for m in sorted(result["moves"], key=lambda m: -m["probability"]):
        click.echo(f"  {m['record']:<22} {m['probability']:>9.4f} "
                   f"{value_text(m['plan_value']):>10} {value_text(m['value']):>9}")
    click.echo(textwrap.fill(
        f"plan prob: how often the consistent plans, weighted given this view, play the move; "
        f"plan value: team {result['team']}'s expected payoff given this view when the drawn "
        f"plan plays it; forced: if {name} plays it whatever the plan (the teammate answering "
        "as its plan does) and both teams otherwise follow their plans", 100,
        initial_indent="  ", subsequent_indent="  "))
    click.echo(f"position value: {value_text(result['position_value'])}")
    click.echo("consistent plans (most likely first):")
    click.echo(f"  {'plan':>4} {'weight':>8} {'given view':>10} {'move':<22} {'value':>9}")
    for p in result["plans"]:
        click.echo(f"  {p['plan']:>4} {p['weight']:>8.4f} {p['weight_given_view']:>10.4f} "
                   f"{p['move']:<22} {value_text(p['value']):>9}")


def _depth_words(store_depth: int | None) -> str:
    """How much of a game a sampled run learns, when --store-depth cut it."""
    return "" if store_depth is None else (
        f" (it learns only the first {store_depth} decisions of a game, --store-depth)")


def _noted(result: dict, note: str | None) -> dict:
    """The JSON answer with the note saying a whole record was read as the player's view."""
    return result if note is None else {**result, "note": note}


def _agent_query(run_dir: str, player: int, record: str, as_json: bool,
                 note: str | None, run_code: dict | None) -> None:
    """query on a search agent's run: the agent re-solves along the record; ``run_code``:
    run.json's ``code``, for the bound's note."""
    from spycfr.analysis.agentplay import agent_query, ties_words
    from spycfr.analysis.play import loss_text
    from spycfr.cli.progress import saying_when_compiling

    def say(text: str) -> None:
        if not as_json:
            click.echo(text, err=True)

    with saying_when_compiling(say):
        result = agent_query(run_dir, player, record, say)
    if as_json:
        click.echo(json.dumps(_noted(result, note)))
        return
    click.echo(f"{result['player']} to move after: {result['information_state'] or '(start)'}")
    click.echo(textwrap.fill(f"source: {result['source']}", 100, subsequent_indent="  "))
    click.echo(f"  {'move':<22} {'prob':>8} {'value':>8} {'loss':>8}")
    for m in result["moves"][:20]:
        value = num(m["value"], none="-" if m["cut"] else "?")
        loss = loss_text(m, "-")
        click.echo(f"  {m['move']:<22} {m['probability']:>8.4f} {value:>8} {loss:>8}")
    if len(result["moves"]) > 20:
        click.echo(f"  ... {len(result['moves']) - 20} more (--json for all)")
    if any(m["cut"] for m in result["moves"][:20]):
        click.echo(textwrap.fill(f"cut (no value): {result['cut_words']}", 100, initial_indent="  ",
                                 subsequent_indent="  "))
    click.echo(textwrap.fill(ties_words(result), 100, initial_indent="  ",
                             subsequent_indent="  "))
    click.echo(f"value of the position for {result['player']}: {num(result['value'])} (under "
               "the agent's move probabilities)")
    click.echo("what the opponent likely holds (the agent's posterior):")
    for p in result["opponent_posterior"]:
        click.echo(f"  {p['private_state']!s:<22} {p['probability']:>8.4f}")
    rest = result["opponent_posterior_rest"]
    if rest["states"]:
        click.echo(f"  ... {rest['states']:,} more, {rest['probability']:.4f} in all")
    if result["exploitability"] is not None:
        click.echo(f"exploitability: {result['exploitability']:.4g} (exact: the agent "
                   "re-solved at every public node, then a best response; see spycfr report)")
        return
    click.echo(_unknown_exploitability(result["measured"], run_code))


def _unknown_exploitability(measured: dict | None, run_code: dict | None) -> str:
    """The line of a run whose exploitability is unknown: the lower bound measured, what
    its games show at 95% and, where they were another agent's than the run's, that too
    (:func:`spycfr.analysis.bound.bound_words`, brief: the report names the codes), or how
    to measure one."""
    from spycfr.analysis.bound import bound_words

    bound = bound_words(measured, run_code, brief=True)
    return "exploitability: unknown" + (f"; {bound} (see spycfr report)" if bound else
                                        " (not measured: spycfr measure RUN_DIR)")


def _sampled_query(run_dir: str, player: int, record: str, as_json: bool,
                   note: str | None, run_code: dict | None) -> None:
    """query on a run sampled without a tree: the abstraction's probabilities only;
    ``run_code``: run.json's ``code``, for the bound's note."""
    from spycfr.analysis.query import sampled_query

    result = sampled_query(run_dir, player, record)
    if as_json:
        click.echo(json.dumps(_noted(result, note)))
        return
    name = result["player"]
    click.echo(f"{name} to move after: {result['information_state'] or '(start)'}")
    click.echo(textwrap.fill(f"source: {result['source']}; {result['iterations']:,} iterations"
                             + ("" if result["seen"] else "; the run never met this position"
                                + _depth_words(result.get("store_depth"))
                                + f": it plays its fallback there ({result['fallback']})"), 100,
                             subsequent_indent="  "))
    click.echo(f"  {'move':<22} {'avg prob':>8}")
    for m in result["moves"][:20]:
        click.echo(f"  {m['move']:<22} {m['probability']:>8.4f}")
    if len(result["moves"]) > 20:
        click.echo(f"  ... {len(result['moves']) - 20} more (--json for all)")
    click.echo(_unknown_exploitability(result["measured"], run_code))


def _share(p: float) -> str:
    return f"{100 * p:.3g}%" if p >= 1e-4 else f"{p:.2g}"
