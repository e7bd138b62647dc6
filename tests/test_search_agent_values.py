"""The values the search agent gives its own moves (``AgentGame.move_info`` at its own
decisions, what `spycfr query` shows on an agent run): against its model of the opponent
(the opponent's range through the strategies it solved), not against the re-solve's own
opposing range (what the opponent can hold, each state entering by the gadget), which gave
Agent Hunter ``tiny``'s ``place:0-1 place:?`` +0.18 where the equilibrium gives 0.0000; and
where the agent's first plan reaches the node to the end of the game, by the plan's
strategies (a re-solve's may split the agent's own value among its private states: +-0.43
after ``place:1-2`` / ``place:2-0`` where the equilibrium gives +-0.0002)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from spycfr.analysis.agentplay import walk_view
from spycfr.analysis.query import query
from spycfr.games import feature, get_plugin, make_variant
from spycfr.public import protocol as pp
from spycfr.runs.store import load_run
from spycfr.search.agent import AgentConfig, SearchAgent
from spycfr.search.leafvalues import value_function
from spycfr.search.resolve import solve, values_from
from spycfr.search.subgame import subgame
from spycfr.search.tree import GameModel

RESULTS = Path(__file__).resolve().parents[1] / "results"
VARIANT = make_variant("agent-hunter", "tiny")
TINY = VARIANT.as_dict()

# results/tiny is an exact equilibrium (exploitability 9.7e-5); the agent (the defaults of
# `spycfr solve --algorithm re-solving`) is 0.0042 exploitable. Its moves played with
# probability >= PLAYED are valued within TOLERANCE of the equilibrium's at these records
# (measured: at most 0.0012, the openings; the values against the solve's own opposing range
# were off by 0.18 at P1's first turn and by 0.005 at P2's)
TOLERANCE = 0.003
PLAYED = 0.05
RECORDS = [
    (0, ""),  # the placements: the first plan, from the prior (no gadget)
    (1, "place:?"),
    (0, "place:0-1 place:?"),  # the first turn: re-solved with the gadget
    (0, "place:1-0 place:?"),
    (1, "place:? place:0-1 hand:2>1:hi"),
    (1, "place:? place:0-1 hand:1>2:eq"),
    (1, "place:? place:0-1 hand:0>1:eq"),
]


@pytest.fixture(scope="module")
def agent():
    return SearchAgent("agent-hunter", TINY, AgentConfig.default("agent-hunter"))


@pytest.fixture(scope="module")
def equilibrium():
    return load_run(RESULTS / "tiny")


def _walk(agent, player: int, record: str):
    """A new game of the agent as ``player`` along its view ``record`` (as agent_query)."""
    return walk_view(agent, feature("agent-hunter", "records", "records"), VARIANT, record,
                     player)


def _labels(player: int, record: str) -> list[str]:
    from spycfr.analysis.query import _view_to_move

    records = feature("agent-hunter", "records", "records")
    return _view_to_move(records, VARIANT, record, player)[1]["legal_moves"]


@pytest.mark.parametrize("player, record", RECORDS)
def test_the_agents_own_moves_are_valued_as_the_equilibrium_values_them(agent, equilibrium,
                                                                         player, record):
    game, state = _walk(agent, player, record)
    info = game.move_info(state, player)
    eq = {m["move"]: m["value"] for m in query(equilibrium, player, record)["moves"]}
    labels = _labels(player, record)
    played = [x for x in range(len(labels)) if info.probs[x] >= PLAYED]
    assert played
    for x in played:
        assert abs(info.values[x] - eq[labels[x]]) <= TOLERANCE, (labels[x], info.values[x],
                                                                  eq[labels[x]])


# P1's first turn where the re-solve splits P1's own values among its private states: the
# re-solved P2 strategy below is one of the subgame's equilibria, and the gadget keeps P2's
# values, not the split of P1's among its placements (which the placements before pin to 0
# each at the game's equilibrium): +0.43 and -0.43 against the model where the equilibrium
# gives +-0.0002. The agent's whole-game plan reaches there: its values are read (+-0.0010)
SPLIT = [(0, "place:1-2 place:?"), (0, "place:2-0 place:?")]


@pytest.mark.parametrize("player, record", SPLIT)
def test_where_the_re_solve_splits_the_agents_values(agent, equilibrium, player, record):
    test_the_agents_own_moves_are_valued_as_the_equilibrium_values_them(agent, equilibrium,
                                                                         player, record)


@pytest.mark.parametrize("player, record", SPLIT)
def test_the_plan_gives_the_values_the_re_solve_split(agent, equilibrium, player, record):
    """The values there are the plan's (a plan to the end of the game, from the prior),
    read from its tree at the walk's node; the re-solve's against the model (the plan
    unread) are 0.4 off for the moves played, which the re-solve's probabilities do not
    change. Every move, played or not, is within 0.005 of the equilibrium by the plan."""
    game, state = _walk(agent, player, record)
    plan = game.plan
    assert game.sol is not plan and game.sol.enter is not None  # a re-solve, gadget
    assert not plan.tree.leaves.size
    assert np.array_equal(plan.tree.pub[game.plan_node], game.pub)
    tree, node, _, _ = game.own_values()
    assert tree is plan.tree and node == game.plan_node
    new = game.move_info(state, player)
    assert new.from_plan
    game.plan_node = -1  # the plan unread: the re-solve's strategies against the model
    old = game.move_info(state, player)
    assert not old.from_plan
    assert np.array_equal(old.probs, new.probs)
    eq = {m["move"]: m["value"] for m in query(equilibrium, player, record)["moves"]}
    labels = _labels(player, record)
    played = new.probs >= PLAYED
    assert np.all(np.abs(old.values[played]) > 0.4)
    assert max(abs(new.values[x] - eq[labels[x]]) for x in range(len(labels))) < 0.005


def test_the_plans_values_at_other_ranges(agent):
    """Where the agent's ranges are not the plan's own reach at the node (later in a game,
    past re-solves), the plan's strategies are evaluated again from them: with the model
    range scaled (the same beliefs) the move values are the plan's own, through the passes."""
    game, state = _walk(agent, 0, "place:1-2 place:?")
    fast = game.move_info(state, 0)
    game.model_range = game.model_range * 3.0
    tree, node, v, _ = game.own_values()
    assert tree is game.plan.tree and v is not game.plan.values[0]  # the passes, not the plan's
    slow = game.move_info(state, 0)
    assert np.allclose(slow.values, fast.values, atol=1e-12, equal_nan=True)


