"""The games a rollout re-solve plays (:class:`~spycfr.search.continuation.Continuations`,
the ``rollout`` leaf values): which (leaf, row, opposing draws) jobs the rows valued have,
their games laid out as whole arrays for the game's ``rollouts`` and ``rollouts_guessing``
hooks (numba), and what each row's games give it (a
:class:`~spycfr.search.continuation_rows.ValuedRow`, the ratio estimate of continuation.py's
module notes). Functions of the value function ``c``, whose options and solve state they
read (its continuations, budgets, focus, the reading round's games) and whose counters
they keep (``games_played``, ``deferred``, ``alone_over_budget``); continuation.py chooses
the games (``_prepare``) and gives the values.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spycfr.search.continuation_rows import DrawValues, ValuedRow, draws_per_row, ratio_estimate


def compat_row(c: Any, seat: int, i: int) -> np.ndarray:
    """The compatibility of ``seat``'s state i with each opposing private state."""
    return c.game.compat[i] if seat == 0 else c.game.compat[:, i]


def each_state(c: Any, pubs, ranges, s, draws, seeds, pairs, k) -> list[ValuedRow]:
    """The games of :meth:`~spycfr.search.continuation.Continuations.focus_each`: every
    state's jobs at its own number of draws, where a row it leads to is not wanted at
    another number by a state before it (such states are ``deferred``);
    ``alone_over_budget``: the states whose games alone are over the budget, so that a
    focus on them alone is valued as here (not every pair played)."""
    by_draws: dict[int, dict] = {}
    draws_of: dict[tuple[int, int], int] = {}
    c.deferred, c.alone_over_budget = [], []
    live = (ranges[1 - s] > 0).sum(1)
    out = []
    if c.public_rows.size:  # the public reader's rows first, as focus values them
        jobs = jobs_of(c, pubs, ranges, s, c.focused.balance, (), draws)
        if jobs:
            out = roll(c, pubs, s, jobs, pairs, c.balance_budget, 4, seeds)
    for i, rows_at in c.focused.units:
        mine = jobs_of(c, pubs, ranges, s, rows_at, (), draws)
        count = sum(int(rows_at.get(pubs[leaf].tobytes(), np.zeros(0)).size) * int(live[leaf])
                    for leaf in range(pubs.shape[0])) * k * k * c.pair_samples
        if count > c.budget:
            c.alone_over_budget.append(i)
        if not mine:
            continue  # nothing to play: any number of draws values it alike
        m = draws_per_row(len(mine), pairs.shape[0], c.focus_budget, 8, draws.size)
        if any(draws_of.get((leaf, row), m) != m for leaf, row, _ in mine):
            c.deferred.append(i)
            continue
        for leaf, row, js in mine:
            draws_of[(leaf, row)] = m
            by_draws.setdefault(m, {})[(leaf, row)] = (leaf, row, js)
    return out + [x for m, jobs in by_draws.items()
                  for x in roll(c, pubs, s, list(jobs.values()), pairs, c.focus_budget, 8,
                                seeds, m)]


def jobs_of(c: Any, pubs, ranges, s, rows_at, default, draws) -> list:
    """(leaf, row, the opposing private states drawn) for the rows ``rows_at`` each leaf
    (``default`` where it names none) live there."""
    jobs = []
    for leaf in range(pubs.shape[0]):
        for i in rows_at.get(pubs[leaf].tobytes(), default):
            p = ranges[1 - s][leaf] * compat_row(c, s, i)
            if ranges[s][leaf, i] <= 0 or p.sum() <= 0:
                continue
            cdf = np.cumsum(p / p.sum())
            js = np.minimum(np.searchsorted(cdf, draws, side="right"), p.size - 1)
            jobs.append((leaf, int(i), js))
    return jobs


