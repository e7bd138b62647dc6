"""Agent Double Double Agent's sections of the strategy report: which data are assumptions,
how games end, how loyalty is spread, which agents are contested, what the first move
(the loyalty assignment) is worth, and how the value moves with the counters' assumed
starting sides.

Every number is exact for the run's strategy on its tree: the reach-weighted walk
(:mod:`spycfr.analysis.sections.walk`) replays the rules along every path of positive
probability (chance included) and counts, weighted by that probability, deliveries,
counters, files and outcomes.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np
import pandas as pd
from numba import njit

from spycfr.analysis.markdown import Doc, fmt_eps, md_table, pct, signed
from spycfr.analysis.sections.walk import reach_walk, register_tally
from spycfr.games.agent_double_double_agent import layout as L
from spycfr.games.agent_double_double_agent.analysis.figures import (
    agents_figure,
    loyalty_figure,
)
from spycfr.games.agent_double_double_agent.variant import (
    GAME,
    PRESETS,
    Variant,
    assumptions,
    make_variant,
)
from spycfr.runs.result import RunResult
from spycfr.tree import Tree

PLAYERS = ("P1", "P2")
ALTERNATIVE_NODES = 500_000  # alternatives are solved inside the report up to this tree size


def sections(ctx) -> None:
    """Add Agent Double Double Agent's sections to the report of ``ctx`` (ReportContext)."""
    variant = make_variant(None, dict(ctx.tree.variant))
    stats = adda_stats(ctx.tree, ctx.strategy, variant)
    table = ctx.openings()
    _assumptions(ctx.summary, variant)
    _outcomes(ctx.summary, ctx.result, stats)
    _loyalty(ctx.body, table, variant, ctx.figures_dir, ctx.rel)
    _agents(ctx.body, stats, variant, ctx.figures_dir, ctx.rel)
    _first_move(ctx.body, table, ctx.result, ctx.eps, ctx.dec)
    _play(ctx.body, stats, variant)
    _alternatives(ctx.body, ctx.tree, variant, ctx.result, ctx.eps, ctx.dec)


class ADDATally(NamedTuple):
    """What play is counted into (see :mod:`spycfr.analysis.sections.walk`):
    deliver[a, w] (agent a's files go to w), points[a, w] (expected points w takes from a),
    tie[a] (a's delivery decided by the counter's side), counter[p, a] (p activates a's
    counter), files[p, a] and value[p, a] (cards and points p puts on a), faceup[p],
    outcome[P1 wins, draw, P2 wins], score[p], extra[0]: tiebreak (equal scores decided by
    fewer cards), extra[1]: by_agents (the game ended with at most one agent left)."""

    deliver: np.ndarray
    points: np.ndarray
    tie: np.ndarray
    counter: np.ndarray
    files: np.ndarray
    value: np.ndarray
    faceup: np.ndarray
    outcome: np.ndarray
    score: np.ndarray
    extra: np.ndarray

    @property
    def tiebreak(self) -> float:
        return float(self.extra[0])

    @property
    def by_agents(self) -> float:
        return float(self.extra[1])


@njit(cache=True)
def _count_edge(t, cur, child, params, player, code, w, leaf, u):
    """A move (deliveries, counters, files, face-up cards) and, at the end, the outcome."""
    p = cur[L.MOVER]
    typ = code >> L.SHIFT
    pay = code & L.PAYLOAD
    if typ == L.T_REVEAL:
        winner = cur[L.STAT + pay] - L.ST_P1
        t.deliver[pay, winner] += w
        t.points[pay, winner] += w * (cur[L.SUM + pay] + cur[L.SUM + L.A + pay])
        if L.loyalty(cur, params, 0, pay) == L.loyalty(cur, params, 1, pay):
            t.tie[pay] += w
    elif typ == L.T_COUNTER:
        t.counter[p, pay] += w
    elif typ == L.T_FILE:
        t.files[p, pay >> 5] += w
        t.value[p, pay >> 5] += w * L.KIND_VALUE[pay & 31]
    elif typ == L.T_UP:
        t.faceup[p] += w
    if leaf:
        if u > 0:
            t.outcome[0] += w
        elif u < 0:
            t.outcome[2] += w
        else:
            t.outcome[1] += w
        t.score[0] += w * child[L.SCORE]
        t.score[1] += w * child[L.SCORE + 1]
        if child[L.SCORE] == child[L.SCORE + 1] and u != 0:
            t.extra[0] += w
        if L.in_play(child, params) <= 1:
            t.extra[1] += w


