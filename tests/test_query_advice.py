"""`spycfr query`'s advice (issue 11): ties within the run's accuracy are never "the best
move", the equilibrium's mix is shown apart from the best reply, positions off the
equilibrium path are flagged with their reach, and every move is listed as a record accepts
it (appended to the view, it parses: Agent Hunter's attacks with each result they may get,
its refills as `refill:F`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cli_helpers import spycfr
from spycfr.analysis.query import advise, record_forms, tie_tolerance
from spycfr.errors import RecordError
from spycfr.exact.best_response import infoset_values
from spycfr.games import build_tree, get_plugin, make_game, make_variant, tree_labels
from spycfr.games.agent_hunter.record import parse_view, record_to_actions, replay
from spycfr.games.agent_hunter.variant import Variant
from spycfr.runs import load_run

MINI = Variant(3, 2, 1, 4)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("runs") / "tiny"
    code, _, err = spycfr("solve", "agent-hunter", "--preset", "tiny", "--algorithm", "pcfr+",
                          "--target-exploitability", "1e-5", "-o", str(path), "-q")
    assert code == 0, err
    return str(path), load_run(path)


def query_json(run_dir: str, player: str, record: str, *extra: str) -> dict:
    code, out, err = spycfr("query", run_dir, "--as", player, record, "--json", *extra)
    assert code == 0, err
    return json.loads(out)


# --- every listed move parses back ------------------------------------------------------


@pytest.mark.parametrize("game,preset", [("agent-hunter", "tiny"), ("agent-avenue", "tiny"),
                                         ("agent-double-double-agent", "tiny")])
def test_every_listed_move_appended_to_the_view_parses(game, preset):
    """For sampled infosets of each game with a record notation: each way a move is listed,
    appended to the view, parses; a move listed by its label leads to its child's view."""
    tree = build_tree(make_game(game, preset))
    keys, labels = tree_labels(tree)
    records = get_plugin(game).records
    variant = make_variant(game, preset)
    rng = np.random.default_rng(0)
    picked = rng.choice(tree.num_infosets, size=min(60, tree.num_infosets), replace=False)
    checked = 0
    for i in picked:
        seat, key = int(tree.infoset_seat[i]), keys[i]
        forms = record_forms(tree, int(i), records, variant, key)
        assert len(forms) == int(tree.infoset_num_actions[i])
        for label, written in zip(labels[i], forms, strict=True):
            assert written, label
            for token in written:
                text = f"{key} {token}" if key else token
                records.view_key(variant, text, seat)  # raises RecordError if refused
                checked += 1
            if written == [label]:
                continue
            # a move written otherwise is completed by a result its player cannot know yet
            assert len(written) > 1 or not written[0].startswith(label), (label, written)
    assert checked > 60


def test_agent_hunter_moves_are_listed_with_their_possible_results(tiny):
    run_dir, _ = tiny
    res = query_json(run_dir, "P1", "place:0-2 place:?")
    forms = {m["move"]: m["record"] for m in res["moves"]}
    assert forms["hand:1>1"] == ["hand:1>1:eq", "hand:1>1:hi", "hand:1>1:lo"]
    assert forms["house:1=0>1"] == ["house:1=0>1:eq", "house:1=0>1:lo+h2", "house:1=0>1:lo+hand"]
    assert forms["switch:1=0>1@2"] == ["switch:1=0>1@2"]  # the mover sees its own card
    for move in res["moves"]:
        for token in move["record"]:
            parse_view(MINI, f"place:0-2 place:? {token}", 0)
    refill = query_json(run_dir, "P1", "place:0-2 place:? house:1=0>1:eq")
    assert [m["record"] for m in refill["moves"]] == [["refill:1"]]
    assert parse_view(MINI, "place:0-2 place:? house:1=0>1:eq refill:1", 0) == \
        "place:0-2 place:? house:1=0>1:eq>1"


# --- the record parser: moves as spycfr lists them -------------------------------------


def test_pending_results_are_completed_where_the_record_decides_them():
    assert replay(MINI, "place:0-2 place:1-0 hand:1>1").record == \
        "place:0-2 place:1-0 hand:1>1:eq"
    assert replay(MINI, "place:0-2 place:1-0 house:1=0>1").record == \
        "place:0-2 place:1-0 house:1=0>1:lo+h2"
    # the defender's view knows the answer to the attacker's move
    assert parse_view(MINI, "place:? place:1-0 hand:2>1", 1) == "place:? place:1-0 hand:2>1:hi"
    # a refill as its own token is merged into the attack's
    assert replay(MINI, "place:0-2 place:1-0 house:1=0>2:eq refill:1").record == \
        "place:0-2 place:1-0 house:1=0>2:eq>1"
    assert parse_view(MINI, "place:? place:1-0 house:1=0>1:lo+h2 refill:2", 1).endswith(
        "house:1=0>1:lo+h2>2")