def test_the_re_solve_values_where_the_plan_does_not_reach(agent):
    """A plan with leaves (two decision levels: the placements) ends where P1's first turn
    starts: the values are the re-solve's, against the model. So are they where the plan
    does not hold the agent's actual cards at the node (a record of play the plan never
    makes: its rows there were not what it plays)."""
    import dataclasses

    cut = SearchAgent("agent-hunter", TINY, AgentConfig.default("agent-hunter",
                                                                plan_endgame=0))
    game, state = _walk(cut, 0, "place:1-2 place:?")
    assert game.plan.tree.leaves.size and game.plan_node >= 0
    assert game.own_values()[0] is game.sol.tree
    assert not game.move_info(state, 0).from_plan
    game, state = _walk(agent, 0, "place:1-2 place:?")
    own, n = agent.private(state, 0), game.plan_node
    reach = game.plan.reach[0].copy()
    reach[n, own] = 0.0
    game.plan = dataclasses.replace(game.plan, reach=(reach, game.plan.reach[1]))
    assert game.own_values()[0] is game.sol.tree


def test_the_plan_node_follows_the_walk(agent):
    """The walk's node in the plan's tree has the walk's public state at every step, as
    the agent (P2) re-solves at its turns and (P1) after its first move."""
    records = feature("agent-hunter", "records", "records")
    for player, record in [(1, "place:? place:0-1 hand:2>1:hi"),
                           (0, "place:0-1 place:? hand:2>1:hi")]:
        game = agent.game(player)
        tokens = record.split()
        for k in range(1, len(tokens) + 1):
            game.observe(np.asarray(records.view_state(VARIANT, " ".join(tokens[:k]),
                                                       player)))
            assert np.array_equal(game.plan.tree.pub[game.plan_node], game.pub)


