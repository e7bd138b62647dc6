"""Monte-Carlo CFR (external and outcome sampling) straight on a game's numba rules.

No tree is built: every iteration walks sampled trajectories through the game protocol
(:mod:`spycfr.engine.protocol`; the kernels are in :mod:`spycfr.cfr.mccfr_kernels`), so
variants far too large to enumerate can be run. On variants that can be enumerated, the
average strategy maps onto the tree (:func:`strategy_on_tree`) for an exact
exploitability. The random generator's state is part of the checkpoint, so a resumed run
is bit-identical to an uninterrupted one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from spycfr.cfr.driver import SolveResult, drive
from spycfr.cfr.engine import IterativeSolver, LogRow
from spycfr.cfr.mccfr_kernels import (
    C_FROZEN,
    C_NINF,
    C_NODES,
    C_POOL,
    C_UNSTORED,
    FALLBACK_HEURISTIC,
    FALLBACK_UNIFORM,
    MISMATCH,
    N_COUNTS,
    NEED_ROOM,
    TREE_ACTIONS,
    TREE_MERGED,
    TREE_OK,
    TREE_SPLIT,
    average_pool,
    average_row,
    knuth_es_nodes,
    path_key,
    path_state,
    rebuild_table,
    regret_sums,
    run_iterations,
    state_abstraction_key,
    state_fallback,
    tree_keys,
    tree_strategy,
)
from spycfr.engine import protocol
from spycfr.engine.hashmap import hm_get, hm_grown, hm_has_room, hm_new
from spycfr.engine.playout import game_bounds
from spycfr.engine.rng import new_rng
from spycfr.errors import MemoryLimitReached, ParameterError, SpycfrError
from spycfr.exact.best_response import exploitability
from spycfr.games import get_plugin
from spycfr.memory import rss_bytes
from spycfr.seeds import check_seed
from spycfr.tree import Tree

SCHEMES = ("external", "outcome")
WHEN_FULL = ("stop", "freeze")  # what a run does at its memory limit
FALLBACKS = {"uniform": FALLBACK_UNIFORM, "heuristic": FALLBACK_HEURISTIC}
# Kept free under a memory limit, for what a run allocates at its end: 1/32 of the limit, and
# at least MEMORY_MARGIN_MIN (writing the checkpoint copies each array 16 MiB at a time for
# zlib, and the openings table follows: 23.4 MiB past the solver's stop on Agent Hunter
# standard at --memory-limit 0.5, which a margin of 16 MiB let through)
MEMORY_MARGIN = 1 / 32
MEMORY_MARGIN_MIN = 64 * 2**20
# glibc's heap holds buffers below its mmap threshold, which rises up to this (32 MiB on 64-bit
# Linux) as a process frees mmapped ones: realloc may copy such a buffer and leave the old one
# resident; larger buffers are mmapped and grow in place (mremap)
HEAP_MOST = 32 * 2**20
INFOSET_ARRAYS = ("_inf_off", "_inf_nact", "_inf_player", "_inf_key")
REGRET_BOUND_KIND = "regret bound estimate from sampled regrets (not an exact best response)"
MCCFRResult = SolveResult


def _bounds(game) -> tuple:
    """(params, max actions, depth bound) of a game object; refuses unbounded games."""
    plugin = get_plugin(game.name)
    params = plugin.numba_params(game.variant_obj)
    _, max_act, depth, _, _ = game_bounds(params)
    if depth < 0:
        hint = f": {plugin.unbounded_hint}" if plugin.unbounded_hint else ""
        raise SpycfrError(f"{game.name} {game.variant_obj.describe()} is an infinite game, "
                          f"MCCFR needs a bounded one{hint}")
    return params, max_act, depth + 1


def estimate_es_nodes(game, probes: int = 200, seed: int = 0,
                      store_depth: int | None = None) -> float:
    """Estimated decision nodes visited by ONE external-sampling iteration (an estimate)."""
    params, max_act, _ = _bounds(game)
    return float(knuth_es_nodes(params, np.int64(max_act), np.int64(probes), np.int64(seed),
                                np.int64(-1 if store_depth is None else store_depth)))


class MCCFRSolver(IterativeSolver):
    """External- or outcome-sampling MCCFR on a game (from :func:`spycfr.games.make_game`),
    no tree needed.

    ``epsilon`` is outcome sampling's exploration (ignored by external sampling).
    ``es_node_limit``: refuse external sampling when one iteration is estimated
    (:func:`estimate_es_nodes`) to visit more decision nodes than this (None: no check).
    ``memory_limit`` (bytes, of the process's resident memory): when the tables would grow
    beyond it, between two iterations (the state stays consistent), :meth:`iterate` raises
    :class:`MemoryLimitReached` (``when_full="stop"``), or the table is frozen
    (``"freeze"``): the run goes on refining the infosets stored, and an infoset met for
    the first time is not stored and plays uniformly, or as the game's heuristic player with
    ``fallback="heuristic"`` (``stats()["unstored_decisions"]``).
    ``store_depth`` D: only the first D decisions of a path (both players', from the root)
    have rows and learn; in the run every deeper decision plays the fallback (external
    sampling samples the traverser's move there too), so memory and time go to the infosets
    met again and again near the root instead of the deep ones met once (None: no limit).
    Where the strategy is used, a position reads its row if its key was learnt, else plays
    the fallback.
    ``tree``: the enumerated variant, if any; an :class:`spycfr.cfr.engine.Engine` then
    measures the exact exploitability of its strategy on it, else the regret bound estimate
    (:meth:`regret_bound`).
    """

    def __init__(
        self,
        game,
        scheme: str = "external",
        seed: int = 0,
        epsilon: float = 0.6,
        es_node_limit: float | None = 1e9,
        memory_limit: float | None = None,
        abstraction: bool = False,
        when_full: str = "stop",
        fallback: str = "uniform",
        store_depth: int | None = None,
        tree: Tree | None = None,
    ) -> None:
        self._params, self._max_act, self._max_depth = _bounds(game)
        if scheme not in SCHEMES:
            raise SpycfrError(f"unknown MCCFR scheme {scheme!r}; allowed: {', '.join(SCHEMES)}")
        seed = check_seed(seed)
        if not (isinstance(epsilon, int | float) and 0.0 < epsilon <= 1.0):
            raise ParameterError(f"{{epsilon}} must be in (0, 1], got {epsilon!r}", "epsilon")
        if when_full not in WHEN_FULL:
            raise ParameterError(f"unknown {{when_full}} {when_full!r}; allowed: "
                                 f"{', '.join(WHEN_FULL)}", "when_full")
        self.when_full = when_full
        if fallback not in FALLBACKS:
            raise ParameterError(f"unknown {{fallback}} {fallback!r}; allowed: "
                                 f"{', '.join(FALLBACKS)}", "fallback")
        if fallback == "heuristic" and not protocol.has_heuristic(type(self._params)):
            raise ParameterError(f"{game.name} has no heuristic player: {{fallback}} uniform",
                                 "fallback")
        self.fallback = fallback
        if store_depth is not None and (
            isinstance(store_depth, bool) or not isinstance(store_depth, int | np.integer)
            or store_depth < 1
        ):
            raise ParameterError(f"{{store_depth}} must be a positive integer, got "
                                 f"{store_depth!r}", "store_depth")
        self.store_depth = None if store_depth is None else int(store_depth)
        if abstraction and not protocol.has_abstraction(type(self._params)):
            raise ParameterError(f"{game.name} has no information abstraction: drop "
                                 "{abstraction}", "abstraction")
        self.abstraction = bool(abstraction)
        self.game = game
        self.variant = game.variant_obj
        self.scheme = scheme
        self.seed = int(seed)
        self.epsilon = float(epsilon)
        self.memory_limit = memory_limit
        self.es_nodes_estimate: float | None = None
        if scheme == "external":
            self.es_nodes_estimate = estimate_es_nodes(game, store_depth=self.store_depth)
            if es_node_limit is not None and self.es_nodes_estimate > es_node_limit:
                raise SpycfrError(
                    f"external sampling would visit about {self.es_nodes_estimate:.2g} nodes per "
                    f"iteration on {self.variant.describe()} (limit {es_node_limit:.2g}): use "
                    "outcome sampling or a smaller variant"
                )
        self._reset()
        self.seconds = 0.0
        self.log: list[LogRow] = []
        self.last_tree_coverage: float | None = None
        self.tree = tree

    @property
    def kind(self) -> str:
        return "exact" if self.tree is not None else REGRET_BOUND_KIND

    def measure(self) -> float:
        """The exact exploitability on :attr:`tree`, else the regret bound estimate."""
        if self.tree is not None:
            return exploitability(self.tree, strategy_on_tree(self, self.tree))
        return self.regret_bound()["exploitability_bound_estimate"]

    def strategy(self) -> np.ndarray | None:
        """The average strategy on :attr:`tree` (None without one)."""
        return None if self.tree is None else strategy_on_tree(self, self.tree)

    def _reset(self) -> None:
        self.iteration = 0
        self._rng = new_rng(self.seed)
        self._counts = np.zeros(N_COUNTS, dtype=np.int64)
        self._table, self._tsize = hm_new(1 << 10)
        self._inf_off = np.zeros(256, dtype=np.int64)
        self._inf_nact = np.zeros(256, dtype=np.int32)
        self._inf_player = np.zeros(256, dtype=np.int8)
        self._inf_key = np.zeros(256, dtype=np.int64)
        self._regret = np.zeros(max(4096, 2 * self._max_act))
        self._ssum = np.zeros_like(self._regret)

    # --- iterations -------------------------------------------------------------------
    def _run(self, n: int) -> None:
        left = n
        while True:
            (status, done, self._table, self._inf_off, self._inf_nact, self._inf_player,
             self._inf_key, self._regret, self._ssum) = run_iterations(
                0 if self.scheme == "external" else 1, self._params, self.abstraction,
                np.int64(FALLBACKS[self.fallback]), self.epsilon,
                np.int64(-1 if self.store_depth is None else self.store_depth),
                np.int64(left), np.int64(self._max_act), np.int64(self._max_depth), self._rng,
                self._counts, self._table, self._tsize, self._inf_off, self._inf_nact,
                self._inf_player, self._inf_key, self._regret, self._ssum,
            )
            self.iteration += int(done)
            left -= int(done)
            if status == MISMATCH:
                raise RuntimeError(
                    "MCCFR found two infosets with the same 63-bit observation hash "
                    "(a collision); rerun with another seed"
                )
            if status != NEED_ROOM:
                return
            self._grow()

    def _grow(self) -> None:
        """Room for at least one more iteration: grow the hash map, the infoset arrays and
        the pool. With a memory limit the growth is cut down, to the least that makes room,
        so that the process's resident memory plus what it allocates (:meth:`_growth_bytes`;
        the hash map is copied) stays under the limit less a margin (MEMORY_MARGIN); when
        even that does not fit: MemoryLimitReached (the state intact), or the table is
        frozen (when_full="freeze")."""
        d, ma = 2 * self._max_depth, self._max_act
        n, used = self.num_infosets, int(self._counts[C_POOL])
        cap, pcap = self._inf_off.shape[0], self._regret.shape[0]
        inf_least, pool_least = max(cap, n + d), max(pcap, used + d * ma)
        # Doubling while small, then +25% (the new part is zeroed, so committed to RAM).
        inf_new = max(2 * cap, n + d) if inf_least > cap else cap
        pool_new = max(2 * pcap if pcap < (1 << 24) else pcap + pcap // 4,
                       pool_least) if pool_least > pcap else pcap
        grow_table = not hm_has_room(self._table, self._tsize, d)
        if self.memory_limit is not None:
            margin = max(self.memory_limit * MEMORY_MARGIN, MEMORY_MARGIN_MIN)
            room = self.memory_limit - margin - rss_bytes()
            room -= 2 * self._table.nbytes if grow_table else 0
            while self._growth_bytes(inf_new, pool_new) > room:
                if (inf_new, pool_new) == (inf_least, pool_least):
                    if self.when_full == "freeze":
                        self._counts[C_FROZEN] = self.iteration + 1
                        return
                    raise MemoryLimitReached(
                        f"MCCFR memory limit of {self.memory_limit / 2**30:.3g} GiB reached "
                        f"after {self.iteration} iterations ({n:,} infosets stored): growing "
                        f"the tables would take the process past it")
                inf_new = max(inf_least, cap + (inf_new - cap) // 2)
                pool_new = max(pool_least, pcap + (pool_new - pcap) // 2)
        if inf_new > cap:
            for name in INFOSET_ARRAYS:
                setattr(self, name, _resized(getattr(self, name), inf_new))
        if pool_new > pcap:
            self._regret = _resized(self._regret, pool_new)
            self._ssum = _resized(self._ssum, pool_new)
        if grow_table:
            self._table = hm_grown(self._table)

    def _growth_bytes(self, inf_new: int, pool_new: int) -> int:
        """Bytes that growing the infoset arrays and the pool to these sizes adds to the
        resident memory at most: the new part of an array that grows in place (numpy owns
        it, and it is past ``HEAP_MOST``: mmapped), else the whole new array (a copy, the
        old one freed but possibly left resident in the heap; in a big process whose mmap
        threshold had risen, counting the new part alone let a 120 MiB room be passed).
        """
        total = 0
        for name in INFOSET_ARRAYS + ("_regret", "_ssum"):
            a = getattr(self, name)
            new = pool_new if name in ("_regret", "_ssum") else inf_new
            if new > a.shape[0]:
                in_place = _owned(a) and a.nbytes >= HEAP_MOST
                total += a.itemsize * (new - a.shape[0] if in_place else new)
        return total

    # --- read-outs --------------------------------------------------------------------
    @property
    def num_infosets(self) -> int:
        return int(self._counts[C_NINF])

    @property
    def frozen_at(self) -> int | None:
        """The iteration at which the table was frozen by the memory limit (None: never)."""
        return int(self._counts[C_FROZEN]) - 1 if self._counts[C_FROZEN] else None

    @property
    def unstored_decisions(self) -> int:
        """Decisions sampled at an infoset without a row (full table, or below store depth)."""
        return int(self._counts[C_UNSTORED])

    def stats(self) -> dict:
        """Sizes and counters: infosets stored, pool entries, decision nodes visited, bytes."""
        n, used = self.num_infosets, int(self._counts[C_POOL])
        players = self._inf_player[:n]
        arrays = (self._table, self._inf_off, self._inf_nact, self._inf_player, self._inf_key,
                  self._regret, self._ssum)
        return {
            "scheme": self.scheme,
            "iterations": self.iteration,
            "seconds": self.seconds,
            "infosets": n,
            "infosets_p1": int(np.count_nonzero(players == 0)),
            "infosets_p2": int(np.count_nonzero(players == 1)),
            "pool_entries": used,
            "nodes_visited": int(self._counts[C_NODES]),
            "frozen_at_iteration": self.frozen_at,
            "unstored_decisions": self.unstored_decisions,
            "store_depth": self.store_depth,
            "bytes_allocated": int(sum(a.nbytes for a in arrays)),
            # Trimmed tables (what a checkpoint holds) plus the hash map.
            "bytes_used": int(21 * n + 16 * used + self._table.nbytes),
            "es_nodes_per_iteration_estimate": self.es_nodes_estimate,
        }

    def regret_bound(self) -> dict:
        """Average-regret bound from the SAMPLED regrets: an estimate, not an exact best response.

        CFR theory: NashConv(average) <= sum_p sum_I max_a R_T(I, a)^+ / T. Here R_T are
        the sampled regrets (unbiased per entry, noisy; infosets never sampled count 0),
        so the number is only an estimate of that bound.
        """
        t = max(self.iteration, 1)
        sums = regret_sums(np.int64(self.num_infosets), self._inf_off, self._inf_nact,
                            self._inf_player, self._regret) / t
        nash_conv = float(sums[0] + sums[1])
        return {
            "kind": REGRET_BOUND_KIND,
            "regret_p1": float(sums[0]),
            "regret_p2": float(sums[1]),
            "nash_conv_bound_estimate": nash_conv,
            "exploitability_bound_estimate": nash_conv / 2.0,
        }

    def average_policy(self, key: int) -> np.ndarray | None:
        """Average strategy at the infoset with observation key ``key`` (None if never seen)."""
        idx = int(hm_get(self._table, np.int64(key), -1))
        if idx < 0:
            return None
        k = int(self._inf_nact[idx])
        out = np.empty(k)
        average_row(self._ssum, self._inf_off[idx], k, out)
        return out

    def average_table(self) -> dict:
        """The whole average strategy, one row per stored infoset (for exports).

        ``key``/``player``/``num_actions``/``offset`` per infoset; ``policy`` is the flat
        pool of normalised rows (row j = policy[offset[j]:offset[j] + num_actions[j]],
        actions in ``rules.legal_actions`` order).
        """
        n, used = self.num_infosets, int(self._counts[C_POOL])
        off, nact = self._inf_off[:n].copy(), self._inf_nact[:n].copy()
        return {
            "key": self._inf_key[:n].copy(),
            "player": self._inf_player[:n].copy(),
            "num_actions": nact,
            "offset": off,
            "policy": average_pool(np.int64(n), off, nact, self._ssum[:used]),
        }

    def strategy_on_tree(self, tree: Tree) -> np.ndarray:
        """See :func:`strategy_on_tree`."""
        return strategy_on_tree(self, tree)

    def policy_at(self, path, seat: int) -> np.ndarray | None:
        """Average strategy of ``seat`` after the action path ``path`` (None if never seen)."""
        key = path_key(self._params, np.asarray(path, dtype=np.int32), np.int64(seat),
                       self.abstraction)
        return self.average_policy(int(key))

    def played_policy_at(self, path, seat: int) -> np.ndarray:
        """What ``seat`` plays after the action path ``path``: its average strategy, or where
        the table has no row the fallback (uniform, or the game's heuristic)."""
        policy = self.policy_at(path, seat)
        if policy is not None:
            return policy
        return self.fallback_at(path_state(self._params, np.asarray(path, dtype=np.int32)))

    def fallback_at(self, state: np.ndarray) -> np.ndarray:
        """The fallback policy at the decision ``state`` (see ``fallback``)."""
        return state_fallback(state, self._params, np.int64(FALLBACKS[self.fallback]),
                              np.int64(self._max_act))

    def policy_at_state(self, state: np.ndarray, seat: int) -> np.ndarray | None:
        """Average strategy of ``seat`` at a game state, by the information abstraction's key
        (which depends only on what the seat knows; None if never seen)."""
        if not self.abstraction:
            raise SpycfrError("this run keys infosets by their whole history, not by the "
                              "information abstraction: it needs the moves, not a state")
        return self.average_policy(int(state_abstraction_key(state, self._params,
                                                             np.int64(seat))))

    def solve(
        self,
        iterations: int | None = None,
        time_limit: float | None = None,
        check_every: int | None = None,
        tree: Tree | None = None,
        target_exploitability: float | None = None,
        progress: Callable[[int, float, float | None], None] | None = None,
    ) -> SolveResult:
        """Iterate until ``iterations`` more are done or ``time_limit`` seconds have passed.

        Every ``check_every`` iterations (default 1000, and at the end) the log gets the
        EXACT exploitability if ``tree`` (the enumerated variant; it becomes :attr:`tree`) is
        given, else the regret bound estimate (:meth:`regret_bound`); ``SolveResult.kind``
        says which. ``target_exploitability`` needs ``tree`` (an estimate is no stopping proof).
        """
        self.tree = tree
        if target_exploitability is not None and self.tree is None:
            raise SpycfrError(
                "a target exploitability needs an enumerable variant (exact best response); "
                "MCCFR on a variant that cannot be enumerated only has a regret bound estimate"
            )
        if iterations is None and time_limit is None and target_exploitability is None:
            iterations = 1000
        return drive(self, iterations, target_exploitability, time_limit, check_every or 1000,
                     progress)

    # --- checkpoint -------------------------------------------------------------------
    def state_dict(self, copy: bool = True) -> dict[str, Any]:
        """Everything needed to resume bit-identically: trimmed copies of the tables, or views
        with ``copy=False`` (to write at once: no second copy of GiBs of tables in RAM)."""
        n, used = self.num_infosets, int(self._counts[C_POOL])
        keep = (lambda a: a.copy()) if copy else (lambda a: a)
        return {
            "scheme": self.scheme,
            "seed": self.seed,
            "epsilon": self.epsilon,
            "abstraction": self.abstraction,
            "fallback": self.fallback,
            "store_depth": -1 if self.store_depth is None else self.store_depth,
            "iteration": self.iteration,
            "rng": self._rng.copy(),
            "counts": self._counts.copy(),
            "inf_off": keep(self._inf_off[:n]),
            "inf_nact": keep(self._inf_nact[:n]),
            "inf_player": keep(self._inf_player[:n]),
            "inf_key": keep(self._inf_key[:n]),
            "regret": keep(self._regret[:used]),
            "ssum": keep(self._ssum[:used]),
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore a :meth:`state_dict` made by a solver with the same scheme, seed, epsilon."""
        # Keys older checkpoints lack; store_depth is -1 in a checkpoint for "no limit".
        older = {"abstraction": False, "fallback": "uniform", "store_depth": -1}
        for key in ("scheme", "seed", "epsilon", "abstraction", "fallback", "store_depth"):
            value = state.get(key, older[key]) if key in older else state[key]
            value = value.item() if isinstance(value, np.ndarray) else value
            if key == "store_depth":
                value = None if value < 0 else int(value)
            if value != getattr(self, key):
                raise SpycfrError(
                    f"checkpoint was made with {key}={value!r}, this solver has "
                    f"{getattr(self, key)!r}"
                )
        counts = np.zeros(N_COUNTS, dtype=np.int64)
        saved = np.asarray(state["counts"], dtype=np.int64)  # older checkpoints: fewer slots
        counts[:saved.shape[0]] = saved
        n, used = int(counts[C_NINF]), int(counts[C_POOL])
        inf_off = np.asarray(state["inf_off"], dtype=np.int64)
        inf_nact = np.asarray(state["inf_nact"], dtype=np.int32)
        regret = np.asarray(state["regret"], dtype=np.float64)
        if inf_off.shape != (n,) or regret.shape != (used,) or (
            n and int(inf_off[-1]) + int(inf_nact[-1]) != used
        ):
            raise SpycfrError("checkpoint tables are inconsistent with their counters")
        self._reset()
        self.iteration = int(state["iteration"])
        self._rng[:] = np.asarray(state["rng"], dtype=np.uint64)
        self._counts[:] = counts
        cap = max(256, n)
        self._inf_off = np.zeros(cap, dtype=np.int64)
        self._inf_off[:n] = inf_off
        self._inf_nact = np.zeros(cap, dtype=np.int32)
        self._inf_nact[:n] = inf_nact
        self._inf_player = np.zeros(cap, dtype=np.int8)
        self._inf_player[:n] = np.asarray(state["inf_player"], dtype=np.int8)
        self._inf_key = np.zeros(cap, dtype=np.int64)
        self._inf_key[:n] = np.asarray(state["inf_key"], dtype=np.int64)
        pcap = max(used + self._max_act, 4096)
        self._regret = np.zeros(pcap)
        self._regret[:used] = regret
        self._ssum = np.zeros(pcap)
        self._ssum[:used] = np.asarray(state["ssum"], dtype=np.float64)
        self._table, self._tsize = rebuild_table(self._inf_key, np.int64(n))


def _owned(a: np.ndarray) -> bool:
    """Whether numpy owns ``a``'s buffer (it can then grow in place)."""
    return bool(a.flags.owndata) and a.base is None


def _resized(a: np.ndarray, n: int) -> np.ndarray:
    """``a`` grown to ``n`` entries, the new ones zero: in place (realloc, which the C
    library does by remapping pages for large arrays: no second copy) when numpy owns its
    buffer, else copied (arrays allocated inside numba kernels)."""
    if _owned(a):
        try:
            a.resize(n, refcheck=False)
            return a
        except (ValueError, SystemError):
            pass
    b = np.zeros(n, dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


def strategy_on_tree(solver: MCCFRSolver, tree: Tree) -> np.ndarray:
    """float64[n_infosets, max_actions]: ``solver``'s average strategy on an enumerated tree.

    ``tree`` must be the same game and variant (:func:`spycfr.games.build_tree`); infosets
    MCCFR never visited get the uniform strategy. Lets the exact exploitability of an MCCFR
    run be measured with :func:`spycfr.exact.best_response.exploitability` on small variants.
    """
    return _on_tree(solver, tree, solver._ssum, True)


def regrets_on_tree(solver: MCCFRSolver, tree: Tree) -> np.ndarray:
    """float64[n_infosets, max_actions]: ``solver``'s cumulative sampled regrets on the tree."""
    return _on_tree(solver, tree, solver._regret, False)


def tree_infoset_keys(tree: Tree, params, abstract: bool = False
                      ) -> tuple[int, int, np.ndarray]:
    """(status, info, table key of every infoset) of a tree of the game whose params are
    given: observation keys, or abstraction keys; cached on the tree (the walk replays the
    rules over the whole tree)."""
    name = "abstraction_keys" if abstract else "observation_keys"
    cached = tree.extra.get(name)
    if cached is not None:
        return TREE_OK, 0, cached
    status, info, keys = tree_keys(
        tree.first_child, tree.num_children, tree.node_player, tree.node_infoset,
        tree.node_action, tree.infoset_seat, np.int64(tree.num_infosets), params, abstract)
    if status == TREE_OK:
        tree.extra[name] = keys
    return int(status), int(info), keys


def _on_tree(solver: MCCFRSolver, tree: Tree, pool: np.ndarray, average: bool) -> np.ndarray:
    if tree.game != solver.game.name or tree.variant != solver.variant.as_dict():
        raise SpycfrError(
            f"tree of {tree.game} {tree.variant} does not match the solver's variant "
            f"{solver.variant.describe()}"
        )
    status, info, keys = tree_infoset_keys(tree, solver._params, solver.abstraction)
    if status == TREE_OK:
        status, info, strat, found = tree_strategy(
            keys, tree.infoset_num_actions, np.int64(max(tree.max_actions, 1)), solver._table,
            solver._inf_off, solver._inf_nact, pool, average)
    if status != TREE_OK:
        what = {
            TREE_SPLIT: "has nodes with different keys (an abstraction that uses hidden "
                        "information?)",
            TREE_MERGED: "shares its observation key with another infoset",
            TREE_ACTIONS: "has another action count than the MCCFR table",
        }[status]
        raise RuntimeError(f"tree infoset {info} {what}")
    solver.last_tree_coverage = int(found) / max(tree.num_infosets, 1)
    return strat


__all__ = [
    "SCHEMES", "MCCFRSolver", "MCCFRResult", "REGRET_BOUND_KIND", "strategy_on_tree",
    "regrets_on_tree", "estimate_es_nodes",
]