register_tally(ADDATally, edge=_count_edge)


def adda_stats(tree: Tree, strategy: np.ndarray, variant: Variant) -> ADDATally:
    """Probability-weighted statistics of play under ``strategy`` (see :class:`ADDATally`)."""
    n, z = variant.agents, np.zeros
    tally = ADDATally(z((n, 2)), z((n, 2)), z(n), z((2, n)), z((2, n)), z((2, n)), z(2), z(3),
                      z(2), z(2))
    reach_walk(tree, strategy, variant.params, tally)
    return tally


def loyalty_spread(table: pd.DataFrame, variant: Variant) -> tuple[np.ndarray, list[int]]:
    """(spread[p, agent, value index], token values): the probability that each player puts
    each token value under each agent, from the openings table."""
    values = sorted(set(variant.tokens))
    spread = np.zeros((2, variant.agents, len(values)))
    for r in table.itertuples():
        p = PLAYERS.index(r.player)
        tokens = [int(t) for t in r.opening.split(":", 1)[1].split("-")]
        for a, t in enumerate(tokens):
            spread[p, a, values.index(t)] += r.probability
    return spread, values


def _assumptions(doc: Doc, v: Variant) -> None:
    doc.add("### What is assumed\n")
    doc.add("The rulebook does not list the 22 file cards, the board's agents and neighbours, "
            "where the influence counters start, or the action texts. This run's game is built "
            "from the known rules, and these data are **assumptions** (parameters of the "
            "variant, the spec's defaults unless the preset reduces them):\n")
    doc.add("\n".join(f"- {a}" for a in assumptions(v.as_dict())) + "\n")
    doc.add("Readings where the rules are silent: the first hand is dealt after the loyalty "
            "tokens are placed; a delivery's chain reaction is resolved at once; the counter "
            "is activated after the card (and its deliveries); a player refills after it; "
            "a counter already at the mover's end of the track cannot be chosen; neighbours "
            "are fixed by the board (a delivered agent does not join its two neighbours).\n")


def _outcomes(doc: Doc, meta: RunResult, st: ADDATally) -> None:
    win = meta.variant["payoff"] == "win"
    rows = [["P1 wins" if win else "P1 ahead", pct(st.outcome[0])],
            ["draw" if win else "equal scores", pct(st.outcome[1])],
            ["P2 wins" if win else "P2 ahead", pct(st.outcome[2])],
            ["game ends with at most one agent left (else: out of cards)", pct(st.by_agents)],
            ["expected score of P1 / P2", f"{st.score[0]:.2f} / {st.score[1]:.2f}"]]
    if win:
        rows.append(["equal scores decided by fewer score-pile cards", pct(st.tiebreak)])
    doc.add("### How games end at equilibrium\n")
    doc.add(md_table(["", "probability"], rows, "lr") + "\n")
    if win:
        text = (f"At equilibrium P1 wins {pct(st.outcome[0])} of games, P2 "
                f"{pct(st.outcome[2])}, and {pct(st.outcome[1])} are drawn.")
        if st.tiebreak >= 0.05:
            text += (f" {pct(st.tiebreak)} are won on the tie-break (equal scores, fewer cards "
                     "in the score pile).")
        doc.takeaways.append(text)


def _loyalty(doc: Doc, table: pd.DataFrame, v: Variant, figdir, rel) -> None:
    assert v.start is not None  # filled in by Variant.__post_init__
    spread, values = loyalty_spread(table, v)
    doc.add("## How loyalty is spread\n")
    doc.add(f"Each player puts one token ({v.loyalty}) under each agent, unseen. The "
            "probability that each token value ends up under each agent at equilibrium "
            "(the counters start on sides " + ", ".join(
                f"agent {a + 1}: {'P1' if c == '1' else 'P2'}" for a, c in enumerate(v.start))
            + "):\n")
    for p in (0, 1):
        doc.add(md_table([f"{PLAYERS[p]}: token"] + [f"agent {a + 1}" for a in range(v.agents)],
                         [[str(t)] + [pct(spread[p, a, i]) for a in range(v.agents)]
                          for i, t in enumerate(values)], "l" + "r" * v.agents) + "\n")
    fig = loyalty_figure(spread, values, figdir / "loyalty.png")
    doc.add(f"![loyalty spread]({(rel / fig.name).as_posix()})\n")
    top = max(values)
    for p in (0, 1):
        where = spread[p, :, values.index(top)]
        a = int(np.argmax(where))
        own = [i for i, c in enumerate(v.start) if c == str(p + 1)]
        on_own = float(where[own].sum()) if own else 0.0
        text = (f"{PLAYERS[p]} puts its highest token ({top}) under agent {a + 1} in "
                f"{pct(where[a])} of games")
        if own and len(own) < v.agents:
            text += (f"; under an agent whose counter starts on its own side in "
                     f"{pct(on_own)}")
        doc.takeaways.append(text + ".")


