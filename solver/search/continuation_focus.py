"""The focus: which rows a re-solve values by rollouts where not every pair of private states
fits the budget (the continuation notes: :mod:`spycfr.search.continuation`'s): the actual
cards' rows at each leaf, the balance rows drawn from the agent's range, the public reader's
rows drawn alike from its live rows, every state's own rows (:func:`focus_each`), and the
root range the range reader reads. Each function here returns a :class:`Focus`; the value
function keeps the last one and plays its rows' games."""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np

from spycfr.search import passes
from spycfr.search.tree import Subtree


def _no_rows() -> np.ndarray:
    return np.zeros(0, np.int64)


@dataclass
class Focus:
    """The rows of one re-solve (the continuation notes), leaf by leaf (by public state):
    ``actual``, the seat valued and its actual private state (-1: none, the public rows only;
    None: no focus), ``rows`` the actual cards' rows, ``balance`` the balance rows (or the
    public reader's), ``units`` each state's own rows (:func:`focus_each`), ``sample`` the rows
    drawn at the root (the actual cards' among them), ``public_rows`` the public reader's
    (``reader_range`` "public"), ``reader_root`` the seat and root range the range reader
    reads, ``guess_at`` the rows the opposing decision guesses at each leaf."""

    actual: tuple[int, int] | None = None
    rows: dict[bytes, np.ndarray] = field(default_factory=dict)
    balance: dict[bytes, np.ndarray] = field(default_factory=dict)
    units: list[tuple[int, dict[bytes, np.ndarray]]] = field(default_factory=list)
    sample: np.ndarray = field(default_factory=_no_rows)
    public_rows: np.ndarray = field(default_factory=_no_rows)
    reader_root: tuple[int, np.ndarray] | None = None
    guess_at: dict[bytes, np.ndarray] = field(default_factory=dict)


def uniform_play(tree: Subtree) -> np.ndarray:
    """Uniform play in ``tree``: every row of every decision uniform over its actions."""
    sigma = np.zeros(tree.row_kid.shape)
    passes.uniform(tree.kind, tree.row, tree.row_count, sigma)
    return sigma


def reached(tree: Subtree, seat: int, rows, sigma: np.ndarray | None = None) -> np.ndarray:
    """(nodes, n_seat): where ``seat``'s private states ``rows`` lead in ``tree`` (its
    reach from them under uniform play, ``sigma`` where the caller made it once
    (:func:`uniform_play`): > 0 where a row can be)."""
    if sigma is None:
        sigma = uniform_play(tree)
    root = np.zeros(tree.game.n[seat])
    root[np.asarray(rows, np.int64)] = 1.0
    out = np.zeros((tree.size, root.size))
    passes.forward(seat, *tree.seat_arrays(seat), sigma, root, out)
    return out


def reads_public(reader_range: str, focus_rows: int, weights: np.ndarray | None) -> bool:
    """Whether a re-solve values the rows of the public range (the continuation notes): the
    reader's, the opposing decision's, or (``choice`` "row", no reader) the rows valued
    each by its own ``max_a min_b``, so that a walk without actual cards values them
    as a game does."""
    return reader_range == "public" and focus_rows > 1 and weights is not None


def public_sample(seed: int, focus_rows: int, pub: np.ndarray,
                  weights: np.ndarray) -> np.ndarray:
    """The rows of the reader's public range at a re-solve from public state ``pub``:
    ``focus_rows`` - 1 drawn alike, without replacement, from the live rows of the range
    ``weights`` by a generator seeded with ``seed`` and the public state (sorted)."""
    live = np.flatnonzero(np.asarray(weights) > 0)
    rng = np.random.default_rng([seed, zlib.crc32(np.ascontiguousarray(pub).tobytes()),
                                 0x9b1c])
    drawn = rng.choice(live, size=min(focus_rows - 1, live.size), replace=False)
    return np.sort(drawn.astype(np.int64))


def balance_sample(seed: int, focus_rows: int, own: int, pub: np.ndarray,
                   weights: np.ndarray | None) -> np.ndarray:
    """The rows valued by rollouts at a re-solve from public state ``pub``: ``own`` and
    up to ``focus_rows`` - 1 rows drawn without replacement from the range ``weights``
    in proportion to it, by a generator seeded with ``seed`` and the public state (the
    same draw whatever ``own`` is, so the sample says nothing of the actual cards)."""
    if weights is None or focus_rows <= 1:
        return np.array([own], np.int64)
    w = np.asarray(weights, float)
    live = int((w > 0).sum())
    rng = np.random.default_rng([seed, zlib.crc32(np.ascontiguousarray(pub).tobytes())])
    drawn = rng.choice(w.size, size=min(focus_rows - 1, live), replace=False,
                       p=w / w.sum()) if live else np.zeros(0, np.int64)
    return np.unique(np.concatenate([drawn.astype(np.int64), [own]]))


