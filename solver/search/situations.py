"""Training situations for a learned value function, stage by stage backward from the
horizon (DeepStack 2017): a random public state, random ranges for both seats on the private
states they can hold there, and the subgame below it solved by :func:`~spycfr.search.resolve.solve`;
the situation's targets are both seats' counterfactual values at its root (below).

Stage N takes public states that a random playout leaves ``span * (N - 1) < r <= span * N``
public edges before its end; stage 1 solves them to the end of the game, a later stage to
``span`` edges below, its leaves valued by the previous stage's network. ``after_decisions``
D takes instead the decision node a random playout reaches after its first D decisions
(none where it ends first): the public states where a plan or re-solve D decision levels
below the root asks for leaf values (Agent Hunter, D = 4: after P2's first turn decision,
where the `mini` agent of results/mini-values asks its network).

One solve gives more than its root: every public node below it is a subgame of its own whose
root ranges are the solve's reaches there (reach excludes public chance, so a node's values
are those of the node taken as a root), and the restriction of an equilibrium to it is an
equilibrium of it. ``internal`` such nodes per solve (drawn among those both seats reach) are
kept beside the root: ranges shaped by play, as a re-solve's leaves see them, at no extra
solving. The targets are best-response counterfactual values (equal to the equilibrium's
where a seat's range is positive; where it is 0, what the private state could still win, the
value a re-solve needs to decide whether to play into the leaf with it), and ``m0``, ``m1``
mark the private states a seat can hold there at all (the loss ignores the others).

Public states and ranges drawn so are not where a re-solve asks for values: on Agent Hunter
``tiny`` the depth-4 agent's leaf queries come from its plan and first re-solves, most of
them with one seat's range exactly 0 (an action CFR+ stopped playing), which no random draw
gives. :func:`leaf_queries` records those queries of a re-solving agent and ``spec.queries``
(a file of them) makes them the stage's situations: situation ``i`` solves query ``i``. A
seat whose range at the query is 0 is solved as holding any private state it can hold there
(its values: what each could win if it came), the other seat's values weigh nothing.

Each situation has its own seed (the stage's seed, the stage and its index), so a batch
gives the same situations whoever computes it, in whatever order: batches are independent
tasks for Dask.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, replace
from functools import lru_cache, partial
from typing import TYPE_CHECKING

import numpy as np

from spycfr.public.protocol import CHANCE, TERMINAL
from spycfr.search.beliefs import step
from spycfr.search.resolve import solve
from spycfr.search.tree import LEAF, GameModel, Subtree, build, reachable
from spycfr.search.values import ValueFunction

if TYPE_CHECKING:
    from spycfr.search.evaluate import Settings

QUERY_KEYS = ("pub", "r0", "r1", "m0", "m1")


@dataclass(frozen=True)
class StageSpec:
    """What one stage's situations are: the game, the stage, its span in public edges, CFR+
    iterations per solve and the previous stage's weights (stage > 1)."""

    game: str
    preset: str | None
    params: dict
    stage: int
    span: int
    iterations: int
    seed: int
    previous: str | None = None
    max_nodes: int = 200_000
    internal: int = 0  # public nodes below the root kept per solve
    queries: str | None = None  # a leaf_queries file: situation i solves query i
    after_decisions: int | None = None  # roots D decisions from the game's root, not by span

    def __post_init__(self) -> None:
        # a root D decisions deep is solved to the end (stage 1); a later stage's subgame
        # would ask the previous stage's network below those roots, where it never trained
        if self.after_decisions is not None and self.stage != 1:
            raise ValueError(f"after_decisions roots are solved to the end of the game, so "
                             f"they make stage 1 only (got stage {self.stage})")

    def as_dict(self) -> dict:
        return asdict(self)

    def roots(self) -> str:
        """Where the stage's situations are rooted, in words: a draw that reaches none gives
        no situation."""
        if self.queries is not None:
            return f"the rows of the leaf queries file {self.queries}"
        if self.after_decisions is not None:
            return (f"the decision node a random playout reaches after its first "
                    f"{self.after_decisions} decisions")
        lo = self.span * (self.stage - 1)
        return f"public states {lo + 1} to {lo + self.span} public edges before a playout's end"


def game_model(game: str, preset: str | None, params: dict) -> GameModel:
    from spycfr.games import get_plugin, make_variant

    return GameModel.of(get_plugin(game).numba_params(make_variant(game, preset, params)))


