"""The analysis commands on saved runs: openings, query, best-response, exploitability, export.

Values the commands print are checked against independent computations: plain-Python passes
over the flat tree (reach, subtree values, conditional action values), the Python
best-response twin in tests/reference.py, and hand-computed Kuhn numbers.
"""

from __future__ import annotations

import io
import json
import math
from itertools import permutations

import numpy as np
import pandas as pd
import pytest

from cli_helpers import spycfr
from reference import reference_best_response
from spycfr.exact.best_response import best_response
from spycfr.runs import load_run
from spycfr.runs.store import file_sha256
from spycfr.tree import CHANCE, TERMINAL


def ok_json(*args: str) -> dict:
    code, out, err = spycfr(*args, "--json")
    assert code == 0, err
    return json.loads(out)


def one_line_error(args, fragment: str) -> str:
    code, out, err = spycfr(*args)
    assert code == 2, (code, out, err)
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    assert fragment in lines[0], lines[0]
    return lines[0]


# --- independent plain-Python passes over the flat tree -----------------------------------
def node_values(tree, sigma) -> list[float]:
    """P1's expected payoff below every node under ``sigma`` (Python loop, children first)."""
    fc, nc = tree.first_child.tolist(), tree.num_children.tolist()
    pl, inf = tree.node_player.tolist(), tree.node_infoset.tolist()
    u, cp = tree.utility.tolist(), tree.chance_prob.tolist()
    vals = [0.0] * tree.num_nodes
    for n in range(tree.num_nodes - 1, -1, -1):
        if pl[n] == TERMINAL:
            vals[n] = u[n]
        elif pl[n] == CHANCE:
            vals[n] = sum(cp[inf[n] + a] * vals[fc[n] + a] for a in range(nc[n]))
        else:
            vals[n] = sum(float(sigma[inf[n], a]) * vals[fc[n] + a] for a in range(nc[n]))
    return vals


def opponent_reach(tree, sigma, player: int) -> list[float]:
    """Probability that chance and the opponent of ``player`` play to each node."""
    fc, nc = tree.first_child.tolist(), tree.num_children.tolist()
    pl, inf = tree.node_player.tolist(), tree.node_infoset.tolist()
    cp = tree.chance_prob.tolist()
    reach = [0.0] * tree.num_nodes
    reach[0] = 1.0
    for n in range(tree.num_nodes):
        for a in range(nc[n]):
            if pl[n] == CHANCE:
                w = cp[inf[n] + a]
            elif pl[n] == player:
                w = 1.0
            else:
                w = float(sigma[inf[n], a])
            reach[fc[n] + a] = reach[n] * w
    return reach


def conditional_values(tree, sigma, infoset: int) -> list[float] | None:
    """The acting player's value of each action at ``infoset`` given it is reached."""
    player = int(tree.infoset_player[infoset])
    sign = 1.0 if player == 0 else -1.0
    vals = node_values(tree, sigma)
    reach = opponent_reach(tree, sigma, player)
    nodes = np.flatnonzero((tree.node_infoset == infoset) & (tree.node_player == player))
    k = int(tree.infoset_num_actions[infoset])
    total = sum(reach[n] for n in nodes)
    if total == 0:
        return None
    return [sign * sum(reach[n] * vals[int(tree.first_child[n]) + a] for n in nodes) / total
            for a in range(k)]


def with_row(strategy, infoset: int, action: int) -> np.ndarray:
    out = strategy.copy()
    out[infoset] = 0.0
    out[infoset, action] = 1.0
    return out


def mix(own, other, tree, player: int) -> np.ndarray:
    """``player`` plays ``own``, the opponent ``other`` (independent of solver.query.combine)."""
    out = np.array(other, dtype=float, copy=True)
    for i in range(tree.num_infosets):
        if tree.infoset_player[i] == player:
            out[i] = own[i]
    return out


# --- fixtures ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("runs") / "tiny"
    code, _, err = spycfr("solve", "agent-hunter", "--preset", "tiny", "--iterations", "300",
                          "-o", str(path), "-q")
    assert code == 0, err
    return str(path), load_run(path)


@pytest.fixture(scope="module")
def tiny_weak(tmp_path_factory):
    """A second, barely trained run of the same variant (an opponent for --against RUN_DIR)."""
    path = tmp_path_factory.mktemp("runs") / "tiny_weak"
    code, _, err = spycfr("solve", "agent-hunter", "--cards", "3", "--houses", "2", "--decoys",
                          "1", "--max-turns", "2", "--iterations", "3", "-o", str(path), "-q")
    assert code == 0, err
    return str(path), load_run(path)


@pytest.fixture(scope="module")
def kuhn(tmp_path_factory):
    path = tmp_path_factory.mktemp("runs") / "kuhn"
    code, _, err = spycfr("solve", "kuhn", "--iterations", "200", "-o", str(path), "-q")
    assert code == 0, err
    return str(path), load_run(path)


