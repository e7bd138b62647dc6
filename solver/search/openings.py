"""A game's openings solved as a matrix game: the first decisions of both seats that the
other does not see (Agent Hunter's two placements), every pair of them valued by the rest of
the game played by continuation strategies, and the matrix game solved exactly.

The entry of a pair of openings (i, j) and continuations (a, b) is P1's mean payoff of games
played to the end from the public state after the openings by the game's ``rollouts`` hook,
P1 holding i and continuing as heuristic style a, P2 holding j and continuing as b. A pure
strategy of a seat is (opening, continuation): its continuation is its own choice, made
knowing its opening but not the opponent's (Brown, Sandholm and Amos 2018, multi-valued
states, with the choice made once for the whole game). The LP (HiGHS) gives both seats'
equilibrium mixtures and the value.

Symmetry: the game's ``opening_classes`` hook groups openings the rules cannot tell apart
(Agent Hunter: one set of cards in any house order); an entry is then a pair of classes,
each game drawing a member of each class uniformly, so a seat playing a class plays its
members uniformly (which also tells an opponent nothing about the order).

Sampling: ``games`` games per entry and pair of continuations, common random numbers across
entries (game g of every entry uses the same seed and the same member draws), kept as two
halves (games g < games/2 and the rest) so that the noise can be measured: each half's
equilibrium and its guarantee on the other half (:func:`split_half`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from spycfr import __version__
from spycfr.errors import ParameterError, SpycfrError
from spycfr.games import get_plugin
from spycfr.io import save_npz
from spycfr.memory import missing_or, reading
from spycfr.search import passes
from spycfr.search.subgame import subgame
from spycfr.search.tree import LEAF, GameModel
from spycfr.words import params_text

METHOD = ("matrix game over (opening class, continuation) pairs, entries the mean of games "
          "played to the end by the continuations (common random numbers), solved by the "
          "HiGHS LP")


@dataclass
class OpeningGame:
    """What the table is made of: the public state after both seats' openings (the only leaf
    of the game's first ``depth`` decision levels), each seat's openings there (private
    states) and their classes, the continuations' heuristic styles."""

    game: str
    variant: dict
    params: object
    model: GameModel
    pub: np.ndarray
    members: tuple[list[np.ndarray], list[np.ndarray]]  # per seat, per class: private states
    names: tuple[list[str], list[str]]  # per seat, per class
    styles: np.ndarray
    rollouts: Callable

    @classmethod
    def of(cls, game: str, variant: dict, depth: int = 2) -> OpeningGame:
        plugin = get_plugin(game)
        if plugin.rollouts is None or not plugin.continuations:
            raise SpycfrError(f"{game} has no rollouts hook and continuations: its openings "
                              "cannot be valued by games played to the end")
        var = plugin.make_variant(None, variant)
        params = (plugin.search_params or plugin.numba_params)(var)
        model = GameModel.of(params)
        tree = subgame(model, model.root(), depth)
        leaves = np.flatnonzero(tree.kind[:tree.size] == LEAF)
        if leaves.size != 1 or not np.isin(tree.kind[:tree.size], (0, 1, LEAF)).all():
            raise SpycfrError(f"{game}: the openings are not {depth} decisions that lead to "
                              "one public state; no matrix game")
        leaf = int(leaves[0])
        members, names = [], []
        for seat in (0, 1):
            sigma = np.zeros(tree.row_kid.shape)
            passes.uniform(tree.kind, tree.row, tree.row_count, sigma)
            reach = np.zeros((tree.size, model.n[seat]))
            passes.forward(seat, *tree.seat_arrays(seat), sigma, model.weights[seat], reach)
            live = np.flatnonzero(reach[leaf] > 0)
            if plugin.opening_classes is None:
                cls_of, cls_names = np.arange(model.n[seat]), [str(i) for i in
                                                               range(model.n[seat])]
            else:
                cls_of, cls_names = plugin.opening_classes(var)
            ids = np.unique(cls_of[live])
            members.append([live[cls_of[live] == c] for c in ids])
            names.append([cls_names[c] for c in ids])
        styles = np.array([plugin.heuristic_styles.index(c) for c in plugin.continuations],
                          np.int64)
        return cls(game, var.as_dict(), params, model, tree.pub[leaf].copy(),
                   (members[0], members[1]), (names[0], names[1]), styles, plugin.rollouts)

    def shape(self) -> tuple[int, int, int]:
        return len(self.members[0]), len(self.members[1]), self.styles.size


