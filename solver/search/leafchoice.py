"""The opponent's choice of continuation at each leaf as a decision of the subgame (``choice``
"leaf" of :class:`spycfr.search.continuation.Continuations`; Brown, Sandholm and Amos 2018,
"Depth-Limited Solving for Imperfect-Information Games").

One information set per leaf (the opponent's private state left out of the choice), solved
by regret matching+ inside the value function: a step at every call of the solve's loop
against the focus seat's reach at the leaf (the solve's current range). Its current strategy
sigma_leaf gives valued row r the value ``max_a sum_b sigma_leaf[b] U_r[a, b]`` (the seat's
own continuation a stays its row's choice); the average of the strategies, weighted linearly
by step, is the decision's answer (:meth:`LeafDecisions.average`).

Between the per-row choice and the decision with guesses (experiments, docs/search.md:
the decision with guesses cuts what a best responder wins and loses the margin against the
hunter, the per-row choice the other way round), two options of :class:`LeafDecisions`:

* ``guess_weight`` w < 1: the decision puts at most w of its mass on the guess continuations
  (the columns after the ``plain`` ones): two regret-matching+ decisions, one over the plain
  continuations and one over all, their current strategies mixed (1 - w) : w (every
  strategy with at most w on the guesses is such a mix), each stepped with the same
  counterfactual gains. w = 1 (the default) is the decision with guesses as it was; where a
  leaf has no guesses it is the one decision.
* ``row_weight`` lam > 0: each row's value is lam times its per-row ``max_a min_b`` over the
  plain continuations (``choice`` "row") plus 1 - lam times its value under the decision;
  the decision is stepped by its own part (regret matching+ is scale-free). lam = 0 (the
  default) is the decision alone, lam = 1 the per-row choice.

The step over every leaf runs at every call of the solve's loop, so it is one numba kernel
over flat arrays (:func:`_step_all`); :func:`leaf_choice_step` is the same step of one leaf
in numpy (the reference the tests hold the kernel to).

Brown et al.'s full form (``choice`` "state", :class:`StateDecisions`): one decision per leaf
AND opposing private state j, the opponent holding j choosing for j. The opposing states
are the draws the rows' games were played against, so each row keeps its values per draw,
``q[r, a, b, m]``; row r's value is ``max_a mean_m sum_b sigma_{j_m}[b] q[r, a, b, m]``
and state j's decision is stepped by the draws played against j (:func:`_step_states`,
numba; :func:`state_choice_step` its numpy reference).

The per-row choice (``choice`` "row", the default) is no decision: each row takes its own
``max_a min_b`` (:func:`robust`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import NamedTuple

import numpy as np
from numba import njit

from spycfr.search.continuation_rows import ValuedRow

# how the opposing continuation is chosen at a leaf (spycfr.search.continuation's notes): per
# row (max_a min_b), or as the opponent's decision of the subgame, against the focus seat's
# range there, one per leaf, or per leaf and opposing private state (Brown et al.'s full form)
CHOICES = ("row", "leaf", "state")


def robust(q: np.ndarray) -> np.ndarray:
    """``q[..., a, b]`` (own continuation a, the opponent's b) -> ``max_a min_b``."""
    return q.min(axis=-1).max(axis=-1)


@dataclass
class LeafDecision:
    """The opponent's decision at one leaf (``choice`` "leaf"): the seat valued, the leaf,
    the rows valued there, their values per pair of continuations ``q[r, a, b]``, the
    opposing weights, whether each row is in the range the decision answers, and its
    regret-matching+ regrets, the plain decision's (``guess_weight``, module notes) and
    average strategy: views of :class:`LeafDecisions`' flat arrays, which its grouping
    makes (empty before)."""

    seat: int
    leaf: int
    rows: np.ndarray
    q: np.ndarray
    weights: np.ndarray
    answers: np.ndarray
    regret: np.ndarray = field(init=False, default_factory=partial(np.zeros, 0))
    plain_regret: np.ndarray = field(init=False, default_factory=partial(np.zeros, 0))
    avg: np.ndarray = field(init=False, default_factory=partial(np.zeros, 0))


def leaf_choice_step(u: np.ndarray, reach: np.ndarray, regret: np.ndarray,
                     guess_weight: float = 1.0, plain_regret: np.ndarray | None = None,
                     row_weight: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """One regret-matching+ step of the opponent's choice of continuation at a leaf (module
    notes): ``u[r, a, b]``, row r's value (its own seat's) with its own continuation a
    against the opposing b, already weighted by the opposing mass; ``reach[r]``, the row's
    reach (the seat's range at the leaf); ``regret[b]`` (>= 0, updated in place). Returns
    each row's value ``max_a sum_b sigma[b] u[r, a, b]`` under the current strategy sigma
    (regret matching; uniform where no regret), and sigma. With ``plain_regret`` (the
    plain decision's regrets over the first ``plain_regret.size`` continuations, updated in
    place) and ``guess_weight`` w < 1 (with guesses: more columns than plain ones), sigma is
    the plain decision's strategy times 1 - w plus the whole decision's times w; with
    ``row_weight`` lam the values are lam times each row's ``max_a min_b`` over the plain
    columns plus 1 - lam times the above."""
    whole = sigma = _matched(regret)  # the whole decision's strategy
    plain = u.shape[2] if plain_regret is None else plain_regret.size
    mixed = plain_regret is not None and guess_weight < 1.0 and plain < u.shape[2]
    if mixed:
        assert plain_regret is not None
        own = _matched(plain_regret)  # the plain decision's
        sigma = guess_weight * whole
        sigma[:plain] += (1.0 - guess_weight) * own
    ev = u @ sigma  # (R, a)
    best = ev.argmax(axis=1)
    picked = np.arange(best.size)
    # the opponent's counterfactual gain of each b: the rows' losses, weighted by their reach
    gain = -(np.asarray(reach)[:, None] * u[picked, best, :]).sum(axis=0)
    if mixed:
        assert plain_regret is not None
        plain_regret += gain[:plain] - own @ gain[:plain]
        np.maximum(plain_regret, 0.0, out=plain_regret)
    regret += gain - whole @ gain
    np.maximum(regret, 0.0, out=regret)
    value = ev[picked, best]
    if row_weight > 0.0:
        value = row_weight * u[:, :, :plain].min(axis=2).max(axis=1) + (1.0 - row_weight) * value
    return value, sigma


def _matched(regret: np.ndarray) -> np.ndarray:
    """Regret matching: the regrets normalised, uniform where none is positive."""
    total = regret.sum()
    return regret / total if total > 0 else np.full(regret.size, 1.0 / regret.size)


class LeafArrays(NamedTuple):
    """:class:`LeafDecisions`' flat arrays (its notes), as the kernel takes them."""

    leaf: np.ndarray
    start: np.ndarray
    bstart: np.ndarray
    rows: np.ndarray
    qstart: np.ndarray
    q: np.ndarray
    weights: np.ndarray
    answers: np.ndarray
    regret: np.ndarray
    avg: np.ndarray
    pstart: np.ndarray
    plain_regret: np.ndarray


class LeafDecisions:
    """Every leaf's opposing decision of one solve, one seat's (``choice`` "leaf"): made by
    :meth:`group` from the solve's valued rows, stepped at every call of the solve's loop
    (:meth:`step`). The decisions' arrays are kept flat for the kernel: leaf d's rows are
    ``start[d]:start[d + 1]``, its continuations ``bstart[d]:bstart[d + 1]`` of ``regret``
    and ``avg`` (its plain ones the first ``plain`` of them, ``pstart[d]:pstart[d + 1]`` of
    ``plain_regret``), row r's values ``q[qstart[r]:qstart[r] + own * b]`` (a-major); each
    decision's ``regret``, ``plain_regret``, ``avg``, ``q`` and ``weights`` are views of
    them. ``plain``: the opposing continuations before the guesses; ``guess_weight`` and
    ``row_weight``: the options of the module notes (1 and 0: the decision alone)."""

    def __init__(self, plain: int = 0, guess_weight: float = 1.0,
                 row_weight: float = 0.0) -> None:
        self.decisions: list[LeafDecision] = []
        self.steps = 0
        self.plain, self.guess_weight, self.row_weight = plain, guess_weight, row_weight
        self._flat: LeafArrays | None = None

    def __len__(self) -> int:
        return len(self.decisions)

    def group(self, seat: int, valued: list[ValuedRow], pubs: np.ndarray,
              answered: dict[bytes, np.ndarray]) -> None:
        """The decisions of a new solve, regrets 0: ``valued``, the rows valued by rollouts
        (their values per pair of continuations (a, b) and opposing weights), grouped by
        leaf; a row answers the decision where ``answered`` (by public state) names it or
        names nothing for the leaf (the public reader's rows, not the actual cards' outside
        them, so that the decision is the same whatever the actual cards)."""
        self.decisions, self.steps = [], 0
        by_leaf: dict[int, list[ValuedRow]] = {}
        for x in valued:
            by_leaf.setdefault(int(x.leaf), []).append(x)
        for lf, got in sorted(by_leaf.items()):
            q = np.stack([x.values for x in got])  # (R, a, b): b the same per leaf
            rows = np.array([x.row for x in got], np.int64)
            named = answered.get(pubs[lf].tobytes())
            answers = np.ones(rows.size) if named is None else np.isin(rows, named) * 1.0
            self.decisions.append(LeafDecision(seat, lf, rows, q,
                                               np.stack([x.weights for x in got]), answers))
        self._flatten()

    def _flatten(self) -> None:
        ds = self.decisions
        if not ds:
            self._flat = None
            return
        sizes = np.array([d.rows.size for d in ds], np.int64)
        nb = np.array([d.q.shape[2] for d in ds], np.int64)
        npl = np.minimum(nb, self.plain) if self.plain > 0 else nb  # plain ones (0: all)
        start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        bstart = np.concatenate([[0], np.cumsum(nb)]).astype(np.int64)
        pstart = np.concatenate([[0], np.cumsum(npl)]).astype(np.int64)
        per_row = np.repeat(nb * ds[0].q.shape[1], sizes)
        qstart = np.concatenate([[0], np.cumsum(per_row)[:-1]]).astype(np.int64)
        regret, avg = np.zeros(int(bstart[-1])), np.zeros(int(bstart[-1]))
        plain_regret = np.zeros(int(pstart[-1]))
        q = np.ascontiguousarray(np.concatenate([d.q.ravel() for d in ds]), float)
        weights = np.ascontiguousarray(np.concatenate([d.weights for d in ds]), float)
        # each decision's values and weights become views of the flat ones, held once, not
        # twice (the weights: a float per valued row and opposing state, 721 a row on
        # ``standard``)
        for x, d in enumerate(ds):
            d.regret, d.avg = regret[bstart[x]:bstart[x + 1]], avg[bstart[x]:bstart[x + 1]]
            d.plain_regret = plain_regret[pstart[x]:pstart[x + 1]]
            at = qstart[start[x]]
            d.q = q[at:at + d.q.size].reshape(d.q.shape)
            d.weights = weights[start[x]:start[x + 1]]
        self._flat = LeafArrays(np.array([d.leaf for d in ds], np.int64), start, bstart,
                                np.concatenate([d.rows for d in ds]), qstart, q, weights,
                                np.concatenate([d.answers for d in ds]).astype(float),
                                regret, avg, pstart, plain_regret)

    def step(self, out: tuple[np.ndarray, np.ndarray],
             ranges: tuple[np.ndarray, np.ndarray], z: float) -> None:
        """One step of every leaf's decision: the valued rows' values (over the game's
        payoff scale ``z``) under its current strategy into ``out``, its regrets from the
        seat's current reach there (``ranges``)."""
        if self._flat is None:
            return
        self.steps += 1
        s, f = self.decisions[0].seat, self._flat
        _step_all(f.leaf, f.start, f.bstart, f.rows, f.qstart, f.q, f.weights, f.answers,
                  np.ascontiguousarray(ranges[s], float),
                  np.ascontiguousarray(ranges[1 - s], float), float(z),
                  int(self.decisions[0].q.shape[1]), f.regret, f.avg, float(self.steps),
                  out[s], f.pstart, f.plain_regret, float(self.guess_weight),
                  float(self.row_weight))

    def average(self) -> list[tuple[int, int, np.ndarray, np.ndarray]]:
        """Each leaf's average choice: (seat valued, leaf, rows valued, probability of each
        opposing continuation)."""
        return [(d.seat, d.leaf, d.rows, d.avg / d.avg.sum() if d.avg.sum() > 0 else d.avg)
                for d in self.decisions]


@njit(cache=True, fastmath={"reassoc", "contract"})
def _dot(x, y):
    """x . y, summed in whatever order vectorises (the rows' opposing masses: most of the
    step's time, 721 terms a row on ``standard``)."""
    total = 0.0
    for j in range(x.size):
        total += x[j] * y[j]
    return total


@njit(cache=True)
def _matched_of(regret, b0, nb):
    """Regret matching of ``regret[b0:b0 + nb]``: the regrets normalised, uniform where
    none is positive."""
    total = 0.0
    for b in range(nb):
        total += regret[b0 + b]
    sigma = np.empty(nb)
    for b in range(nb):
        sigma[b] = regret[b0 + b] / total if total > 0 else 1.0 / nb
    return sigma


@njit(cache=True)
def _regret_step(regret, b0, nb, sigma, gain):
    """Regret matching+'s update of ``regret[b0:b0 + nb]`` by ``gain[:nb]``, less the gain
    of ``sigma``, its current strategy (:func:`_matched_of`, taken before the step)."""
    mean = 0.0
    for b in range(nb):
        mean += sigma[b] * gain[b]
    for b in range(nb):
        regret[b0 + b] = max(regret[b0 + b] + gain[b] - mean, 0.0)


@njit(cache=True)
def _step_all(leaf, start, bstart, rows, qstart, q, weights, answers, reach, opposing, z,
              own, regret, avg, step, out, pstart, plain_regret, guess_weight, row_weight):
    """:func:`leaf_choice_step` at every leaf d (flat arrays: :class:`LeafDecisions`), each
    row's values times its opposing mass ``weights[r] . opposing[leaf] / z``; the values
    into ``out[leaf, row]``, sigma times ``step`` added to ``avg``; ``guess_weight`` and
    ``row_weight`` as the module notes (the plain decision's regrets ``plain_regret``)."""
    for d in range(leaf.size):
        lf = leaf[d]
        b0, nb = bstart[d], bstart[d + 1] - bstart[d]
        p0, npl = pstart[d], pstart[d + 1] - pstart[d]
        mixed = guess_weight < 1.0 and npl < nb
        # each decision's strategy taken once: played (mixed) and stepped from
        whole = sigma = _matched_of(regret, b0, nb)
        mine = _matched_of(plain_regret, p0, npl) if mixed else whole
        if mixed:
            sigma = guess_weight * whole
            for b in range(npl):
                sigma[b] += (1.0 - guess_weight) * mine[b]
        gain = np.zeros(nb)
        for r in range(start[d], start[d + 1]):
            mass = _dot(weights[r], opposing[lf]) / z
            base = qstart[r]
            best, pick, robust = -np.inf, 0, -np.inf
            for a in range(own):
                ev = 0.0
                for b in range(nb):
                    ev += q[base + a * nb + b] * mass * sigma[b]
                if ev > best:
                    best, pick = ev, a
                if row_weight > 0.0:
                    worst = np.inf
                    for b in range(npl):
                        worst = min(worst, q[base + a * nb + b] * mass)
                    robust = max(robust, worst)
            out[lf, rows[r]] = (row_weight * robust + (1.0 - row_weight) * best
                                if row_weight > 0.0 else best)
            w = reach[lf, rows[r]] * answers[r]
            for b in range(nb):
                gain[b] -= w * (q[base + pick * nb + b] * mass)
        if mixed:
            _regret_step(plain_regret, p0, npl, mine, gain)
        _regret_step(regret, b0, nb, whole, gain)
        for b in range(nb):
            avg[b0 + b] += step * sigma[b]


# ---------------------------------------------------------------------------------------------
# The opponent's choice per leaf and opposing private state (``choice`` "state")


def state_choice_step(u: list[np.ndarray], states: list[np.ndarray], reach: np.ndarray,
                      regret: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One regret-matching+ step of the opponent's choices at a leaf, one per opposing
    private state (``choice`` "state", :class:`StateDecisions`): ``u[r]`` (a, b, m), row
    r's value (its own seat's) with its own continuation a against the opposing b in its
    game against sample m, already weighted by the opposing mass; ``states[r][m]``, the
    opposing decision (0..J-1) sample m of row r was played against (its private state);
    ``reach[r]``, the row's reach; ``regret`` (J, b), >= 0, updated in place. Row r's value
    is ``max_a mean_m sum_b sigma[states[r][m], b] u[r][a, b, m]`` under the current
    strategies sigma (J, b) (regret matching per state; uniform where no regret); state j's
    counterfactual gain of b is minus the reach-weighted values of the samples played
    against j at each row's best a, over the row's samples. Returns the values and sigma."""
    sigma = np.stack([_matched(x) for x in regret])
    value = np.zeros(len(u))
    gain = np.zeros(regret.shape)
    for r, (ur, jr) in enumerate(zip(u, states, strict=True)):
        m = jr.size
        ev = np.einsum("abm,mb->a", ur, sigma[jr]) / m
        best = int(ev.argmax())
        value[r] = ev[best]
        np.add.at(gain, jr, -reach[r] * ur[best].T / m)
    regret += gain - (sigma * gain).sum(axis=1, keepdims=True)
    np.maximum(regret, 0.0, out=regret)
    return value, sigma


class StateArrays(NamedTuple):
    """:class:`StateDecisions`' flat arrays (its notes), as the kernel takes them; ``own``:
    the own continuations."""

    leaf: np.ndarray
    start: np.ndarray
    jstart: np.ndarray
    rstart: np.ndarray
    nbs: np.ndarray
    rows: np.ndarray
    sstart: np.ndarray
    info: np.ndarray
    qstart: np.ndarray
    q: np.ndarray
    weights: np.ndarray
    answers: np.ndarray
    regret: np.ndarray
    avg: np.ndarray
    own: int


class StateDecisions:
    """Every leaf's opposing decisions of one solve, one per leaf and opposing private state
    (``choice`` "state"; Brown, Sandholm and Amos 2018's full form): the opponent holding j
    at leaf d chooses its continuation for j, against the focus seat's range there. Where
    the opposing states are sampled (the focus path: each valued row's games are played
    against opposing states drawn from the opposing reach, common random numbers), a row's
    value is the mean over its samples of its value against the decision of each sample's
    state, so the rows' samples are kept (``q[r, a, b, m]``), not their mean; the decision
    of state j is stepped by the samples played against j only. :meth:`group`, :meth:`step`
    and :meth:`average` as :class:`LeafDecisions` (the average over the leaf's states,
    each weighted by its samples); :meth:`by_state` each state's own. The flat arrays: leaf
    d's rows ``start[d]:start[d + 1]``, its states ``jstart[d]:jstart[d + 1]`` (state x's
    regrets and average ``rstart[x]:rstart[x] + nb[d]``), row r's samples
    ``sstart[r]:sstart[r + 1]`` (sample s played against state ``info[s]``, a global
    index), its values ``q[qstart[r] + (a * nb + b) * m + k]``."""

    def __init__(self) -> None:
        self.steps = 0
        self.seat = 0
        self.leaves: list[tuple[int, np.ndarray, np.ndarray]] = []  # leaf, rows, states
        self._flat: StateArrays | None = None

    def __len__(self) -> int:
        return len(self.leaves)

    def group(self, seat: int, valued: list[ValuedRow], pubs: np.ndarray,
              answered: dict[bytes, np.ndarray]) -> None:
        """The decisions of a new solve, regrets 0: ``valued``, the rows valued by rollouts
        (their opposing weights and values draw by draw: per sample (a, b, m) and the
        opposing state of each sample), grouped by leaf; ``answered`` as
        :meth:`LeafDecisions.group`."""
        self.seat, self.steps, self.leaves = seat, 0, []
        by_leaf: dict[int, list] = {}
        for x in valued:
            assert x.draws is not None  # choice "state": its rows keep their draws
            by_leaf.setdefault(int(x.leaf), []).append(
                (x.row, x.draws.values, np.asarray(x.draws.states, np.int64), x.weights))
        if not by_leaf:
            self._flat = None
            return
        leaf, start, jstart, rstart, nbs, rows, sstart, info, qstart = ([], [0], [0], [0], [],
                                                                        [], [0], [], [0])
        q, weights, answers = [], [], []
        for lf, got in sorted(by_leaf.items()):
            states = np.unique(np.concatenate([js for _, _, js, _ in got]))
            nb = got[0][1].shape[1]
            base = jstart[-1]  # the global index of this leaf's first state
            named = answered.get(pubs[lf].tobytes())
            for i, per, js, w in got:
                rows.append(int(i))
                sstart.append(sstart[-1] + js.size)
                info.append(base + np.searchsorted(states, js))
                q.append(np.ascontiguousarray(per, float).ravel())
                qstart.append(qstart[-1] + per.size)
                weights.append(w)
                answers.append(1.0 if named is None or np.isin(i, named) else 0.0)
            jstart.append(jstart[-1] + states.size)
            for _ in states:
                rstart.append(rstart[-1] + nb)
            leaf.append(lf)
            start.append(len(rows))
            nbs.append(nb)
            self.leaves.append((lf, np.array([i for i, _, _, _ in got], np.int64), states))
        regret, avg = np.zeros(rstart[-1]), np.zeros(rstart[-1])
        self._flat = StateArrays(np.array(leaf, np.int64), np.array(start, np.int64),
                                 np.array(jstart, np.int64), np.array(rstart, np.int64),
                                 np.array(nbs, np.int64), np.array(rows, np.int64),
                                 np.array(sstart, np.int64),
                                 np.concatenate(info).astype(np.int64),
                                 np.array(qstart, np.int64), np.concatenate(q),
                                 np.ascontiguousarray(np.stack(weights), float),
                                 np.array(answers, float), regret, avg,
                                 int(got[0][1].shape[0]))

    def step(self, out: tuple[np.ndarray, np.ndarray],
             ranges: tuple[np.ndarray, np.ndarray], z: float) -> None:
        """One step of every leaf's decisions (:meth:`LeafDecisions.step`)."""
        if self._flat is None:
            return
        self.steps += 1
        s, f = self.seat, self._flat
        _step_states(f.leaf, f.start, f.jstart, f.rstart, f.nbs, f.rows, f.sstart, f.info,
                     f.qstart, f.q, f.weights, f.answers,
                     np.ascontiguousarray(ranges[s], float),
                     np.ascontiguousarray(ranges[1 - s], float), float(z), f.own, f.regret,
                     f.avg, float(self.steps), out[s])

    def by_state(self) -> list[tuple[int, int, np.ndarray, np.ndarray]]:
        """Each leaf's average choices, one per opposing state: (seat valued, leaf, the
        opposing states, (states, b) probabilities; a row of zeros where never stepped)."""
        if self._flat is None:
            return []
        jstart, rstart, nbs, avg = (self._flat.jstart, self._flat.rstart, self._flat.nbs,
                                    self._flat.avg)
        got = []
        for d, (lf, _, states) in enumerate(self.leaves):
            x0, nb = int(jstart[d]), int(nbs[d])
            a = avg[rstart[x0]:rstart[x0] + states.size * nb].reshape(states.size, nb)
            total = a.sum(axis=1, keepdims=True)
            got.append((self.seat, lf, states,
                        np.divide(a, total, out=np.zeros_like(a), where=total > 0)))
        return got

    def average(self) -> list[tuple[int, int, np.ndarray, np.ndarray]]:
        """Each leaf's average choice over its opposing states, each weighted by its samples:
        (seat valued, leaf, rows valued, probability of each opposing continuation)."""
        if self._flat is None:
            return []
        info, jstart = self._flat.info, self._flat.jstart
        count = np.bincount(info, minlength=int(jstart[-1])).astype(float)
        got = []
        for d, (seat, lf, _, p) in enumerate(self.by_state()):
            c = count[jstart[d]:jstart[d + 1]]
            mix = c @ p
            got.append((seat, lf, self.leaves[d][1],
                        mix / mix.sum() if mix.sum() > 0 else mix))
        return got


@njit(cache=True)
def _step_states(leaf, start, jstart, rstart, nbs, rows, sstart, info, qstart, q, weights,
                 answers, reach, opposing, z, own, regret, avg, step, out):
    """:func:`state_choice_step` at every leaf d (flat arrays: :class:`StateDecisions`),
    each row's values times its opposing mass ``weights[r] . opposing[leaf] / z``; the
    values into ``out[leaf, row]``, each state's sigma times ``step`` added to ``avg``."""
    for d in range(leaf.size):
        lf, nb = leaf[d], nbs[d]
        x0, nj = jstart[d], jstart[d + 1] - jstart[d]
        r0 = rstart[x0]  # this leaf's states' regrets: r0 + (x - x0) * nb + b
        sigma = np.empty(nj * nb)
        for x in range(nj):
            one = _matched_of(regret, r0 + x * nb, nb)
            for b in range(nb):
                sigma[x * nb + b] = one[b]
        gain = np.zeros(nj * nb)
        for r in range(start[d], start[d + 1]):
            mass = _dot(weights[r], opposing[lf]) / z
            base, s0, m = qstart[r], sstart[r], sstart[r + 1] - sstart[r]
            best, pick = -np.inf, 0
            for a in range(own):
                ev = 0.0
                for b in range(nb):
                    at = base + (a * nb + b) * m
                    for k in range(m):
                        ev += q[at + k] * sigma[(info[s0 + k] - x0) * nb + b]
                ev *= mass / m
                if ev > best:
                    best, pick = ev, a
            out[lf, rows[r]] = best
            w = reach[lf, rows[r]] * answers[r] * mass / m
            for b in range(nb):
                at = base + (pick * nb + b) * m
                for k in range(m):
                    gain[(info[s0 + k] - x0) * nb + b] -= w * q[at + k]
        for x in range(nj):
            mean = 0.0
            for b in range(nb):
                mean += sigma[x * nb + b] * gain[x * nb + b]
            for b in range(nb):
                at = r0 + x * nb + b
                regret[at] = max(regret[at] + gain[x * nb + b] - mean, 0.0)
                avg[at] += step * sigma[x * nb + b]
