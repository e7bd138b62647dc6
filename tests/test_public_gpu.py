"""The public tree's GPU solver (numba.cuda): bit-identical to the CPU engine under numba's
CUDA simulator (a child process: the simulator is chosen before numba.cuda is imported), its
gathers, and --tree public --device's choices and errors. The simulator part is skipped when
numba.cuda cannot be imported."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from spycfr.cfr.gpu import gpu_unavailable
from spycfr.games import make_game
from spycfr.public.enumerate import build_public_tree, solver_params
from spycfr.public.gpu import (
    _depths,
    _gathers,
    ensure_terminal_blocks,
    has_terminal_blocks,
    terminal_pairs,
)
from test_gpu import run_simulator
from test_runs import one_line_error, solve

ROOT = Path(__file__).resolve().parent.parent


def _tree(game: str, preset: str | None = None):
    g = make_game(game, preset, {})
    return build_public_tree(g, params=solver_params(g))


@pytest.fixture(scope="module")
def simulated() -> list[dict]:
    return run_simulator("public_gpu_sim.py")


@pytest.mark.slow
def test_public_gpu_equals_cpu_bit_for_bit(simulated):
    """Regrets, strategy sums, predictions, current and average strategies, values and
    exploitability on Kuhn, Leduc, Agent Hunter tiny and Agent Avenue tiny (CFR+, DCFR,
    PCFR+, PDCFR+; alternating and simultaneous); checkpoints moved between the devices;
    spycfr solve --tree public --device gpu's run directory, resumed on the CPU."""
    cases = {row["case"] for row in simulated}
    for game in ("kuhn", "leduc", "agent-hunter", "agent-avenue"):
        assert any(c.startswith(game + ":") for c in cases), game
    assert {"kuhn::cfr+:alt", "kuhn::dcfr:sim"} <= cases
    assert any(c.startswith("resume") for c in cases)
    assert "public run on the GPU" in cases
    bad = [row for row in simulated
           if not all(v for k, v in row.items() if k not in ("case", "seconds"))]
    assert not bad, bad


def test_gathers_list_sources_in_order():
    """Every passed-on entry is listed once under its parent entry and every cell once under
    the entry it leads to, each list increasing (the CPU's summation order); depths grow
    along the breadth-first numbering."""
    tree = _tree("leduc")
    down_start, down_entry, src_start, src_cell, cell_row = _gathers(
        tree.live_up, tree.ent_to, tree.row_off, tree.range_entries)
    up = tree.live_up
    assert sorted(down_entry.tolist()) == np.flatnonzero(up >= 0).tolist()
    assert sorted(src_cell.tolist()) == list(range(tree.num_cells))
    for e in range(tree.range_entries):
        kids = down_entry[down_start[e]:down_start[e + 1]]
        cells = src_cell[src_start[e]:src_start[e + 1]]
        assert (up[kids] == e).all() and (np.diff(kids) > 0).all()
        assert (tree.ent_to[cells] == e).all() and (np.diff(cells) > 0).all()
    assert (tree.row_off[cell_row] <= np.arange(tree.num_cells)).all()
    assert (np.arange(tree.num_cells) < tree.row_off[cell_row + 1]).all()
    depth = _depths(tree.first_child, tree.num_children)
    assert depth[0] == 0 and (np.diff(depth) >= 0).all() and depth[-1] > 2


def test_terminal_blocks_built_for_a_hook_tree():
    """A tree whose terminals use the game's hook gets the blocks the enumerator would
    have built, value for value."""
    tree = _tree("kuhn")
    assert has_terminal_blocks(tree)
    want = tree.term_vals.copy(), tree.term_index.copy()
    tree.term_index = np.full(tree.num_nodes, -1, np.int64)
    tree.term_vals = np.zeros(0)
    assert not has_terminal_blocks(tree)
    ensure_terminal_blocks(tree)
    assert has_terminal_blocks(tree) and terminal_pairs(tree) == want[0].size
    assert np.array_equal(tree.term_vals, want[0]) and np.array_equal(tree.term_index, want[1])


def test_device_choices_on_the_public_tree():
    run = solve("kuhn", "--tree", "public", "--iterations", "3", "--device", "auto")
    assert run["tree"] == "public" and run["device"] in ("cpu", "gpu")
    auto = solve("leduc", "--iterations", "2", "--algorithm", "cfr+", "--device", "auto")
    assert auto["tree"] == "history"  # --tree auto with a device: the history tree
    one_line_error(["solve", "kuhn", "--tree", "public", "--threads", "2"], "--tree public")


@pytest.mark.skipif(gpu_unavailable() is None, reason="a GPU is present")
def test_public_tree_on_gpu_without_gpu_is_one_line():
    line = one_line_error(["solve", "kuhn", "--tree", "public", "--device", "gpu"],
                          "--device gpu: ")
    assert "--device cpu" in line
