"""Agent Hunter's information abstraction, heuristic players, and the sampled-run tools
(a frozen table under the memory limit, measure, query, report, export) on `standard`."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cli_helpers import spycfr
from spycfr.cfr.mccfr import MCCFRSolver, tree_infoset_keys
from spycfr.cfr.mccfr_kernels import TREE_OK
from spycfr.errors import SpycfrError
from spycfr.games import build_tree
from spycfr.games import make_game as make_any_game
from spycfr.games.agent_hunter import make_game, make_variant
from spycfr.games.agent_hunter import rules as R
from spycfr.games.agent_hunter.heuristic import HEURISTIC_STYLES, styled_heuristic
from spycfr.games.agent_hunter.record import replay, replay_view
from spycfr.memory import rss_bytes

STANDARD = make_variant("standard")
PARAMS = STANDARD.to_params()


def key(record: str, seat: int) -> int:
    return int(R.abstraction_key(replay(STANDARD, record).state, PARAMS, seat))


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["tiny", "mini"])
def test_abstraction_key_uses_only_the_seats_information(preset):
    """Every node of a tree infoset gets one abstract key (else the mapping reports a split),
    and the abstraction merges infosets (it forgets the order of history)."""
    tree = build_tree(make_game(preset))
    status, info, keys = tree_infoset_keys(tree, make_variant(preset).to_params(), True)
    assert status == TREE_OK, info
    assert len(np.unique(keys)) < tree.num_infosets


def test_positions_that_must_share_a_key():
    # The same answers about P2's house 1 (lo to 5, hi to 7: it holds 6) in either order.
    a = key("place:1-2-3 place:6-7-8 hand:5>1:lo hand:9>1:hi hand:7>1:hi hand:9>2:hi", 0)
    b = key("place:1-2-3 place:6-7-8 hand:7>1:hi hand:9>1:hi hand:5>1:lo hand:9>2:hi", 0)
    assert a == b
    # P2's hidden houses differ; P1 saw the same answers: P1's key is the same, P2's not.
    c = "place:1-2-3 place:6-7-8 hand:5>1:lo hand:9>3:hi"
    d = "place:1-2-3 place:6-8-7 hand:5>1:lo hand:9>3:hi"
    assert key(c, 0) == key(d, 0) and key(c, 1) != key(d, 1)


def test_positions_that_must_not_share_a_key():
    base = key("place:1-2-3 place:6-7-8 hand:5>1:lo hand:9>1:hi hand:7>1:hi hand:9>2:hi", 0)
    # Another answer: P2's house 1 holds a value above 7, not exactly 6.
    other = key("place:1-2-3 place:8-7-6 hand:5>1:lo hand:9>1:hi hand:7>1:lo hand:9>2:hi", 0)
    # P1's own placement differs (its private information).
    mine = key("place:1-2-4 place:6-7-8 hand:5>1:lo hand:9>1:hi hand:7>1:hi hand:9>2:hi", 0)
    assert len({base, other, mine}) == 3
    # What P2 knows of P1's houses is public and part of P1's key: a hand attack by P2 on
    # P1's house 2 narrows it.
    assert key("place:1-2-3 place:6-7-8 hand:5>1:lo hand:0>2:lo", 0) != key(
        "place:1-2-3 place:6-7-8 hand:5>1:lo hand:0>1:lo", 0)


def test_a_switch_resets_what_is_known_of_the_house():
    known = replay(STANDARD, "place:1-2-3 place:6-7-8 hand:5>1:lo hand:9>1:hi hand:7>1:hi").state
    assert int(known[R.KNOW + 0]) == 1 << 6  # P1 knows P2's house 1 holds 6
    after = replay(STANDARD, "place:1-2-3 place:6-7-8 hand:5>1:lo hand:9>1:hi hand:7>1:hi "
                             "switch:1=6>9@1").state
    assert int(after[R.KNOW + 0]) == (1 << 10) - 1  # anything again (minus the out cards)
    assert not (int(after[R.KNOW + 1]) >> 6) & 1  # 6 was in house 1, so not in house 2


@pytest.mark.slow
@pytest.mark.parametrize("style", range(len(HEURISTIC_STYLES)))
def test_heuristics_use_only_the_seats_information(style):
    """Every full position consistent with the seat's view gets the same move distribution."""
    view = "place:1-2-3 place:? hand:5>1:lo hand:9>1:hi hand:7>1:hi hand:9>2:hi"
    cands = replay_view(STANDARD, view, 0).candidates
    assert len(cands) > 1
    buf = np.empty(R.max_actions(STANDARD), dtype=np.int32)
    rows = []
    for s in cands[:50]:
        k = R.legal_actions(s, PARAMS, buf)
        probs = np.empty(k)
        styled_heuristic(s, PARAMS, np.int64(style), buf, k, probs)
        assert probs.sum() == pytest.approx(1.0) and (probs >= 0).all()
        rows.append(probs)
    assert all(np.array_equal(rows[0], r) for r in rows)
    if HEURISTIC_STYLES[style] != "prober":  # P2's house 1 is known to hold 6: hit it
        best = buf[int(np.argmax(rows[0]))]
        assert R.decode_action(best, 10, 3) == ("hand", (6, 0))


@pytest.mark.slow
def test_heuristic_beats_uniform_on_standard():
    code, out, err = spycfr("head-to-head", "heuristic:hunter", "uniform", "--game",
                            "agent-hunter", "--preset", "standard", "--games", "400", "--json")
    assert code == 0, err
    assert json.loads(out)["a_payoff"]["ci95"][0] > 0.5
    code, _, err = spycfr("head-to-head", "heuristic:nobody", "uniform", "--game",
                          "agent-hunter", "--preset", "standard")
    assert code == 2 and "heuristic:hunter" in err