def _focus_public(got: Focus, tree: Subtree, me: int, owns: np.ndarray, weights: np.ndarray,
                  seed: int, focus_rows: int) -> np.ndarray:
    """The public reader's rows into ``got`` (``public_rows``, the balance rows, the reader's
    root, the rows guessed at each leaf: the balance rows) and, for :func:`focus`, the rows
    of ``owns`` that those do not reach (the continuation notes); returns where the drawn rows lead
    (:func:`reached`), for :func:`focus_each`."""
    got.public_rows = public_sample(seed, focus_rows, tree.pub[0], weights)
    root = np.zeros(tree.game.n[me])
    root[got.public_rows] = 1.0
    got.reader_root = (me, root)
    drawn = (reached(tree, me, got.public_rows) if got.public_rows.size
             else np.zeros((tree.size, root.size)))
    mine = reached(tree, me, owns) if owns.size else None  # focus_each's: none
    for n in tree.leaves:
        key = tree.pub[n].tobytes()
        got.balance[key] = np.flatnonzero(drawn[n] > 0)
        if mine is not None:
            got.rows[key] = np.flatnonzero((mine[n] > 0) & (drawn[n] <= 0))
    got.guess_at = dict(got.balance)
    return drawn


def focus(seat: int | None, private: int | None, tree: Subtree | None,
          weights: np.ndarray | None, seed: int, focus_rows: int, reader_range: str) -> Focus:
    """Value ``seat``'s private state ``private`` with rollouts when not every pair can
    be (the agent's own cards); with the subgame ``tree``, at each leaf the private
    states it can lead to there (a switch changes the cards); with ``seat``'s range at
    the subgame's root (``weights``) and ``focus_rows`` > 1, also up to focus_rows - 1
    more rows drawn from it (balance: the continuation notes). None: no focus. With no ``private``
    (a walk without actual cards: the exact exploitability's) the public rows
    (``reader_range`` "public": with the opposing decision, ``choice`` "leaf", with or
    without ``guesses``, or per row, ``choice`` "row") are still valued, which are every
    row the seat plays where ``focus_rows`` exceeds the live rows of ``weights``, as a
    game with any cards values them."""
    public = reads_public(reader_range, focus_rows, weights)
    if private is None and seat is not None and tree is not None and public:
        assert weights is not None
        got = Focus(actual=(int(seat), -1))  # no actual cards: the drawn rows only
        _focus_public(got, tree, int(seat), _no_rows(), weights, seed, focus_rows)
        got.sample = got.public_rows.copy()
        return got
    got = Focus(actual=None if seat is None or private is None else (int(seat), int(private)))
    if got.actual is None or tree is None:
        return got
    me, own = got.actual
    if public:
        assert weights is not None
        _focus_public(got, tree, me, np.array([own], np.int64), weights, seed, focus_rows)
        got.sample = np.union1d(got.public_rows, [own]).astype(np.int64)
        return got
    got.sample = balance_sample(seed, focus_rows, own, tree.pub[0], weights)
    root = np.zeros(tree.game.n[me])
    root[got.sample] = 1.0 if weights is None else np.asarray(weights, float)[got.sample]
    if root.sum() <= 0:  # the actual cards outside the range given: they alone
        root[own] = 1.0
    got.reader_root = (me, root)
    uniform = uniform_play(tree)
    reach = [reached(tree, me, [own], uniform),
             reached(tree, me, got.sample[got.sample != own], uniform)]
    for n in tree.leaves:
        key = tree.pub[n].tobytes()
        got.rows[key] = np.flatnonzero(reach[0][n] > 0)
        got.balance[key] = np.flatnonzero((reach[1][n] > 0) & (reach[0][n] <= 0))
        got.guess_at[key] = np.union1d(got.rows[key], got.balance[key])
    return got


def focus_each(seat: int, privates, tree: Subtree, weights: np.ndarray | None, seed: int,
               focus_rows: int, reader_range: str) -> Focus:
    """Value each of ``seat``'s private states ``privates`` in the next solve of ``tree``
    as a :func:`focus` on it alone would (no balance rows): the rows it leads to at each
    leaf (``units``), with the draws per row that its own games' count gives
    (:meth:`spycfr.search.continuation.Continuations.focus_each`). A range reader reads the
    range ``weights`` (over seat's private states; None: the states ``privates`` alike);
    with ``reader_range`` "public", ``weights`` is the agent's own range at the root, whose
    live rows the public range is drawn from as :func:`focus` draws it (``public_rows``:
    those rows, which the solve's range must hold too), valued first, and each state's rows
    are those the drawn rows do not reach."""
    privates = [int(i) for i in privates]
    got = Focus(actual=(int(seat), privates[0]) if privates else None)
    drawn = None  # the public reader's: where its drawn rows lead
    if privates and weights is not None and reads_public(reader_range, focus_rows, weights):
        drawn = _focus_public(got, tree, seat, _no_rows(), weights, seed, focus_rows)
    elif weights is not None:
        got.reader_root = (seat, np.asarray(weights, float).copy())
    elif privates:
        root = np.zeros(tree.game.n[seat])
        root[privates] = 1.0
        got.reader_root = (seat, root)
    uniform = uniform_play(tree) if privates else None  # one for every state's pass
    for i in privates:
        reach = reached(tree, seat, [i], uniform) > 0
        if drawn is not None:  # the rows the drawn ones reach are valued with theirs
            reach &= drawn <= 0
        got.units.append((i, {tree.pub[n].tobytes(): np.flatnonzero(reach[n])
                              for n in tree.leaves}))
    if drawn is None:  # the guesses: every state's rows (the public reader's: its rows)
        for _, rows_at in got.units:
            for key, rows in rows_at.items():
                got.guess_at[key] = np.union1d(got.guess_at.get(key, rows), rows)
    return got
