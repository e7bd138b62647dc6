"""Gambit .efg export: structure, exact numbers, no recursion, CLI, and OpenSpiel round trip."""

from __future__ import annotations

import math
import sys
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from spycfr.cli.main import cli, main
from spycfr.errors import SpycfrError
from spycfr.exact.lp import solve_lp
from spycfr.formats.efg import efg_summary, efg_text, format_number, pre_order, read_efg, write_efg
from spycfr.games import build_tree, make_game, tree_labels
from spycfr.tree import CHANCE, TERMINAL, Tree


@pytest.fixture(scope="module")
def hunter_tiny():
    return build_tree(make_game("agent-hunter", "tiny", {}))


def _efg_value(nodes: list[dict], strategy: dict) -> Fraction | float:
    """P1's expected payoff of a parsed .efg under ``strategy[(player, infoset)][label]``.

    Independent of the Tree: reverse pre-order with a value stack (child 0 pops first).
    """
    values: list = []
    for nd in reversed(nodes):
        if nd["type"] == "t":
            values.append(nd["payoffs"][0])
            continue
        kids = [values.pop() for _ in nd["actions"]]
        if nd["type"] == "c":
            values.append(sum(p * v for p, v in zip(nd["probs"], kids, strict=True)))
        else:
            row = strategy[(nd["player"], nd["infoset"])]
            values.append(sum(row[a] * float(v) for a, v in zip(nd["actions"], kids, strict=True)))
    assert len(values) == 1
    return values[0]


def _strategy_by_number(tree: Tree, strategy: np.ndarray) -> dict:
    """Our strategy array keyed the way the .efg names infosets: (player 1|2, k-th infoset)."""
    _, actions = tree_labels(tree)
    out = {}
    for p in (0, 1):
        for num, i in enumerate(tree.infosets_of(p).tolist(), start=1):
            out[(p + 1, num)] = {a: float(strategy[i, k]) for k, a in enumerate(actions[i])}
    return out


def _check_infosets_consistent(nodes: list[dict]) -> dict:
    """Every node of one (player, infoset) has the same name and actions; returns that map."""
    seen: dict = {}
    for nd in nodes:
        if nd["type"] == "p":
            key = (nd["player"], nd["infoset"])
            sig = (nd["name"], tuple(nd["actions"]))
            assert seen.setdefault(key, sig) == sig, key
    for p in (1, 2):  # numbered 1..n_p without gaps
        nums = sorted(n for q, n in seen if q == p)
        assert nums == list(range(1, len(nums) + 1))
    return seen


# --- numbers ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "x,text",
    [(1 / 3, "1/3"), (0.5, "1/2"), (1.0, "1"), (-2.0, "-2"), (0.0, "0"), (-0.0, "0"),
     (0.1, "1/10"), (-1 / 6, "-1/6"), (2 / 7, "2/7")],
)
def test_format_number_simple_fractions(x, text):
    assert format_number(x) == text


@pytest.mark.parametrize("x", [math.pi, 1e-300, 0.1 + 0.2, 1 / 3 + 1e-12, 123456789.125, 1e20])
def test_format_number_round_trips_exactly(x):
    text = format_number(x)
    num, _, den = text.partition("/")
    back = float(num) / float(den) if den else float(text)
    assert back == x


def test_format_number_refuses_non_finite():
    with pytest.raises(SpycfrError):
        format_number(float("nan"))


# --- Kuhn ---------------------------------------------------------------------------------
def test_kuhn_structure(kuhn):
    efg = read_efg(efg_text(kuhn))
    assert efg["players"] == ["P1", "P2"]
    nodes = efg["nodes"]
    # Kuhn: 1 deal node + 3 second-card nodes; 6 deals x 4 decision nodes; 6 deals x 5 endings.
    s = efg_summary(efg_text(kuhn))
    counts = (s["nodes"], s["chance_nodes"], s["player_nodes"], s["terminal_nodes"])
    assert counts == (58, 4, 24, 30)
    assert (s["infosets_p1"], s["infosets_p2"]) == (6, 6)

    infosets = _check_infosets_consistent(nodes)
    names = {p: {infosets[k][0] for k in infosets if k[0] == p} for p in (1, 2)}
    # Keys are card (0=J, 1=Q, 2=K) + betting so far: P1 first and after check-bet, P2 facing p/b.
    assert names[1] == {"0", "1", "2", "0pb", "1pb", "2pb"}
    assert names[2] == {f"{c}{b}" for c in "012" for b in "pb"}
    assert all(sig[1] == ("pass", "bet") for sig in infosets.values())

    chance = [nd for nd in nodes if nd["type"] == "c"]
    assert nodes[0] is chance[0] and chance[0]["probs"] == [Fraction(1, 3)] * 3
    assert all(nd["probs"] == [Fraction(1, 2)] * 2 for nd in chance[1:])
    assert len({nd["infoset"] for nd in chance}) == 4  # one chance infoset per chance node

    pays = [nd["payoffs"] for nd in nodes if nd["type"] == "t"]
    assert all(u2 == -u1 for u1, u2 in pays)
    # Per deal: check-check (+-1), check-bet-fold (-1), bet-fold (+1), two showdowns at +-2.
    assert sum(abs(u1) == 1 for u1, _ in pays) == 18
    assert sum(abs(u1) == 2 for u1, _ in pays) == 12
    # Uniform play: showdowns cancel over the deals (card symmetry); folds do not:
    # bet-fold (+1) has probability 1/4, check-bet-fold (-1) 1/8, so the value is 1/8.
    uniform = {k: {a: 0.5 for a in sig[1]} for k, sig in infosets.items()}
    assert _efg_value(nodes, uniform) == pytest.approx(1 / 8, abs=1e-15)
    # The LP equilibrium, read back through the file, is worth Kuhn's value -1/18.
    lp = solve_lp(kuhn)
    assert _efg_value(nodes, _strategy_by_number(kuhn, lp.strategy)) == pytest.approx(-1 / 18)