def table_rows(run_dir: str, player: str, infoset: str) -> pd.DataFrame:
    table = pd.read_parquet(f"{run_dir}/strategy.parquet")
    return table[(table.player == player) & (table.infoset == infoset)]


# --- openings ----------------------------------------------------------------------------
def test_openings_json(tiny):
    run_dir, run = tiny
    tree, s = run.tree, run.strategy
    res = ok_json("openings", run_dir)
    assert res["run"]["value_p1"] == run.result.value_p1
    nash_conv = run.result.nash_conv
    root = 0
    p2_infoset = int(tree.node_infoset[tree.first_child[0]])
    for player, infoset, sign in (("P1", root, 1.0), ("P2", p2_infoset, -1.0)):
        p = 0 if player == "P1" else 1
        rows = res[player]["placements"]
        labels = tree.action_labels[infoset]
        # every placement of 2 distinct cards out of 3, in houses 1..2, once
        expected = {f"place:{a}-{b}" for a, b in permutations(range(3), 2)}
        assert {r["opening"] for r in rows} == expected == set(labels)
        # Noise-aware ranking (issue 11): moves within the tolerance (the run's NashConv at a
        # decision every game reaches) tie and share a rank; rows go by rank.
        best_br = max(r["br_value"] for r in rows)
        for r in rows:
            assert r["tolerance"] == pytest.approx(nash_conv, rel=1e-12)
            assert r["loss"] == pytest.approx(best_br - r["br_value"], abs=1e-15)
            assert r["tie"] == (r["loss"] <= r["tolerance"])
            assert r["rank"] == 1 + sum(o["br_value"] > r["br_value"] + r["tolerance"]
                                        for o in rows)
        assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)
        assert rows[0]["rank"] == 1 and rows[0]["tie"]
        assert isinstance(res[player]["summary"], list) and res[player]["summary"]
        assert math.fsum(r["probability"] for r in rows) == pytest.approx(1.0, abs=1e-12)
        value = sign * run.result.value_p1
        assert math.fsum(r["probability"] * r["eq_value"] for r in rows) == pytest.approx(
            value, abs=1e-12)
        # The best placement's BR value IS the player's best-response value (identity).
        br = best_response(tree, s, p)[0]
        assert max(r["br_value"] for r in rows) == pytest.approx(br, abs=1e-12)
        assert br == (run.result.best_response_p1 if p == 0 else run.result.best_response_p2)
        vals_eq = conditional_values(tree, s, infoset)
        for r in rows:
            a = labels.index(r["opening"])
            assert r["probability"] == s[infoset, a]
            assert r["br_value"] <= value + nash_conv + 1e-12
            assert r["br_value"] >= r["eq_value"] - 1e-12
            assert r["eq_value"] == pytest.approx(vals_eq[a], abs=1e-12)
            # BR value of a pure placement: fix it, best-respond below, value the profile.
            forced = with_row(s, infoset, a)
            _, best = reference_best_response(tree, forced, p)
            prof = forced.copy()
            for i in np.flatnonzero(tree.infoset_player == p):
                if i != infoset:
                    prof[i] = 0.0
                    prof[i, best[i]] = 1.0
            assert sign * node_values(tree, prof)[0] == pytest.approx(r["br_value"], abs=1e-12)
        # card sets: probabilities and best BR values of the arrangements, grouped
        sets = {c["cards"]: c for c in res[player]["card_sets"]}
        assert set(sets) == {"0,1", "0,2", "1,2"}
        for cards, c in sets.items():
            members = [r for r in rows if sorted(r["opening"][6:].split("-")) == cards.split(",")]
            assert c["arrangements"] == len(members) == 2
            assert c["probability"] == pytest.approx(
                math.fsum(r["probability"] for r in members), abs=1e-15)
            assert c["best_br_value"] == max(r["br_value"] for r in members)
        assert math.fsum(c["probability"] for c in sets.values()) == pytest.approx(1, abs=1e-12)


def test_openings_csv_and_text(tiny):
    run_dir, _ = tiny
    res = ok_json("openings", run_dir)
    code, out, _ = spycfr("openings", run_dir, "--csv")
    assert code == 0
    table = pd.read_csv(io.StringIO(out))
    assert set(table.columns) >= {"player", "opening", "cards", "probability", "eq_value",
                                  "br_value", "rank"}
    for player in ("P1", "P2"):
        from_json = {r["opening"]: r for r in res[player]["placements"]}
        part = table[table.player == player]
        assert len(part) == len(from_json) == 6
        for r in part.itertuples():
            assert r.probability == from_json[r.opening]["probability"]  # %.17g: exact
            assert r.br_value == from_json[r.opening]["br_value"]
    code, out, _ = spycfr("openings", run_dir, "--top", "2")
    assert code == 0
    assert out.count("... 4 more") == 2 and "P1 placements" in out and "P2 placements" in out