def roll(c: Any, pubs, s, jobs, pairs, budget, floor, seeds,
         m: int | None = None) -> list[ValuedRow]:
    """Play ``jobs``' games (every pair of continuations, the first m draws each, m
    within ``budget`` games and at least ``floor``, unless given): a row valued each
    (the ratio estimate of continuation.py's module notes), with ``choice`` "state" its values draw
    by draw too."""
    reps = pairs.shape[0]
    # many rows (a placement: every one of them) share the budget
    m = draws_per_row(len(jobs), reps, budget, floor, len(seeds)) if m is None else m
    leaf_a = np.repeat([lf for lf, _, _ in jobs], reps * m)
    mine_i = np.repeat([i for _, i, _ in jobs], reps * m)
    opp = np.concatenate([np.tile(js[:m], reps) for _, _, js in jobs])
    mine_st = np.tile(np.repeat(pairs[:, 0], m), len(jobs))
    opp_st = np.tile(np.repeat(pairs[:, 1], m), len(jobs))
    seed_a = np.tile(seeds[:m], reps * len(jobs))
    draw_a = np.tile(np.arange(m), reps * len(jobs))
    if s == 0:
        u = play(c, pubs, leaf_a, mine_i, opp, mine_st, opp_st, seed_a, draw_a)
    else:
        u = -play(c, pubs, leaf_a, opp, mine_i, opp_st, mine_st, seed_a, draw_a)
    each = u.reshape(len(jobs), c._own.size, c._opp.size, m)
    means = each.mean(axis=3)
    mg = min(m, c.guess_draws) if c.guess_draws else m  # the guesses' draws
    guessed = guess_means(c, pubs, s, jobs, mg, seeds) if c.guessing_rows else None
    out = []
    for x, (leaf, i, js) in enumerate(jobs):
        w = weight_row(c, pubs[leaf], s, i)
        ratio = ratio_estimate(means[x], w, js[:m])
        per = ratio_estimate(each[x], w, js[:m]) if c.choice == "state" else None
        if guessed is not None:
            mean_g = ratio_estimate(guessed[x].mean(axis=2), w, js[:mg])
            ratio = np.concatenate([ratio, mean_g], 1)
            if per is not None:  # draws past the guesses' take their mean
                g = ratio_estimate(guessed[x], w, js[:mg])  # (a, guesses, mg)
                full = np.repeat(mean_g[:, :, None], m, axis=2)
                full[:, :, :mg] = g
                per = np.concatenate([per, full], 1)
        out.append(ValuedRow(s, leaf, i, ratio, w, None if per is None
                             else DrawValues(per, np.asarray(js[:m], np.int64))))
    return out


