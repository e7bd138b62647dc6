"""`spycfr train-openings RUN_DIR`: a search agent's openings solved as a matrix game."""

from __future__ import annotations

import time

import click

from spycfr.analysis.markdown import num
from spycfr.cli.options import seed_option
from spycfr.errors import SpycfrError


@click.command("train-openings")
@click.argument("run_dir", type=click.Path())
@click.option("--games", type=int, default=1024, show_default=True,
              help="Games per entry (pair of opening classes) and pair of continuations; "
                   "even: two halves measure the noise.")
@seed_option(0)
@click.option("--opening-range", type=click.Choice(["uniform", "mixture"]), default="uniform",
              show_default=True,
              help="The opponent's range after its opening: any opening, or the table's "
                   "mixture (every opening kept possible).")
def train_openings(run_dir: str, games: int, seed: int, opening_range: str) -> None:
    """Solve a search agent's openings (Agent Hunter's placements) as a matrix game.

    Every pair of openings (up to the game's symmetries: Agent Hunter's house order) is
    valued by games played to the end by the continuation heuristics, each seat also
    choosing its continuation; the matrix game is solved exactly (HiGHS). Writes
    RUN_DIR/openings-table.npz (rerun to resume), configures the agent to open with the
    equilibrium mixture and rewrites RUN_DIR/openings.csv (`spycfr openings RUN_DIR`).
    """
    if games < 2 or games % 2:
        raise SpycfrError(f"--games must be an even number >= 2, got {games}")
    click.echo("train-openings: loading the solver (numba compiles the first time) ...",
               err=True)
    from spycfr.runs.agent_run import train_openings as train

    t0 = time.monotonic()

    def note(text: str) -> None:
        click.echo(f"train-openings: {time.monotonic() - t0:6.0f}s {text}", err=True)

    s = train(run_dir, games, seed, opening_range, note)
    click.echo(f"openings of {run_dir}: value for P1 {num(s['value_p1'])} ({s['games']:,} "
               f"games, {s['seconds']:.0f} s); split halves "
               f"{num(s['split_half']['value_half'][0])} / {num(s['split_half']['value_half'][1])}")
    for p in ("P1", "P2"):
        top = ", ".join(f"{r['cards']} {r['probability']:.3f}" for r in s[p]["top"][:5])
        click.echo(f"  {p}: {s[p]['support']} card sets in the support; {top}")
    click.echo(f"wrote {run_dir}/openings-table.npz; `spycfr openings {run_dir}` shows them")
