"""`spycfr sweep GAME --param LIST ... -o SWEEP_DIR`: solve a grid of variants on Dask."""

from __future__ import annotations

import time

import click

from spycfr.cli.options import game_command
from spycfr.errors import SpycfrError


def _number(name: str, text: str | None, kind: type, default):
    if text is None:
        return default
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or not value > 0 or value != value or value == float("inf"):
        what = "a positive integer" if kind is int else "a positive number"
        raise SpycfrError(f"--{name} must be {what}, got {text!r}")
    return value


class _Progress:
    """One line on stderr at most every 2 seconds (and at the end)."""

    def __init__(self, quiet: bool) -> None:
        self.quiet, self.last = quiet, 0.0

    def __call__(self, counts: dict) -> None:
        now = time.monotonic()
        final = counts["todo"] == 0
        if self.quiet or (now - self.last < 2.0 and not final):
            return
        self.last = now
        eta = counts["eta"]
        click.echo(f"sweep: {counts['done']} solved, {counts['failed']} failed, "
                   f"{counts['running']} running, {counts['todo']} to go"
                   + (f", {counts['skipped']} already solved" if counts["skipped"] else "")
                   + f"  {counts['elapsed']:.0f}s"
                   + (f"  ETA ~{eta:.0f}s" if eta == eta and not final else ""), err=True)


@game_command()
@click.argument("game")
@click.option("-o", "--output", required=True, type=click.Path(),
              help="Sweep directory: one run directory per variant, sweep.parquet/.csv, "
                   "sweep.json and report.md. Running the same sweep again skips the "
                   "variants already solved.")
@click.option("--algorithm", default="auto",
              help="How each variant is solved, exactly: auto (default: what `spycfr solve` "
                   "picks for it), lp, or a full-tree CFR variant (cfr, cfr+, pcfr+, ...).")
@click.option("--target-exploitability", default=None,
              help="Solve each variant to this exploitability (default 1e-3).")
@click.option("--iterations", "--max-iterations", "iterations", default=None,
              help="CFR algorithms: stop a variant after this many iterations if the target "
                   "is not reached (default 100000; the row records its exploitability).")
@click.option("--time-limit", default=None, help="Seconds of iterations per variant at most.")
@click.option("--scheduler", default=None,
              help="Address of a running Dask scheduler (e.g. tcp://10.0.0.5:8786); default: "
                   "a LocalCluster on this machine.")
@click.option("--workers", default=None,
              help="LocalCluster: worker processes (default: one per core).")
@click.option("--memory-per-worker", default=None,
              help="GiB of memory per LocalCluster worker, also each variant's --memory-limit "
                   "(default 4: a first run compiles the numba kernels in each worker).")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
def sweep(game: str, preset: str | None, variant_params: dict, output: str, algorithm: str,
          target_exploitability: str | None, iterations: str | None,
          time_limit: str | None, scheduler: str | None, workers: str | None,
          memory_per_worker: str | None, quiet: bool) -> None:
    """Solve every variant of a grid of GAME's parameters and compare them.

    Each parameter option takes one value or several: a list (`--cards 3,4`, `--decoy-rule
    any,switched`), an integer range (`--max-turns 2..6`), or, when a value itself holds
    commas, a list separated by ';' (`--names 'DA,EN,CB;DA,EN,CB,SA'`). Every combination is
    solved into its own run directory under SWEEP_DIR/variants/ on a Dask cluster (largest
    first); the table sweep.parquet/.csv gives each variant's value for P1, its certified
    interval, exploitability, outcome rates, game length and time, and report.md plots them.
    A variant that fails (invalid, too big) is recorded with its error; Ctrl-C keeps what
    finished, and running the same command again solves the rest.
    """
    from spycfr.games import get_plugin

    get_plugin(game)
    if not quiet:  # from the first second: the imports below and the checks take a while
        click.echo(f"sweep: loading the solver and checking the grid of {game} ...", err=True)
    from spycfr.cfr.kernels import ALGORITHMS
    from spycfr.sweep.grid import split_grid
    from spycfr.sweep.runner import SweepSettings, run_sweep

    allowed = ("auto", "lp", *ALGORITHMS)
    if algorithm not in allowed:
        raise SpycfrError(f"sweeps solve each variant exactly on its tree: --algorithm "
                          f"{algorithm!r} is not one of {', '.join(allowed)}")
    fixed, swept = split_grid(variant_params)
    settings = SweepSettings(
        game=game, preset=preset, fixed=fixed, swept=swept, algorithm=algorithm,
        target_exploitability=_number("target-exploitability", target_exploitability, float,
                                      1e-3),
        max_iterations=_number("iterations", iterations, int, 100_000),
        time_limit=_number("time-limit", time_limit, float, None),
        memory_per_worker=_number("memory-per-worker", memory_per_worker, float, 4.0),
    )
    n_workers = _number("workers", workers, int, None)
    if scheduler is not None and (workers is not None or memory_per_worker is not None):
        raise SpycfrError("--workers and --memory-per-worker size a LocalCluster; with "
                          "--scheduler the cluster's own workers are used")
    summary = run_sweep(settings, output, scheduler, n_workers, _Progress(quiet),
                        None if quiet else lambda text: click.echo(f"sweep: {text}", err=True))
    click.echo(f"{game}: {summary['finished']} of {summary['counts']['variants']} variants "
               f"solved, {summary['failed']} failed, in {summary['wall_seconds']:.1f} s on "
               f"{summary['cluster']}")
    click.echo(f"wrote {', '.join(summary['files'])} in {output}")
    if summary["failed"]:
        for key, error in summary["failures"][:10]:
            click.echo(f"failed: {key}: {error}", err=True)
        raise SpycfrError(f"{summary['failed']} of {summary['counts']['variants']} variants "
                          f"failed (their errors are above and in sweep.csv)")