def test_node_order_is_pre_order(kuhn):
    nodes = read_efg(efg_text(kuhn))["nodes"]
    kind = {TERMINAL: "t", CHANCE: "c", 0: "p", 1: "p"}
    order = pre_order(kuhn)
    assert sorted(order.tolist()) == list(range(kuhn.num_nodes))
    assert [nd["type"] for nd in nodes] == [kind[int(kuhn.node_player[v])] for v in order]
    for nd, v in zip(nodes, order.tolist(), strict=True):
        if nd["type"] == "t":
            assert float(nd["payoffs"][0]) == kuhn.utility[v]


# --- Agent Hunter -------------------------------------------------------------------------
def test_agent_hunter_tiny_export(hunter_tiny, tmp_path):
    tree = hunter_tiny
    path = tmp_path / "tiny.efg"
    size = write_efg(tree, path)
    text = path.read_text()
    assert size == path.stat().st_size and text == efg_text(tree)
    efg = read_efg(text)
    assert "agent-hunter" in efg["title"] and "houses=2" in efg["title"]
    nodes = efg["nodes"]
    summ, s = efg_summary(text), tree.summary()
    assert summ["nodes"] == s["nodes"] and summ["terminal_nodes"] == s["terminal_nodes"]
    assert summ["chance_nodes"] == s["chance_nodes"]
    assert (summ["infosets_p1"], summ["infosets_p2"]) == (s["infosets_p1"], s["infosets_p2"])
    infosets = _check_infosets_consistent(nodes)
    keys, actions = tree_labels(tree)
    for p in (0, 1):
        for num, i in enumerate(tree.infosets_of(p).tolist(), start=1):
            assert infosets[(p + 1, num)] == (keys[i], tuple(actions[i]))
    pays = {tuple(nd["payoffs"]) for nd in nodes if nd["type"] == "t"}
    assert pays <= {(1, -1), (0, 0), (-1, 1)}  # payoff=win
    lp = solve_lp(tree)
    assert _efg_value(nodes, _strategy_by_number(tree, lp.strategy)) == pytest.approx(
        lp.value_p1, abs=1e-12
    )


# --- synthetic trees: depth, escaping, limits ----------------------------------------------
def _chain(depth: int, labels: tuple[str, str] = ("stop", "go")) -> Tree:
    """Alternating players; action 0 ends the game (+-1), action 1 goes one level deeper."""
    n = 2 * depth + 1
    fc = np.zeros(n, np.int64)
    nc = np.zeros(n, np.int16)
    pl = np.full(n, TERMINAL, np.int8)
    inf = np.full(n, -1, np.int32)
    util = np.zeros(n)
    for d in range(depth):
        v = 0 if d == 0 else 2 * d
        fc[v], nc[v], pl[v], inf[v] = 2 * d + 1, 2, d % 2, d
        util[2 * d + 1] = 1.0 if d % 2 else -1.0
    util[n - 1] = 0.25
    return Tree(
        game="chain", variant={"depth": depth}, first_child=fc, num_children=nc,
        node_player=pl, node_infoset=inf, node_action=np.zeros(n, np.int32), utility=util,
        chance_prob=np.zeros(0), infoset_player=np.array([d % 2 for d in range(depth)], np.int8),
        infoset_num_actions=np.full(depth, 2, np.int16),
        infoset_node=np.array([0] + [2 * d for d in range(1, depth)], np.int64),
        infoset_keys=[f'say "{d}"\\' for d in range(depth)],
        action_labels=[list(labels) for _ in range(depth)],
    )


def test_deep_tree_needs_no_recursion():
    depth = 3 * sys.getrecursionlimit()
    tree = _chain(depth)
    nodes = read_efg(efg_text(tree))["nodes"]
    assert len(nodes) == tree.num_nodes
    assert nodes[-1]["payoffs"] == [Fraction(1, 4), Fraction(-1, 4)]
    assert [nd["type"] for nd in nodes[:3]] == ["p", "t", "p"]


def test_quotes_and_backslashes_are_escaped():
    tree = _chain(2, labels=('a "quoted" move', "b\\c"))
    text = efg_text(tree, title='my "game"')
    efg = read_efg(text)
    assert efg["title"] == 'my "game"'
    first = efg["nodes"][0]
    assert first["name"] == 'say "0"\\'
    assert first["actions"] == ['a "quoted" move', "b\\c"]