@pytest.mark.slow
def test_a_full_table_freezes_and_resumes_bit_identically():
    """At the memory limit with when_full='freeze' the run goes on: the infosets stored keep
    learning, no new one is stored; a checkpoint made then resumes bit-identically."""
    game = make_game("standard")
    solver = MCCFRSolver(game, "outcome", seed=3, abstraction=True, when_full="freeze",
                         memory_limit=rss_bytes() + 20 * 2**20)
    solver.iterate(3000)
    assert solver.frozen_at is not None and solver.iteration == 3000
    stored = solver.num_infosets
    state = solver.state_dict()
    solver.iterate(500)
    assert solver.num_infosets == stored and solver.stats()["unstored_decisions"] > 0
    again = MCCFRSolver(game, "outcome", seed=3, abstraction=True, when_full="freeze",
                        memory_limit=rss_bytes() + 20 * 2**20)
    again.load_state_dict(state)
    again.iterate(500)
    for name, value in solver.state_dict().items():
        if isinstance(value, np.ndarray):
            assert np.array_equal(value, again.state_dict()[name]), name


@pytest.mark.slow
def test_sampled_run_tools(tmp_path):
    """measure, query (from a view), report and export on a run sampled without a tree."""
    run = tmp_path / "std"
    code, out, err = spycfr("solve", "agent-hunter", "--preset", "standard", "--algorithm",
                            "os-mccfr", "--abstraction", "--iterations", "3000", "-o", str(run),
                            "--json", "-q")
    assert code == 0, err
    assert json.loads(out)["exploitability"] is None
    code, out, err = spycfr("report", str(run), "-o", str(tmp_path / "r.md"))
    assert code == 0, err
    text = (tmp_path / "r.md").read_text()
    assert "Exploitability: unknown" in text and "spycfr measure RUN_DIR" in text
    code, out, err = spycfr("measure", str(run), "--games", "200", "--compare", str(run),
                            "--json")
    assert code == 0, err
    measured = json.loads(out)
    assert [m["opponent"] for m in measured["head_to_head"]] == [
        "uniform", *(f"heuristic:{s}" for s in HEURISTIC_STYLES)]
    bound = measured["exploitability_lower_bound"]  # the highest 95% low end, the words'
    best = max(measured["head_to_head"], key=lambda m: (max(0.0, -m["payoff"]["ci95"][1]),
                                                         -m["payoff"]["mean"]))
    assert bound["value"] == pytest.approx(max(0.0, -best["payoff"]["ci95"][1]))
    assert bound["opponent"] == best["opponent"] and bound["games"] == 200
    assert bound["mean"] == pytest.approx(-best["payoff"]["mean"])
    same = measured["openings_stability"]["against_runs"][0]
    assert same["P1"]["tvd"] == pytest.approx(0.0) and same["P1"]["top5_shared"] == 5
    assert json.loads((run / "run.json").read_text())["measured"] == measured
    code, out, err = spycfr("report", str(run), "-o", str(tmp_path / "r.md"))
    assert code == 0 and "Lower bound on the exploitability" in (tmp_path / "r.md").read_text()
    code, out, err = spycfr("query", str(run), "--as", "P2", "place:? place:1-2-3 hand:5>1:hi",
                            "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert "information abstraction" in answer["source"] and answer["exploitability"] is None
    assert sum(m["probability"] for m in answer["moves"]) == pytest.approx(1.0)
    assert {m["move"] for m in answer["moves"]} >= {"hand:4>1", "switch:1=1>0@1"}
    code, out, err = spycfr("export", str(run), "--format", "csv", "-o", str(tmp_path / "s.csv"))
    assert code == 0, err
    lines = (tmp_path / "s.csv").read_text().splitlines()
    assert lines[0] == "player,infoset_key,action_index,probability" and len(lines) > 720


def test_heuristic_fallback_plays_the_heuristic_where_the_table_has_no_row():
    game = make_game("standard")
    solver = MCCFRSolver(game, "outcome", seed=0, abstraction=True, fallback="heuristic",
                         when_full="freeze", memory_limit=rss_bytes() + 20 * 2**20)
    solver.iterate(2000)
    assert solver.frozen_at is not None
    # P1 knows P2's house 1 holds 6 (and holds the 6): a position the short run never met.
    state = replay(STANDARD, "place:1-2-3 place:6-7-8 hand:5>1:lo hand:9>1:hi hand:7>1:hi "
                             "hand:9>2:hi").state
    assert solver.policy_at_state(state, 0) is None
    played = solver.fallback_at(state)
    buf = np.empty(R.max_actions(STANDARD), dtype=np.int32)
    k = R.legal_actions(state, PARAMS, buf)
    assert len(played) == k and played.max() == 1.0
    assert R.decode_action(buf[int(np.argmax(played))], 10, 3) == ("hand", (6, 0))
    # Its table player plays the same fallback, so it beats uniform play clearly.
    from spycfr.analysis.headtohead import head_to_head, mccfr_player, uniform_player

    result = head_to_head(game, mccfr_player(solver), uniform_player(), 400, seed=2)
    assert result["table_misses"] > 0 and result["a_payoff"]["ci95"][0] > 0.5
    with pytest.raises(SpycfrError, match="no heuristic"):
        MCCFRSolver(make_any_game("kuhn"), "outcome", fallback="heuristic")
