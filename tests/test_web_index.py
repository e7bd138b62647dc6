"""The workbench's index page without a browser: what each table's columns say."""

from __future__ import annotations

import threading
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_index_names_a_sweeps_grid_and_how_many_variants_it_solved():
    """A sweep's row gives its fixed parameters and the grid it swept (its variant cell was
    empty) under a column 'variants solved' with the target (its count stood under
    'exploitability'); a run's row keeps its variant and exploitability."""
    from spycfr.web.server import make_server_for

    srv = make_server_for([str(ROOT / "results/sweeps/agent-hunter-decoys"),
                           str(ROOT / "results/tiny")])
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{srv.server_port}/", timeout=60) as r:
            page = r.read().decode()
    finally:
        srv.shutdown()
        srv.server_close()
    runs, sweeps = page.split("<h2>Runs</h2>")[1].split("<h2>Sweeps</h2>")
    assert "<th>exploitability</th>" in runs and "9.7e-05" in runs
    assert "<th>variants solved</th>" in sweeps and "<th>exploitability</th>" not in sweeps
    assert ("houses=2; swept cards=3,4 decoys=0..2 max_turns=1..3 decoy_rule=any,switched"
            in sweeps)
    assert "36 of 36, each to exploitability 0.0001" in sweeps


def test_numbers_on_the_pages_are_never_a_negative_zero():
    from spycfr.analysis.markdown import num

    assert num(-1.6e-6) == "+0.0000" and num(-0.0) == "+0.0000"
    assert num(-0.00005) == "-0.0001" and num(0.25) == "+0.2500" and num(None) == "–"
    assert num(-1e-9, "{:.2g}") == "-1e-09"  # not rounded to zero: kept