def test_openings_refuses_other_games(kuhn):
    one_line_error(["openings", kuhn[0]], "agent-hunter")


# --- query -------------------------------------------------------------------------------
def check_query(run, res, player: str, key: str, opponent_strategy=None):
    """Moves = the strategy table's rows; values = independent conditional values."""
    tree = run.tree
    p = 0 if player == "P1" else 1
    i = res["infoset"]
    assert res["player"] == player and res["information_state"] == key
    assert tree.infoset_keys[i] == key and int(tree.infoset_player[i]) == p
    rows = table_rows(str(run.path), player, key)
    assert [m["move"] for m in res["moves"]] == rows.action.tolist()
    assert [m["probability"] for m in res["moves"]] == rows.probability.tolist()
    profile = run.strategy if opponent_strategy is None else mix(
        run.strategy, opponent_strategy, tree, p)
    expected = conditional_values(tree, profile, i)
    assert expected is not None and res["opponent_reaches"]
    for m, v in zip(res["moves"], expected, strict=True):
        assert m["value"] == pytest.approx(v, abs=1e-12)
        assert m["br_value"] >= m["value"] - 1e-12  # playing on optimally can only help
    assert res["position_value"] == pytest.approx(
        math.fsum(m["probability"] * m["value"] for m in res["moves"]), abs=1e-12)
    # Honest advice (issue 11): a best move is named only when no other move ties with it
    # (values within the tolerance); the tied moves are listed instead.
    top = max(m["value"] for m in res["moves"])
    if res["tolerance"] is None:  # off the equilibrium path: moves are not ranked
        assert res["best_moves"] == [] and res["best_move"] is None
    else:
        tied = [m["move"] for m in res["moves"] if top - m["value"] <= res["tolerance"]]
        assert sorted(res["best_moves"]) == sorted(tied)
        assert res["best_move"] == (tied[0] if len(tied) == 1 else None)
    if opponent_strategy is None:  # the table's values were computed at the equilibrium
        assert rows.counterfactual_value.to_numpy() == pytest.approx(expected, abs=1e-12)
    return expected


@pytest.mark.parametrize("record_args", [(), ("",)])
def test_query_p1_placement(tiny, record_args):
    run_dir, run = tiny
    res = ok_json("query", run_dir, "--as", "P1", *record_args)
    check_query(run, res, "P1", "")
    assert res["position_value"] == pytest.approx(run.result.value_p1, abs=1e-12)
    assert res["against"] == "equilibrium" and len(res["moves"]) == 6


def test_query_p2_placement(tiny):
    run_dir, run = tiny
    res = ok_json("query", run_dir, "--as", "p2", "place:?")
    check_query(run, res, "P2", "place:?")
    assert res["position_value"] == pytest.approx(-run.result.value_p1, abs=1e-12)


@pytest.mark.parametrize(
    "player,record",
    [
        ("P1", "place:0-2 place:?"),
        ("P1", "place:1-2 place:?"),
        ("P2", "place:? place:0-1 hand:2>1:hi"),
        ("P2", "place:? place:1-2 hand:0>2:lo"),
        ("P1", "place:0-2 place:? house:1=0>1:eq"),  # P1's refill after a hit
        ("P2", "place:? place:0-1 house:1=1>1:hi+h2"),  # the defender's refill, mid-turn
    ],
)
def test_query_mid_game(tiny, player, record):
    run_dir, run = tiny
    res = ok_json("query", run_dir, "--as", player, *record.split())
    eq = check_query(run, res, player, record)
    assert res["position"]["to_move"] == player and not res["position"]["terminal"]
    # against a uniformly random opponent: the values of that profile
    uni = ok_json("query", run_dir, "--as", player, record, "--against", "uniform")
    assert uni["against"] == "uniform"
    vs_uniform = check_query(run, uni, player, record, run.tree.uniform_strategy())
    if player == "P1":
        # P2's reply is still to come, so a random P2 changes what P1's moves are worth (at
        # P2's last turn only P1's arrangement of a known card set matters, and both the
        # equilibrium and uniform play treat the two arrangements alike)
        assert max(abs(a - b) for a, b in zip(eq, vs_uniform, strict=True)) > 1e-3


def test_query_against_run_and_table(tiny, tiny_weak, tmp_path):
    run_dir, run = tiny
    record = "place:0-2 place:?"
    res = ok_json("query", run_dir, "--as", "P1", record, "--against", tiny_weak[0])
    check_query(run, res, "P1", record, tiny_weak[1].strategy)
    # the run's own exported table as the opponent reproduces the equilibrium values exactly
    eq = ok_json("query", run_dir, "--as", "P1", record)
    own = ok_json("query", run_dir, "--as", "P1", record, "--against",
                  f"{run_dir}/strategy.csv")
    assert [m["value"] for m in own["moves"]] == [m["value"] for m in eq["moves"]]


