"""Local best response (LBR; Lisy and Bowling 2017, "Equilibrium approximation quality of
current no-limit poker bots"), for any game of the protocol: a lower bound on a strategy's
exploitability that needs no tree, measured by playing.

The LBR player plays sampled games against a strategy sigma (a :class:`Player`: a run, or
any player of :mod:`spycfr.analysis.headtohead`). It keeps a **belief** over the histories
consistent with what it observed: every particle is a full state (with every seat's
observation key), weighted by the probability that chance and sigma give to the moves that
lead there; after each move, every particle is replaced by those of its successors whose
observation for the LBR seat is the one observed, weighted by the probability of that move
(chance's, or sigma's at the particle: the opponent's own information state there), and the
weights are normalised. Nothing about the opponent's hidden information is read from the
true state. The enumeration is the game protocol's (legal actions, chance outcomes,
observations), so no game-specific code is needed.

At each of its decisions LBR estimates the value of every legal action by ``rollouts``
sampled continuations: a particle drawn from the belief by weight, the action, then the
game played out with sigma for the opponent and the **rollout policy** for LBR itself (by
default sigma, which makes the estimate sigma's action value averaged over the belief).
The same particles and random streams serve every action (common random numbers). LBR plays
the action of highest estimate (the first on ties).

Why it bounds the exploitability: LBR is *some* strategy, so its expected payoff as seat i
against sigma is at most the best response's, BR_i(sigma). Played half its games in each
seat, its mean payoff estimates (u_1 + u_2) / 2 <= (BR_1 + BR_2) / 2 = NashConv / 2, the
exploitability in :mod:`spycfr.exact.best_response`'s convention. The estimate is the real
outcome of the games (the rollouts only choose moves; their optimism does not enter), with a
95% interval (mean +- 1.96 standard errors of the two seats' means averaged, clipped to the
payoff range; where no seat's payoffs vary, a small-sample bound: headtohead.seats_ci). How
close it comes to the exploitability depends on the rollouts; it is a lower bound, never an
estimate of the exploitability itself.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from spycfr.analysis.headtohead import (
    SECOND_STREAM,
    TABLE,
    Player,
    interval_words,
    mean_ci,
    payoff_bound,
    player_args,
    player_probs,
    seats_ci,
    second_stream,
)
from spycfr.cfr.mccfr_kernels import advance_keys
from spycfr.engine import protocol as P
from spycfr.engine.playout import node_moves
from spycfr.engine.rng import (
    GOLDEN,
    combine_key,
    fmix,
    game_stream,
    next_u64,
    root_key,
    sample,
    uniform,
)
from spycfr.errors import ParameterError, SpycfrError
from spycfr.games import get_plugin
from spycfr.seeds import check_seed
from spycfr.tree import CHANCE, TERMINAL

CHUNK = 25  # games per numba call (progress is reported between calls)
SECOND_SEAT_SEED = SECOND_STREAM  # the games with LBR as P2 draw from another stream


def seat_seed(seed: int, seat: int) -> np.int64:
    """The seed of the games with LBR in ``seat``: ``seed`` for P1, head to head's second
    stream for P2 (kept within int64's range: a --seed near 2**63 wraps)."""
    return np.int64(second_stream(seed) if seat else int(seed))


# particles beyond which LBR's belief is compacted (duplicates merged; if still more, as many
# drawn by weight): Agent Hunter's beliefs stay under 600 (its games are as before), Agent
# Avenue's private draws make histories by the hundred thousand (about 1,000 to 47,000
# distinct states on `standard`)
BELIEF_CAP = 20_000
RESAMPLE_SALT = 0x2545F4914F6CDD1D  # the resampling's stream: not the game's


@njit(cache=True)
def _grown(bs, bh, bw):
    """The particle arrays with twice the room (the first rows copied)."""
    n = bs.shape[0]
    ns = np.empty((2 * n, bs.shape[1]), dtype=bs.dtype)
    nh = np.empty((2 * n, bh.shape[1]), dtype=np.int64)
    nw = np.empty(2 * n)
    ns[:n] = bs
    nh[:n] = bh
    nw[:n] = bw
    return ns, nh, nw


@njit(cache=True)
def update_belief(params, me, opp, pre, obs, bs, bh, bw, n, ns, nh, nw, acts, probs, nxt):
    """Particles after a move that the seat ``me`` observed as ``obs``: each particle's
    successors with that observation, weighted by the move's probability (chance's, the
    opponent's at the particle: row i of ``pre`` when it has rows, else the player ``opp``;
    or 1 for LBR's own move), normalised. Writes them into (ns, nh, nw), grown if needed;
    returns (ns, nh, nw, count); a count of 0 where no particle is consistent with the
    observation (the exact belief always holds the true history: only a resampled one can
    lose it)."""
    m = 0
    total = 0.0
    for i in range(n):
        s = bs[i]
        p, k = node_moves(s, params, acts, probs)
        if p == TERMINAL:
            continue
        if p == me:
            for a in range(k):
                probs[a] = 1.0
        elif p != CHANCE:
            if pre.shape[0] > 0:
                probs[:k] = pre[i, :k]
            else:
                player_probs(opp, s, params, P.current_seat(s, params), bh[i], acts, k, probs)
        for a in range(k):
            if probs[a] <= 0.0 or P.observation(s, params, acts[a], me) != obs:
                continue
            if m == ns.shape[0]:
                ns, nh, nw = _grown(ns, nh, nw)
            for q in range(nh.shape[1]):
                nh[m, q] = combine_key(bh[i, q], P.observation(s, params, acts[a], q))
            P.apply_action(s, params, acts[a], nxt)
            ns[m] = nxt
            nw[m] = bw[i] * probs[a]
            total += nw[m]
            m += 1
    if m == 0 or total <= 0.0:
        return ns, nh, nw, 0
    for i in range(m):
        nw[i] /= total
    return ns, nh, nw, m


@njit(cache=True)
def _same(a, b):
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return False
    return True


@njit(cache=True)
def _merge(bs, bh, bw, n, keys):
    """The particles (bs, bh, bw)[:n] with duplicates merged in place: the same state, and
    with ``keys`` the same observation keys (without: no player reads the keys, so the two
    are one history to every reader). The first of each is kept, in order, its weight the
    sum; returns how many are left. Exact: the belief over what the players read is the
    same."""
    hs = np.empty(n, dtype=np.uint64)
    for i in range(n):
        z = GOLDEN
        for v in bs[i]:
            z = fmix(z * GOLDEN + np.uint64(np.int64(v) + 65536))
        if keys:
            for v in bh[i]:
                z = fmix(z * GOLDEN + np.uint64(v))
        hs[i] = z
    order = np.argsort(hs, kind="mergesort")  # stable: a group's first is its lowest index
    rep = np.arange(n)
    a = 0
    while a < n:
        b = a + 1
        while b < n and hs[order[b]] == hs[order[a]]:
            b += 1
        for c in range(a + 1, b):
            x = order[c]
            for d in range(a, c):
                y = order[d]
                if rep[y] == y and _same(bs[x], bs[y]) and (not keys or _same(bh[x], bh[y])):
                    rep[x] = y
                    break
        a = b
    new = np.empty(n, dtype=np.int64)
    m = 0
    for i in range(n):
        if rep[i] == i:
            new[i] = m
            bs[m] = bs[i]
            bh[m] = bh[i]
            bw[m] = bw[i]
            m += 1
        else:
            bw[new[rep[i]]] += bw[i]
    return m


@njit(cache=True)
def _resample(bs, bh, bw, n, cap, rng, ns, nh, nw):
    """``cap`` draws from the particles (bs, bh, bw)[:n] by weight, systematic (one uniform
    from ``rng``: each particle drawn floor or ceil of cap x its weight times, so every one
    of weight >= 1 / cap stays): the particles drawn, each weighted by its share of the
    draws, into (ns, nh, nw); returns their count. Unbiased, not exact."""
    total = 0.0
    for i in range(n):
        total += bw[i]
    u = uniform(rng)
    acc = 0.0
    j = 0
    m = 0
    for i in range(n):
        acc = acc + bw[i] / total if i < n - 1 else 2.0  # the last takes what rounding left
        c = 0
        while j < cap and (j + u) / cap < acc:
            c += 1
            j += 1
        if c > 0:
            ns[m] = bs[i]
            nh[m] = bh[i]
            nw[m] = c / cap
            m += 1
    return m


@njit(cache=True)
def compact_belief(bs, bh, bw, n, ns, nh, nw, keys, cap, rng):
    """The belief (bs, bh, bw)[:n] within ``cap`` particles: histories that end in the same
    state (and, with ``keys``, the same observation keys) merged, which is exact; if still
    over ``cap``, ``cap`` systematic draws by weight (seeded by ``rng``), which is not.
    Returns the buffers, the current first, the count and whether it resampled."""
    n = _merge(bs, bh, bw, n, keys)
    if n <= cap:
        return bs, bh, bw, ns, nh, nw, n, False
    n = _resample(bs, bh, bw, n, cap, rng, ns, nh, nw)
    return ns, nh, nw, bs, bh, bw, n, True


@njit(cache=True)
def _rollout(params, me, opp, roll, state, h, act, rng, cur, nxt, hh, acts, probs):
    """LBR's payoff after ``act`` at the particle (state, h): the game played out, the
    opponent as ``opp``, LBR as ``roll``, chance sampled, all from the stream ``rng``."""
    cur[:] = state
    hh[:] = h
    advance_keys(params, cur, nxt, act, hh)
    while True:
        p, k = node_moves(cur, params, acts, probs)
        if p == TERMINAL:
            v = P.returns_p1(cur, params)
            return v if me == 0 else -v
        if p != CHANCE:
            player_probs(roll if p == me else opp, cur, params, P.current_seat(cur, params),
                         hh, acts, k, probs)
        advance_keys(params, cur, nxt, acts[sample(probs, k, uniform(rng))], hh)


@njit(cache=True)
def choose_action(params, me, opp, roll, rollouts, base, bs, bh, bw, n, acts, k, work):
    """The index among ``acts[:k]`` of the highest estimated value (see the module notes):
    ``rollouts`` particles drawn by weight, the same for every action, as their streams."""
    cur, nxt, hh, acts2, probs, rng = work
    picks = np.empty(rollouts, dtype=np.int64)
    for r in range(rollouts):
        rng[0] = fmix(base + np.uint64(r) * GOLDEN)
        picks[r] = sample(bw, n, uniform(rng))
    best = 0
    best_value = -np.inf
    for a in range(k):
        total = 0.0
        for r in range(rollouts):
            rng[0] = fmix(base + np.uint64(r) * GOLDEN) ^ np.uint64(0x5DEECE66D)
            i = picks[r]
            total += _rollout(params, me, opp, roll, bs[i], bh[i], acts[a], rng, cur, nxt, hh,
                              acts2, probs)
        if total > best_value:
            best_value = total
            best = a
    return best


@njit(cache=True)
def play_lbr_games(params, me, opp, roll, rollouts, seed, first, count, cap):
    """LBR as team ``me`` against ``opp`` in games first..first+count-1: LBR's payoff in
    each, the largest belief (particles, before compaction) met, LBR's decisions with a
    choice, and per game the times its belief was merged, resampled and depleted. Past
    ``cap`` particles (0: no cap) the belief is compacted (:func:`compact_belief`); where the
    resampled belief holds no history consistent with what LBR then sees (depleted), LBR
    plays the rest of the game as ``roll`` (from its own observations: still a strategy,
    so still a bound)."""
    max_act = max(P.max_actions(params), 2)
    acts = np.empty(max_act, dtype=np.int32)
    probs = np.empty(max_act)
    cur = P.initial_state(params)
    nxt = np.empty_like(cur)
    seats = P.num_seats(params)
    h = np.empty(seats, dtype=np.int64)
    room = 64  # the particle buffers' first size (they grow)
    bs = np.empty((room, cur.shape[0]), dtype=cur.dtype)
    bh = np.empty((room, seats), dtype=np.int64)
    bw = np.empty(room)
    ns, nh, nw = np.empty_like(bs), np.empty_like(bh), np.empty_like(bw)
    work = (np.empty_like(cur), np.empty_like(cur), np.empty(seats, dtype=np.int64),
            np.empty(max_act, dtype=np.int32), np.empty(max_act), np.empty(1, dtype=np.uint64))
    rng = np.empty(1, dtype=np.uint64)
    crng = np.empty(1, dtype=np.uint64)
    keys = opp[0] == TABLE or roll[0] == TABLE  # a table reads the observation keys
    payoff = np.empty(count)
    compacted = np.zeros((count, 3), dtype=np.int64)  # merged, resampled, depleted
    largest = 0
    decisions = 0
    no_rows = np.zeros((0, 0))
    for g in range(count):
        rng[0] = game_stream(seed, first + g)
        crng[0] = fmix(rng[0] ^ np.uint64(RESAMPLE_SALT))
        cur[:] = P.initial_state(params)
        for s in range(seats):
            h[s] = root_key(s)
        bs[0] = cur
        bh[0] = h
        bw[0] = 1.0
        n = 1
        while True:
            p, k = node_moves(cur, params, acts, probs)
            if p == TERMINAL:
                v = P.returns_p1(cur, params)
                payoff[g] = v if me == 0 else -v
                break
            if p == CHANCE:
                j = sample(probs, k, uniform(rng))
            elif p == me and n == 0:  # the belief lost every history: LBR plays ``roll``
                player_probs(roll, cur, params, P.current_seat(cur, params), h, acts, k, probs)
                j = sample(probs, k, uniform(rng))
            elif p == me:
                base = next_u64(rng)
                j = 0
                if k > 1:
                    j = choose_action(params, me, opp, roll, rollouts, base, bs, bh, bw, n, acts, k,
                                      work)
                    decisions += 1
            else:
                player_probs(opp, cur, params, P.current_seat(cur, params), h, acts, k, probs)
                j = sample(probs, k, uniform(rng))
            act = acts[j]
            obs = P.observation(cur, params, act, me)
            if n > 0:
                ns, nh, nw, n = update_belief(params, me, opp, no_rows, obs, bs, bh, bw, n,
                                              ns, nh, nw, work[3], work[4], nxt)
                if n == 0:
                    if compacted[g, 1] == 0:  # the exact belief cannot lose the true history
                        raise ValueError("LBR belief: no history is consistent with the "
                                         "observations")
                    compacted[g, 2] += 1
            bs, ns = ns, bs
            bh, nh = nh, bh
            bw, nw = nw, bw
            if ns.shape[0] < bs.shape[0]:  # keep both buffers the same size
                ns, nh, nw = np.empty_like(bs), np.empty_like(bh), np.empty_like(bw)
            largest = max(largest, n)
            if cap > 0 and n > cap:
                bs, bh, bw, ns, nh, nw, n, drawn = compact_belief(bs, bh, bw, n, ns, nh, nw, keys,
                                                                  cap, crng)
                compacted[g, 0] += 1
                if drawn:
                    compacted[g, 1] += 1
            advance_keys(params, cur, nxt, act, h)
    return payoff, largest, decisions, compacted


@njit(cache=True)
def _belief_after(params, me, opp, actions):
    """The belief of the seat ``me`` (particle states and weights) after the action path
    ``actions`` from the root, ``opp`` being the opponent's strategy (a Python entry point
    for checks)."""
    max_act = max(P.max_actions(params), 2)
    cur = P.initial_state(params)
    nxt = np.empty_like(cur)
    seats = P.num_seats(params)
    h = np.empty(seats, dtype=np.int64)
    for s in range(seats):
        h[s] = root_key(s)
    bs = np.empty((4, cur.shape[0]), dtype=cur.dtype)
    bh = np.empty((4, seats), dtype=np.int64)
    bw = np.empty(4)
    bs[0] = cur
    bh[0] = h
    bw[0] = 1.0
    n = 1
    acts = np.empty(max_act, dtype=np.int32)
    probs = np.empty(max_act)
    for i in range(actions.shape[0]):
        obs = P.observation(cur, params, actions[i], me)
        ns, nh, nw = np.empty_like(bs), np.empty_like(bh), np.empty_like(bw)
        bs, bh, bw, n = update_belief(params, me, opp, np.zeros((0, 0)), obs, bs, bh, bw, n,
                                      ns, nh, nw, acts, probs, nxt)
        if n == 0:
            raise ValueError("LBR belief: no history is consistent with the observations")
        advance_keys(params, cur, nxt, actions[i], h)
    return bs[:n].copy(), bw[:n].copy()


def two_player_params(game):
    """The numba parameters of ``game`` (its plug-in's ``numba_params``) that local best
    response plays with; SpycfrError where the game has not two seats."""
    params = get_plugin(game.name).numba_params(game.variant_obj)
    if P.seats(params) != 2:
        raise SpycfrError(f"local best response needs a two-seat game; {game.name} has "
                          f"{P.seats(params)} seats")
    return params


def belief_after(game, opponent: Player, seat: int, actions: list[int]) -> tuple:
    """(states, weights): what ``seat`` (0 or 1) believes after the action path ``actions``
    when its opponent plays ``opponent`` (see the module notes)."""
    params = two_player_params(game)
    return _belief_after(params, np.int64(seat), player_args(opponent),
                         np.asarray(actions, dtype=np.int32))




def check_lbr_options(games: int, rollouts: int, belief_cap: int = BELIEF_CAP) -> None:
    """Refuse an LBR of fewer than 4 games (2 per seat, for an interval), no playout, or a
    belief capped below one particle (the table path's and the search agent's alike)."""
    if games < 4:
        raise ParameterError(f"{{games}} must be >= 4 (0: no local best response), got {games}",
                             "games")
    if rollouts < 1:
        raise ParameterError(f"{{rollouts}} must be >= 1, got {rollouts}", "rollouts")
    if belief_cap < 1:
        raise ParameterError(f"{{belief_cap}} (the LBR belief's cap) must be >= 1 particle, "
                             f"got {belief_cap}", "belief_cap")


def check_particle_states(particle_states: int | None) -> None:
    """Refuse a search agent's LBR re-solving fewer than one private state a decision
    (None: every state)."""
    if particle_states is not None and particle_states < 1:
        raise ParameterError("{particle_states} must be >= 1 (the agent's private states "
                             f"re-solved at each of its decisions), got {particle_states}",
                             "particle_states")


def local_best_response(game, strategy: Player, games: int, seed: int = 0,
                        rollouts: int = 4, rollout_policy: Player | None = None,
                        progress: Callable[[int, int], None] | None = None,
                        belief_cap: int = BELIEF_CAP) -> dict:
    """LBR against ``strategy`` (see the module notes): ``games`` games, half with LBR as
    P1 and half as P2, each reproducible from ``seed``; ``rollouts`` sampled continuations
    per action, LBR continuing as ``rollout_policy`` (None: as ``strategy``); the belief
    compacted past ``belief_cap`` particles (:func:`compact_belief`). Returns LBR's mean payoff
    (the two seats averaged) with its 95% interval, per seat, and the work done;
    ``progress(done, games)`` is called between chunks of games."""
    check_lbr_options(games, rollouts, belief_cap)
    seed = check_seed(seed)
    if any(p is not None and p.agent is not None for p in (strategy, rollout_policy)):
        raise SpycfrError("a search agent has no strategy table for the numba LBR: its LBR "
                          "is spycfr.analysis.lbr_agent_dask.agent_lbr (spycfr measure RUN_DIR "
                          "--lbr-games N)")
    params = two_player_params(game)
    roll = rollout_policy or strategy
    opp, rp = player_args(strategy), player_args(roll)
    halves = (games // 2, games - games // 2)
    payoffs, largest, decisions, done, compacted = [], 0, 0, 0, []
    for me, count in enumerate(halves):
        parts = []
        stream = seat_seed(seed, me)
        for first in range(0, count, CHUNK):
            part, big, dec, comp = play_lbr_games(params, np.int64(me), opp, rp,
                                                  np.int64(rollouts), stream, np.int64(first),
                                                  np.int64(min(CHUNK, count - first)),
                                                  np.int64(belief_cap))
            parts.append(part)
            compacted.append(comp)
            largest, decisions = max(largest, int(big)), decisions + int(dec)
            done += len(part)
            if progress:
                progress(done, games)
        payoffs.append(np.concatenate(parts))
    words = "the strategy itself" if rollout_policy is None else roll.name
    per_game = np.concatenate(compacted)
    out = summary(payoffs, payoff_bound(game), seed, rollouts, words, largest, decisions,
                  "weighted by the strategy's probabilities of the opponent's moves"
                  + cap_words(per_game, belief_cap),
                  "the strategy for the opponent, "
                  + ("the strategy" if rollout_policy is None else roll.name)
                  + " for LBR afterwards")
    out.update(belief_cap=belief_cap, belief_compacted=compacted_totals(per_game))
    return out


COMPACTED = ("merged", "resampled", "depleted")  # the columns of a per-game compaction count


def compacted_totals(per_game: np.ndarray) -> dict[str, int]:
    """The times the belief was merged, resampled and depleted in all the games."""
    return {k: int(per_game[:, c].sum()) for c, k in enumerate(COMPACTED)}


def cap_words(per_game: np.ndarray, cap: int) -> str:
    """What the cap did to the belief in the games (``per_game``: each game's merges,
    resamplings and depletions), for the method text."""
    games = per_game.shape[0]
    merged, resampled, depleted = (int((per_game[:, c] > 0).sum()) for c in range(3))
    if not merged:
        return f"; never more than {cap:,} particles: exact"
    words = (f"; past {cap:,} particles (in {merged} of {games} games) the histories "
             "that end in the same state were merged (exact: no player reads more)")
    if not resampled:
        return words
    return (words + f", and where still more than {cap:,} (in {resampled} games, "
            f"{int(per_game[:, 1].sum())} times) {cap:,} particles were drawn by weight "
            "(systematic resampling, seeded): there the belief is an approximation"
            + (f", and in {depleted} games it lost every history consistent with what LBR "
               "then saw, so LBR played the rest of the game as its playout policy"
               if depleted else "")
            + "; that changes only LBR's choices, not that its games bound the "
            "exploitability")


def summary(payoffs: list[np.ndarray], bound: float, seed: int, rollouts: int,
            rollout_words: str, largest: int, decisions: int, belief_words: str,
            playout_words: str) -> dict:
    """LBR's result from its payoffs (in ``[-bound, bound]``) in the games as P1 and as P2:
    the mean of the two seats' means with its 95% interval, per seat, and how it was
    measured."""
    p1, p2 = (mean_ci(x, bound) for x in payoffs)
    mean, ci = seats_ci(payoffs, bound)
    both = np.concatenate(payoffs)
    games = len(both)
    return {
        "value": mean, "ci95": ci, "as_p1": p1, "as_p2": p2,
        "games": games, "seed": seed, "rollouts": rollouts,
        "rollout_policy": rollout_words,
        "wins": float(np.mean(both > 0)), "draws": float(np.mean(both == 0)),
        "largest_belief": largest, "decisions": decisions,
        "method": (f"local best response (Lisy and Bowling 2017) in {games} sampled games, "
                   f"{p1['games']} as P1 and {p2['games']} as P2: a belief over every history "
                   f"consistent with its observations, {belief_words}; each legal action "
                   f"valued by {rollouts} sampled playouts (a particle drawn from the belief, "
                   f"{playout_words}), the best one played. Its mean payoff, the two "
                   "seats averaged, is at most (BR_P1 + BR_P2) / 2, the exploitability; "
                   + interval_words(*payoffs)),
    }
