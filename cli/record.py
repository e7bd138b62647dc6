"""`spycfr record check`: replay a game record (in its game's notation) and show the position."""

from __future__ import annotations

import json
import sys

import click

from spycfr.cli.options import GameCommand, build_game
from spycfr.errors import RecordError, SpycfrError


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
    from spycfr.cli.progress import saying_when_compiling

    # a fresh install's first check compiles the game's kernels: 77 s of silence for Agent
    # Avenue tiny's README example (a fresh clone, load 6-8); said on stderr as query says it
    with saying_when_compiling(lambda text: click.echo(text, err=True)):
        _check(game, text=" ".join(moves), moves=moves, preset=preset,
               variant_params=variant_params, as_json=as_json, file=file)


def _check(game: str, text: str, moves: tuple[str, ...], preset: str | None,
           variant_params: dict, as_json: bool, file: str | None) -> None:
    """`record check`'s work: the record (``text``) or ``file`` checked and printed."""
    from spycfr.games import feature

    notation = feature(game, "records", "record notation")
    variant = build_game(game, preset, variant_params).variant_obj
    if file is not None:
        if moves:
            raise SpycfrError("give either a RECORD or --file, not both")
        _check_file(notation, variant, file)
        return
    if as_json:
        info = _check_one(notation, variant, text)
        click.echo(json.dumps(info))
        if not info["valid"]:
            sys.exit(1)
        return
    for line in notation.lines(notation.summary(variant, text), variant):
        click.echo(line)


def _check_file(notation, variant, path: str) -> None:
    """One JSON line per record line; a file and stdin are read alike (bytes, one line at a
    time, so that a huge or binary line is one invalid record, not the end of the run)."""
    try:
        stream = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
    except BrokenPipeError:
        raise  # our reader went away, not the file
    except OSError as exc:
        raise SpycfrError(f"cannot read --file {path!r}: {exc.strerror}") from None
    bad = 0
    out = sys.stdout
    try:
        for lineno, line in enumerate(_record_lines(stream), 1):
            if isinstance(line, RecordError):
                info = dict(dict.fromkeys(notation.fields), valid=False, error=str(line))
            else:
                info = _check_one(notation, variant, line.strip(" "))
            info["line"] = lineno
            bad += not info["valid"]
            out.write(json.dumps(info) + "\n")
    except BrokenPipeError:
        raise  # our reader went away, not the file
    except OSError as exc:
        raise SpycfrError(f"cannot read --file {path!r}: {exc.strerror or exc}") from None
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    out.flush()
    if bad:
        sys.exit(1)


def _record_lines(stream):
    """The lines of a binary stream as text (``\\n`` or ``\\r\\n`` ended), each at most
    MAX_RECORD_CHARS long; a line too long or not UTF-8 comes as a RecordError instead."""
    from spycfr.games.plugin import MAX_RECORD_CHARS

    cap = 4 * MAX_RECORD_CHARS + 2  # bytes: UTF-8 takes at most 4 per character
    while True:
        raw = stream.readline(cap)
        if not raw:
            return
        if not raw.endswith(b"\n") and len(raw) == cap:
            size = len(raw)
            while (more := stream.readline(cap)) and not more.endswith(b"\n"):
                size += len(more)  # the rest of an overlong line is skipped, not kept
            size += len(more.rstrip(b"\r\n"))
            yield RecordError(f"the line is {size:,} bytes long; a record is at most "
                              f"{MAX_RECORD_CHARS:,} characters")
            continue
        raw = raw.removesuffix(b"\n").removesuffix(b"\r")
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield RecordError(f"the line is not UTF-8 text (byte {exc.start + 1})")