def test_the_gadgets_range_gave_the_old_values(agent):
    """At P1's first turn the re-solve's own values (against what P2 can hold, each state
    entering by the gadget) put P1's hand play at +0.18; against the model, +0.0001; by the
    plan, 0.0000."""
    game, state = _walk(agent, 0, "place:0-1 place:?")
    assert game.sol.enter is not None  # a re-solve with the gadget
    new = game.move_info(state, 0)
    game.plan_node = -1
    model = game.move_info(state, 0)
    sol = game.sol
    game.own_values = lambda: (sol.tree, 0, sol.values[0], sol.reach[1])  # the old reading
    old = game.move_info(state, 0)
    hand = [x for x, label in enumerate(_labels(0, "place:0-1 place:?"))
            if label.startswith("hand:")]
    assert np.all(old.values[hand] > 0.15) and np.all(np.abs(new.values[hand]) < 0.003)
    assert np.all(np.abs(model.values[hand]) < 0.003)
    # the probabilities are the re-solve's either way
    assert np.array_equal(old.probs, new.probs)


def test_values_from_the_solves_ranges_are_the_solves_values(agent):
    """values_from with the ranges a solve ended with gives that solve's values, at its
    root and from any node down (the reach there fixes everything below), in a subgame with
    rollout leaves too (the value function keeps the games of its solve)."""
    plugin = get_plugin("agent-hunter")
    game = GameModel.of(plugin.numba_params(VARIANT))
    vf = value_function("rollout", game, plugin)
    turn = subgame(game, game.root(), 2).pub[2]  # the first turn, one decision level deep
    tree = subgame(game, turn, 1)
    assert tree.leaves.size
    sol = solve(tree, (game.weights[0], game.weights[1]), 20, vf)
    for seat in (0, 1):
        for node in (0, int(tree.first[0]) + 1):
            reach = (sol.reach[0][node], sol.reach[1][node])
            v, opp = values_from(tree, sol.strategy, node, reach, seat, vf)
            below = [node]
            for n in below:
                below.extend(range(int(tree.first[n]), int(tree.first[n] + tree.count[n])))
            assert np.allclose(v[below], sol.values[seat][below], atol=1e-12)
            assert np.allclose(opp[below], sol.reach[1 - seat][below], atol=1e-15)
            outside = np.setdiff1d(np.arange(tree.size), below)
            assert not opp[outside].any()


def test_rollout_values_follow_the_leaves_they_are_asked_about():
    """A rollout value function asked about leaves other than those of its last solve
    plays their games (it kept the last solve's, indexed by leaf: another subgame's values
    were read from them)."""
    plugin = get_plugin("agent-hunter")
    game = GameModel.of(plugin.numba_params(VARIANT))
    turn = subgame(game, game.root(), 2).pub[2]
    a, b = subgame(game, game.root(), 2), subgame(game, turn, 1)
    ranges = (game.weights[0], game.weights[1])
    used, fresh = value_function("rollout", game, plugin), value_function("rollout", game,
                                                                        plugin)
    solve(a, ranges, 2, used)
    r0 = np.tile(game.weights[0], (b.leaves.size, 1))
    r1 = np.tile(game.weights[1], (b.leaves.size, 1))
    got, want = used.values(b.pub[b.leaves], r0, r1), fresh.values(b.pub[b.leaves], r0, r1)
    assert np.allclose(got[0], want[0]) and np.allclose(got[1], want[1])