def test_query_position_the_opponent_never_reaches(tiny, tmp_path):
    """Against a P1 who always places 0-2, a position where P1 holds card 2 in hand is never
    reached: values are undefined (null), the equilibrium probabilities are still shown."""
    run_dir, run = tiny
    table = tmp_path / "p1.csv"
    table.write_text('player,infoset,action,probability\nP1,"",place:0-2,1\n')
    record = "place:? place:0-1 hand:2>1:hi"
    res = ok_json("query", run_dir, "--as", "P2", record, "--against", str(table))
    assert res["opponent_reaches"] is False and res["position_value"] is None
    assert all(m["value"] is None and m["br_value"] is None for m in res["moves"])
    rows = table_rows(run_dir, "P2", record)
    assert [m["probability"] for m in res["moves"]] == rows.probability.tolist()
    # no values, so no best move (issue 11); the equilibrium's own mix is still shown
    assert res["best_move"] is None and res["best_moves"] == []
    assert res["equilibrium_mix"][0]["move"] == \
        rows.action.iloc[int(np.argmax(rows.probability.to_numpy()))]
    from spycfr.formats.strategy_table import read_table, strategy_from_table

    p1_only = strategy_from_table(run.tree, read_table(table))[0]
    assert conditional_values(run.tree, mix(run.strategy, p1_only, run.tree, 1),
                              res["infoset"]) is None
    code, out, _ = spycfr("query", run_dir, "--as", "P2", record, "--against", str(table))
    assert code == 0 and "never leads here" in out


def test_query_text_output(tiny):
    run_dir, _ = tiny
    code, out, _ = spycfr("query", run_dir, "--as", "P1", "place:0-2", "place:?")
    assert code == 0
    res = ok_json("query", run_dir, "--as", "P1", "place:0-2", "place:?")
    assert "P1 to move after: place:0-2 place:?" in out
    # "best move: X" only for a move no other ties with (issue 11); else the tied moves
    if res["best_move"] is not None:
        assert f"best move: {res['best_move']}" in out
    else:
        assert "best move:" not in out and ("tie as best" in out or "as good as" in out)
    assert "switch:2=2>1@1" in out  # a legal switch of P1 (house 2 holds card 2, hand {1})


@pytest.mark.parametrize(
    "player,record,fragments",
    [
        ("P1", "place:0-2 place:? hand:2>1:hi", ["move 3", "hand:2>1:hi", "card 2"]),
        ("P1", "place:0-5", ["move 1", "card 5"]),
        # no '?': a whole record, its own error (not "P2 cannot see P1's card")
        ("P2", "place:0-2 place:1-0 hand:2>1:lo", ["move 3", "card 2", "P1's hand"]),
        ("P1", "place:0-2 place:1-?", ["move 2", "place:1-?"]),
        ("P1", "place:0-2 place:? hand:1>1:lo", ["P2's move"]),
        ("P2", "", ["P1's move"]),
        ("P2", "place:? place:0-1", ["P1's move"]),
        ("P1", "place:0-2 place:? hand:1>1:lo hand:1>1:hi",
         ["game is over", "payoffs: P1 ", "stops where a player is to move"]),
        ("P1", "bogus", ["move 1", "bogus"]),
        # a whole record where the game is over: the error alone (no note before it)
        ("P1", "place:0-2 place:1-0 hand:1>1:eq hand:2>1:hi", ["game is over"]),
        ("P2", "place:0-2 place:1-0", ["P1's move"]),
    ],
)
def test_query_errors(tiny, player, record, fragments):
    run_dir, _ = tiny
    line = one_line_error(["query", run_dir, "--as", player, record], fragments[0])
    for f in fragments[1:]:
        assert f in line


@pytest.mark.parametrize(("player", "whole", "view"), [
    ("P2", "place:0-2 place:2-0 hand:1>1:lo", "place:? place:2-0 hand:1>1:lo"),
    ("P1", "place:0-2 place:2-0", "place:0-2 place:?"),
])
def test_query_reads_a_whole_record_as_the_players_view(tiny, player, whole, view):
    """A whole game's record (pasted from play or review) is answered at the player's view
    of it, the hidden cards written '?' and said in one line (it was refused)."""
    run_dir, _ = tiny
    answer = ok_json("query", run_dir, "--as", player, whole)
    assert answer.pop("note").endswith(f"answering {player}'s view of it, {view}")
    assert answer == ok_json("query", run_dir, "--as", player, view)
    code, out, err = spycfr("query", run_dir, "--as", player, whole)
    assert code == 0, err
    assert out.startswith(f"note: the record shows what {player} cannot see")
    assert f"{player} to move after: {view}\n" in out