@pytest.mark.parametrize("text,viewer,pattern", [
    ("place:0-2 place:? hand:1>1", 0,
     r"move 3 `hand:1>1`: the answer is not written, and P1 cannot know it before P2 answers: "
     r"write one of `hand:1>1:eq`, `hand:1>1:hi`, `hand:1>1:lo`"),
    ("place:0-2 place:? house:1=0>1", 0, r"the result is not written.*`house:1=0>1:lo\+h2`"),
    ("place:0-2 place:1-0 hand:1>1 hand:0>1:lo", None, r"move 3 .*only the last move"),
    ("place:0-2 place:1-0 house:1=2>1", None, r"move 3 .*P1's house 1 holds 0, not 2"),
    ("place:0-2 place:1-0 hand:0>1", None, r"move 3 .*card 0 is not in P1's hand"),
    ("place:0-2 hand:1>1", None, r"move 2 .*expected P2's placement"),
    ("place:0-2 place:1-0 refill:1", None, r"move 3 `refill:1`: no refill is pending"),
    ("place:0-2 place:1-0 house:1=0>2:eq refill:0", None, r"move 4 .*not in P1's hand"),
    ("place:0-2 place:1-0 house:1=0>2:eq refill:?", None, r"only allowed in a player's view"),
    ("place:0-2 place:? house:1=0>1:eq refill:?", 0, r"written with its card"),
])
def test_pending_moves_that_cannot_be_completed_are_refused(text, viewer, pattern):
    with pytest.raises(RecordError, match=pattern):
        record_to_actions(MINI, text) if viewer is None else parse_view(MINI, text, viewer)


# --- ties, the mix, the best reply ----------------------------------------------------------


def test_tied_moves_are_never_called_the_best_move():
    moves = [{"move": m, "probability": p, "value": v, "br_value": b}
             for m, p, v, b in [("a", 0.4, 0.10, 0.10), ("b", 0.6, 0.1005, 0.1005),
                                ("c", 0.0, 0.0999, 0.12), ("d", 0.0, -0.3, -0.2)]]
    out = advise(moves, tolerance=0.001, br_tolerance=0.001)
    assert out["best_move"] is None and out["best_moves"] == ["b", "a", "c"]
    assert out["as_good"] == ["c"] and [m["move"] for m in out["losing"]] == ["d"]
    assert out["losing"][0]["loss"] == pytest.approx(0.4005)
    assert [m["move"] for m in out["equilibrium_mix"]] == ["b", "a"]
    # the best reply is judged on best-response values, apart from the mix
    assert out["best_reply"] == ["c"] and out["best_reply_value"] == 0.12
    unique = advise([dict(m) for m in moves], tolerance=0.0001, br_tolerance=0.0001)
    assert unique["best_move"] == "b" and unique["best_moves"] == ["b"]


def test_a_rare_positions_wide_tie_does_not_call_moves_equal():
    """At a position reached in 1.8e-4 of games, mini's tolerance (2 eps / reach) is 1.0: its
    query called all 6 moves 'as good as each other (within 1)' and every best reply 'tied
    at +0.0000' where they were worth 0 to -1 against the run. Moves tied only by so wide a
    tolerance (more than the run's NashConv below the best) are not ranked, not equal; the
    best reply (exact against the run's strategy) ties within the NashConv."""
    from spycfr.analysis.query import advice_words

    moves = [{"move": m, "probability": p, "value": v, "br_value": v}
             for m, p, v in [("a", 1.0, 0.0), ("b", 0.0, -0.27), ("c", 0.0, -1.0),
                             ("d", 0.0, -0.00005)]]
    out = advise(moves, tolerance=1.03, br_tolerance=2e-4, precision=2e-4)
    assert out["best_moves"] == ["a", "d", "b", "c"] and out["unranked"] == ["b", "c"]
    assert out["as_good"] == ["d"] and out["best_reply"] == ["a", "d"]
    words = " ".join(advice_words({**out, "moves": moves}))
    assert "cannot rank these moves" in words and "as good as each other" not in words
    # the best's value, then the others' losses below it: not a value and losses alike
    assert ("a is best (value +0.0000), then d (0.0001 less), b (0.2700 less), c (1.0000 "
            "less)") in words
    # without a precision (a caller that gives none), ties stay ties
    assert advise([dict(m) for m in moves], tolerance=1.03, br_tolerance=1.03)["unranked"] == []


def test_mini_query_at_a_rare_position_says_the_run_cannot_rank_its_moves():
    mini = str(Path(__file__).resolve().parent.parent / "results" / "mini")
    code, out, err = spycfr("query", mini, "--seat", "P1",
                            "place:0-1 place:? house:1=0>2:lo+h1>? switch:1=2>?@1")
    assert code == 0, err
    text = " ".join(out.split())
    assert "the run cannot rank these moves" in text and "as good as each other" not in text
    assert "~1.0000" in out and "tied at" not in text
    assert "best reply against the equilibrium opponent (best play afterwards): hand:2>1" in text


