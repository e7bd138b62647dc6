"""`spycfr record check`: replay an Agent Hunter record and show the position or the error."""

from __future__ import annotations

import json
import sys

import click

from cli.options import build_game, variant_options
from solver.errors import RecordError, SpycfrError
from solver.games import game_module

RECORD_GAMES = ("agent-hunter",)
_NULL_RESULT = {
    "valid": False, "error": None, "record": None, "view": None, "moves": None, "turns": None,
    "phase": None, "terminal": None, "to_move": None, "pending_refill": None, "vp": None,
    "hand_sum": None, "payoff": None, "legal_moves": None, "players": None,
    "consistent_positions": None, "variant": None,
}


@click.group()
def record() -> None:
    """Game records (Agent Hunter notation, see the spec)."""


def _check_one(variant, text: str) -> dict:
    """The JSON result of one record: the position, or valid=false and the error."""
    from solver.games.agent_hunter.record import position_summary, replay

    try:
        return position_summary(replay(variant, text))
    except RecordError as exc:
        return dict(_NULL_RESULT, error=str(exc))


def _fmt_payoff(u: float) -> str:
    return f"{u:+g}"


def _print_position(info: dict, describe: str) -> None:
    echo = click.echo
    echo(f"agent-hunter  {describe}")
    view = f"  (view of {info['view']})" if info["view"] else ""
    echo(f"record: {info['record'] or '(empty)'}{view}")
    echo(f"moves: {info['moves']}   turns played: {info['turns']}")
    for p, pl in enumerate(info["players"]):
        houses = []
        for h in pl["houses"]:
            if h["status"] == "eliminated":
                inner = "eliminated"
            elif h["status"] == "empty":
                inner = "empty"
            else:
                inner = str(h["card"])
            dec = f" +{h['decoys']} decoy{'s' if h['decoys'] != 1 else ''}" if h["decoys"] else ""
            houses.append(f"{h['house']}:[{inner}]{dec}")
        hand = " ".join(map(str, pl["hand"])) if pl["hand"] is not None else "?"
        out = " ".join(map(str, pl["out"])) or "-"
        hs = info["hand_sum"][p]
        echo(f"P{p + 1}  houses {'  '.join(houses)}")
        echo(f"    hand: {hand or '-'}   out: {out}   decoys in supply: {pl['supply']}   "
             f"VP: {info['vp'][p]}   hand sum: {'?' if hs is None else hs}")
    if info["terminal"]:
        if info["payoff"] is None:
            echo("game over: the result depends on cards hidden from this view")
        else:
            u = info["payoff"][0]
            who = "P1 wins" if u > 0 else "P2 wins" if u < 0 else "draw"
            echo(f"game over: {who} (payoff P1 {_fmt_payoff(u)}, "
                 f"P2 {_fmt_payoff(info['payoff'][1])})")
        return
    what = "to move"
    if info["pending_refill"]:
        what = f"to refill house {info['pending_refill']['house']}"
    echo(f"{info['to_move']} {what}")
    legal = info["legal_moves"]
    if legal is None:
        echo("legal moves: hidden from this view")
    elif len(legal) > 60:
        echo(f"legal moves ({len(legal)}): {' '.join(legal[:60])} ... (--json lists all)")
    else:
        echo(f"legal moves ({len(legal)}): {' '.join(legal)}")


@record.command()
@click.argument("game")
@click.argument("moves", nargs=-1)
@variant_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--file", "file", type=str, default=None,
              help="Check one record per line of FILE ('-' = stdin); prints one JSON object "
                   "per line; exit code 1 if any record is invalid.")
def check(game: str, moves: tuple[str, ...], preset: str | None, variant_params: dict,
          as_json: bool, file: str | None) -> None:
    """Replay an Agent Hunter RECORD and print the position (or the first illegal move).

    RECORD is the moves separated by spaces (one quoted argument or several). A player's
    view, with `?` for hidden cards, is accepted too.
    """
    if game not in RECORD_GAMES:
        game_module(game)  # unknown names: the registry's error
        raise SpycfrError(f"game {game!r} has no record notation; records exist for: "
                          f"{', '.join(RECORD_GAMES)}")
    g = build_game(game, preset, variant_params)
    variant = g.variant_obj
    if file is not None:
        if moves:
            raise SpycfrError("give either a RECORD or --file, not both")
        _check_file(variant, file)
        return
    text = " ".join(moves)
    if as_json:
        info = _check_one(variant, text)
        click.echo(json.dumps(info))
        if not info["valid"]:
            sys.exit(1)
        return
    from solver.games.agent_hunter.record import position_summary, replay

    _print_position(position_summary(replay(variant, text)), variant.describe())


def _check_file(variant, path: str) -> None:
    try:
        stream = sys.stdin if path == "-" else open(path, encoding="utf-8")
    except OSError as exc:
        raise SpycfrError(f"cannot read --file {path!r}: {exc.strerror}") from None
    bad = 0
    out = sys.stdout
    try:
        for lineno, line in enumerate(stream, 1):
            info = _check_one(variant, line.strip())
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