def sample_range(support: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random range on ``support`` (booleans), summing to 1: DeepStack's recursive
    split, here over a random order of the private states (the mass of each half of the
    list is a uniform share of its parent's), so ranges run from near-uniform to a few
    states holding almost everything."""
    if not support.any():
        raise ValueError("a range needs at least one private state to hold")
    idx = rng.permutation(np.flatnonzero(support))
    out = np.zeros(support.shape[0])
    stack = [(0, idx.size, 1.0)]
    while stack:
        lo, hi, mass = stack.pop()
        if hi - lo == 1:
            out[idx[lo]] = mass
            continue
        mid = (lo + hi) // 2
        u = rng.random()
        stack.append((lo, mid, mass * u))
        stack.append((mid, hi, mass * (1.0 - u)))
    return out


def random_path(game: GameModel, rng: np.random.Generator, kinds: list[int] | None = None
                ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """A random playout from the root (chance by its probabilities, every decision's public
    labels alike): each public state on it with the private states each seat can hold
    there (reachable under some strategy); each state's node kind appended to ``kinds``
    where given."""
    pub = game.root()
    poss = [game.weights[0] > 0, game.weights[1] > 0]
    path = []
    while True:
        path.append((pub, poss[0], poss[1]))
        t = build(game, pub, depth=1)
        k = t.kind[0]
        if kinds is not None:
            kinds.append(int(k))
        if k == TERMINAL:
            return path
        p = t.prob[1:] / t.prob[1:].sum() if k == CHANCE else None
        c = int(rng.choice(t.count[0], p=p))
        rows = None
        if k in (0, 1):
            q = t.row[0]
            rows = np.where(np.arange(t.row_kid.shape[2])[None, :] < t.row_count[q][:, None],
                            1.0, 0.0)
        poss = [step(t, 0, s, poss[s].astype(float), rows, c) > 0 for s in (0, 1)]
        pub = t.pub[1 + c]


def situation(game: GameModel, spec: StageSpec, index: int,
              vf: ValueFunction | None) -> dict | None:
    """Situation ``index`` of the stage: arrays of rows, its root first, then up to
    ``spec.internal`` nodes below it (None when its playout is too short for the stage, or
    past the end of ``spec.queries``: the caller draws the next index)."""
    rng = np.random.default_rng([spec.seed, spec.stage, index])
    if spec.queries is not None:
        q = _queries(spec.queries)
        if index >= q["pub"].shape[0]:
            return None
        pub, r0, r1, s0, s1 = (q[k][index] for k in QUERY_KEYS)
    else:
        kinds: list[int] = []
        path = random_path(game, rng, kinds)
        end = len(path) - 1
        if spec.after_decisions is not None:
            cands = after_decisions(kinds, spec.after_decisions)
        else:
            lo, hi = spec.span * (spec.stage - 1), spec.span * spec.stage
            cands = [i for i in range(end) if lo < end - i <= hi]
        if not cands:
            return None
        pub, s0, s1 = path[int(rng.choice(cands))]
        if not (s0.any() and s1.any()):  # a public chance outcome no private state allows
            return None
        r0, r1 = sample_range(s0, rng), sample_range(s1, rng)
    sub = build(game, pub, None if spec.stage == 1 else spec.span, spec.max_nodes)
    # a seat that never reaches a queried leaf is solved as holding anything it can hold
    ranges = [r if r.sum() > 0 else s.astype(float) for r, s in ((r0, s0), (r1, s1))]
    sol = solve(sub, (ranges[0], ranges[1]), spec.iterations, vf)
    poss = possible(sub, s0, s1)
    live = np.flatnonzero((sub.kind != TERMINAL) & (sub.kind != LEAF)
                          & (sol.reach[0].sum(1) > 0) & (sol.reach[1].sum(1) > 0))
    live = live[live > 0]
    take = rng.choice(live, min(spec.internal, live.size), replace=False)
    nodes = np.concatenate([[0], np.sort(take)]).astype(np.int64)
    out = {"pub": sub.pub[nodes], "r0": sol.reach[0][nodes], "r1": sol.reach[1][nodes],
           "v0": sol.best[0][nodes], "v1": sol.best[1][nodes], "m0": poss[0][nodes],
           "m1": poss[1][nodes], "nodes": np.full(nodes.size, sub.size)}
    # the root as queried: a seat's range of 0 is the network's input, and the values
    # against it (the other seat's, times its mass 0) are not asked for
    out["r0"][0], out["r1"][0] = r0, r1
    out["m0"][0] &= r1.sum() > 0
    out["m1"][0] &= r0.sum() > 0
    return out


def after_decisions(kinds: list[int], decisions: int) -> list[int]:
    """The position on a playout of node ``kinds`` (:func:`random_path`'s) of its decision
    node with ``decisions`` decisions above it, where :func:`~spycfr.search.subgame.subgame`
    cuts a leaf (chance after the last decision is played out), in a list; empty where the
    playout ends before (a terminal's values are the payoffs, never asked of a network)."""
    above = 0
    for i, k in enumerate(kinds):
        if k in (0, 1):
            if above == decisions:
                return [i]
            above += 1
    return []


@lru_cache(maxsize=2)
def _queries(path: str) -> dict:
    with np.load(path) as f:
        return {k: f[k] for k in QUERY_KEYS}


def check_queries(path: str, game: GameModel) -> int:
    """The number of queries in ``path``, a :func:`leaf_queries` file of ``game``; a
    ValueError naming what is wrong for any other file (unreadable, keys missing, another
    game's or variant's shapes)."""
    try:
        q = _queries(path)
    except (OSError, ValueError, KeyError, EOFError) as exc:
        raise ValueError(f"{path} is not a leaf-queries file (benchmarks/"
                         f"record_leaf_queries.py writes them, with the arrays "
                         f"{', '.join(QUERY_KEYS)}): {exc}") from None
    count = q["pub"].shape[0]
    want = {"pub": (count, game.root().size), "r0": (count, game.n[0]),
            "r1": (count, game.n[1]), "m0": (count, game.n[0]), "m1": (count, game.n[1])}
    for key, shape in want.items():
        if q[key].shape != shape:
            raise ValueError(f"{path} holds queries of another game or variant: {key} has "
                             f"shape {q[key].shape}, this game's is {shape}")
    return count


class _QuerySample:
    """Leaf queries kept by the smallest random keys per public state of the whole tree (a
    uniform sample of ``per_state`` of each state's, whatever the walk's length), and the
    number they were drawn from."""

    def __init__(self, per_state: int, seed: int, n: tuple[int, int],
                 counts: np.ndarray | None = None) -> None:
        self.per_state = per_state
        self.counts = counts  # per whole-tree node, how many to keep (None: per_state)
        self.rng = np.random.default_rng([seed, 4])
        self.kept: dict[str, np.ndarray] = {"key": np.zeros(0), "node": np.zeros(0, np.int64),
                                            "r0": np.zeros((0, n[0])), "r1": np.zeros((0, n[1]))}
        self.total = 0

    def add(self, nodes: np.ndarray, r0: np.ndarray, r1: np.ndarray) -> None:
        """Queries at whole-tree ``nodes``; those where no seat's range is positive are not
        counted."""
        ask = (r0.sum(1) > 0) | (r1.sum(1) > 0)
        self.total += int(ask.sum())
        add = {"key": self.rng.random(int(ask.sum())), "node": np.asarray(nodes)[ask],
               "r0": r0[ask], "r1": r1[ask]}
        kept = self.kept
        for k in kept:
            kept[k] = np.concatenate([kept[k], add[k]])
        nodes_kept = np.unique(kept["node"])
        want = self.per_state * max(nodes_kept.size, 1) if self.counts is None \
            else int(self.counts[nodes_kept].sum())
        if kept["key"].size > 2 * max(want, 1):
            keep = self.smallest()
            for k in kept:
                kept[k] = kept[k][keep]

    def smallest(self) -> np.ndarray:
        """The kept rows with the ``per_state`` (or the node's ``counts``) smallest keys of
        their public state."""
        kept = self.kept
        order = np.lexsort((kept["key"], kept["node"]))
        node = kept["node"][order]
        start = np.searchsorted(node, node)  # each row's group's first position
        limit = self.per_state if self.counts is None else self.counts[node]
        return np.sort(order[np.arange(node.size) - start < limit])

    def result(self, full: Subtree, supports: tuple[np.ndarray, np.ndarray],
               exploitability: float) -> dict:
        keep = self.smallest()
        node = self.kept["node"][keep]
        return {"pub": full.pub[node], "r0": self.kept["r0"][keep],
                "r1": self.kept["r1"][keep], "m0": supports[0][node], "m1": supports[1][node],
                "total": np.array(self.total), "exploitability": np.array(exploitability)}


def rest_sizes(full: Subtree) -> np.ndarray:
    """Per node of a whole tree, its public nodes to the end of the game (itself included)."""
    sizes = np.ones(full.size, np.int64)
    parent = full.parent
    if (parent[1:] >= np.arange(1, full.size)).any():
        raise ValueError("rest_sizes needs a tree whose nodes come after their parents")
    for node in range(full.size - 1, 0, -1):
        sizes[parent[node]] += sizes[node]
    return sizes


def rest_counts(full: Subtree, per_state: int, rest_scale: int, max_per_state: int
                ) -> np.ndarray | None:
    """Queries kept per public state, by its rest of the game (:func:`rest_sizes`):
    ``per_state`` for every ``rest_scale`` public nodes to the end, rounded up, at least
    ``per_state`` and at most ``max_per_state`` (0: no cap). None when ``rest_scale`` is 0
    (``per_state`` everywhere). A state far from the end is asked few times by a re-solving
    agent (the plan's leaves) but its values are the hardest to learn: weighted so it gets
    many situations (docs/search.md, "`mini`: learned leaves above exact endgames")."""
    if rest_scale < 0 or max_per_state < 0 or per_state < 1:
        raise ValueError(f"per_state must be at least 1 and rest_scale, max_per_state at "
                         f"least 0 (got {per_state}, {rest_scale}, {max_per_state})")
    if rest_scale == 0:
        return None
    counts = per_state * -(-rest_sizes(full) // rest_scale)
    return np.minimum(counts, max_per_state) if max_per_state else counts


def leaf_queries(game: GameModel, settings: Settings, per_state: int, seed: int,
                 full: Subtree | None = None, rest_scale: int = 0,
                 max_per_state: int = 0) -> dict:
    """Where the re-solving agent of ``settings`` (its depth, iterations and leaf values)
    asks for leaf values on an enumerable game, as :func:`~spycfr.search.evaluate.
    exploitability` walks it for both seats: at each public state queried, ``per_state``
    of its queries drawn uniformly (seeded; all where it has fewer) among those where some
    seat's range is positive, each a public state, both ranges and the private states each
    seat can hold there (``QUERY_KEYS``), with ``total``, the number they were drawn from,
    and the walk's ``exploitability``. Drawn per public state, not among all queries: most
    queries are at a few states, and a state seldom queried must still be learned.
    ``rest_scale`` (0: off) keeps more at the states far from the end (:func:`rest_counts`)."""
    from spycfr.search.evaluate import exploitability

    full = build(game) if full is None else full
    supports = possible(full, game.weights[0] > 0, game.weights[1] > 0)
    sample = _QuerySample(per_state, seed, game.n,
                          rest_counts(full, per_state, rest_scale, max_per_state))

    class Recorder:
        """The agent's value function, each call's queries kept in ``sample``."""

        def __init__(self, inner):
            self.inner = inner

        def for_agent(self, seat: int):
            inner = self.inner.for_agent(seat) if hasattr(self.inner, "for_agent") \
                else self.inner
            return Recorder(inner)

        def reset(self) -> None:  # a new solve: an inner per-solve cache is stale
            if hasattr(self.inner, "reset"):
                self.inner.reset()

        def values(self, pubs, r0, r1, nodes=None):
            if nodes is None:
                raise ValueError("leaf_queries needs subgames cut from the whole tree")
            sample.add(np.asarray(nodes), r0, r1)
            return self.inner.values(pubs, r0, r1, nodes)

    vf = settings.value_function
    walk = replace(settings, value_function=Recorder(vf))
    expl, _ = exploitability(game, walk, full)
    return sample.result(full, supports, expl)


class _AgentRecorder:
    """A search agent's leaf value function, each call's queries at public states that are
    not terminal (those are the game's payoffs, never asked of a learned function) kept in
    ``sample`` by their node in the whole tree ``index``. Everything else is the inner
    function's (its ``focus``, ``one_sided``, ``reset``), except ``linear``: a linear
    function is then called with the solve's ranges at every iteration instead of probed
    with unit ranges once (:mod:`spycfr.search.folding`), so that the ranges recorded are
    the re-solve's; and ``for_agent``: the inner function is already the seat's own
    (:meth:`~spycfr.search.agent.SearchAgent.for_seat`)."""

    def __init__(self, inner: ValueFunction, sample: _QuerySample, index: dict[bytes, int],
                 terminal: np.ndarray) -> None:
        self.inner = inner
        self.sample, self.index, self.terminal = sample, index, terminal

    def __getattr__(self, name: str):
        if name in ("linear", "for_agent") or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.__dict__["inner"], name)

    def values(self, pubs, r0, r1, nodes=None):
        nodes_all = np.array([self.index[p.tobytes()] for p in pubs], np.int64)
        asked = ~self.terminal[nodes_all]
        if asked.any():
            self.sample.add(nodes_all[asked], r0[asked], r1[asked])
        return self.inner.values(pubs, r0, r1, nodes)


def agent_leaf_queries(agent, per_state: int, seed: int, full: Subtree | None = None,
                       progress=None, rest_scale: int = 0, max_per_state: int = 0) -> dict:
    """:func:`leaf_queries` for a :class:`~spycfr.search.agent.SearchAgent` (its plan, its
    endgame rule, its value function): the queries of its exact-exploitability walk
    (:func:`~spycfr.search.agent.agent_exploitability`, both seats, each by its own agent
    ``agent.for_seat``: leaf values that depend on the seat, such as committed values, give
    each seat's walk its own values and its own first plan, exactly as that walk plays),
    ``per_state`` drawn uniformly at each public state queried, with the walk's
    ``exploitability``, its ``best_responses`` (BR_P1, BR_P2), ``total`` and ``solves`` (the
    re-solves that asked the leaves, the plans included) and ``resolves`` (every re-solve of
    the walk). Re-solves that reach the
    end of the game ask nothing: where the endgame rule makes every re-solve below the plan's
    leaves exact, the queries are the plans' and those of the depth-limited re-solves above
    them. ``rest_scale`` (0: off) keeps more at the states far from the end
    (:func:`rest_counts`). ``full``: the whole game's tree (``agent.whole_tree``'s), which the
    walk reads too."""
    from spycfr.search.agent import agent_exploitability, whole_tree

    game = agent.model
    full = whole_tree(game) if full is None else full
    supports = possible(full, game.weights[0] > 0, game.weights[1] > 0)
    sample = _QuerySample(per_state, seed, game.n,
                          rest_counts(full, per_state, rest_scale, max_per_state))
    index = {p.tobytes(): n for n, p in enumerate(full.pub)}
    terminal = full.kind == TERMINAL
    asked = [0]
    agents = (agent.for_seat(0), agent.for_seat(1))
    walkers = agents[:1] if agents[1] is agents[0] else agents
    saved = [(a, a.values) for a in walkers]

    for a in walkers:
        a.values = _AgentRecorder(a.values, sample, index, terminal)
        a.solve = partial(_counted_solve, a.solve, asked)
    try:
        expl, br, resolves = agent_exploitability(agents, progress, full)
    finally:
        for a, values in saved:
            a.values = values
            del a.__dict__["solve"]  # the class's method again
    out = sample.result(full, supports, expl)
    out["solves"], out["resolves"] = np.array(asked[0]), np.array(resolves)
    out["best_responses"] = np.array(br)  # BR_P1 and BR_P2: which seat of the agent loses
    return out


def _counted_solve(inner_solve, asked: list[int], what, tree, ranges, iterations=0,
                   **gadget):
    """A search agent's solve that counts in ``asked`` those with leaves to value."""
    if tree.leaves.size:
        asked[0] += 1
    return inner_solve(what, tree, ranges, iterations, **gadget)


def possible(tree: Subtree, s0: np.ndarray, s1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per node, the private states each seat can hold there under some strategy (from the
    root's ``s0``, ``s1``)."""
    return reachable(tree, 0, s0), reachable(tree, 1, s1)


def generate_batch(spec_dict: dict, start: int, count: int) -> dict:
    """Situations ``start .. start + count - 1`` of a stage (a Dask task): stacked arrays,
    the indices that gave none, and the seconds it took."""
    from spycfr.search.learned import LearnedValues

    t0 = time.perf_counter()
    spec = StageSpec(**spec_dict)
    game = game_model(spec.game, spec.preset, spec.params)
    vf = LearnedValues.load(spec.previous) if spec.previous else None
    rows = [situation(game, spec, i, vf) for i in range(start, start + count)]
    got = [r for r in rows if r is not None]
    keys = ("pub", "r0", "r1", "v0", "v1", "m0", "m1", "nodes")
    out = {k: np.concatenate([r[k] for r in got]) if got else np.zeros(0) for k in keys}
    # the situation each row came from, and whether it is that solve's root
    out["index"] = np.array([i for i, r in zip(range(start, start + count), rows, strict=True)
                             if r is not None for _ in r["nodes"]], np.int64)
    out["root"] = np.array([k == 0 for r in got for k in range(r["nodes"].size)], bool)
    out["seconds"] = np.array(time.perf_counter() - t0)
    return out