def guess_means(c: Any, pubs, s, jobs, m: int, seeds) -> list[np.ndarray]:
    """Per job (leaf, row, opposing draws): the row's payoff (seat ``s``'s) for
    each of its own continuations against each guess continuation of its leaf (the
    range reader given one group of ``c.guess_groups`` as its guesses), (a, guesses,
    m), in each of the first ``m`` draws and seeds (those of the row's other games; the caller
    caps m at ``guess_draws``). The games are laid out job by job, guess by guess,
    own continuation by own continuation, draw by draw (whole arrays: a re-solve on
    ``standard`` has tens of thousands of jobs)."""
    own = c.styles[c._own]
    if not jobs:
        return []
    # the guesses of every leaf in one table: leaf l's are rows at[l]:at[l] + count[l]
    leaves = np.array([leaf for leaf, _, _ in jobs], np.int64)
    tables = {int(lf): c.guess_groups(pubs[lf]) for lf in np.unique(leaves)}
    width = max(g.shape[1] for g in tables.values())
    count_of, at_of = np.zeros(pubs.shape[0], np.int64), np.zeros(pubs.shape[0], np.int64)
    table, at = [np.full((0, width), -1, np.int64)], 0
    for lf, g in tables.items():
        count_of[lf], at_of[lf] = g.shape[0], at
        padded = np.full((g.shape[0], width), -1, np.int64)
        padded[:, :g.shape[1]] = g
        table.append(padded)
        at += g.shape[0]
    groups = np.concatenate(table)
    counts = count_of[leaves]  # guesses per job
    blocks = counts * own.size  # (guess, own continuation) blocks per job, m games each
    job = np.repeat(np.arange(len(jobs)), blocks)
    within = np.arange(job.size) - np.repeat(np.cumsum(blocks) - blocks, blocks)
    rows = np.array([i for _, i, _ in jobs], np.int64)
    draws = np.stack([np.asarray(js[:m], np.int64) for _, _, js in jobs])
    leaf_a, mine = np.repeat(leaves[job], m), np.repeat(rows[job], m)
    opp = draws[job].ravel()
    mine_st = np.repeat(own[within % own.size], m)
    seed_a = np.tile(np.asarray(seeds[:m], np.int64), job.size)
    guess = np.repeat(groups[at_of[leaves[job]] + within // own.size], m, axis=0)
    u = np.empty(leaf_a.size)
    if u.size:
        reader = np.full(u.size, c.reader, np.int64)
        pubs_c = np.ascontiguousarray(pubs)
        if s == 0:
            c.guessing(pubs_c, c.game.params, leaf_a, mine, opp, mine_st, reader, seed_a,
                       guess, u)
        else:
            c.guessing(pubs_c, c.game.params, leaf_a, opp, mine, reader, mine_st, seed_a,
                       guess, u)
            u = -u
        c.games_played += u.size
    out, at = [], 0
    for count in counts:
        n = int(count) * own.size * m
        out.append(u[at:at + n].reshape(count, own.size, m).transpose(1, 0, 2))
        at += n
    return out


def weight_row(c: Any, pub: np.ndarray, seat: int, i: int) -> np.ndarray:
    """How much each opposing private state weighs beside ``seat``'s state i at ``pub``:
    the compatibility times the game's pair weights there."""
    row = compat_row(c, seat, i)
    if c.pair_weights is None:
        return row
    return row * c.pair_weights(pub, c.game.params, seat, i, c.game.n[1 - seat])


def play(c: Any, pubs, leaf, i0, i1, st0, st1, seeds, draw) -> np.ndarray:
    """Seat 0's payoff of each game (the game's ``rollouts`` hook; with a range reader,
    its ``rollouts_guessing`` hook, the guesses of sample ``draw[q]`` at the leaf, read
    only where the reader plays against the seat whose range it reads)."""
    out = np.empty(leaf.size)
    args = (np.ascontiguousarray(pubs), c.game.params,
            np.ascontiguousarray(leaf, np.int64), np.ascontiguousarray(i0, np.int64),
            np.ascontiguousarray(i1, np.int64), c.styles[st0], c.styles[st1],
            np.ascontiguousarray(seeds, np.int64))
    if c._G is None:
        c.rollouts(*args, out)
        c.games_played += out.size
        return out
    assert c.focused.reader_root is not None
    guesses = c._G[leaf, draw]
    read = (st0, st1)[c.focused.reader_root[0]]  # the read seat's own style
    guesses[c.styles[read] == c.reader] = -1
    redo = np.ones(out.size, bool)
    call = len(c._games)
    if call < len(c._last_games):  # a reading round: the same games but the reader's
        before, was = c._last_games[call]
        if all(np.array_equal(x, y) for x, y in zip(before, args, strict=True)):
            redo = (c.styles[st0] == c.reader) | (c.styles[st1] == c.reader)
            out[:] = was
    c._games.append((args, out))
    if redo.all():
        c.guessing(*args, np.ascontiguousarray(guesses), out)
    elif redo.any():
        part = np.empty(int(redo.sum()))
        c.guessing(args[0], args[1], *(np.ascontiguousarray(x[redo]) for x in args[2:]),
                   np.ascontiguousarray(guesses[redo]), part)
        out[redo] = part
    c.games_played += int(redo.sum())
    return out