def test_duplicate_action_labels_are_made_distinct():
    nodes = read_efg(efg_text(_chain(2, labels=("x", "x"))))["nodes"]
    assert nodes[0]["actions"] == ["x#0", "x#1"]


def test_too_big_tree_is_refused_and_no_file_is_left(tmp_path):
    tree = _chain(10)
    path = tmp_path / "big.efg"
    with pytest.raises(SpycfrError, match="too big"):
        write_efg(tree, path, max_nodes=tree.num_nodes - 1)
    assert list(tmp_path.iterdir()) == []
    write_efg(tree, path, max_nodes=tree.num_nodes)
    assert path.exists()


# --- CLI ----------------------------------------------------------------------------------
def test_cli_export(tmp_path):
    path = tmp_path / "out" / "kuhn.efg"
    # an output file's missing folder is refused, not made (as cp and curl -o refuse it)
    r = CliRunner().invoke(cli, ["export-efg", "kuhn", "-o", str(path)])
    assert r.exit_code != 0 and "does not exist (make it first: mkdir -p" in str(r.exception)
    assert not (tmp_path / "out").exists()
    (tmp_path / "out").mkdir()
    r = CliRunner().invoke(cli, ["export-efg", "kuhn", "-o", str(path)])
    assert r.exit_code == 0, r.output
    assert len(r.output.strip().splitlines()) == 1
    assert "58 nodes" in r.output and str(path) in r.output
    assert efg_summary(path.read_text())["nodes"] == 58


def test_cli_variant_options(tmp_path):
    path = tmp_path / "h.efg"
    r = CliRunner().invoke(
        cli, ["export-efg", "agent-hunter", "--preset", "tiny", "--max-turns", "1", "-o", str(path)]
    )
    assert r.exit_code == 0, r.output
    tree = build_tree(make_game("agent-hunter", "tiny", {"max_turns": "1"}))
    assert efg_summary(path.read_text())["nodes"] == tree.num_nodes
    assert "max_turns=1" in read_efg(path.read_text())["title"]


@pytest.mark.parametrize(
    "args,needle",
    [(["nosuchgame"], "unknown game"), (["agent-hunter", "--cards", "99"], "cards"),
     (["kuhn", "--houses", "2"], "kuhn")],
)
def test_cli_bad_input_is_one_line(args, needle, tmp_path, monkeypatch, capsys):
    path = tmp_path / "x.efg"
    monkeypatch.setattr(sys, "argv", ["spycfr", "export-efg", *args, "-o", str(path)])
    with pytest.raises(SystemExit) as exc:
        main()
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and needle in err and len(err.strip().splitlines()) == 1
    assert not path.exists()


# --- OpenSpiel ----------------------------------------------------------------------------
def _openspiel_lp_policy(pyspiel, game, tree: Tree, strategy: np.ndarray):
    """Our strategy as an OpenSpiel TabularPolicy, matched by infoset number and labels."""
    keys, actions = tree_labels(tree)
    ids = [tree.infosets_of(0).tolist(), tree.infosets_of(1).tolist()]
    table = {}
    stack = [game.new_initial_state()]
    while stack:
        s = stack.pop()
        if s.is_terminal():
            continue
        if not s.is_chance_node():
            p = s.current_player()
            info = s.information_state_string(p)
            owner, _, num, name = info.split("-", 3)  # "owner-observer-number-name"
            i = ids[int(owner)][int(num) - 1]
            assert name == keys[i]
            table[info] = [
                (a, float(strategy[i, actions[i].index(s.action_to_string(p, a))]))
                for a in s.legal_actions()
            ]
        stack.extend(s.child(a) for a in s.legal_actions())
    return pyspiel.TabularPolicy(table)


@pytest.mark.parametrize("name,preset", [("kuhn", None), ("agent-hunter", "tiny")])
def test_openspiel_loads_and_agrees(name, preset):
    pyspiel = pytest.importorskip("pyspiel")
    tree = build_tree(make_game(name, preset, {}))
    game = pyspiel.load_efg_game(efg_text(tree))
    assert game.num_players() == 2
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    lp = solve_lp(tree)

    # Our LP equilibrium, carried over by infoset number: same value, zero NashConv there.
    policy = _openspiel_lp_policy(pyspiel, game, tree, lp.strategy)
    value = pyspiel.expected_returns(game.new_initial_state(), policy, -1, True)
    assert value[0] == pytest.approx(lp.value_p1, abs=1e-9)
    assert pyspiel.nash_conv(game, policy) == pytest.approx(0.0, abs=1e-9)

    # OpenSpiel's own CFR+ on the loaded file converges to the LP's game value.
    solver = pyspiel.CFRPlusSolver(game)
    for _ in range(300):
        solver.evaluate_and_update_policy()
    avg = solver.average_policy()
    value = pyspiel.expected_returns(game.new_initial_state(), avg, -1, True)
    assert value[0] == pytest.approx(lp.value_p1, abs=1e-3)
    assert pyspiel.nash_conv(game, avg) < 1e-2
