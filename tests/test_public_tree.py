"""The public-tree engine is exact: known values, and its strategies mapped onto the
history tree have the exploitability the history tree's own best response computes."""

from __future__ import annotations

import numpy as np
import pytest

from public_reference import values as reference_values
from spycfr.cfr import CFRSolver
from spycfr.errors import SpycfrError
from spycfr.exact.best_response import exploitability
from spycfr.exact.lp import solve_lp
from spycfr.games import get_plugin, make_game, make_variant
from spycfr.public.enumerate import build_public_tree, solver_params
from spycfr.public.mapping import HistoryMap
from spycfr.public.solver import (
    PublicCFRSolver,
    profile_values,
    public_exploitability,
    public_ranges,
    uniform_strategy,
)

LEDUC_VALUE = -0.085606424078  # OpenSpiel's sequence-form LP value for P1

_public: dict = {}


def _tree(name: str):
    if name not in _public:
        _public[name] = build_public_tree(make_game(name))
    return _public[name]


def test_kuhn_public_tree_shape():
    t = _tree("kuhn")
    # pass/bet, then 2 or 3 more: 4 decisions, 5 terminals; 3 cards per seat.
    assert t.summary()["decision_nodes"] == 4 and t.summary()["terminal_nodes"] == 5
    assert t.n_private == (3, 3) and t.num_rows == 12
    assert t.inv_z == pytest.approx(1.5)  # 6 of the 9 card pairs are dealt


@pytest.mark.slow
def test_kuhn_reaches_its_value_to_1e9():
    t = _tree("kuhn")
    solver = PublicCFRSolver(t, "pcfr+")
    solver.iterate(6000)
    avg = solver.average_strategy()
    br = profile_values(t, avg, best=True)
    # The game value lies in [-BR_2, BR_1]; both ends are within 1e-9 of -1/18.
    assert -br[1] <= -1 / 18 + 1e-12 <= br[0] + 2e-12
    assert br[0] + br[1] < 2e-9
    assert profile_values(t, avg, best=False)[0] == pytest.approx(-1 / 18, abs=1e-9)


@pytest.mark.slow
def test_leduc_lp_equilibrium_is_worth_its_value_on_the_public_tree(leduc):
    """The history tree's exact LP equilibrium, moved onto the public tree: both public
    best responses are worth the game value, to 1e-9."""
    public = _tree("leduc")
    lp = solve_lp(leduc)
    strategy = HistoryMap(public, leduc).public_strategy(lp.strategy, public)
    br = profile_values(public, strategy, best=True)
    assert br[0] == pytest.approx(LEDUC_VALUE, abs=1e-9)
    assert -br[1] == pytest.approx(LEDUC_VALUE, abs=1e-9)
    assert profile_values(public, strategy, best=False)[0] == pytest.approx(LEDUC_VALUE,
                                                                            abs=1e-9)


def test_the_public_solver_matches_the_plain_python_twin():
    """Values and best responses of a CFR strategy: numba engine = Python recursion."""
    t = _tree("kuhn")
    solver = PublicCFRSolver(t, "cfr")
    solver.iterate(7)
    avg = solver.average_strategy()
    row_of = {(int(t.row_node[r]), int(t.row_priv[r])): r for r in range(t.num_rows)}
    node_of = {tuple(t.pub_states[q].tolist()): q for q in range(t.num_nodes)}

    def policy(pub, seat, i, n):
        r = row_of[(node_of[tuple(pub.tolist())], i)]
        return avg[t.row_off[r]:t.row_off[r] + n]

    params = get_plugin("kuhn").numba_params(make_variant("kuhn"))
    for best in (False, True):
        mine = profile_values(t, avg, best)
        for seat in (0, 1):
            assert mine[seat] == pytest.approx(reference_values(params, policy, seat, best),
                                               abs=1e-12)


@pytest.mark.parametrize("algorithm", ["cfr", "cfr+", "lcfr", "dcfr", "pcfr+", "pdcfr+",
                                       "hs-pcfr+"])
def test_every_algorithm_follows_the_history_solver_on_kuhn(kuhn, algorithm):
    """Same update rule, same iterates: the regrets differ only by a positive factor per
    infoset (chance), so the average strategies agree (to rounding)."""
    public = _tree("kuhn")
    mapping = HistoryMap(public, kuhn)
    for alternating in (True, False):
        ours = PublicCFRSolver(public, algorithm, alternating=alternating)
        theirs = CFRSolver(kuhn, algorithm, alternating=alternating)
        ours.iterate(30)
        theirs.iterate(30)
        mapped = mapping.strategy(ours.average_strategy())
        assert np.abs(mapped - theirs.average_strategy()).max() < 1e-9


