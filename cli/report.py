"""`spycfr report RUN_DIR -o report.md`: a strategy report (markdown and PNG figures)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import click

from solver.errors import SpycfrError


def _check_output(out: Path) -> None:
    """Fail fast, before the analysis, when the report cannot be written where asked."""
    if out.is_dir():
        raise SpycfrError(f"-o {str(out)!r} is a directory; give a file name such as report.md")
    parent = out.parent if str(out.parent) else Path(".")
    existing = parent
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise SpycfrError(f"cannot write the report {str(out)!r}: {str(existing)!r} is not a "
                          f"writable directory")
    if out.exists() and not os.access(out, os.W_OK):
        raise SpycfrError(f"cannot write the report {str(out)!r}: the file is not writable")


@click.command()
@click.argument("run_dir", type=click.Path())
@click.option("-o", "--output", default=None, type=click.Path(),
              help="Report file (default: RUN_DIR/report.md); figures go to a folder "
                   "<name>_files next to it.")
@click.option("--figures-dir", default=None, type=click.Path(),
              help="Folder for the PNG figures (default: <report name>_files next to it).")
def report(run_dir: str, output: str | None, figures_dir: str | None) -> None:
    """A strategy report of a run: values, openings, how the game is played, best responses."""
    from solver.analysis.report import write_report
    from solver.runs.store import load_run, read_run_meta

    read_run_meta(run_dir)  # a missing or broken run is named before the output is checked
    out = Path(output) if output else Path(run_dir) / "report.md"
    _check_output(out)
    if figures_dir is not None:
        _check_output(Path(figures_dir) / "x.png")
    start = time.perf_counter()
    run = load_run(run_dir)
    path = write_report(run, out, figures_dir)
    click.echo(f"wrote {path} ({time.perf_counter() - start:.1f} s)")
