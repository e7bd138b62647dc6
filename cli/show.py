"""What the commands that read a run print alike: one format of a value, and the run's
header line (openings, query, best-response)."""

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
    return (f"{m.game} {variant}: {m.algorithm} x{m.iterations}, value(P1) "
            f"{num(m.value_p1, '{:+.5f}')}, exploitability {m.exploitability:.3g}")


def load_run(run_dir: str):
    """The run, loaded saying so on stderr when it takes long (numba compiling, a tree
    rebuilt)."""
    from spycfr.cli.progress import load_run_saying

    return load_run_saying(run_dir)