def test_checkpoint_state_resumes_bit_identically():
    t = _tree("kuhn")
    a = PublicCFRSolver(t, "pdcfr+")
    a.iterate(20)
    b = PublicCFRSolver(t, "pdcfr+")
    b.iterate(8)
    c = PublicCFRSolver(t, "pdcfr+")
    c.load_state_dict(b.state_dict())
    c.iterate(12)
    assert c.iteration == 20 and np.array_equal(a.S, c.S) and np.array_equal(a.R, c.R)


def test_a_checkpoint_of_padded_rows_resumes_cell_for_cell():
    """Tables saved rows x width (the layout before rows had their own width) are read
    into the cells; another shape is refused in words."""
    t = _tree("leduc")
    assert t.num_cells == t.row_num.sum() and set(t.row_num.tolist()) == {2, 3}
    a = PublicCFRSolver(t, "pdcfr+")
    a.iterate(20)
    b = PublicCFRSolver(t, "pdcfr+")
    b.iterate(8)
    state = b.state_dict()
    rows = np.repeat(np.arange(t.num_rows), t.row_num)
    cols = np.arange(t.num_cells) - t.row_off[rows]
    for key in ("R", "S", "sigma", "m"):
        padded = np.full((t.num_rows, t.max_private_actions + 1), 7.0)
        padded[rows, cols] = state[key]
        state[key] = padded
    c = PublicCFRSolver(t, "pdcfr+")
    c.load_state_dict(state)
    c.iterate(12)
    assert np.array_equal(a.S, c.S) and np.array_equal(a.R, c.R)
    state["R"] = np.zeros((t.num_rows, 1))
    with pytest.raises(SpycfrError, match="checkpoint table R has shape"):
        c.load_state_dict(state)
    plain = PublicCFRSolver(t, "cfr+")
    old = dict(plain.state_dict(), m=np.zeros((0, 3)))  # no predictions: 0 rows
    plain.load_state_dict(old)


def test_uniform_exploitability_of_leduc(leduc):
    """NashConv of the uniform Leduc profile, 4.7472222 (OpenSpiel), on both trees."""
    public = _tree("leduc")
    assert 2 * public_exploitability(public, uniform_strategy(public)) == pytest.approx(
        4.7472222, abs=1e-6)
    assert exploitability(leduc, leduc.uniform_strategy()) == pytest.approx(
        public_exploitability(public, uniform_strategy(public)), abs=1e-12)


def test_leduc_with_suits_merged_runs_the_same_iterates(leduc):
    """The solver's Leduc model (ranks, the suits merged) is a third of the card model's
    ranges and gives the same game: the uniform NashConv, and 50 CFR+ iterations on each
    mapped onto the history tree are the same strategy (the same iterates, to rounding)."""
    game = make_game("leduc")
    ranks = build_public_tree(game, params=solver_params(game))
    cards = _tree("leduc")
    assert ranks.n_private == (3, 3) and cards.n_private == (6, 6)
    assert ranks.range_entries == 15 * 6 + 225 * 6 and ranks.num_nodes == 240
    assert 2 * public_exploitability(ranks, uniform_strategy(ranks)) == pytest.approx(
        4.7472222, abs=1e-6)
    mapped = []
    for t in (ranks, cards):
        solver = PublicCFRSolver(t, "cfr+")
        solver.iterate(50)
        mapped.append(HistoryMap(t, leduc).strategy(solver.average_strategy()))
    assert np.max(np.abs(mapped[0] - mapped[1])) < 1e-12
    assert exploitability(leduc, mapped[0]) == pytest.approx(
        exploitability(leduc, mapped[1]), abs=1e-12)


def test_ranges_hold_the_live_private_states_only():
    """Leduc: below the board card a seat's range holds the 5 cards that are not the board
    card, above it all 6; the uniform profile reaches every entry; rows are the live ones."""
    t = _tree("leduc")
    assert t.range_entries == 15 * 12 + 450 * 10 and t.dense_range_entries == 465 * 12
    board = np.full(t.num_nodes, -1)
    for q in range(t.num_nodes):
        for c in range(t.first_child[q], t.first_child[q] + t.num_children[q]):
            board[c] = t.node_label[c] if t.node_player[q] == 2 else board[q]
    for q in range(t.num_nodes):
        for s in (0, 1):
            held = t.live_priv[t.live_start[s, q]:t.live_start[s, q + 1]].tolist()
            assert held == [c for c in range(6) if c != board[q]]
    assert np.all(public_ranges(t, uniform_strategy(t)) > 0.0)
    assert t.num_rows == sum(len(range(t.live_start[int(t.node_player[q]), q],
                                       t.live_start[int(t.node_player[q]), q + 1]))
                             for q in range(t.num_nodes) if t.node_player[q] in (0, 1))


