"""MCCFR's store depth: only the first D decisions of a game get rows; deeper ones play the
fallback. Checked on Kuhn poker, whose decisions sit at known depths."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cli_helpers import spycfr
from spycfr.cfr.mccfr import MCCFRSolver
from spycfr.errors import SpycfrError
from spycfr.games import make_game

# Kuhn: P1 acts at depth 0 (3 infosets: its card), P2 at depth 1 (3 cards x 2 moves seen),
# P1 again at depth 2 after check-bet (3 infosets).
KUHN_ROWS = {1: 3, 2: 9, 3: 12, None: 12}


def _tables(solver: MCCFRSolver) -> dict:
    return {k: v for k, v in solver.state_dict().items() if isinstance(v, np.ndarray)}


@pytest.mark.parametrize("scheme", ["external", "outcome"])
@pytest.mark.parametrize("depth", [1, 2, 3, None])
def test_only_the_first_decisions_are_stored(scheme, depth):
    solver = MCCFRSolver(make_game("kuhn"), scheme, seed=4, store_depth=depth)
    solver.iterate(2000)
    assert solver.num_infosets == KUHN_ROWS[depth]
    stats = solver.stats()
    assert stats["store_depth"] == depth
    # Decisions below the depth met no row: they are counted as played by the fallback.
    assert (stats["unstored_decisions"] > 0) == (KUHN_ROWS[depth] < 12)
    players = solver.state_dict()["inf_player"]
    if depth == 1:
        assert set(players.tolist()) == {0}


@pytest.mark.parametrize("scheme", ["external", "outcome"])
def test_a_depth_below_every_decision_changes_nothing(scheme):
    """Kuhn has at most 3 decisions in a game: a store depth of 3 is the same run, bit for bit."""
    plain = MCCFRSolver(make_game("kuhn"), scheme, seed=9)
    deep = MCCFRSolver(make_game("kuhn"), scheme, seed=9, store_depth=3)
    plain.iterate(500)
    deep.iterate(500)
    a, b = _tables(plain), _tables(deep)
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_deeper_decisions_play_the_fallback_and_learn_nothing():
    """With depth 2, P1's second decision (after check, bet) is never stored: its policy is
    the uniform fallback, while P2's stored rows have learned to bet with the king."""
    solver = MCCFRSolver(make_game("kuhn"), "external", seed=1, store_depth=2)
    solver.iterate(3000)
    keys = solver.state_dict()["inf_key"]
    assert len(keys) == 9
    policies = [solver.average_policy(int(k)) for k in keys]
    assert all(p is not None and p.sum() == pytest.approx(1.0) for p in policies)
    assert any(p.max() > 0.9 for p in policies)


def test_resume_keeps_the_depth_and_refuses_another(tmp_path):
    game = make_game("kuhn")
    straight = MCCFRSolver(game, "outcome", seed=5, store_depth=2)
    straight.iterate(600)
    first = MCCFRSolver(game, "outcome", seed=5, store_depth=2)
    first.iterate(250)
    state = first.state_dict()
    resumed = MCCFRSolver(game, "outcome", seed=5, store_depth=2)
    resumed.load_state_dict(state)
    resumed.iterate(350)
    a, b = _tables(straight), _tables(resumed)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    for other in (None, 1):
        with pytest.raises(SpycfrError, match="store_depth"):
            MCCFRSolver(game, "outcome", seed=5, store_depth=other).load_state_dict(state)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_bad_depth_is_refused(bad):
    with pytest.raises(SpycfrError, match="^store_depth must be a positive integer"):
        MCCFRSolver(make_game("kuhn"), "outcome", store_depth=bad)


def test_cli_records_the_depth_and_refuses_bad_input(tmp_path):
    run = tmp_path / "k"
    code, out, err = spycfr("solve", "kuhn", "--algorithm", "os-mccfr", "--store-depth", "2",
                            "--iterations", "300", "-o", str(run), "--json", "-q")
    assert code == 0, err
    assert json.loads(out)["algorithm_params"]["store_depth"] == 2
    assert json.loads((run / "run.json").read_text())["algorithm_params"]["store_depth"] == 2
    code, out, err = spycfr("solve", "--resume", str(run), "--iterations", "400", "--json", "-q")
    assert code == 0, err
    assert json.loads(out)["iterations"] == 400
    for args, message in [
        (["kuhn", "--algorithm", "os-mccfr", "--store-depth", "0"],
         "--store-depth must be an integer >= 1, got '0'"),
        (["kuhn", "--algorithm", "os-mccfr", "--store-depth", "two"],
         "--store-depth must be an integer >= 1, got 'two'"),
        (["kuhn", "--algorithm", "cfr+", "--store-depth", "2"],
         "--store-depth applies to --algorithm es-mccfr or os-mccfr only"),
        (["--resume", str(run), "--store-depth", "1"], "drop --store-depth"),
    ]:
        code, out, err = spycfr("solve", *args, "--iterations", "10", "-q")
        assert code != 0 and message in err and "Traceback" not in err, (args, err)


def test_external_sampling_of_the_placements_only_on_the_rulesheet_game(tmp_path):
    """Agent Hunter `standard`: external sampling is refused on the whole game (about 1e14
    nodes an iteration), but with --store-depth 2 it learns the two placements only, each
    valued by playouts of the heuristic: a few thousand nodes an iteration. Its sampled-regret
    bound covers the placements only, so the run says its exploitability is unknown."""
    game = make_game("agent-hunter", "standard")
    with pytest.raises(SpycfrError, match="external sampling would visit"):
        MCCFRSolver(game, "external", abstraction=True)
    solver = MCCFRSolver(game, "external", abstraction=True, fallback="heuristic",
                         store_depth=2)
    assert 720 <= solver.es_nodes_estimate < 1e5
    solver.iterate(3)
    assert solver.num_infosets == 2  # one placement row per seat (nothing seen yet)
    assert sorted(solver.state_dict()["inf_nact"].tolist()) == [720, 720]
    run = tmp_path / "std"
    code, out, err = spycfr("solve", "agent-hunter", "--preset", "standard", "--algorithm",
                            "es-mccfr", "--abstraction", "--fallback", "heuristic",
                            "--store-depth", "2", "--iterations", "4", "-o", str(run), "--json",
                            "-q")
    assert code == 0, err
    est = json.loads(out)["exploitability_estimate"]
    assert est["informative"] is False and "covers only the decisions" in est["note"]
    code, out, err = spycfr("solve", "--resume", str(run), "--iterations", "5")
    assert code == 0, err
    assert "covers only the decisions the table learnt" in out
    assert "first 2 decisions stored" in out
    code, out, err = spycfr("report", str(run), "-o", str(tmp_path / "r.md"))
    assert code == 0, err
    text = (tmp_path / "r.md").read_text()
    assert "bound covers only the decisions the table learnt" in text
    assert "only the first 2 decisions of a game" in text and "--store-depth 2" in text
