"""`spycfr report RUN_DIR -o report.md`: a strategy report (markdown and PNG figures)."""

from __future__ import annotations

import time
from pathlib import Path

import click

from spycfr.cli.options import memory_limit_option, output_option
from spycfr.io import check_output_dir, check_output_file


@click.command()
@click.argument("run_dir", type=click.Path())
@output_option("Report file (default: RUN_DIR/report.md); figures go to a folder "
               "<name>_files next to it.")
@click.option("--figures-dir", default=None, type=click.Path(),
              help="Folder for the PNG figures (default: <report name>_files next to it).")
@memory_limit_option
def report(run_dir: str, output: str | None, figures_dir: str | None) -> None:
    """A strategy report of a run: values, openings, how the game is played, best responses
    (a team run of `spycfr team`: its value, bounds and how teammates coordinate)."""
    from spycfr.analysis.report import write_report
    from spycfr.analysis.team import is_team_run, load_team_run, write_team_report
    from spycfr.cli.progress import load_run_saying
    from spycfr.cli.show import read_run_warning

    if is_team_run(run_dir):
        out = check_output_file(Path(output) if output else Path(run_dir) / "report.md",
                                "the report")
        start = time.perf_counter()
        path = write_team_report(load_team_run(run_dir), out)
        click.echo(f"wrote {path} ({time.perf_counter() - start:.1f} s)")
        return
    # a missing or broken run is named before the output is checked
    meta = read_run_warning(run_dir)
    treeless = meta.treeless
    out = Path(output) if output else Path(run_dir) / "report.md"
    check_output_file(out, "the report")
    if figures_dir is not None:
        check_output_dir(figures_dir, "--figures-dir")
    start = time.perf_counter()
    if treeless:  # sampled without a tree: what was run and measured, no figures
        from spycfr.analysis.sampled_report import write_sampled_report

        path = write_sampled_report(run_dir, out)
        click.echo(f"wrote {path} ({time.perf_counter() - start:.1f} s)")
        return
    run = load_run_saying(run_dir)
    path = write_report(run, out, figures_dir)
    click.echo(f"wrote {path} ({time.perf_counter() - start:.1f} s)")