def _agents(doc: Doc, st: ADDATally, v: Variant, figdir, rel) -> None:
    doc.add("## Which agents are contested\n")
    doc.add("For each agent: who takes its files at equilibrium, the expected points each "
            "player takes from it, how often its delivery is a loyalty tie (decided by the "
            "side its counter stands on), and the cards each player feeds it.\n")
    rows = []
    for a in range(v.agents):
        d = st.deliver[a]
        rows.append([f"agent {a + 1}", pct(d[0]), pct(d[1]), pct(max(0.0, 1 - d.sum())),
                     f"{st.points[a, 0]:.2f}", f"{st.points[a, 1]:.2f}", pct(st.tie[a]),
                     f"{st.files[0, a]:.2f}", f"{st.files[1, a]:.2f}"])
    doc.add(md_table(["agent", "to P1", "to P2", "never", "P1's points", "P2's points",
                      "tie", "P1's cards", "P2's cards"], rows, "lrrrrrrrr") + "\n")
    fig = agents_figure(st.deliver, st.points, figdir / "agents.png")
    doc.add(f"![who takes each agent]({(rel / fig.name).as_posix()})\n")
    balance = np.minimum(st.deliver[:, 0], st.deliver[:, 1])
    a = int(np.argmax(balance))
    if balance[a] >= 0.2:
        doc.takeaways.append(f"Agent {a + 1} is the most contested: P1 takes it in "
                             f"{pct(st.deliver[a, 0])} of games, P2 in {pct(st.deliver[a, 1])}.")
    for p in (0, 1):
        mine = [i for i in range(v.agents) if st.deliver[i, p] >= 0.75]
        if mine:
            doc.takeaways.append(f"{PLAYERS[p]} usually takes agent"
                                 f"{'s' if len(mine) > 1 else ''} "
                                 + ", ".join(str(i + 1) for i in mine) + " (75% of games or more).")
    if st.tie.sum() >= 0.1:
        doc.takeaways.append(f"Loyalty ties decided by the counter's side happen "
                             f"{st.tie.sum():.2f} times per game: the counters matter.")


def _first_move(doc: Doc, table: pd.DataFrame, meta: RunResult, eps: float, dec: int) -> None:
    v = float(meta.value_p1 or 0.0)  # completed by the report
    values = {"P1": v, "P2": -v}
    doc.add("## What the first move is worth\n")
    doc.add("Each player's first decision is the loyalty assignment (P2 does not see P1's). "
            "For each assignment: its probability at equilibrium, and its value against the "
            "equilibrium opponent when the player then plays as well as possible (\"best "
            "value\") or follows the equilibrium (\"eq value\"); values are the assigning "
            f"player's payoff (exploitability {fmt_eps(eps)}).\n")
    for player in PLAYERS:
        rows = table[table.player == player].sort_values(
            ["probability", "br_value"], ascending=False, kind="stable")
        shown = rows.head(12)
        doc.add(f"### {player}'s loyalty assignments\n")
        doc.add(md_table(["assignment", "highest token", "probability", "best value", "eq value"],
                         [[r.opening, r.highest, pct(r.probability), signed(r.br_value, dec),
                           signed(r.eq_value, dec)] for r in shown.itertuples()], "llrrr") + "\n")
        if len(rows) > len(shown):
            doc.add(f"({len(rows) - len(shown)} more assignments, with probability "
                    f"{pct(rows.probability.iloc[12:].sum())} in all: `spycfr openings RUN` "
                    "lists them all.)\n")
        worst = rows.sort_values("br_value").iloc[0]
        loss = values[player] - worst.br_value
        if loss > 2 * eps:
            doc.takeaways.append(
                f"{player}'s worst loyalty assignment, {worst.opening}, costs {loss:.{dec}f} per "
                f"game against the equilibrium opponent even with perfect play afterwards.")
        else:
            doc.takeaways.append(f"No loyalty assignment is a blunder for {player}: all are "
                                 f"within {2 * eps:.{dec}f} of the game's value.")


