"""`spycfr review`: reviews of recorded games against a run."""

from __future__ import annotations

import json
import textwrap

import click

from spycfr.analysis.markdown import num
from spycfr.cli.options import Choice, memory_limit_option
from spycfr.errors import SpycfrError

MAX_FILE = 1 << 20  # bytes of records read (the workbench's upload limit too)


@click.command()
@click.argument("run_dir", type=click.Path())
@click.argument("record", nargs=-1)
@click.option("--file", "path", default=None, metavar="FILE|-",
              help="The records, one full game record a line in the game's notation ('-': "
                   "stdin); instead of a RECORD. A `spycfr play` game saved whole gives "
                   "its 'the whole record:' line.")
@click.option("--seat", type=Choice(("both", "P1", "P2")), default="both", show_default=True,
              help="Whose moves to review.")
@click.option("--json", "as_json", is_flag=True, help="Print the reviews as one JSON object.")
@memory_limit_option
def review(run_dir: str, record: tuple[str, ...], path: str | None, seat: str,
           as_json: bool) -> None:
    """Review recorded games against the strategy of RUN_DIR: each game's moves with their
    equilibrium probability, value and loss, the costliest first, in words what each move
    showed the opponent and what the opponent then likely held (off the equilibrium path,
    where the run defines no such reading, it says so); then a summary over all the games.
    RECORD is one full game record (quoted: e.g. the one `spycfr play` prints, its 'the
    whole record:' label or not), --file a file of them. A record that does not replay is
    named with its error (exit status 2)."""
    from spycfr.analysis.play import load_opponent
    from spycfr.analysis.review import records_in, review_records
    from spycfr.analysis.views import held_legend
    from spycfr.cli.progress import heartbeat
    from spycfr.games import get_plugin, make_game

    if (path is None) == (not record):
        raise SpycfrError("review takes one full game record (RECORD, quoted) or a file of "
                          "them (--file FILE, '-' for stdin), not " +
                          ("both" if record else "neither"))
    # one record a line; a `spycfr play` game pasted whole: its "the whole record:" lines
    records = records_in(" ".join(record) if path is None else _read(path))
    if not records or not records[0]:
        raise SpycfrError(f"--file {path!r} holds no record (one full game record a line)"
                          if path is not None else "RECORD is empty: give a full game record")
    with heartbeat(f"loading {run_dir} (its tree rebuilt; after installing, the first run "
                   "also compiles the game's rules)", f"still loading {run_dir} ({{:.0f}} s)"):
        opp = load_opponent(run_dir)
    game = make_game(opp.result.game, None, opp.result.variant)
    seats = {"BOTH": (0, 1), "P1": (0,), "P2": (1,)}[seat.upper()]
    result = review_records(opp, game, records, seats)
    if as_json:
        click.echo(json.dumps(result))
    else:
        if opp.agent is not None:
            from spycfr.analysis.agentplay import agent_review_words

            words = agent_review_words(opp.result, both=len(seats) == 2)
            click.echo(textwrap.fill(f"values: {words}", 100, subsequent_indent="  "))
        held = held_legend(get_plugin(opp.result.game))
        if held and any(r.get("likely") for g in result["games"]
                        for d in g.get("seats", {}).values() for r in d["moves"]):
            click.echo(textwrap.fill(f"held: {held}", 100, subsequent_indent="  "))
        _print(result)
    if result["errors"]:
        raise SpycfrError(f"{result['errors']} of {len(records)} records could not be "
                          "replayed (see above)")


def _read(path: str) -> str:
    # click.open_file("-") is stdin as get_text_stream("stdin") gave it (deprecated in click 8.4)
    stream = click.open_file("-") if path == "-" else None
    try:
        if stream is not None:
            text = stream.read(MAX_FILE + 1)
        else:
            with open(path, encoding="utf-8") as fh:
                text = fh.read(MAX_FILE + 1)
    except OSError as exc:
        raise SpycfrError(f"cannot read --file {path!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise SpycfrError(f"--file {path!r} is not UTF-8 text") from None
    if len(text) > MAX_FILE:
        raise SpycfrError(f"--file {path!r} is more than {MAX_FILE:,} characters")
    return text


def _print(result: dict) -> None:
    from spycfr.analysis.play import loss_text, probability_label

    for g in result["games"]:
        click.echo(f"game {g['game']}: {g['record'][:200]}")
        if "error" in g:
            click.echo(f"  error: {g['error']}")
            continue
        if g["terminal"]:
            click.echo(f"  result: P1 {g['payoff'][0]:+g}, P2 {g['payoff'][1]:+g}")
        else:
            click.echo("  result: unfinished")
        for seat, data in g["seats"].items():
            s = data["summary"]
            if not s["moves"]:
                click.echo(f"  {seat}: no move in this record")
                continue
            click.echo(f"  {seat}: {_moves(s['moves'])}, {s['lost_value']} lost value "
                       f"(total {s['total_loss']:.4f}); the costliest first (move, "
                       f"{probability_label(data['moves'])}, value, loss):")
            for r in data["moves"]:
                loss = loss_text(r)
                value = "" if r.get("value") is None else f" {num(r['value'])}"
                click.echo(f"    {r['number']:>3} {r['move']:<22} {100 * r['probability']:6.1f}%"
                           f"{value} {loss:>8}  {r['words']}")
    if all("error" in g for g in result["games"]):
        return  # no game replayed: a summary of nothing would read as a review
    click.echo("summary over all games:")
    for seat, s in result["summary"].items():
        click.echo(f"  {seat}: {_moves(s['moves'])}, {s['lost_value']} lost value, total "
                   f"loss {s['total_loss']:.4f}, largest {s['largest_loss']:.4f}")


def _moves(n: int) -> str:
    """'1 move', '4 moves'."""
    return f"{n} move" if n == 1 else f"{n} moves"
