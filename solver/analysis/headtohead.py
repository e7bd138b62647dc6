"""Head-to-head matches: two players play sampled games of any game of the protocol, with a
confidence interval on the result. What can be measured when exploitability cannot.

A player is uniform (every legal move equally likely), the game's heuristic (its protocol's
``heuristic_policy``), one of its styled heuristics (``styled_heuristic``, named by the
plug-in's ``heuristic_styles``), or a strategy table keyed by observation sequences: an MCCFR
solver's average strategy, or a run's strategy on its tree (its infosets keyed the same
way). A table player meeting an infoset it has no row for plays its fallback (uniform, or the
game's heuristic for a sampled run solved with ``--fallback heuristic``); the result says
how often that happened. Player A plays half the games as P1 and half as P2, each game's
chance and sampled moves from its own seeded stream, so a match is reproducible.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from spycfr.cfr.mccfr import FALLBACKS, MCCFRSolver, tree_infoset_keys
from spycfr.cfr.mccfr_kernels import (
    FALLBACK_UNIFORM,
    TREE_OK,
    advance_keys,
    average_row,
    fallback_policy,
    infoset_key,
    rebuild_table,
)
from spycfr.engine import protocol as P
from spycfr.engine.hashmap import hm_get
from spycfr.engine.rng import game_stream, root_key, sample, uniform
from spycfr.errors import ParameterError, SpycfrError
from spycfr.games import get_plugin
from spycfr.seeds import SEED_MAX, check_seed
from spycfr.tree import CHANCE, TERMINAL, Tree
from spycfr.words import other_variant

UNIFORM = 0
HEURISTIC = 1
TABLE = 2
STYLED = 3  # a styled heuristic: Player.style picks it
AGENT = 4  # a search agent (spycfr.search.agent): plays in Python, Player.agent
SECOND_STREAM = 1 << 40  # the second half's games (the other seat) draw from seed + this


def second_stream(seed: int) -> int:
    """The seed of the second half's games: ``seed`` + SECOND_STREAM, kept in 0 .. 2**63 - 1
    (a seed near the top would wrap to a negative int64, which numpy's SeedSequence refuses)."""
    return (int(seed) + SECOND_STREAM) % (SEED_MAX + 1)


@dataclass
class Player:
    """A player of a match: a kind and, for a table player, its table (pool format)."""

    name: str
    kind: int
    table: tuple | None = None  # (hash map, row offsets, action counts, rows)
    abstract: bool = False  # the table is keyed by the game's information abstraction
    style: int = 0  # a STYLED player's style number
    fallback: int = FALLBACK_UNIFORM  # how a TABLE player plays where it has no row
    agent: Any = None  # an AGENT player's SearchAgent


def uniform_player() -> Player:
    return Player("uniform", UNIFORM)


def heuristic_player(game) -> Player:
    params = get_plugin(game.name).numba_params(game.variant_obj)
    if not P.has_heuristic(type(params)):
        raise SpycfrError(f"{game.name} has no heuristic player")
    return Player("heuristic", HEURISTIC)


def styled_player(game, name: str) -> Player:
    """The game's styled heuristic player ``name`` (one of its plug-in's heuristic_styles)."""
    styles = get_plugin(game.name).heuristic_styles
    if name not in styles:
        allowed = ", ".join(f"heuristic:{s}" for s in styles) or "none"
        raise SpycfrError(f"{game.name} has no heuristic player {name!r}; styled heuristic "
                          f"players: {allowed}")
    return Player(f"heuristic:{name}", STYLED, style=styles.index(name))


def mccfr_player(solver: MCCFRSolver, name: str = "mccfr") -> Player:
    """The average strategy of an MCCFR solver (its strategy sums, normalised at use)."""
    n = solver.num_infosets
    used = int(solver._inf_off[n - 1] + solver._inf_nact[n - 1]) if n else 0
    return Player(name, TABLE, (solver._table, solver._inf_off[:n], solver._inf_nact[:n],
                                solver._ssum[:used]), solver.abstraction,
                  fallback=FALLBACKS[solver.fallback])


def tree_player(tree: Tree, strategy: np.ndarray, params, name: str = "run") -> Player:
    """A strategy on a tree, keyed by the observation sequences of its infosets."""
    status, info, keys = tree_infoset_keys(tree, params)
    if status != TREE_OK:
        raise RuntimeError(f"tree infoset {info} has no single observation key")
    counts = tree.infoset_num_actions.astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    rows = strategy[np.repeat(np.arange(tree.num_infosets), counts),
                    np.concatenate([np.arange(k) for k in counts])] if len(counts) else \
        np.zeros(0)
    table, _ = rebuild_table(np.ascontiguousarray(keys), np.int64(len(keys)))
    return Player(name, TABLE, (table, offsets, counts.astype(np.int32),
                                np.ascontiguousarray(rows, dtype=np.float64)))


NO_TABLE = (np.full(32, -1, dtype=np.int64), np.zeros(1, dtype=np.int64),
            np.zeros(1, dtype=np.int32), np.zeros(1))


def player_args(player: Player) -> tuple:
    """The player as one tuple for numba code (read by :func:`player_probs`): kind, style,
    fallback, abstract, then its table (hash map, row offsets, action counts, rows)."""
    return (np.int64(player.kind), np.int64(player.style), np.int64(player.fallback),
            bool(player.abstract), *(player.table or NO_TABLE))


@njit(cache=True)
def player_probs(player, state, params, seat, h, acts, k, out):
    """The move distribution of ``player`` (a :func:`player_args` tuple) as ``seat`` at the
    decision ``state`` (``h``: every seat's observation-sequence key); returns 1 if a table
    had no row (it then plays its fallback)."""
    kind, style, fallback, abstract, table, off, nact, pool = player
    if kind == HEURISTIC:
        P.heuristic_policy(state, params, acts, k, out)
        return 0
    if kind == STYLED:
        P.styled_heuristic(state, params, style, acts, k, out)
        return 0
    if kind == TABLE:
        idx = hm_get(table, infoset_key(state, params, seat, h, abstract), -1)
        if idx >= 0 and nact[idx] == k:
            average_row(pool, off[idx], k, out)
            return 0
        fallback_policy(fallback, state, params, acts, k, out)
        return 1
    for a in range(k):
        out[a] = 1.0 / k
    return 0


@njit(cache=True)
def _play(params, games, seed, a_first, pa, pb):
    """Team 0's payoff in each game (A is team 0 in the games with ``a_first``), and the
    decisions where a table player had no row."""
    max_act = max(P.max_actions(params), 2)
    acts = np.empty(max_act, dtype=np.int32)
    probs = np.empty(max_act)
    cur = P.initial_state(params)
    nxt = np.empty_like(cur)
    h = np.empty(P.num_seats(params), dtype=np.int64)
    payoff = np.empty(games)
    rng = np.empty(1, dtype=np.uint64)
    misses = 0
    for g in range(games):
        rng[0] = game_stream(seed, g)
        cur[:] = P.initial_state(params)
        for s in range(h.shape[0]):
            h[s] = root_key(s)
        while True:
            p = P.current_player(cur, params)
            if p == TERMINAL:
                payoff[g] = P.returns_p1(cur, params)
                break
            if p == CHANCE:
                k = P.chance_outcomes(cur, params, acts, probs)
            else:
                k = P.legal_actions(cur, params, acts)
                seat = P.current_seat(cur, params)
                if (p == 0) == a_first:
                    misses += player_probs(pa, cur, params, seat, h, acts, k, probs)
                else:
                    misses += player_probs(pb, cur, params, seat, h, acts, k, probs)
            advance_keys(params, cur, nxt, acts[sample(probs, k, uniform(rng))], h)
    return payoff, misses


NORMAL_WORDS = "95% interval: mean +- 1.96 standard errors, clipped to the payoff range"
NO_SPREAD_WORDS = ("where no seat's payoffs vary (no spread to measure), every game won or "
                   "every one lost is bounded by the exact binomial interval of the win rate, "
                   "any other result by Hoeffding's inequality")
INTERVAL_WORDS = f"{NORMAL_WORDS}; {NO_SPREAD_WORDS}"


def payoff_bound(game) -> float:
    """The most a player can win or lose in one game of ``game`` (its plug-in's bound)."""
    return float(get_plugin(game.name).payoff_bound(game.variant_obj.as_dict()))


def standard_error(x: np.ndarray) -> float:
    """The standard error of ``x``'s mean (inf for fewer than two samples)."""
    return float(x.std(ddof=1)) / math.sqrt(len(x)) if len(x) > 1 else math.inf


def interval(mean: float, half: float, bound: float) -> list[float]:
    """``mean +- half`` clipped to the payoff range ``[-bound, bound]``: the normal
    approximation passes the range with few games near its edge (5 wins and a loss:
    0.667 +- 0.653 would reach +1.32 in a game won at +1)."""
    return [max(mean - half, -bound), min(mean + half, bound)]


def no_spread_interval(mean: float, counts: list[int], bound: float) -> list[float]:
    """The 95% interval of the seats' means averaged (one seat: a plain mean), ``mean``, when
    no seat's payoffs vary, where the normal one has no width (8 games won of 8 are not a
    certainty). Every game won (or every one lost: ``mean`` at the edge of the payoff range):
    the exact (Clopper-Pearson) binomial bound on the win rate, every game not won counted a
    loss (8 of 8: rate >= 0.025 ** (1 / 8) = 0.631, mean >= +0.26), over ``len(counts)``
    times the fewest games of a seat (the product of the seats' rates, each to its count, is
    at most their mean's power). Otherwise Hoeffding's inequality, sound for any payoffs in
    the range: +- bound * sqrt(2 ln(40) * sum(1 / n_s)) / seats."""
    if abs(mean) == bound:
        rate = 0.025 ** (1 / (len(counts) * min(counts)))  # all won: P = rate ** n = 2.5%
        return [bound * (2 * rate - 1), bound] if mean > 0 else [-bound, bound * (1 - 2 * rate)]
    half = bound * math.sqrt(2 * math.log(2 / 0.05) * sum(1 / n for n in counts)) / len(counts)
    return interval(mean, half, bound)


def no_spread(x: np.ndarray) -> bool:
    """Whether payoffs ``x`` do not vary (two or more, all equal: exactly, not a rounded
    standard deviation), where an interval is :func:`no_spread_interval`."""
    return len(x) > 1 and x.min() == x.max()


def interval_words(*samples: np.ndarray) -> str:
    """How the 95% intervals of results over ``samples`` (the payoffs of each result given
    by :func:`mean_ci`, or the seats of one by :func:`seats_ci`) are made: NORMAL_WORDS,
    with NO_SPREAD_WORDS where one of them had no spread to measure."""
    return INTERVAL_WORDS if any(no_spread(x) for x in samples) else NORMAL_WORDS


def seats_ci(seats: list[np.ndarray], bound: float) -> tuple[float, list[float]]:
    """The seats' means averaged (payoffs in ``[-bound, bound]``, empty seats left out) and
    its 95% interval: +- 1.96 standard errors of that average, clipped to the payoff range,
    or :func:`no_spread_interval` where no seat's payoffs vary (INTERVAL_WORDS)."""
    seats = [x for x in seats if len(x)]
    if not seats:
        raise SpycfrError("no games to summarise: a payoff's interval needs at least one game")
    mean = sum(float(x.mean()) for x in seats) / len(seats)
    if all(no_spread(x) for x in seats):
        return mean, no_spread_interval(mean, [len(x) for x in seats], bound)
    half = 1.96 * math.hypot(*(standard_error(x) for x in seats)) / len(seats)
    return mean, interval(mean, half, bound)


def mean_ci(x: np.ndarray, bound: float) -> dict:
    """Mean of ``x`` (payoffs in ``[-bound, bound]``) with its 95% interval and its count:
    mean +- 1.96 standard errors (normal approximation) clipped to the payoff range, or
    where every payoff is the same a sound small-sample bound (:func:`no_spread_interval`;
    a result's method says so where it applied: :func:`interval_words`)."""
    mean, ci = seats_ci([x], bound)
    return {"mean": mean, "ci95": ci, "games": len(x)}


def head_to_head(game, a: Player, b: Player, games: int = 10_000, seed: int = 0,
                 progress: Callable[[str], None] | None = None) -> dict:
    """Play ``games`` games of A against B (half with A as P1), each reproducible from
    ``seed``; returns A's mean payoff with a 95% confidence interval (:func:`mean_ci` of
    the games pooled, both seats: an agent report's header says the no-spread words where
    every game was won, lost or drawn), the same per seat, A's win/draw/loss rates and
    table misses. A search
    agent plays in Python (its games are the same streams), ``progress`` told each game."""
    if games < 2:
        raise ParameterError(f"{{games}} must be >= 2, got {games}", "games")
    seed = check_seed(seed)
    params = get_plugin(game.name).numba_params(game.variant_obj)
    pa, pb = player_args(a), player_args(b)
    half = games // 2
    play: Callable = _play
    if AGENT in (a.kind, b.kind):
        from spycfr.analysis.agentplay import play_games

        def play(params, count, seed, a_first, pa, pb):  # games counted across both calls
            return play_games(params, int(count), int(seed), bool(a_first), (a, pa), (b, pb),
                              player_probs, progress, (0 if a_first else half, games))
    first, m1 = play(params, np.int64(half), np.int64(seed), True, pa, pb)
    second, m2 = play(params, np.int64(games - half), np.int64(second_stream(seed)), False,
                      pa, pb)
    mine = np.concatenate([first, -second])  # A's payoff: as P1, then as P2
    bound = payoff_bound(game)
    return {
        "game": game.name, "variant": game.variant_obj.as_dict(), "a": a.name, "b": b.name,
        "seed": seed, "a_payoff": mean_ci(mine, bound), "a_as_p1": mean_ci(first, bound),
        "a_as_p2": mean_ci(-second, bound),
        "a_wins": float(np.mean(mine > 0)), "draws": float(np.mean(mine == 0)),
        "a_losses": float(np.mean(mine < 0)), "table_misses": int(m1 + m2),
        "method": f"{games} sampled games, A as P1 in {half} and as P2 in {games - half}; "
                  + interval_words(mine, first, second),
    }


def check_player_name(source: str) -> None:
    """A one-line error unless ``source`` names a player: uniform, heuristic[:STYLE] or an
    existing run directory."""
    if source not in ("uniform", "heuristic") and not source.startswith("heuristic:") and \
            not Path(source).is_dir():
        raise SpycfrError(f"player {source!r}: not 'uniform', 'heuristic', 'heuristic:STYLE' "
                          "or an existing run directory")


def player_from(source: str, game) -> Player:
    """A player named on the command line: ``uniform``, ``heuristic``, ``heuristic:STYLE``
    or a run directory (a tree run plays its strategy; an MCCFR run without a tree its
    average strategy)."""
    from spycfr.runs.sampled import load_sampled_solver
    from spycfr.runs.store import load_run, read_run

    if source == "uniform":
        return uniform_player()
    if source == "heuristic":
        return heuristic_player(game)
    if source.startswith("heuristic:"):
        return styled_player(game, source.split(":", 1)[1])
    check_player_name(source)
    meta = read_run(source)
    if meta.game != game.name or meta.variant != game.variant_obj.as_dict():
        raise SpycfrError(other_variant(source, meta.game, meta.variant, game.name,
                                        game.variant_obj.as_dict()))
    if not meta.treeless:
        run = load_run(source)
        params = get_plugin(game.name).numba_params(game.variant_obj)
        return tree_player(run.tree, run.strategy, params, source)
    from spycfr.runs.agent_run import is_agent_run, load_agent

    if is_agent_run(meta):
        return Player(source, AGENT, agent=load_agent(source))
    return mccfr_player(load_sampled_solver(source), source)