def _play(doc: Doc, st: ADDATally, v: Variant) -> None:
    doc.add("## Counters and files\n")
    if v.counters:
        turns = "turn" if v.counters == 1 else f"{v.counters} turns"
        doc.add("Probability that each player activates each agent's counter (moving it one "
                f"space towards itself, in its first {turns}):\n")
        doc.add(md_table(["player"] + [f"agent {a + 1}" for a in range(v.agents)],
                         [[PLAYERS[p]] + [pct(st.counter[p, a]) for a in range(v.agents)]
                          for p in (0, 1)], "l" + "r" * v.agents) + "\n")
    rows = [[PLAYERS[p], f"{st.files[p].sum():.2f}", f"{st.value[p].sum():.2f}",
             f"{st.faceup[p]:.2f}"] for p in (0, 1)]
    doc.add(md_table(["player", "cards face down per game", "their points", "cards face up"],
                     rows, "lrrr") + "\n")


def _alternatives(doc: Doc, tree: Tree, v: Variant, meta: RunResult, eps: float,
                  dec: int) -> None:
    """The game's value for other starting sides of the counters (an assumed datum)."""
    assert v.start is not None  # filled in by Variant.__post_init__
    mirror = v.start.translate(str.maketrans("12", "21"))
    starts = list(dict.fromkeys([v.start, mirror, "1" * v.agents, "2" * v.agents]))
    doc.add("## How much the assumed counter starts matter\n")
    doc.add("The rulebook puts half the counters on each side, as the board shows; which "
            "agents start on whose side is unknown (assumed here: " + v.start + "). The value "
            "of the game for P1 with other starting sides, all else equal:\n")
    preset = meta.preset
    base = f"--preset {preset}" if preset in PRESETS else " ".join(
        f"--{k.replace('_', '-')} '{val}'" for k, val in v.as_dict().items() if k != "start")
    if tree.num_nodes > ALTERNATIVE_NODES:
        doc.add(md_table(["start", "value for P1", "command"],
                         [[v.start, signed(float(meta.value_p1 or 0.0), dec) + " (this run)", ""]]
                         + [[s, "not solved here (tree too big for a report)",
                             f"`spycfr solve {GAME} {base} --start {s} "
                             "--target-exploitability 1e-4 --json`"] for s in starts[1:]],
                         "lrl") + "\n")
        return
    from spycfr.cfr import CFRSolver
    from spycfr.exact.best_response import expected_value
    from spycfr.games import build_tree
    from spycfr.games.agent_double_double_agent.game import ADDAGame

    rows = [[v.start, signed(float(meta.value_p1 or 0.0), dec), fmt_eps(eps), "this run"]]
    for s in starts[1:]:
        alt = make_variant(None, dict(v.as_dict(), start=s))
        t0 = time.perf_counter()
        alt_tree = build_tree(ADDAGame(alt))
        solver = CFRSolver(alt_tree, "cfr+")
        result = solver.solve(target_exploitability=1e-4, iterations=20_000, check_every=100)
        value = expected_value(alt_tree, solver.average_strategy())
        rows.append([s, signed(value, dec), fmt_eps(result.exploitability),
                     f"CFR+, {time.perf_counter() - t0:.1f} s"])
    doc.add(md_table(["start", "value for P1", "exploitability", "solved"], rows, "lrrl") + "\n")
    doc.add(f"(Each alternative is solved here with CFR+ to exploitability 1e-4: `spycfr solve "
            f"{GAME} {base} --start S --target-exploitability 1e-4`.)\n")
    vals = [float(r[1].replace("−", "-")) for r in rows]
    spread = max(vals) - min(vals)
    doc.takeaways.append(f"The assumed starting sides of the counters move P1's value by up to "
                         f"{spread:.{dec}f} over the starts {', '.join(starts)}: "
                         + ("they matter." if spread > 4 * eps else "they hardly matter."))
