"""`spycfr solve --tree`: the public tree inside a run, and the analysis commands on it."""

from __future__ import annotations

import json

import pytest

from cli_helpers import spycfr

LEDUC_VALUE = -0.085606424078


@pytest.mark.slow
def test_public_run_reads_like_any_other(tmp_path):
    run = tmp_path / "leduc"
    code, out, err = spycfr("solve", "leduc", "--algorithm", "pcfr+", "--iterations", "400",
                            "--tree", "public", "-o", str(run), "--json", "-q")
    assert code == 0, err
    res = json.loads(out)
    assert res["tree"] == "public" and res["tree_choice"] is None
    # The solver's model merges the suits (exact): 3 ranks per seat, 3 board ranks, so 15
    # nodes before the board and 225 after it, each holding the 3 ranks per seat.
    assert res["public_tree"]["public_nodes"] == 240
    assert res["public_tree"]["private_states"] == [3, 3]
    assert res["public_tree"]["range_entries"] == 240 * 6
    assert res["nodes"] == 9457 and res["infosets"] == 936  # the strategy files' tree
    assert res["value_p1"] == pytest.approx(LEDUC_VALUE, abs=2 * res["exploitability"])
    # The history tree's own best response agrees with what the public tree measured.
    code, out, err = spycfr("exploitability", str(run), "--json")
    assert code == 0, err
    assert json.loads(out)["exploitability"] == pytest.approx(res["exploitability"], abs=1e-12)
    # Resume continues on the public tree, as an uninterrupted run would.
    code, out, err = spycfr("solve", "--resume", str(run), "--iterations", "500", "--json",
                            "-q")
    assert code == 0, err
    resumed = json.loads(out)
    assert resumed["tree"] == "public" and resumed["iterations"] == 500
    code, out, _ = spycfr("solve", "leduc", "--algorithm", "pcfr+", "--iterations", "500",
                          "--tree", "public", "--json", "-q")
    assert json.loads(out)["exploitability"] == resumed["exploitability"]


def test_tree_auto_and_its_reasons():
    code, out, err = spycfr("solve", "leduc", "--algorithm", "cfr+", "--iterations", "5",
                            "--tree", "auto", "--json", "-q")
    assert code == 0, err
    res = json.loads(out)
    assert res["tree"] == "public" and res["tree_choice"]["chosen"] == "public"
    code, out, err = spycfr("solve", "kuhn", "--algorithm", "cfr+", "--iterations", "5",
                            "--tree", "auto", "--json", "-q")
    res = json.loads(out)
    # Kuhn's 58 history nodes: too few for the range kernels' dispatch to pay.
    assert res["tree"] == "history" and "about 58 nodes" in res["tree_choice"]["why"]
    for extra in (["--algorithm", "es-mccfr"], ["--algorithm", "cfr+", "--threads", "auto"]):
        code, out, err = spycfr("solve", "leduc", *extra, "--iterations", "5", "--tree",
                                "auto", "--json", "-q")
        assert code == 0, err
        assert json.loads(out)["tree"] == "history"
    code, out, err = spycfr("solve", "leduc", "--algorithm", "cfr+", "--iterations", "5",
                            "--json")
    res = json.loads(out)  # auto is the default, and says so when it leaves the history tree
    assert res["tree"] == "public" and res["tree_choice"]["requested"] == "auto"
    assert "--tree auto: public, because the public tree has 1,440 live range entries" in err
    code, out, _ = spycfr("solve", "leduc", "--algorithm", "cfr+", "--iterations", "5",
                          "--tree", "history", "--json", "-q")
    assert json.loads(out)["tree"] == "history"


def test_tree_errors_are_one_line():
    code, _, err = spycfr("solve", "leduc", "--algorithm", "cfr+", "--tree", "forest")
    assert code == 2 and err.startswith("error: --tree must be one of auto, public, history")
    code, _, err = spycfr("solve", "leduc", "--algorithm", "es-mccfr", "--tree", "public")
    assert code == 2 and "runs on the history tree" in err and len(err.splitlines()) == 1


def test_tree_auto_counts_with_progress_and_heeds_the_memory_limit(monkeypatch):
    from spycfr.public import enumerate as pe
    from spycfr.runs import public_run
    from spycfr.runs.config import SolveConfig
    from spycfr.runs.game import resolve_game

    config = SolveConfig(game="leduc", preset=None, params={}, algorithm="pdcfr+", tree="auto")
    game = resolve_game(config)
    monkeypatch.setattr(pe, "COUNT_STEPS", 50 * 6)  # 50 nodes of the suits-merged model
    monkeypatch.setattr(public_run, "NOTE_SECONDS", 0.0)
    heard: list[str] = []
    assert public_run.choose_tree(config, game, heard.append)[0] == "public"
    assert len(heard) == 4 and "counting the public tree, 200 nodes" in heard[-1]
    # Under a limit the history tree and the strategy's map fill, nothing is counted.
    heard.clear()
    tree, why = public_run.choose_tree(config.replace(memory_limit=0.001), game, heard.append)
    assert tree == "history" and "would not fit the memory limit" in why and not heard
