"""Several threads (spycfr.cfr.threaded): the same bits as one thread, the subtree split, and
`spycfr solve --threads`."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cli_helpers import spycfr
from spycfr.cfr import ALGORITHMS, CFRSolver
from spycfr.cfr.threaded import subtree_layout
from spycfr.games import build_tree, make_game
from spycfr.runs.config import available_cpus
from spycfr.tree import Tree
from spycfr.tree.tree import TERMINAL

TABLES = ("R", "S", "sigma", "m")


@pytest.fixture(scope="module")
def ah_tiny() -> Tree:
    return build_tree(make_game("agent-hunter", "tiny"))


def _same(a: CFRSolver, b: CFRSolver) -> bool:
    return a.iteration == b.iteration and all(
        np.array_equal(getattr(a, k), getattr(b, k)) for k in TABLES)


@pytest.mark.parametrize("alternating", [True, False])
@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("game", ["kuhn", "leduc", "ah_tiny"])
def test_two_threads_give_the_same_bits(game, algorithm, alternating, request):
    tree = request.getfixturevalue(game)
    one = CFRSolver(tree, algorithm, alternating=alternating)
    two = CFRSolver(tree, algorithm, alternating=alternating, threads=2)
    assert two.threads == 2 and two.threads_note is None
    for n in (1, 9):
        one.iterate(n)
        two.iterate(n)
        assert _same(one, two)


def test_a_checkpoint_moves_between_thread_counts(leduc):
    straight = CFRSolver(leduc, "pdcfr+")
    straight.iterate(40)
    first = CFRSolver(leduc, "pdcfr+", threads=2)
    first.iterate(15)
    resumed = CFRSolver(leduc, "pdcfr+")
    resumed.load_state_dict(first.state_dict())
    resumed.iterate(25)
    assert _same(straight, resumed)


@pytest.mark.parametrize("threads", [2, 8])
def test_the_split_covers_every_node_once(ah_tiny, threads):
    """Top nodes, frontier nodes and each frontier node's descendants partition the ids, each
    region holds its frontier node's whole subtree, and there are enough subtrees."""
    top, frontier, ends = subtree_layout(ah_tiny.first_child, ah_tiny.num_children, threads)
    seen = np.zeros(ah_tiny.num_nodes, dtype=np.int64)
    seen[top] += 1
    seen[frontier] += 1
    for c, end in zip(frontier, ends, strict=True):
        if ah_tiny.num_children[c]:
            seen[ah_tiny.first_child[c]:end] += 1
    assert (seen == 1).all()
    assert len(frontier) >= min(threads * 16, 2) and len(top) >= 1
    parent = np.full(ah_tiny.num_nodes, -1)
    for n in range(ah_tiny.num_nodes):
        k = ah_tiny.num_children[n]
        parent[ah_tiny.first_child[n]:ah_tiny.first_child[n] + k] = n
    for c, end in zip(frontier, ends, strict=True):  # every node of a region descends from its root
        for n in range(ah_tiny.first_child[c] if ah_tiny.num_children[c] else end, end):
            u = n
            while u not in (c, 0, -1):
                u = parent[u]
            assert u == c


def interleaved_tree(k: int = 32) -> Tree:
    """P1 picks one of k moves, P2 (not seeing it) picks x or y, P1 then picks again: the last
    nodes' children come first for every x, then for every y, so the descendants of P1's first
    move are not one contiguous range of ids and the subtree split cannot hold."""
    fc, nc, pl, inf = [1], [k], [0], [0]
    for i in range(k):  # level 1: P2, one infoset
        fc.append(1 + k + 2 * i)
        nc.append(2)
        pl.append(1)
        inf.append(1)
    leaves = 1 + 3 * k
    for i in range(k):  # level 2: P1 remembers its first move i
        for b in range(2):
            fc.append(leaves + 2 * (b * k + i))
            nc.append(2)
            pl.append(0)
            inf.append(2 + i)
    n_leaves = 4 * k
    fc += [0] * n_leaves
    nc += [0] * n_leaves
    pl += [TERMINAL] * n_leaves
    inf += [-1] * n_leaves
    n = len(fc)
    util = np.zeros(n)
    util[leaves:] = np.sin(np.arange(n_leaves) * 1.7)
    return Tree(
        game="interleaved", variant={}, first_child=np.array(fc, dtype=np.int64),
        num_children=np.array(nc, dtype=np.int16), node_player=np.array(pl, dtype=np.int8),
        node_infoset=np.array(inf, dtype=np.int32), node_action=np.full(n, -1, dtype=np.int32),
        utility=util, chance_prob=np.zeros(0),
        infoset_player=np.array([0, 1] + [0] * k, dtype=np.int8),
        infoset_num_actions=np.array([k] + [2] * (k + 1), dtype=np.int16),
        infoset_node=np.array([0, 1] + [1 + k + 2 * i for i in range(k)], dtype=np.int64),
    )


def test_a_tree_without_contiguous_subtrees_runs_on_one_thread():
    tree = interleaved_tree()
    assert subtree_layout(tree.first_child, tree.num_children, 2) is None
    solver = CFRSolver(tree, "cfr+", threads=2)
    assert solver.threads == 1 and "contiguous" in solver.threads_note
    reference = CFRSolver(tree, "cfr+")
    solver.iterate(50)
    reference.iterate(50)
    assert _same(solver, reference)


def test_solve_threads_on_the_command_line(tmp_path):
    code, out, err = spycfr("solve", "leduc", "--algorithm", "pdcfr+", "--iterations", "30",
                            "--threads", "2", "--json")
    assert code == 0, err
    two = json.loads(out)
    assert two["threads"] == 2 and two["device"] == "cpu"
    code, out, err = spycfr("solve", "leduc", "--algorithm", "pdcfr+", "--iterations", "30",
                            "--threads", "1", "--tree", "history", "--json")
    one = json.loads(out)
    assert one["threads"] == 1 and one["value_p1"] == two["value_p1"]
    assert one["exploitability"] == two["exploitability"]
    code, out, err = spycfr("solve", "kuhn", "--algorithm", "cfr+", "--iterations", "5",
                            "--threads", "auto", "--json")  # auto: one thread on 58 nodes
    assert json.loads(out)["threads"] == 1
    code, out, err = spycfr("solve", "leduc", "--algorithm", "cfr+", "--iterations", "5",
                            "--threads", "auto", "--json")
    assert json.loads(out)["threads"] == available_cpus()
    # the default, on the history tree (where threads are a choice; a public-tree run, what
    # auto picks for Leduc with one thread, always has one, and would compile its kernels)
    code, out, err = spycfr("solve", "leduc", "--algorithm", "cfr+", "--iterations", "5",
                            "--tree", "history", "--json")
    assert json.loads(out)["threads"] == 1
    code, out, err = spycfr("solve", "leduc", "--algorithm", "cfr+", "--iterations", "5",
                            "--threads", "2", "--quiet")
    assert code == 0 and "on the cpu, 2 threads" in out


@pytest.mark.parametrize("args, fragment", [
    (["--threads", "0"], "--threads must be"),
    (["--threads", "two"], "a number >= 1 or auto"),
    (["--threads", "100000"], "between 1 and"),
    (["--threads", "2", "--algorithm", "os-mccfr", "--iterations", "10"], "full-tree CFR"),
    (["--threads", "2", "--algorithm", "lp"], "full-tree CFR"),
])
def test_bad_threads_are_one_line(args, fragment):
    code, out, err = spycfr("solve", "leduc", *args)
    assert code != 0 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], err