@pytest.mark.parametrize(("player", "whole", "view"), [
    ("P2", "deal:EN.CB|CB.DD play:EN/CB draw:EN.DD", "deal:?|CB.DD play:EN/? draw:?.?"),
    ("P1", "deal:EN.CB|CB.DD", "deal:EN.CB|?"),
])
def test_query_reads_a_whole_agent_avenue_record_as_the_players_view(player, whole, view):
    from pathlib import Path

    run_dir = str(Path(__file__).resolve().parent.parent / "results/agent-avenue/tiny")
    answer = ok_json("query", run_dir, "--as", player, whole)
    assert answer.pop("note").endswith(f"answering {player}'s view of it, {view}")
    assert answer == ok_json("query", run_dir, "--as", player, view)


@pytest.mark.parametrize(("game", "preset"), [
    ("agent-hunter", "tiny"), ("agent-avenue", "tiny"), ("agent-avenue", "advanced"),
    ("agent-double-double-agent", "small")])
def test_a_whole_records_view_is_the_movers_information_state(game, preset):
    """Along random games, the view query reads a whole record as is the mover's
    information state there, a legal view; a view is left as it is (ADDA's whole records
    have '?' too)."""
    import random

    from spycfr.analysis.query import view_of_full_record
    from spycfr.games import get_plugin, make_variant

    plugin, variant = get_plugin(game), make_variant(game, preset, {})
    rng, seen = random.Random(5), 0
    for _ in range(4):
        state = plugin.python_game(variant).new_initial_state()
        for _ in range(rng.randint(2, 30)):
            if state.is_terminal():
                break
            outcomes = state.chance_outcomes()
            state = state.child(rng.choice(outcomes)[0] if outcomes
                                else rng.choice(state.legal_actions()))
            if state.is_terminal() or state.chance_outcomes():
                continue
            p = state.current_player()
            view, note = view_of_full_record(game, variant.as_dict(), state.record(), p)
            assert view == state.information_state(p)
            assert (note is None) == (view == state.record())
            plugin.records.view_key(variant, view, p)  # a legal view
            assert view_of_full_record(game, variant.as_dict(), view, p) == (view, None)
            seen += note is not None
    assert seen


def test_query_bad_against_and_game(tiny, kuhn):
    one_line_error(["query", tiny[0], "--as", "P1", "", "--against", "nowhere"], "nowhere")
    one_line_error(["query", tiny[0], "--as", "P1", "", "--against", kuhn[0]], "kuhn")
    one_line_error(["query", kuhn[0], "--as", "P1", "0"], "kuhn")


# --- best-response -----------------------------------------------------------------------
@pytest.mark.parametrize("player", ["P1", "P2"])
@pytest.mark.parametrize("which", ["tiny", "kuhn"])
def test_best_response(request, tmp_path, which, player):
    run_dir, run = request.getfixturevalue(which)
    tree, s = run.tree, run.strategy
    p = 0 if player == "P1" else 1
    out_file = tmp_path / "br.csv"
    res = ok_json("best-response", run_dir, "--player", player, "-o", str(out_file))
    ref_value, _ = reference_best_response(tree, s, p)
    assert res["best_response_value"] == pytest.approx(ref_value, abs=1e-12)
    assert res["best_response_value"] == best_response(tree, s, p)[0]
    assert res["strategy_value"] == pytest.approx((1 - 2 * p) * run.result.value_p1, abs=1e-15)
    assert res["gain"] >= -1e-12
    own_infosets = np.flatnonzero(tree.infoset_player == p)
    assert res["infosets"] == len(own_infosets)
    table = pd.read_csv(out_file, dtype={"infoset": str}, keep_default_na=False)
    assert list(table.columns) == ["player", "infoset", "action", "probability"]
    assert set(table.player) == {player} and set(table.probability) == {1.0}
    assert len(table) == len(own_infosets) == table.infoset.nunique()  # one row per infoset
    assert table.infoset.tolist() == [tree.infoset_keys[i] for i in own_infosets]
    # the written pure strategy, played against the run's opponent, earns the BR value
    from spycfr.formats.strategy_table import read_table, strategy_from_table

    br_strategy, defaulted = strategy_from_table(tree, read_table(out_file))
    assert defaulted == tree.num_infosets - len(own_infosets)
    value = node_values(tree, mix(br_strategy, s, tree, p))[0] * (1 - 2 * p)
    assert value == pytest.approx(res["best_response_value"], abs=1e-12)