def play_table(og: OpeningGame, games: int, seed: int, partial: str | Path | None = None,
               progress: Callable[[str], None] | None = None) -> np.ndarray:
    """``(2, C0, C1, k, k)`` float64: P1's mean payoff per half of the ``games`` games of each
    pair of classes and continuations. Row by row of P1's classes; with ``partial`` the rows
    done are saved there every ``ROWS_PER_SAVE`` rows and a rerun with the same settings goes
    on from them."""
    if games < 2 or games % 2:
        raise ParameterError(f"{{games}} must be an even number >= 2 per entry, got {games}",
                             "games")
    c0, c1, k = og.shape()
    rng = np.random.default_rng(seed)
    seeds = rng.integers(0, 2**31 - 1, games)
    u0, u1 = rng.random(games), rng.random(games)  # member draws, shared by every entry
    meta = json.dumps({"game": og.game, "variant": og.variant, "games": games, "seed": seed,
                       "styles": og.styles.tolist()})
    sums = np.zeros((2, c0, c1, k, k))
    done = 0
    if partial is not None and Path(partial).is_file():
        with np.load(partial) as z:
            if str(z["meta"]) == meta:
                done, sums = int(z["done"]), z["sums"].copy()
    half = np.arange(games) >= games // 2
    if progress is not None:
        progress(f"{c0} x {c1} opening classes, {k} x {k} continuations, {games} games each: "
                 f"{c0 * c1 * k * k * games:,} games"
                 + (f" ({done} rows of {c0} done before)" if done else ""))
    start = time.perf_counter()
    for r in range(done, c0):
        rows = og.members[0][r]
        i0 = rows[np.minimum((u0 * rows.size).astype(np.int64), rows.size - 1)]
        jobs = []
        for c in range(c1):
            cols = og.members[1][c]
            jobs.append(cols[np.minimum((u1 * cols.size).astype(np.int64), cols.size - 1)])
        j1 = np.concatenate(jobs)  # (c1 * games,)
        # every (col class, a, b, game): a, b the continuations of P1 and P2
        n = c1 * k * k * games
        i1 = np.tile(j1.reshape(c1, 1, games), (1, k * k, 1)).ravel()
        st0 = np.tile(np.repeat(og.styles, k * games), c1)
        st1 = np.tile(np.repeat(np.tile(og.styles, k), games), c1)
        out = np.empty(n)
        og.rollouts(og.pub[None, :], og.params, np.zeros(n, np.int64), np.tile(i0, c1 * k * k),
                    np.ascontiguousarray(i1), st0, st1, np.tile(seeds, c1 * k * k), out)
        u = out.reshape(c1, k, k, games)
        sums[0, r] = u[..., ~half].sum(axis=-1)
        sums[1, r] = u[..., half].sum(axis=-1)
        if partial is not None and ((r + 1) % ROWS_PER_SAVE == 0 or r + 1 == c0):
            save_npz(partial, meta=np.array(meta), done=np.array(r + 1), sums=sums)
        if progress is not None:
            spent = time.perf_counter() - start
            progress(f"row {r + 1}/{c0} ({og.names[0][r]}): {(r + 1 - done) * n:,} games in "
                     f"{spent:.0f} s, about {spent / (r + 1 - done) * (c0 - r - 1):.0f} s to go")
    return sums / (games // 2)


ROWS_PER_SAVE = 4
# classes in the equilibrium's support whose values differ by no more than this tie (the LP's
# values: an equilibrium mixes only classes of equal value against the other's mixture)
TIED = 1e-9


def matrix(u: np.ndarray) -> np.ndarray:
    """``(C0, C1, k, k)`` -> the ``(C0 k, C1 k)`` payoff matrix of P1 over (class,
    continuation) pure strategies."""
    c0, c1, k, _ = u.shape
    return u.transpose(0, 2, 1, 3).reshape(c0 * k, c1 * k)


def solve_matrix(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """The row player's (maximiser's) and the column player's equilibrium mixtures and the
    value of the matrix game ``a`` (HiGHS, one LP per seat)."""
    from scipy.optimize import linprog

    def maximin(m: np.ndarray) -> tuple[np.ndarray, float]:
        r, c = m.shape
        # variables (x, v): max v s.t. v <= x^T m[:, j] for every j, sum x = 1, x >= 0
        cost = np.zeros(r + 1)
        cost[-1] = -1.0
        res = linprog(cost, A_ub=np.hstack([-m.T, np.ones((c, 1))]), b_ub=np.zeros(c),
                      A_eq=np.hstack([np.ones((1, r)), np.zeros((1, 1))]), b_eq=[1.0],
                      bounds=[(0, None)] * r + [(None, None)], method="highs")
        if res.status != 0:
            raise SpycfrError(f"the openings' LP failed: {res.message}")
        x = np.maximum(res.x[:r], 0.0)
        return x / x.sum(), float(res.x[-1])

    x, v = maximin(a)
    y, w = maximin(-a.T)
    assert abs(v + w) < 1e-6 * max(1.0, abs(v)), (v, w)
    return x, y, v


@dataclass
class Equilibrium:
    """Both seats' mixtures over (class, continuation) and the value for P1."""

    x: np.ndarray  # (C0, k)
    y: np.ndarray  # (C1, k)
    value: float

    @classmethod
    def of(cls, u: np.ndarray) -> Equilibrium:
        c0, c1, k, _ = u.shape
        x, y, v = solve_matrix(matrix(u))
        return cls(x.reshape(c0, k), y.reshape(c1, k), v)

    def classes(self, seat: int) -> np.ndarray:
        return (self.x if seat == 0 else self.y).sum(axis=1)


def class_values(u: np.ndarray, eq: Equilibrium, seat: int) -> np.ndarray:
    """Each of ``seat``'s classes' value for that seat against the other seat's equilibrium
    mixture, with its best continuation."""
    if seat == 0:
        return np.einsum("rcab,cb->ra", u, eq.y).max(axis=1)
    return (-np.einsum("rcab,ra->cb", u, eq.x)).max(axis=1)


def split_half(halves: np.ndarray) -> dict:
    """How much the equilibrium depends on the games drawn: each half's equilibrium value, the
    guarantee of each half's mixtures measured on the other half (the worst reply there), and
    the total variation distance between the halves' mixtures over classes per seat."""
    eqs = [Equilibrium.of(h) for h in halves]
    out = {"value_half": [e.value for e in eqs], "guarantee_p1_on_other": [],
           "guarantee_p2_on_other": []}
    for h in (0, 1):
        other = matrix(halves[1 - h])
        out["guarantee_p1_on_other"].append(float((eqs[h].x.ravel() @ other).min()))
        out["guarantee_p2_on_other"].append(float((other @ eqs[h].y.ravel()).max()))
    out["tv_distance"] = [float(0.5 * np.abs(eqs[0].classes(s) - eqs[1].classes(s)).sum())
                          for s in (0, 1)]
    return out


@dataclass
class OpeningTable:
    """A solved openings table: the games' means (two halves), the equilibrium, its split-half
    check and the settings that made it; each seat's mixture over its private states."""

    halves: np.ndarray  # (2, C0, C1, k, k)
    members: tuple[list[np.ndarray], list[np.ndarray]]
    names: tuple[list[str], list[str]]
    meta: dict
    eq: Equilibrium
    check: dict

    @classmethod
    def make(cls, og: OpeningGame, games: int, seed: int, partial: str | Path | None = None,
             progress: Callable[[str], None] | None = None) -> OpeningTable:
        start = time.perf_counter()
        halves = play_table(og, games, seed, partial, progress)
        seconds = time.perf_counter() - start
        eq = Equilibrium.of(halves.mean(axis=0))
        c0, c1, k = og.shape()
        meta = {"game": og.game, "variant": og.variant, "method": METHOD,
                "games_per_entry": games, "seed": seed, "continuations": [
                    get_plugin(og.game).heuristic_styles[s] for s in og.styles],
                "classes": [c0, c1], "games": games * c0 * c1 * k * k,
                "seconds": seconds, "version": __version__}
        return cls(halves, og.members, og.names, meta, eq, split_half(halves))

    @property
    def u(self) -> np.ndarray:
        return self.halves.mean(axis=0)

    def private_mixture(self, seat: int, n: int) -> np.ndarray:
        """``seat``'s equilibrium probability of each of its ``n`` private states (a class's
        probability spread evenly over its members)."""
        p = np.zeros(n)
        for c, rows in zip(self.eq.classes(seat), self.members[seat], strict=True):
            p[rows] = c / rows.size
        return p

    def private_values(self, seat: int, n: int) -> np.ndarray:
        """The value for ``seat`` of each private state against the other's mixture (nan for
        states that are no opening)."""
        v = np.full(n, np.nan)
        for c, rows in zip(class_values(self.u, self.eq, seat), self.members[seat],
                           strict=True):
            v[rows] = c
        return v

    def save(self, path: str | Path) -> None:
        arrays = {"halves": self.halves.astype(np.float32),
                  "meta": np.array(json.dumps({**self.meta, "value_p1": self.eq.value,
                                               "split_half": self.check})),
                  "x": self.eq.x, "y": self.eq.y, "value": np.array(self.eq.value)}
        for s in (0, 1):
            arrays[f"names{s}"] = np.array(self.names[s])
            arrays[f"sizes{s}"] = np.array([m.size for m in self.members[s]])
            arrays[f"members{s}"] = np.concatenate(self.members[s])
        save_npz(path, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> OpeningTable:
        if not Path(path).is_file():
            raise SpycfrError(f"no openings table {str(path)!r}")
        # numpy, zipfile, json and the fields raise many types
        with reading(lambda exc: f"the openings table {str(path)!r} is unreadable or corrupt "
                                 f"({missing_or(exc)}): make it again with `spycfr "
                                 f"train-openings {Path(path).parent}`"):
            with np.load(path) as z:
                meta = json.loads(str(z["meta"]))
                members = tuple(np.split(z[f"members{s}"], np.cumsum(z[f"sizes{s}"])[:-1])
                                for s in (0, 1))
                names = tuple([str(x) for x in z[f"names{s}"]] for s in (0, 1))
                eq = Equilibrium(z["x"], z["y"], float(z["value"]))
                halves = z["halves"].astype(np.float64)
            check = meta.pop("split_half")
            meta.pop("value_p1")
        return cls(halves, members, names, meta, eq, check)  # type: ignore[arg-type]

    def check_for(self, game: str, variant: dict, path: str | Path,
                  again: str | None = None) -> None:
        """Refuse the table unless it was made for ``game``'s ``variant`` (``as_dict()``, as
        the game's make_variant writes it): the one check of every reader (SearchAgent,
        spycfr.runs.agent_run.opening_table), one line naming the file, the game and variant
        it is for and those it should be for, then ``again`` (how to make it again; default:
        `spycfr train-openings` of the file's folder, as :meth:`load` says)."""
        made_for = (self.meta.get("game"), self.meta.get("variant"))
        if made_for == (game, variant):
            return
        if again is None:
            again = f"make it again with `spycfr train-openings {Path(path).parent}`"
        raise SpycfrError(f"the openings table {str(path)!r} is for {made_for[0]} "
                          f"{_variant_words(made_for[1])}, not this run's {game} "
                          f"{_variant_words(variant)}: {again}")

    def summary(self, top: int = 10) -> dict:
        """The value and each seat's support and top classes with probability and value."""
        out = {"value_p1": _clean(self.eq.value), **{k: self.meta[k] for k in (
            "games_per_entry", "seed", "continuations", "games", "seconds")},
            "split_half": self.check}
        for s in (0, 1):
            p, v = self.eq.classes(s), class_values(self.u, self.eq, s)
            order = np.argsort(-p, kind="stable")
            out[f"P{s + 1}"] = {
                "support": int((p > 1e-9).sum()),
                "top": [{"cards": self.names[s][c], "probability": float(p[c]),
                         "value": _clean(v[c])} for c in order[:top] if p[c] > 1e-9]}
        return out

    def describe(self, what: str = "openings", group: str = "class") -> list[str]:
        """How the table was made; the value with its split-half check (two sentences)."""
        s, c = self.summary(0), self.check
        return [
            f"{what} solved as a matrix game: {self.meta['classes'][0]} x "
            f"{self.meta['classes'][1]} {group}s, each seat also choosing how to continue ("
            f"{' or '.join(self.meta['continuations'])}); {s['games_per_entry']:,} games per "
            f"entry and pair of continuations (seed {s['seed']}, {s['games']:,} games)",
            f"value for P1 {s['value_p1']:+.4f}; two halves of the games: "
            f"{c['value_half'][0]:+.4f} and {c['value_half'][1]:+.4f}; each half's mixtures "
            f"measured on the other half guarantee P1 at least "
            f"{min(c['guarantee_p1_on_other']):+.4f} and P2 at least "
            f"{-max(c['guarantee_p2_on_other']):+.4f} (the value minus what noise costs); "
            f"the halves' mixtures differ by {c['tv_distance'][0]:.2f} (P1) and "
            f"{c['tv_distance'][1]:.2f} (P2) in total variation",
        ]

    def lines(self, top: int = 10, what: str = "openings", group: str = "class") -> list[str]:
        """The table in words (:meth:`describe`), then each seat's most played classes with
        their probability and value."""
        s, out = self.summary(top), self.describe(what, group)
        for p in ("P1", "P2"):
            values = [row["value"] for row in s[p]["top"]]
            same = len(values) > 1 and max(values) - min(values) <= TIED
            out.append(f"{p}: {s[p]['support']} {group}s played (each in any house order, "
                       f"uniformly); value = against the other's mixture, continuing best"
                       + (f"; the {group}s played tie (an equilibrium mixes only moves of "
                          "equal value): rank is by probability, not by value" if same else ""))
            out.append(f"  {'rank':>4}  {group:<12} {'eq prob':>8} {'value':>8}")
            for r, row in enumerate(s[p]["top"], 1):
                out.append(f"  {r:>4}  {row['cards']:<12} {row['probability']:>8.4f} "
                           f"{row['value']:>+8.4f}")
        return out


def _variant_words(variant: object) -> str:
    """A variant as ``k=v`` words (what a table's meta holds, so anything: its repr, cut)."""
    if not isinstance(variant, dict):
        return repr(variant)[:80]
    return params_text(variant)


def _clean(x: float) -> float:
    """``x`` without LP round-off's last digits (and no -0.0 to print)."""
    return round(float(x), 12) + 0.0
