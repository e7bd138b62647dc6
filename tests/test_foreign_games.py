"""Games from outside: Gambit .efg files and OpenSpiel games solved like built-in ones."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cli_helpers import spycfr
from spycfr.errors import SpycfrError
from spycfr.exact.best_response import exploitability
from spycfr.exact.lp import solve_lp
from spycfr.formats.efg import efg_text, tree_from_efg
from spycfr.runs.source import game_tree
from spycfr.tree import CHANCE, TERMINAL

# Matching pennies with Gambit's shorthands: "D" header, a comment, P2's second node leaves
# out its action list, outcomes 1 and 2 are given once and referred to after, and the root
# carries a payoff (outcome 3) that every terminal below it receives.
PENNIES = """EFG 2 D "pennies" { "Ann" "Bob" } "hand-written"
p "" 1 1 "Ann" { "H" "T" } 3 "entry" { 0.5 -0.5 }
p "" 2 1 "Bob" { "h" "t" } 0
t "" 1 "same" { 1, -1 }
t "" 2 "different" { -1, 1 }
p "" 2 1 "Bob" 0
t "" 2
t "" 1
"""


def _efg(tmp_path, text: str, name: str = "game.efg") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_own_efg_export_reads_back_to_the_same_game(kuhn):
    tree = tree_from_efg(efg_text(kuhn), "kuhn.efg")
    assert (tree.num_nodes, tree.num_infosets) == (kuhn.num_nodes, kuhn.num_infosets)
    assert np.count_nonzero(tree.node_player == CHANCE) == np.count_nonzero(
        kuhn.node_player == CHANCE)
    assert sorted(tree.utility[tree.node_player == TERMINAL]) == sorted(
        kuhn.utility[kuhn.node_player == TERMINAL])
    assert solve_lp(tree).value_p1 == pytest.approx(-1 / 18, abs=1e-9)


def test_gambit_shorthands_and_inner_payoffs():
    tree = tree_from_efg(PENNIES, "pennies.efg")
    assert tree.num_nodes == 7 and tree.num_infosets == 2
    assert tree.infoset_keys == ["Ann", "Bob"]
    assert tree.action_labels == [["H", "T"], ["h", "t"]]
    # Breadth-first: the root, Bob's two nodes, then the terminals in order (+0.5 each).
    assert tree.utility[3:].tolist() == [1.5, -0.5, -0.5, 1.5]
    assert solve_lp(tree).value_p1 == pytest.approx(0.5, abs=1e-9)


@pytest.mark.parametrize("text, message", [
    (PENNIES.replace("{ 1, -1 }", "{ 1, 0 }"), "not zero-sum: an outcome pays (1, 0)"),
    (PENNIES.replace('{ "Ann" "Bob" }', '{ "Ann" "Bob" "Cy" }'), "has 3 players"),
    (PENNIES.replace('p "" 2 1 "Bob" 0', 'p "" 2 1 "Bob" { "x" "y" } 0'),
     "lists different actions"),
    (PENNIES.replace('p "" 2 1 "Bob" 0', 'p "" 2 2 "Later" 0'), "infoset 2 has no action list"),
    (PENNIES.replace("t \"\" 2\n", "t \"\" 7\n"), "outcome 7 is used before its payoffs"),
    (PENNIES[:60], "never closed"),
    (PENNIES[:48], "not a valid .efg file (unexpected end of .efg)"),
    (PENNIES.replace("EFG 2 D", "EFG 3 D"), "expected 2"),
    ('EFG 2 R "c" { "A" "B" } c "" 1 "" { "x" 1/2 "y" 1/3 } 0 t "" 1 { 1 -1 } t "" 1',
     "probabilities sum to 0.833333, not 1"),
    # Ann forgets her own first move: both of her second nodes are one infoset.
    ('EFG 2 R "f" { "A" "B" } p "" 1 1 "first" { "L" "R" } 0 p "" 1 2 "second" { "l" "r" } 0 '
     't "" 1 { 1 -1 } t "" 2 { 0 0 } p "" 1 2 "second" 0 t "" 2 t "" 1',
     "does not have perfect recall"),
])
def test_efg_that_spycfr_cannot_solve_says_why(text, message):
    with pytest.raises(SpycfrError, match=None) as info:
        tree_from_efg(text, "g.efg")
    assert message in str(info.value)


def test_efg_files_that_cannot_be_read(tmp_path):
    (tmp_path / "bin.efg").write_bytes(b"\xff\xfe\x00EFG")
    (tmp_path / "dir.efg").mkdir()
    for name, message in (("missing.efg", "no such .efg file"),
                          ("bin.efg", "not a text .efg file"),
                          ("dir.efg", "is a directory")):
        with pytest.raises(SpycfrError, match=message):
            game_tree(str(tmp_path / name))
    with pytest.raises(SpycfrError, match="takes no --preset, --cards"):
        game_tree(_efg(tmp_path, PENNIES), "mini", {"cards": "3"})


def test_solve_an_efg_file_into_a_run_and_analyse_it(tmp_path, kuhn):
    path = _efg(tmp_path, efg_text(kuhn), "kuhn.efg")
    run = tmp_path / "run"
    code, out, err = spycfr("solve", path, "--iterations", "300", "-o", str(run), "-q",
                            "--json")
    assert code == 0, err
    meta = json.loads(out)
    assert meta["game"] == path and meta["nodes"] == 58
    assert meta["variant"]["sha256"] and meta["exploitability"] < 1e-2
    (tmp_path / "kuhn.efg").unlink()  # the run keeps its own copy of the tree
    code, out, err = spycfr("exploitability", str(run))
    assert code == 0, err
    assert f"{meta['exploitability']:.6g}" in out
    code, out, err = spycfr("export", str(run), "--format", "csv", "-o",
                            str(tmp_path / "s.csv"))
    assert code == 0, err
    table = (tmp_path / "s.csv").read_text()
    assert table.count("\n") == 1 + 24  # a header, 12 infosets of 2 actions
    code, out, err = spycfr("best-response", str(run), "--player", "p2")
    assert code == 0, err
    code, out, err = spycfr("openings", str(run))
    assert code != 0
    assert "is a game from an .efg file, not one of spycfr's games" in err
    assert "Traceback" not in err


def test_a_resumed_efg_run_equals_an_uninterrupted_one(tmp_path, kuhn):
    path = _efg(tmp_path, efg_text(kuhn), "kuhn.efg")
    whole, split = tmp_path / "whole", tmp_path / "split"
    assert spycfr("solve", path, "--iterations", "200", "-o", str(whole), "-q")[0] == 0
    assert spycfr("solve", path, "--iterations", "120", "-o", str(split), "-q")[0] == 0
    code, _, err = spycfr("solve", "--resume", str(split), "--iterations", "200", "-q")
    assert code == 0, err
    with np.load(whole / "strategy.npz") as a, np.load(split / "strategy.npz") as b:
        assert np.array_equal(a["average"], b["average"])


def test_foreign_games_refuse_sampling_and_options(tmp_path):
    path = _efg(tmp_path, PENNIES)
    code, _, err = spycfr("solve", path, "--algorithm", "os-mccfr")
    assert code != 0 and "solved on its full tree" in err
    code, _, err = spycfr("solve", path, "--cards", "3")
    assert code != 0 and "no such option" in err.lower()


# --- OpenSpiel games (the bench extra) ---------------------------------------------------


@pytest.mark.bench
@pytest.mark.parametrize("game, value", [
    # The values OpenSpiel's own sequence-form LP tests pin (sequence_form_lp_test.py).
    ("kuhn_poker", -1 / 18),
    ("leduc_poker", -0.085606424078),
    ("matrix_rps", 0.0),
    ("goofspiel(imp_info=True,num_cards=4,points_order=descending)", 0.0),
])
def test_openspiel_games_have_their_published_values(game, value):
    pytest.importorskip("pyspiel")
    tree = game_tree(f"openspiel:{game}")
    assert solve_lp(tree).value_p1 == pytest.approx(value, abs=1e-6)


@pytest.mark.bench
def test_openspiel_leduc_is_spycfrs_leduc(leduc):
    pytest.importorskip("pyspiel")
    tree = game_tree("openspiel:leduc_poker")
    assert (tree.num_nodes, tree.num_infosets) == (leduc.num_nodes, leduc.num_infosets)
    assert set(tree.infoset_keys) == set(leduc.infoset_keys)
    assert exploitability(tree, tree.uniform_strategy()) == pytest.approx(
        exploitability(leduc, leduc.uniform_strategy()), abs=1e-12)


@pytest.mark.bench
def test_openspiel_efg_of_kuhn_reads(tmp_path):
    pyspiel = pytest.importorskip("pyspiel")
    tree = tree_from_efg(pyspiel.get_kuhn_poker_efg_data(), "kuhn.efg")
    assert solve_lp(tree).value_p1 == pytest.approx(-1 / 18, abs=1e-9)
    with pytest.raises(SpycfrError, match="not zero-sum"):
        tree_from_efg(pyspiel.get_sample_efg_data(), "sample.efg")


@pytest.mark.bench
def test_openspiel_games_spycfr_cannot_solve_say_why():
    pytest.importorskip("pyspiel")
    for game, message in (("nope", "OpenSpiel has no game 'nope'"),
                          ("kuhn_poker(players=3)", "has 3 players"),
                          ("tiny_hanabi", "is not zero-sum"),
                          ("kuhn_poker(plaers=2)", "Unknown parameter 'plaers'")):
        with pytest.raises(SpycfrError, match=message):
            game_tree(f"openspiel:{game}")