def test_the_count_goes_on_in_steps_and_stops_at_its_caps(monkeypatch):
    """count_public pauses every COUNT_STEPS private states looked at (Leduc: 12 a node),
    telling ``note``, and ends with the built tree's sizes; past max_entries it stops
    (public_size: None)."""
    from spycfr.public import enumerate as pe

    t = _tree("leduc")
    params = get_plugin("leduc").numba_params(make_variant("leduc"))
    monkeypatch.setattr(pe, "COUNT_STEPS", 50 * 12)
    heard: list[tuple[int, int]] = []
    status, acc = pe.count_public(params, note=lambda n, e: heard.append((n, e)))
    assert status == pe.OK
    assert (acc[pe.NODES], acc[pe.ENT0] + acc[pe.ENT1], acc[pe.ROWS]) == (
        t.num_nodes, t.range_entries, t.num_rows)
    assert [n for n, _ in heard] == list(range(50, t.num_nodes, 50))
    assert pe.public_size(params, max_entries=t.range_entries) is not None
    assert pe.public_size(params, max_entries=t.range_entries - 1) is None
    assert pe.public_size(params, max_nodes=t.num_nodes - 1) is None


def test_terminals_take_blocks_or_the_hook_alike(monkeypatch):
    """Every terminal gets a precomputed block where all fit terminal_cap; else those of
    at most terminal_block_max live pairs (n0 + n1 with Agent Hunter's hook) where they fit,
    the hook the others at every pass; else the hook everywhere. The count sizes exactly the
    blocks made, and all three trees have the same values."""
    from spycfr.public import enumerate as pe

    game = make_game("agent-hunter", "tiny")
    params = get_plugin("agent-hunter").numba_params(game.variant_obj)
    assert pe.terminal_block_max(params) == 7 + 7  # private states a seat
    every = int(pe.public_size(params)[pe.PAIRS])
    trees = {}
    for name, block_max, cap in (("blocks", 2, None), ("mixed", 2, 8 * every - 8),
                                 ("hooks", 2, 0)):
        monkeypatch.setattr(pe, "terminal_block_max", lambda params, m=block_max: m)
        if cap is not None:
            monkeypatch.setattr(pe, "terminal_cap", lambda entries, c=cap: c)
        trees[name] = t = build_public_tree(game)
        assert pe.terminal_bytes(pe.public_size(params)) == 8 * t.term_vals.shape[0]
        pairs = np.diff(t.live_start[0])[t.term_index >= 0] @ np.diff(
            t.live_start[1])[t.term_index >= 0]
        assert pairs == t.term_vals.shape[0]
    terminals = int(np.count_nonzero(trees["blocks"].node_player == pe.P.TERMINAL))
    blocked = [int(np.count_nonzero(t.term_index >= 0)) for t in trees.values()]
    assert blocked[0] == terminals and 0 < blocked[1] < terminals and blocked[2] == 0
    t = trees["blocks"]
    row = np.repeat(np.arange(t.num_rows), t.row_num)
    sigma = np.random.default_rng(3).random(t.num_cells) + 0.1  # a strategy, not uniform
    sigma /= np.bincount(row, sigma)[row]
    for best in (False, True):
        v = [profile_values(t, sigma, best) for t in trees.values()]
        assert np.allclose(v[1], v[0], rtol=0, atol=1e-12)
        assert np.allclose(v[2], v[0], rtol=0, atol=1e-12)


def test_a_tree_beyond_the_memory_limit_is_refused_after_a_bounded_count(monkeypatch):
    """Under a budget the count stops once the live range entries alone pass it: a
    one-line refusal naming how far it counted, before anything is allocated."""
    from spycfr.memory import MemoryBudget, MemoryLimitError, rss_bytes
    from spycfr.public import enumerate as pe

    t = _tree("leduc")
    stops = []
    real = pe.count_public

    def count(params, max_nodes=pe.DEFAULT_MAX_NODES, max_entries=None, note=None):
        stops.append(max_entries)
        return real(params, max_nodes, max_entries, note)

    monkeypatch.setattr(pe, "count_public", count)
    limit = rss_bytes() + 100 * pe.LIVE_BYTES  # room for 100 entries: Leduc has 4,680
    with pytest.raises(MemoryLimitError, match=r"at least \d+ live range entries") as err:
        build_public_tree(make_game("leduc"), budget=MemoryBudget(limit))
    assert len(str(err.value).splitlines()) == 1
    assert len(stops) == 1 and 0 < stops[0] <= 100 < t.range_entries
