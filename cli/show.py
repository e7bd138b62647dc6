"""What the commands that read a run print alike: one format of a value, the run's header
line (openings, query, best-response), and a search agent's damaged plan warned by the
commands that do not load the agent (openings, report)."""

from __future__ import annotations

import math

from spycfr.analysis.markdown import num
from spycfr.words import params_text


def value_text(x: float | None) -> str:
    """A value, signed, 4 decimals, as the workbench writes it (``num``: never "-0.0000");
    "-" where there is none (None or NaN)."""
    if x is not None and math.isnan(x):
        x = None
    return num(x, none="-")


def run_header(run) -> str:
    """The run in one line: game, variant, algorithm and iterations, value, exploitability."""
    m = run.result
    variant = params_text(m.variant)
    # "cfr+, 21,800 iterations", where "cfr+ x21800" read as a multiplication
    return (f"{m.game} {variant}: {m.algorithm}, {m.iterations:,} iterations, value(P1) "
            f"{num(m.value_p1, '{:+.5f}')}, exploitability {m.exploitability:.3g}")


def load_run(run_dir: str):
    """The run, loaded saying so on stderr when it takes long (numba compiling, a tree
    rebuilt)."""
    from spycfr.cli.progress import load_run_saying

    return load_run_saying(run_dir)


def read_run_warning(run_dir: str):
    """run.json of ``run_dir`` (:func:`spycfr.runs.store.read_run`; a missing or broken
    run is named at once), a command that does not load a search agent (openings, report)
    saying on stderr, in one line, what loading it would stop at where its saved plan file
    is damaged (:func:`spycfr.runs.agent_run.damaged_plan`: play, query and review stop
    with that error, and the workbench's pages say it too)."""
    import click

    from spycfr.runs.agent_run import damaged_plan
    from spycfr.runs.store import read_run

    meta = read_run(run_dir)
    words = damaged_plan(run_dir, meta)
    if words is not None:
        click.echo(f"warning: {words}", err=True)
    return meta
