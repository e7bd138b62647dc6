"""`spycfr solve` and `spycfr info`: JSON output, human output, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from cli_helpers import spycfr

LEDUC_VALUE = -0.085606424078  # OpenSpiel's sequence-form LP test value for P1


def test_solve_leduc_json():
    code, out, err = spycfr(
        "solve", "leduc", "--algorithm", "cfr+", "--iterations", "1000",
        "--json",
    )
    assert code == 0
    res = json.loads(out)
    for key in ("game", "variant", "algorithm", "iterations", "seed", "value_p1",
                "exploitability", "nash_conv", "nodes", "infosets", "build_seconds",
                "solve_seconds", "version"):
        assert key in res, key
    assert res["game"] == "leduc" and res["algorithm"] == "cfr+" and res["iterations"] == 1000
    assert res["value_p1"] == pytest.approx(LEDUC_VALUE, abs=1e-3)
    assert res["exploitability"] < 1e-3
    assert res["nash_conv"] == pytest.approx(2 * res["exploitability"], rel=1e-12)
    assert res["nodes"] == 9457 and res["infosets"] == 936  # OpenSpiel's leduc_poker tree
    assert 0 < res["solve_seconds"] < 30 and res["build_seconds"] > 0
    assert "iteration 1000" in err and "exploitability" in err  # progress on stderr


def test_solve_kuhn_human_and_target():
    code, out, err = spycfr(
        "solve", "kuhn", "--algorithm", "dcfr", "--target-exploitability",
        "0.01", "--check-every", "10", "--quiet",
    )
    assert code == 0 and err == ""
    assert "stopped by target" in out
    assert "value (P1)      -0.05" in out


def test_solve_default_iterations_and_seed():
    code, out, _ = spycfr("solve", "kuhn", "--algorithm", "cfr+", "--seed", "5", "--json", "-q")
    res = json.loads(out)
    assert code == 0 and res["iterations"] == 1000 and res["seed"] == 5
    assert res["value_p1"] == pytest.approx(-1 / 18, abs=1e-3)


def test_solve_default_is_auto_and_says_why():
    """Kuhn is small: auto solves the exact LP, prints why, and certifies the value."""
    code, out, err = spycfr("solve", "kuhn")
    assert code == 0, err
    assert "auto: lp, because the tree has about" in err
    assert "algorithm       lp" in out and "chosen by auto  the tree has about" in out
    assert "game value      in [-0.0555555" in out
    code, out, _ = spycfr("solve", "kuhn", "--json", "-q")
    res = json.loads(out)
    assert res["algorithm"] == "lp" and res["algorithm_choice"]["requested"] == "auto"
    assert res["iterations"] == 0 and res["stopped_by"] == "exact"
    assert res["exploitability"] < 1e-12
    lo, hi = res["value_interval"]
    assert lo <= -1 / 18 + 1e-12 and hi >= -1 / 18 - 1e-12 and hi - lo < 1e-12


def test_info():
    code, out, _ = spycfr("info", "kuhn", "--json")
    res = json.loads(out)
    assert code == 0
    assert (res["nodes"], res["terminal_nodes"], res["infosets_p1"], res["infosets_p2"]) == (
        58, 30, 6, 6
    )
    assert res["max_actions"] == 2 and res["depth"] == 5 and res["bytes"] > 0
    code, out, _ = spycfr("info", "leduc")
    assert code == 0 and "9,457" in out and "P1 468" in out


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["solve", "nope"], "unknown game"),
        (["info", "nope"], "unknown game"),
        (["solve", "leduc", "--algorithm", "cfr++"], "unknown algorithm"),
        (["solve", "leduc", "--algorithm", "re-solvin"], "os-mccfr, re-solving"),
        (["solve", "leduc", "--iterations", "0"], "--iterations"),
        (["solve", "leduc", "--iterations", "ten"], "--iterations"),
        (["solve", "leduc", "--time-limit", "0"], "--time-limit"),
        (["solve", "leduc", "--target-exploitability", "-1"], "--target-exploitability"),
        (["solve", "leduc", "--check-every", "0"], "--check-every"),
        (["solve", "leduc", "--algorithm", "dcfr", "--alpha", "nan"], "--alpha"),
        (["solve", "leduc", "--gamma", "3"], "dcfr, pdcfr+ or hs-pcfr+ only"),
        (["solve", "leduc", "--algorithm", "hs-pcfr+", "--alpha", "2"], "dcfr or pdcfr+ only"),
        (["solve", "leduc", "--algorithm", "pdcfr+", "--beta", "1"], "dcfr only"),
        (["solve", "leduc", "--algorithm", "lp", "--iterations", "5"], "no iterations"),
        (["solve", "kuhn", "--cards", "3"], "cards"),
    ],
)
def test_bad_input_is_one_line(args, fragment):
    code, out, err = spycfr(*args)
    assert code != 0
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0]
    assert "Traceback" not in err


def test_console_script_end_to_end():
    env = dict(os.environ)
    proc = subprocess.run(
        [sys.executable, "-m", "spycfr.cli.main", "solve", "leduc", "--iterations", "0"],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert proc.returncode == 2 and proc.stderr.startswith("error: ")
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("args", [
    ["kuhn", "--algorithm", "cfr+", "--iterations", "40"],  # the history tree
    ["leduc", "--algorithm", "cfr+", "--tree", "public", "--iterations", "40"],  # public tree
    ["kuhn", "--algorithm", "es-mccfr", "--iterations", "2000"],  # sampled
    ["kuhn", "--target-exploitability", "1e-6"],  # auto: cfr+'s race before the exact LP
], ids=["history", "public", "sampled", "race"])
def test_every_engine_gives_its_progress_the_limits_it_solves_to(args):
    """The solver tells the progress the run's limits before its first line (solve._solve),
    whatever the engine: without them every line's ETA would be 'unknown'."""
    code, _, err = spycfr("solve", *args)
    assert code == 0, err
    etas = [line.split(" ETA ")[1] for line in err.splitlines() if line.startswith("iteration ")]
    assert etas and "unknown" not in etas, err