def test_public_path_is_the_breadth_first_search_by_value(agent):
    """``public_path`` compares each child with the target by its bytes (where np.array_equal
    cost 2.5 us a child): the path the search by value finds, for a target three public
    steps on (a house attack, its signal, the refill: one token of a view, which a review's
    walk searches for) and for a target of another dtype (compared by value); the last
    level's children are compared, not expanded."""
    from spycfr.errors import SpycfrError

    records = feature("agent-hunter", "records", "records")

    def public(view: str) -> np.ndarray:
        return agent.public(np.asarray(records.view_state(VARIANT, view, 0)))

    start = public("place:0-2 place:?")
    target = public("place:0-2 place:? house:2=2>1:eq>1")

    want, _ = _path_by_value(agent, start, target, 6)
    assert len(want) == 3
    for goal in (target, target.astype(np.int64)):
        got = agent.public_path(start, goal)
        assert len(got) == 3 and all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))
        assert len(agent.public_path(start, goal, depth=3)) == 3
        with pytest.raises(SpycfrError, match="not reachable"):
            agent.public_path(start, goal, depth=2)


def test_public_path_finds_the_first_path_of_the_search_by_value(agent):
    """The numba search (``tree.public_path_states``) answers what the search by value over
    ``_public_children`` answers (the first path breadth first, in the protocol's order of
    children) for targets one to six public steps from the game's root, drawn at random,
    where more states are kept than its first buffer holds (1,024); an unreachable target
    (another length, or too far) is an error."""
    from spycfr.errors import SpycfrError

    rng = np.random.default_rng(5)
    root = agent.model.root()
    kept = 0
    for steps in (1, 2, 3, 4, 5, 6, 6, 6):
        pub = root
        for _ in range(steps):
            kids = _public_children(agent, pub)
            if not kids:  # the game's end
                break
            pub = kids[int(rng.integers(len(kids)))]
        want, total = _path_by_value(agent, root, pub, 6)
        kept = max(kept, total)
        got = agent.public_path(root, pub)
        assert len(got) == len(want) <= steps
        assert all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))
        if len(want) > 1:
            with pytest.raises(SpycfrError, match="not reachable"):
                agent.public_path(root, pub, depth=len(want) - 1)
    assert kept > 1024, kept  # the kept states' buffer grew
    with pytest.raises(SpycfrError, match="not reachable"):
        agent.public_path(root, np.concatenate([root, root]))


def _path_by_value(agent, start: np.ndarray, target: np.ndarray, depth: int
                   ) -> tuple[list[np.ndarray], int]:
    """The search ``public_path`` replaced, by value over ``_public_children``: the first
    path from ``start`` to a child equal to ``target`` breadth first (the protocol's order
    of children), within ``depth`` public steps, the last level's children compared and not
    kept; and how many states it kept to expand, all levels."""
    frontier, total = [(start, [])], 0
    for level in range(depth):
        grown = []
        for pub, path in frontier:
            for kid in _public_children(agent, pub):
                if np.array_equal(kid, target):
                    return [*path, kid], total
                if level + 1 < depth:
                    grown.append((kid, [*path, kid]))
        frontier = grown
        total += len(grown)
    raise AssertionError("not found")


def _public_children(agent, pub: np.ndarray) -> list[np.ndarray]:
    """The children of the public state ``pub`` in the protocol's order (a chance node's
    outcomes, else its legal actions), a Python call each: what ``public_path``'s numba
    search expands, written plainly (the reference of its tests)."""
    params, n = agent.params, agent.model.max_actions
    kind = int(pp.python_impl(params, "current_player")(pub, params))
    if kind == pp.TERMINAL:
        return []
    codes = np.empty(n, np.int32)
    if kind == pp.CHANCE:
        k = pp.python_impl(params, "chance_outcomes")(pub, params, codes, np.empty(n))
    else:
        k = pp.python_impl(params, "legal_actions")(pub, params, codes)
    apply = pp.python_impl(params, "apply_action")
    out = []
    for o in range(k):
        kid = np.empty_like(pub)
        apply(pub, params, codes[o], kid)
        out.append(kid)
    return out