def test_a_review_row_of_a_rare_position_is_not_called_as_good():
    from spycfr.analysis.play import loss_text
    from spycfr.analysis.review import words

    row = {"move": "hand:2>2", "showed": "hand:2>2:hi", "likely": [], "loss": 1.0,
           "tie": True, "unranked": True, "tolerance": 1.03, "best_moves": ["hand:2>1"]}
    said = words(row, 0)
    assert "as good" not in said and "1.0000 below" in said
    # what 'not ranked' means, said in order ('within the 1 its values may be off ...')
    assert said.endswith("against the run's strategy, but not ranked: at a position this rare "
                         "the run's values may be off by up to 1."), said
    assert loss_text(row) == "~1.0000" and loss_text({**row, "unranked": False}) == "tie"


def test_one_rule_says_a_move_is_unranked():
    """query.unranked, the rule of query's advice and of a tree run's review (each wrote it):
    tied within the position's tolerance but more than the run's precision (2 eps) below
    the best; never off the equilibrium path (no tolerance, or the review's best-reply
    tolerance 2 eps) nor without a precision."""
    from spycfr.analysis.query import unranked

    assert unranked(0.5, 1.03, 2e-4) and unranked(1.03, 1.03, 2e-4)
    assert not unranked(2e-4, 1.03, 2e-4) and not unranked(1.1, 1.03, 2e-4)
    assert not unranked(0.5, None, 2e-4) and not unranked(0.5, 1.03, None)
    assert not unranked(2e-4, 2e-4, 2e-4)  # the review off the path: tol = 2 eps


def test_tolerance_scales_with_how_often_a_position_arises():
    assert tie_tolerance(1e-4, 1.0) == pytest.approx(2e-4)
    assert tie_tolerance(1e-4, 0.01) == pytest.approx(2e-2)
    assert tie_tolerance(1e-4, 1e-7) is None


def test_query_mix_ties_and_best_reply_in_words_and_json(tiny):
    run_dir, run = tiny
    res = query_json(run_dir, "P1", "")
    eps = run.result.exploitability
    assert res["tolerance"] == pytest.approx(2 * eps)  # the root: reached in every game
    assert res["equilibrium_reach_probability"] == pytest.approx(1.0)
    assert res["warning"] is None
    tied = [m for m in res["moves"] if m["tie"]]
    assert len(res["best_moves"]) == len(tied) >= 2 and res["best_move"] is None
    mix = {m["move"]: m["probability"] for m in res["equilibrium_mix"]}
    assert all(p >= 0.005 for p in mix.values())
    code, out, _ = spycfr("query", run_dir, "--as", "P1")
    assert code == 0
    assert "equilibrium: play " in out and "best move:" not in out
    assert "best reply against the equilibrium opponent" in out
    for move in mix:
        assert move in out


def test_off_the_equilibrium_path_is_flagged_with_its_reach(tiny):
    run_dir, run = tiny
    tree = run.tree
    _, reach, opp_reach = infoset_values(tree, run.strategy)
    keys, _ = tree_labels(tree)
    # a position of P1's that P1's own equilibrium play never reaches (the opponent may)
    off = next(i for i in range(tree.num_infosets) if tree.infoset_player[i] == 0
               and reach[i] < 1e-9 and opp_reach[i] > 0 and keys[i])
    res = query_json(run_dir, "P1", keys[off])
    assert res["equilibrium_reach_probability"] < 1e-9 and res["own_reach_probability"] < 1e-6
    assert "off the equilibrium path" in res["warning"] and "P1's own" in res["warning"]
    assert res["tolerance"] is None and res["best_moves"] == [] and res["best_move"] is None
    assert res["best_reply"] and all(m["loss"] is not None for m in res["moves"])
    code, out, _ = spycfr("query", run_dir, "--as", "P1", keys[off])
    assert code == 0
    assert "warning: off the equilibrium path: this position arises in" in out
    assert "not ranked" in out and "best reply against the equilibrium opponent" in out


@pytest.mark.parametrize("run, record", [
    ("mini", ""), ("standard", "place:4-0-1 place:? hand:9>1:hi hand:2>2:hi")])
def test_a_query_imports_neither_pandas_nor_scipys_lp(run, record):
    """`spycfr query` on a committed run (a solved one, the search agent) answers without
    pandas or scipy.optimize, which only other commands need (making or reading a strategy
    table, solving an LP): their imports were some 0.9 s of a query's CPU (python -X
    importtime; docs/search.md)."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    script = ("import sys\nsys.argv = ['spycfr', *sys.argv[1:]]\nfrom spycfr.cli.main import "
              "main\ntry:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code\n"
              "print([m for m in ('pandas', 'scipy.optimize') if m in sys.modules])")
    proc = subprocess.run([sys.executable, "-c", script, "query", f"results/{run}", "--seat",
                           "P1", record], capture_output=True, text=True, cwd=root, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "[]"
