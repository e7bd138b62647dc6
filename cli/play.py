"""`spycfr play`: a game in the terminal against a run's strategy, then a review."""

from __future__ import annotations

import json
import sys

import click

from spycfr.cli.options import memory_limit_option, seat_option, seed_option
from spycfr.errors import SpycfrError


@click.command()
@click.argument("run_dir", type=click.Path())
@seat_option("Your seat: P1 (the default, moves first) or P2; on a team run (spycfr team) a "
             "seat S1..S4 (default S1).", choices=("P1", "P2", "S1", "S2", "S3", "S4"))
@seed_option(None, help="Seed of the program's moves and of chance, an integer >= 0 "
                              "(default: a random one, shown).")
@click.option("--moves", "moves_from", default=None, metavar="FILE|-",
              help="Read your moves from FILE, one a line ('-': stdin; the default reads "
                   "stdin too): scripted games end with an error if the moves run out.")
@click.option("--json", "as_json", is_flag=True,
              help="After the game, print the result and the review as one JSON object.")
@memory_limit_option
def play(run_dir: str, seat: str | None, seed: int | None, moves_from: str | None,
         as_json: bool) -> None:
    """Play a game against the strategy of RUN_DIR, then review your moves.

    The program deals the cards and plays the other seat, sampling its moves from the run's
    strategy; you see only what your seat sees. After the game: the result and, for each of
    your moves, how often the equilibrium plays it and the value it lost against the best
    move there (exact on a run with a tree). On a team run you play one seat of a team: each
    team draws a joint plan of the TMECor, your teammates follow yours and you are shown
    what it tells you.
    """
    import numpy as np

    from spycfr.analysis.play import Moves, Opponent, load_opponent, play_game
    from spycfr.analysis.team import is_team_run
    from spycfr.cli.progress import heartbeat, saying_when_compiling

    team = is_team_run(run_dir)
    seat = seat or ("S1" if team else "P1")
    if team != seat.upper().startswith("S"):
        raise SpycfrError("--seat names a seat S1..S4 on a team run of `spycfr team` and P1 or "
                          f"P2 on a two-player run; {run_dir} is "
                          + ("a team run" if team else "not a team run"))

    if seed is None:
        entropy = np.random.SeedSequence().entropy  # an int when none is given
        assert isinstance(entropy, int)
        seed = entropy % 1_000_000
    stream = sys.stdin
    if moves_from not in (None, "-"):
        try:
            stream = open(moves_from, encoding="utf-8")  # noqa: SIM115 (closed below)
        except OSError as exc:
            raise SpycfrError(f"cannot read --moves {moves_from!r}: {exc.strerror}") from None
    interactive = stream is sys.stdin and sys.stdin.isatty()
    out = sys.stderr if as_json else sys.stdout

    def say(line: str) -> None:
        if line.endswith(": ") and interactive:
            click.echo(line, nl=False, file=out)
        else:
            click.echo(line, file=out)

    try:
        given = Moves(iter(stream.readline, ""), echo=not interactive)
        if team:
            from spycfr.analysis.team_play import play_team_game

            result = play_team_game(run_dir, int(seat[1:]) - 1, seed, given, say)
        else:
            def progress(text: str) -> None:
                click.echo(text, err=True)

            def load() -> Opponent:
                """The run's strategy, loaded after the game's first lines (play_game)."""
                with heartbeat(f"loading {run_dir} (its tree rebuilt; after installing, the "
                               "first run also compiles the game's rules)",
                               f"still loading {run_dir} ({{:.0f}} s)"):
                    return load_opponent(run_dir, progress)

            # On stderr, what takes time (numba compiling; a search agent's first plan and
            # long re-solves, with their seconds): the transcript on stdout is the game alone,
            # the same for a seeded game on any machine, and `spycfr review` reads it back
            with saying_when_compiling(progress):
                result = play_game(run_dir, 0 if seat.upper() == "P1" else 1, seed, given,
                                   say, load)
    except UnicodeDecodeError:
        raise SpycfrError("the moves are not UTF-8 text") from None
    finally:
        if stream is not sys.stdin:
            stream.close()
    result["seed"] = seed
    if as_json:
        click.echo(json.dumps(result))