def test_best_response_against_uniform(tiny, kuhn):
    for run_dir, run in (tiny, kuhn):
        tree = run.tree
        for p, player in enumerate(("P1", "P2")):
            res = ok_json("best-response", run_dir, "--player", player, "--against", "uniform")
            vs_uniform = mix(run.strategy, tree.uniform_strategy(), tree, p)
            ref_value, _ = reference_best_response(tree, vs_uniform, p)
            assert res["best_response_value"] == pytest.approx(ref_value, abs=1e-12)
            own = node_values(tree, vs_uniform)[0] * (1 - 2 * p)
            assert res["strategy_value"] == pytest.approx(own, abs=1e-12)
            assert res["best_response_value"] >= res["strategy_value"] - 1e-12
            assert res["against"] == "uniform"


def test_best_response_kuhn_vs_uniform_by_hand(kuhn):
    """P1's best response to a uniformly random P2 in Kuhn, computed by hand: 1/2."""
    # P2 uniform: after a bet calls 1/2; after a check bets 1/2.
    # P1 with K: bet -> 1/2 fold (+1) + 1/2 call (+2) = 1.5; check -> 1/2 (+1) + 1/2 bet, P1
    #   calls (+2) = 1.5: 1.5 either way.
    # P1 with Q (P2 holds J or K): bet -> 1/2 fold (+1) + 1/2 call (J: +2, K: -2 -> 0) = 0.5;
    #   check -> 1/2 showdown (0) + 1/2 bet, P1 best of fold (-1) / call (0) -> 0 = 0. Bet: 0.5.
    # P1 with J: bet -> 1/2 fold (+1) + 1/2 call (-2) = -0.5; check -> 1/2 (-1) + 1/2 bet,
    #   fold (-1) = -1. Bet: -0.5.
    res = ok_json("best-response", kuhn[0], "--player", "P1", "--against", "uniform")
    assert res["best_response_value"] == pytest.approx((1.5 + 0.5 - 0.5) / 3, abs=1e-12)


def test_best_response_against_a_table(kuhn, tmp_path):
    """P2's best response to 'P1 always bets' (hand-written table; P1's other infosets
    uniform): call with K (+2), call with Q (J: +2, K: -2), fold J (-1) = 1/3."""
    path = tmp_path / "p1_bets.csv"
    path.write_text("player,infoset,action,probability\nP1,0,bet,1\nP1,1,bet,1\nP1,2,bet,1\n")
    res = ok_json("best-response", kuhn[0], "--player", "P2", "--against", str(path))
    assert res["best_response_value"] == pytest.approx(1 / 3, abs=1e-12)
    assert res["against"] == str(path)

# --- exploitability ----------------------------------------------------------------------
def test_exploitability_run_dir_vs_exported_tables(tiny, tmp_path):
    run_dir, run = tiny
    direct = ok_json("exploitability", run_dir)
    assert direct["value_p1"] == run.result.value_p1
    assert direct["exploitability"] == run.result.exploitability
    assert direct["nash_conv"] == pytest.approx(2 * direct["exploitability"], abs=1e-15)
    keys = ("value_p1", "best_response_p1", "best_response_p2", "nash_conv", "exploitability")
    for fmt in ("csv", "json", "parquet"):
        target = tmp_path / f"export.{fmt}"
        code, _, err = spycfr("export", run_dir, "--format", fmt, "-o", str(target))
        assert code == 0, err
        res = ok_json("exploitability", str(target), "--game", "agent-hunter", "--preset",
                      "tiny")
        assert res["infosets_defaulted_uniform"] == 0 and res["infosets"] == 860
        assert {k: res[k] for k in keys} == {k: direct[k] for k in keys}, fmt  # bit-equal
    # the variant spelled out parameter by parameter is the same game
    res = ok_json("exploitability", str(tmp_path / "export.csv"), "--game", "agent-hunter",
                  "--cards", "3", "--houses", "2", "--decoys", "1", "--max-turns", "2")
    assert res["exploitability"] == direct["exploitability"]


KUHN_ALWAYS_BET_CALL = """player,infoset,action,probability
P1,0,bet,1
P1,1,bet,1
P1,2,bet,1
P2,0b,bet,1
P2,1b,bet,1
P2,2b,bet,1
"""


def test_exploitability_hand_written_kuhn_table(tmp_path):
    """P1 always bets, P2 always calls (other infosets uniform): every deal is a 2-chip
    showdown, value 0. P2's best response calls with K (+2), Q (J or K: 0) and folds J (-1):
    1/3. P1's best response: K bets (+2), Q 0 either way, J checks then folds (-1): 1/3."""
    path = tmp_path / "heuristic.csv"
    path.write_text(KUHN_ALWAYS_BET_CALL)
    res = ok_json("exploitability", str(path), "--game", "kuhn")
    assert res["value_p1"] == pytest.approx(0.0, abs=1e-12)
    assert res["best_response_p1"] == pytest.approx(1 / 3, abs=1e-12)
    assert res["best_response_p2"] == pytest.approx(1 / 3, abs=1e-12)
    assert res["exploitability"] == pytest.approx(1 / 3, abs=1e-12)
    assert res["infosets_defaulted_uniform"] == 6
    code, out, _ = spycfr("exploitability", str(path), "--game", "kuhn")
    assert code == 0 and "6 of 12 infosets not in the table: uniform" in out


