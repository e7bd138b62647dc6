"""`spycfr record check`: replay a game record (in its game's notation) and show the position."""

from __future__ import annotations

import json
import sys

import click

from cli.options import GameCommand, build_game
from solver.errors import RecordError, SpycfrError
from solver.games import feature


@click.group()
def record() -> None:
    """Game records, in each game's notation (see `spycfr games` for which games have one)."""


def _check_one(notation, variant, text: str) -> dict:
    """The JSON result of one record: the position, or valid=false and the error."""
    try:
        return notation.summary(variant, text)
    except RecordError as exc:
        return dict(dict.fromkeys(notation.fields), valid=False, error=str(exc))


@record.command(cls=GameCommand)
@click.argument("game")
@click.argument("moves", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--file", "file", type=str, default=None,
              help="Check one record per line of FILE ('-' = stdin); prints one JSON object "
                   "per line; exit code 1 if any record is invalid.")
def check(game: str, moves: tuple[str, ...], preset: str | None, variant_params: dict,
          as_json: bool, file: str | None) -> None:
    """Replay a RECORD of GAME and print the position (or the first illegal move).

    RECORD is the moves separated by spaces (one quoted argument or several). A player's
    view, with `?` for hidden cards, is accepted too.
    """
    notation = feature(game, "records", "record notation")
    variant = build_game(game, preset, variant_params).variant_obj
    if file is not None:
        if moves:
            raise SpycfrError("give either a RECORD or --file, not both")
        _check_file(notation, variant, file)
        return
    text = " ".join(moves)
    if as_json:
        info = _check_one(notation, variant, text)
        click.echo(json.dumps(info))
        if not info["valid"]:
            sys.exit(1)
        return
    for line in notation.lines(notation.summary(variant, text), variant):
        click.echo(line)


def _check_file(notation, variant, path: str) -> None:
    try:
        stream = sys.stdin if path == "-" else open(path, encoding="utf-8")
    except OSError as exc:
        raise SpycfrError(f"cannot read --file {path!r}: {exc.strerror}") from None
    bad = 0
    out = sys.stdout
    try:
        for lineno, line in enumerate(stream, 1):
            info = _check_one(notation, variant, line.strip())
            info["line"] = lineno
            bad += not info["valid"]
            out.write(json.dumps(info) + "\n")
    except UnicodeDecodeError:
        raise SpycfrError(f"--file {path!r} is not UTF-8 text") from None
    finally:
        if stream is not sys.stdin:
            stream.close()
    out.flush()
    if bad:
        sys.exit(1)