def test_exploitability_heuristic_matches_reference(kuhn, tmp_path):
    """'Always bet with K' (a bet or a call), everything else uniform: the CLI's numbers equal
    the Python best-response twin's on the same strategy, built without the table reader."""
    tree = kuhn[1].tree
    path = tmp_path / "k.json"
    rows = [{"player": "P1", "infoset": "2", "action": "bet", "probability": 1.0},
            {"player": "P1", "infoset": "2", "action": "pass", "probability": 0.0},
            {"player": "P2", "infoset": "2b", "action": "bet", "probability": 1.0},
            {"player": "P2", "infoset": "2p", "action": "bet", "probability": 1},
            {"player": "P1", "infoset": "2pb", "action": "bet", "probability": 1.0}]
    path.write_text(json.dumps(rows))
    res = ok_json("exploitability", str(path), "--game", "kuhn")
    s = tree.uniform_strategy()
    for r in rows:  # an infoset the table names plays only the actions it lists
        s[tree.infoset_keys.index(r["infoset"])] = 0.0
    for r in rows:
        i = tree.infoset_keys.index(r["infoset"])
        s[i, tree.action_labels[i].index(r["action"])] = r["probability"]
    assert res["infosets_defaulted_uniform"] == 8
    assert res["best_response_p1"] == pytest.approx(reference_best_response(tree, s, 0)[0],
                                                    abs=1e-12)
    assert res["best_response_p2"] == pytest.approx(reference_best_response(tree, s, 1)[0],
                                                    abs=1e-12)
    assert res["value_p1"] == pytest.approx(node_values(tree, s)[0], abs=1e-12)


def test_table_rounding_is_tolerated_and_renormalised(tmp_path):
    """Rows within 1e-6 of summing to 1 are renormalised (a 0.6/0.4 row written with 7
    decimals plays exactly like the exact one); JSON numbers stand for Kuhn's card keys."""
    exact = tmp_path / "exact.csv"
    exact.write_text("player,infoset,action,probability\nP1,2,bet,0.6\nP1,2,pass,0.4\n")
    rounded = tmp_path / "rounded.csv"
    rounded.write_text("player,infoset,action,probability\nP1,2,bet,0.6000003\n"
                       "P1,2,pass,0.4000002\n")
    numeric = tmp_path / "numeric.json"
    numeric.write_text(json.dumps([{"player": "P1", "infoset": 2, "action": "bet",
                                    "probability": 0.6},
                                   {"player": "P1", "infoset": 2, "action": "pass",
                                    "probability": 0.4}]))
    a = ok_json("exploitability", str(exact), "--game", "kuhn")
    b = ok_json("exploitability", str(rounded), "--game", "kuhn")
    c = ok_json("exploitability", str(numeric), "--game", "kuhn")
    for key in ("value_p1", "best_response_p1", "best_response_p2"):
        assert b[key] == pytest.approx(a[key], abs=1e-15)
        assert c[key] == a[key]
    assert a["infosets_defaulted_uniform"] == c["infosets_defaulted_uniform"] == 11

BAD_TABLES = [
    ("missing_column.csv", "player,infoset,action\nP1,2,bet\n", "lacks column(s) probability"),
    ("unknown_infoset.csv", "player,infoset,action,probability\nP1,2b,bet,1\n", "'2b'"),
    ("unknown_action.csv", "player,infoset,action,probability\nP1,2,raise,1\n", "'raise'"),
    ("bad_sum.csv", "player,infoset,action,probability\nP1,2,bet,0.5\nP1,2,pass,0.4\n",
     "sum to 0.9"),
    ("negative.csv", "player,infoset,action,probability\nP1,2,bet,1.5\nP1,2,pass,-0.5\n",
     "-0.5"),
    ("non_numeric.csv", "player,infoset,action,probability\nP1,2,bet,lots\n", "'lots'"),
    ("empty_probability.csv", "player,infoset,action,probability\nP1,2,bet,\n", "row 1"),
    ("bad_player.csv", "player,infoset,action,probability\nP3,2,bet,1\n", "'P3'"),
    ("duplicate.csv",
     "player,infoset,action,probability\nP1,2,bet,0.5\nP1,2,bet,0.5\nP1,2,pass,0.5\n",
     "twice"),
    ("empty.csv", "", "cannot read"),
    ("garbage.parquet", "this is not parquet", "cannot read"),
    ("garbage.json", "{not json", "cannot read"),
    ("table.txt", "player,infoset,action,probability\n", "unknown extension"),
]


@pytest.mark.parametrize("name,text,fragment", BAD_TABLES, ids=[b[0] for b in BAD_TABLES])
def test_exploitability_malformed_tables(tmp_path, name, text, fragment):
    path = tmp_path / name
    path.write_text(text)
    one_line_error(["exploitability", str(path), "--game", "kuhn"], fragment)


def test_exploitability_bad_sources(tmp_path, kuhn):
    one_line_error(["exploitability", str(tmp_path / "nothing.csv"), "--game", "kuhn"],
                   "neither a run directory nor a strategy table")
    path = tmp_path / "t.csv"
    path.write_text(KUHN_ALWAYS_BET_CALL)
    one_line_error(["exploitability", str(path)], "--game")
    one_line_error(["exploitability", str(path), "--game", "chess"], "chess")
    one_line_error(["exploitability", str(tmp_path)], "run.json")  # a directory, not a run
    # a table of another game: its infosets do not exist there
    one_line_error(["exploitability", str(path), "--game", "agent-hunter", "--preset", "tiny"],
                   "no information state")


# --- export ------------------------------------------------------------------------------
def read_any(path) -> pd.DataFrame:
    path = str(path)
    if path.endswith(".csv"):
        return pd.read_csv(path, dtype={"infoset": str, "action": str}, keep_default_na=False,
                           na_values={"counterfactual_value": [""]})
    if path.endswith(".parquet"):
        return pd.read_parquet(path)
    return pd.DataFrame(json.loads(open(path).read()))


@pytest.mark.parametrize("which", ["tiny", "kuhn"])
def test_export_formats_are_lossless(request, tmp_path, which):
    run_dir, run = request.getfixturevalue(which)
    tree, s = run.tree, run.strategy
    counts = tree.infoset_num_actions.astype(int)
    rows = np.repeat(np.arange(tree.num_infosets), counts)
    cols = np.concatenate([np.arange(k) for k in counts])
    frames = {}
    for fmt in ("csv", "json", "parquet"):
        target = tmp_path / f"out.{fmt}"
        code, out, err = spycfr("export", run_dir, "--format", fmt, "-o", str(target))
        assert code == 0, err
        assert str(target) in out and f"{len(rows):,} rows" in out
        t = read_any(target)
        assert list(t.columns) == ["player", "infoset", "action", "probability",
                                   "reach_probability", "counterfactual_value"]
        assert len(t) == len(rows)
        assert np.array_equal(t.probability.to_numpy(float), s[rows, cols])  # exact floats
        assert t.infoset.tolist() == [tree.infoset_keys[i] for i in rows]
        assert t.action.tolist() == [tree.action_labels[i][k] for i, k in zip(rows, cols,
                                                                                strict=True)]
        frames[fmt] = t
    for fmt in ("csv", "json"):
        for col in ("reach_probability", "counterfactual_value"):
            a = frames[fmt][col].to_numpy(float)
            b = frames["parquet"][col].to_numpy(float)
            assert np.array_equal(a, b, equal_nan=True), (fmt, col)
    # JSON numbers parse back to the very same doubles with the plain json module
    raw = json.loads((tmp_path / "out.json").read_text())
    assert [r["probability"] for r in raw] == s[rows, cols].tolist()


def test_export_default_paths(tmp_path, tiny):
    import shutil

    run_dir = tmp_path / "copy"
    shutil.copytree(tiny[0], run_dir)
    before = (run_dir / "strategy.npz").read_bytes()
    for fmt in ("json", "csv", "parquet"):
        code, out, err = spycfr("export", str(run_dir), "--format", fmt)
        assert code == 0, err
        assert (run_dir / f"strategy.{fmt}").is_file() and f"strategy.{fmt}" in out
    assert (run_dir / "strategy.npz").read_bytes() == before
    assert not list(run_dir.glob(".*.tmp"))  # atomic writes leave no temporary behind
    # the run's own tables: run.json vouches for them (a changed one is noticed)
    files = json.loads((run_dir / "run.json").read_text())["files"]
    for fmt in ("json", "csv", "parquet"):
        assert files[f"strategy.{fmt}"] == file_sha256(run_dir / f"strategy.{fmt}")
    t = read_any(run_dir / "strategy.json")
    assert np.array_equal(t.probability.to_numpy(float),
                          read_any(run_dir / "strategy.csv").probability.to_numpy(float))


def test_export_errors(tmp_path, tiny):
    one_line_error(["export", str(tmp_path / "none"), "--format", "csv"], "does not exist")
    code, _, err = spycfr("export", tiny[0], "--format", "xlsx")
    assert code == 2 and "xlsx" in err and "Traceback" not in err
