"""Agent Hunter's sections of the strategy report: how games end, optimal openings, how the
game is played at equilibrium, how attacks fare, and what each kind of move is worth.

Every number is exact for the run's strategy on its tree: the reach-weighted walk
(:mod:`spycfr.analysis.sections.walk`) replays the rules along every path of positive
probability and counts, weighted by that probability, which moves are played at which
turn, how attacks end and how games end. Called by the generic report
(:mod:`spycfr.analysis.report`) through the plug-in.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
from numba import njit

from spycfr.analysis.markdown import Doc, fmt_eps, md_table, pct, signed
from spycfr.analysis.openings import openings_by_group
from spycfr.analysis.sections.walk import reach_walk, register_tally
from spycfr.games.agent_hunter import rules as R
from spycfr.games.agent_hunter.analysis.figures import (
    PLAYERS,
    TURN_TYPES,
    TYPE_NAMES,
    openings_figure,
    turns_figure,
)
from spycfr.games.agent_hunter.variant import make_variant
from spycfr.runs.result import RunResult
from spycfr.tree import Tree

TYPE_PLURALS = ("placements", "hand attacks", "switches", "house attacks", "refills")


def sections(ctx) -> None:
    """Add Agent Hunter's sections to the report of ``ctx`` (see ReportContext)."""
    tree, strategy, meta, eps = ctx.tree, ctx.strategy, ctx.result, ctx.eps
    stats = agent_hunter_stats(tree, strategy)
    _outcomes(ctx.summary, meta, stats, eps)
    _openings(ctx.body, ctx.openings(), meta, tree, eps, ctx.dec, ctx.figures_dir, ctx.rel)
    _play(ctx.body, stats, ctx.figures_dir, ctx.rel)
    _attacks(ctx.body, stats)
    _move_costs(ctx.body, move_type_costs(tree, strategy, ctx.cfv, ctx.reach, ctx.opp_reach),
                eps)


class AHTally(NamedTuple):
    """What equilibrium play is counted into (see :mod:`spycfr.analysis.sections.walk`):
    usage[p, turn, type], hand[p, turn, answer], house[p, turn, answer], house_src[p, s]
    (a missed house attack: defender's card from hand s=0 or from a house s=1),
    switch[p, same card, decoy beside the switched house], end[turn, by elimination],
    outcome[P1 wins/draw/P2 wins], vp[p] (expected VP), tiebreak[0] (probability that equal
    VP were decided by hand sums), elim[p, how] (houses eliminated by p: hand eq, house eq,
    defending against a missed house attack); n_turns: the last turn counted on its own."""

    usage: np.ndarray
    hand: np.ndarray
    house: np.ndarray
    house_src: np.ndarray
    switch: np.ndarray
    end: np.ndarray
    outcome: np.ndarray
    vp: np.ndarray
    tiebreak: np.ndarray
    elim: np.ndarray
    n_turns: int


@njit(cache=True)
def _count_edge(t, cur, child, params, p, code, w, leaf, u):
    """One move of equilibrium play (Agent Hunter has no chance node: ``p`` moves)."""
    turn = min(cur[R.TURN] + 1, t.n_turns + 1)
    base = p * R.PSTRIDE
    obase = (1 - p) * R.PSTRIDE
    typ = code >> 12
    pay = code & 0xFFF
    if typ != R.T_PLACE:
        t.usage[p, turn, typ] += w
    if typ == R.T_HAND:
        cc = pay >> 2
        v = cur[obase + R.O_HOUSE + (pay & 3)]
        ans = R.answer_of(cc, v)
        t.hand[p, turn, ans] += w
        if ans == R.ANS_EQ:
            t.elim[p, 0] += w
    elif typ == R.T_HOUSE:
        x = cur[base + R.O_HOUSE + (pay >> 2)]
        v = cur[obase + R.O_HOUSE + (pay & 3)]
        ans = R.answer_of(x, v)
        t.house[p, turn, ans] += w
        if ans == R.ANS_EQ:
            t.elim[p, 1] += w
        else:
            t.elim[1 - p, 2] += w
            if (cur[obase + R.O_HAND] >> x) & 1:
                t.house_src[p, 0] += w
            else:
                t.house_src[p, 1] += w
    elif typ == R.T_SWITCH:
        h = pay >> 6
        same = 1 if cur[base + R.O_HOUSE + h] == ((pay >> 2) & 15) else 0
        beside = 1 if (pay & 3) == h else 0
        t.switch[p, same, beside] += w
    if leaf:
        k_houses = params[R.P_HOUSES]
        early = 1 if (R.all_eliminated(child, 0, k_houses)
                      or R.all_eliminated(child, 1, k_houses)) else 0
        t.end[min(child[R.TURN], t.n_turns + 1), early] += w
        v0 = R.vp(child, 0)
        v1 = R.vp(child, 1)
        t.vp[0] += w * v0
        t.vp[1] += w * v1
        if u > 0:
            t.outcome[0] += w
        elif u < 0:
            t.outcome[2] += w
        else:
            t.outcome[1] += w
        if v0 == v1 and u != 0:
            t.tiebreak[0] += w


register_tally(AHTally, edge=_count_edge)


def agent_hunter_stats(tree: Tree, strategy: np.ndarray) -> AHTally:
    """Probability-weighted statistics of play under ``strategy`` (see :class:`AHTally`)."""
    variant = make_variant(None, dict(tree.variant))
    n_turns = int(variant.max_turns or tree.depth())
    z = np.zeros
    tally = AHTally(z((2, n_turns + 2, 5)), z((2, n_turns + 2, 3)), z((2, n_turns + 2, 3)),
                    z((2, 2)), z((2, 2, 2)), z((n_turns + 2, 2)), z(3), z(2), z(1), z((2, 3)),
                    n_turns)
    reach_walk(tree, strategy, variant.to_params(), tally)
    return tally


def action_types(tree: Tree) -> np.ndarray:
    """int8[n_infosets, max_actions]: Agent Hunter action type of every action, -1 beyond."""
    width = max(tree.max_actions, 1)
    cols = np.arange(width)
    mask = cols[None, :] < tree.infoset_num_actions[:, None]
    idx = np.where(mask, tree.first_child[tree.infoset_node][:, None] + cols[None, :], 0)
    types = (tree.node_action[idx] >> 12).astype(np.int8)
    types[~mask] = -1
    return types


def move_type_costs(tree: Tree, strategy: np.ndarray, cfv: np.ndarray, reach: np.ndarray,
                    opp_reach: np.ndarray) -> pd.DataFrame:
    """Per player and move type: how much the best move of that type falls short of the
    equilibrium move, averaged over the positions of equilibrium play (weighted by their
    probability) where the type is legal. The rest of the game follows the equilibrium."""
    types = action_types(tree)
    ok = (opp_reach > 0) & (reach > 0)
    width = types.shape[1]
    values = np.full(cfv[:, :width].shape, -np.inf)
    np.divide(cfv[:, :width], opp_reach[:, None], out=values, where=ok[:, None] & (types >= 0))
    sigma = strategy[:, :width]
    own = np.where(types >= 0, sigma * np.where(np.isfinite(values), values, 0.0), 0.0).sum(1)
    rows = []
    for p in (0, 1):
        mine = ok & (tree.infoset_player == p)
        for t in TURN_TYPES:
            has = (types == t) & mine[:, None]
            legal = has.any(axis=1)
            if not legal.any():
                continue
            best = np.where(has, values, -np.inf).max(axis=1)[legal]
            wts = reach[legal]
            cost = float(np.sum(wts * (own[legal] - best)) / wts.sum())
            used = float(np.sum(reach[legal][:, None] * np.where(has[legal], sigma[legal], 0.0))
                         / wts.sum())
            rows.append({"player": PLAYERS[p], "type": TYPE_NAMES[t],
                         "legal_probability": float(wts.sum()), "chosen_when_legal": used,
                         "cost": cost})
    return pd.DataFrame(rows)


def _outcomes(doc: Doc, meta: RunResult, st: AHTally, eps: float) -> None:
    win = meta.variant["payoff"] == "win"
    tiebreak = float(st.tiebreak[0])
    total_end = st.end.sum()
    early = st.end[:, 1].sum()
    rows = [["P1 wins" if win else "P1 ahead on VP", pct(st.outcome[0])],
            ["draw" if win else "equal VP", pct(st.outcome[1])],
            ["P2 wins" if win else "P2 ahead on VP", pct(st.outcome[2])],
            ["game ends early (a player lost every house)", pct(early / total_end)],
            ["expected VP of P1 / P2", f"{st.vp[0]:.3f} / {st.vp[1]:.3f}"]]
    if win:
        rows.append(["equal VP decided by the hand-sum tie-break", pct(tiebreak)])
    doc.add("### How games end at equilibrium\n")
    doc.add(md_table(["", "probability"], rows, "lr") + "\n")
    if win:
        text = (f"At equilibrium P1 wins {pct(st.outcome[0])} of games, P2 "
                f"{pct(st.outcome[2])}, and {pct(st.outcome[1])} are drawn.")
        if tiebreak >= 0.05:
            text += (f" {pct(tiebreak)} are won on the hand-sum tie-break (equal VP): the "
                     f"cards left in hand at the end matter.")
        doc.takeaways.append(text)
    if early / total_end < 0.05:
        doc.takeaways.append(
            f"Games almost never end by a player losing every house "
            f"({pct(early / total_end)}): they are scored at the turn limit.")
    elif early / total_end > 0.95:
        doc.takeaways.append(
            f"Games almost always end before the turn limit, with a player losing every house "
            f"({pct(early / total_end)}).")


def _placement_cards(opening: str) -> list[int]:
    return [int(c) for c in opening.split(":", 1)[1].split("-")]


def _arrangement(cards: list[int]) -> str:
    ranks = np.argsort(np.argsort(cards))
    names = {1: ["—"], 2: ["low", "high"], 3: ["low", "mid", "high"]}[len(cards)]
    return "-".join(names[r] for r in ranks)


def _openings(doc: Doc, table: pd.DataFrame, meta: RunResult, tree: Tree, eps: float, dec: int,
              figdir: Path, rel: Path) -> None:
    table = table.copy()
    table["house_cards"] = table.opening.map(_placement_cards)
    table["arrangement"] = table.house_cards.map(_arrangement)
    n_cards = int(tree.variant["cards"])
    k = int(tree.variant["houses"])
    v = float(meta.value_p1 or 0.0)  # completed by the report
    values = {"P1": v, "P2": -v}
    doc.add("## Optimal openings\n")
    doc.add(f"Each player hides {k} of their {n_cards} cards, P2 without seeing P1's choice. "
            f"For each placement: its probability at equilibrium, and its value against the "
            f"equilibrium opponent, when the placing player then plays as well as possible "
            f"(\"best value\") or follows the equilibrium (\"eq value\"), and how far its best "
            f"value falls below the best placement's (\"loss\"; \"tie\" when within "
            f"{fmt_eps(2 * eps)}, the run's NashConv: no difference the run can tell). "
            f"Placements played at equilibrium all have (about) the game's value: the "
            f"opponent's strategy makes them equally good. Values are the placing player's "
            f"payoff (exploitability {fmt_eps(eps)}).\n")
    fig = openings_figure(table, values, eps, figdir / "openings.png")
    for player in PLAYERS:
        rows = table[table.player == player].sort_values(
            ["probability", "br_value"], ascending=False, kind="stable")
        shown = rows if len(rows) <= 24 else rows.head(20)
        doc.add(f"### {player}'s placements\n")
        doc.add(md_table(
            ["placement"] + [f"house {h + 1}" for h in range(k)]
            + ["probability", "best value", "eq value", "loss"],
            [[r.opening] + list(r.house_cards) + [pct(r.probability), signed(r.br_value, dec),
                                                   signed(r.eq_value, dec), _loss(r, dec)]
             for r in shown.itertuples()],
            "l" + "c" * k + "rrrr") + "\n")
        if len(rows) > len(shown):
            doc.add(f"({len(rows) - len(shown)} more placements, with probability "
                    f"{pct(rows.probability.iloc[20:].sum())} in all, are left out: "
                    f"`spycfr openings` lists them all.)\n")
        by_cards = openings_by_group(table, "cards")
        sets = by_cards[by_cards.player == player]
        arr = rows.groupby("arrangement", sort=False).probability.sum().sort_values(
            ascending=False)
        if k > 1:  # with one house a card set is a placement
            doc.add(md_table(
                ["cards hidden", "probability", "best value of its best arrangement"],
                [[f"{{{c}}}", pct(q), signed(b, dec)]
                 for c, q, b in zip(sets.cards, sets.probability, sets.best_br_value,
                                    strict=True)], "lrr") + "\n")
            doc.add(md_table(["arrangement (house 1 … house " + str(k) + ")", "probability"],
                             [[a, pct(p)] for a, p in arr.items()], "lr") + "\n")
        _opening_takeaways(doc, player, rows, sets, values[player], n_cards, k, eps, dec)
    hidden = {p: _hidden_by_card(table[table.player == p], n_cards) for p in PLAYERS}
    doc.add("### Which cards are hidden\n")
    doc.add("Probability that each card is in one of the player's safe houses after the "
            "placement (the others start in hand).\n")
    doc.add(md_table(["card"] + list(PLAYERS),
                     [[str(c)] + [pct(hidden[p][c]) for p in PLAYERS] for c in range(n_cards)],
                     "lrr") + "\n")
    for p in PLAYERS:
        most, least = int(np.argmax(hidden[p])), int(np.argmin(hidden[p]))
        if hidden[p][most] >= 0.6 and hidden[p][most] <= 0.99:
            doc.takeaways.append(f"{p} hides card {most} in {pct(hidden[p][most], 0)} of games.")
        if 0.01 <= hidden[p][least] <= 0.25:
            doc.takeaways.append(f"{p} rarely hides card {least} "
                                 f"({pct(hidden[p][least], 0)} of games).")
    if fig is not None:
        doc.add(f"![how often each placement is played, and what it costs]"
                f"({(rel / fig.name).as_posix()})\n")
        doc.add("Left: how often the equilibrium uses each placement (grouped by the cards "
                "hidden). Right: the value it loses against the best placement when the game "
                "then goes on with best play against the equilibrium opponent; blue bars in "
                "the grey band tie with the best, red ones cost that much per game.\n")


def _loss(r, dec: int) -> str:
    """A placement's loss cell: "tie" within the tolerance, else the value it loses."""
    return "tie" if r.tie else f"−{r.loss:.{dec}f}"


def _opening_takeaways(doc, player, rows, sets, value, n_cards, k, eps, dec) -> None:
    top = rows.iloc[0]
    if top.probability >= max(0.3, 2.0 / len(rows)):
        what = (f"card {top.opening.split(':')[1]} in its house" if k == 1 else
                f"{top.opening.split(':')[1]} (cards of houses 1..{k})")
        doc.takeaways.append(f"{player}'s most frequent opening is {what}, in "
                             f"{pct(top.probability)} of games.")
    best_set = sets.iloc[0]
    if best_set.probability >= 0.5 and len(sets) > 1:
        doc.takeaways.append(f"{player} hides the cards {{{best_set.cards}}} in "
                             f"{pct(best_set.probability)} of games.")
    hidden = _hidden_by_card(rows, n_cards)
    highest_in = np.zeros(k)
    for r in rows.itertuples():
        highest_in[int(np.argmax(r.house_cards))] += r.probability
    never = [c for c in range(n_cards) if hidden[c] < 0.01]
    always = [c for c in range(n_cards) if hidden[c] > 0.99]
    if never:
        doc.takeaways.append(f"{player} (almost) never hides card{'s' if len(never) > 1 else ''} "
                             f"{', '.join(map(str, never))}: "
                             f"{'they stay' if len(never) > 1 else 'it stays'} in hand.")
    if always:
        doc.takeaways.append(f"{player} (almost) always hides card"
                             f"{'s' if len(always) > 1 else ''} {', '.join(map(str, always))}.")
    if k > 1:
        h = int(np.argmax(highest_in))
        if highest_in[h] >= 0.6:
            doc.takeaways.append(f"{player} puts the highest of the hidden cards in house "
                                 f"{h + 1} in {pct(highest_in[h])} of games.")
    worst = rows.sort_values("br_value").iloc[0]
    if not worst.tie:
        doc.takeaways.append(
            f"The worst placement for {player}, {worst.opening.split(':')[1]}, costs "
            f"{worst.loss:.{dec}f} per game against the equilibrium opponent even with perfect "
            f"play afterwards (exploitability {fmt_eps(eps)}).")
    elif len(rows) > 1:
        doc.takeaways.append(
            f"No placement is a blunder for {player}: against the equilibrium opponent, with "
            f"perfect play afterwards, every placement ties with the best (within "
            f"{fmt_eps(float(rows.tolerance.max()))}, the run's NashConv).")


def _hidden_by_card(rows: pd.DataFrame, n_cards: int) -> np.ndarray:
    """Probability that each card is placed in a safe house."""
    hidden = np.zeros(n_cards)
    for cards, prob in zip(rows.house_cards, rows.probability, strict=True):
        hidden[list(cards)] += prob
    return hidden


def _play(doc: Doc, st: AHTally, figdir: Path, rel: Path) -> None:
    doc.add("## How the game is played at equilibrium\n")
    doc.add("Expected number of times each move is made per game, and its share of the "
            "player's turns (refills are not turns: they follow a successful attack, or a "
            "failed one on the defender's side).\n")
    rows = []
    for p in (0, 1):
        counts = st.usage[p].sum(axis=0)
        turns = counts[list(TURN_TYPES)].sum()
        for t in (*TURN_TYPES, R.T_REFILL):
            share = pct(counts[t] / turns) if t != R.T_REFILL and turns > 0 else "—"
            rows.append([PLAYERS[p], TYPE_NAMES[t], f"{counts[t]:.3f}", share])
    doc.add(md_table(["player", "move", "times per game", "share of turns"], rows, "llrr") + "\n")
    fig = turns_figure(st, figdir / "turns.png")
    doc.add(f"![moves by turn]({(rel / fig.name).as_posix()})\n")
    both = st.usage.sum(axis=0)
    rows = []
    n_turns = both.shape[0] - 1
    for t in range(1, n_turns + 1):
        played = both[t, list(TURN_TYPES)].sum()
        if played <= 0:
            continue
        rows.append([str(t), PLAYERS[(t - 1) % 2], pct(played)]
                    + [pct(both[t, x] / played) for x in TURN_TYPES])
    doc.add(md_table(["turn", "mover", "turn played"] + [TYPE_NAMES[x] for x in TURN_TYPES],
                     rows, "lcrrrr") + "\n")
    # switches: which card goes back in, where the decoy goes
    sw = st.switch
    if sw.sum() > 0:
        rows = []
        for p in (0, 1):
            total = sw[p].sum()
            if total <= 0:
                continue
            rows.append([PLAYERS[p], f"{total:.3f}", pct(sw[p, 1].sum() / total),
                         pct(sw[p, :, 1].sum() / total)])
        doc.add("Switches: how often the same card goes back into the house (the switch only "
                "lays a decoy and shows the card), and how often the decoy goes beside the "
                "switched house.\n")
        doc.add(md_table(["player", "switches per game", "same card back",
                          "decoy beside the switched house"], rows, "lrrr") + "\n")
    # takeaways on the mix
    for p in (0, 1):
        counts = st.usage[p].sum(axis=0)
        turns = counts[list(TURN_TYPES)].sum()
        if turns <= 0:
            continue
        shares = {t: counts[t] / turns for t in TURN_TYPES}
        ranked = sorted(shares, key=lambda t: shares[t], reverse=True)
        text = f"{PLAYERS[p]}'s turns: " + ", ".join(
            f"{TYPE_NAMES[t]} {pct(shares[t], 0)}" for t in TURN_TYPES)
        if shares[ranked[0]] >= shares[ranked[1]] + 0.1:
            text += f"; the {TYPE_NAMES[ranked[0]]} is the main move"
        doc.takeaways.append(text + ".")
    by_turn = {i: both[i, list(TURN_TYPES)].sum() for i in range(1, n_turns + 1)}
    by_turn = {i: both[i] / played for i, played in by_turn.items() if played > 0}
    for i in list(by_turn)[:2]:
        t = max(TURN_TYPES, key=lambda x: by_turn[i][x])
        if by_turn[i][t] >= 0.8:
            doc.takeaways.append(f"On turn {i}, {PLAYERS[(i - 1) % 2]} plays a {TYPE_NAMES[t]} "
                                 f"{pct(by_turn[i][t])} of the time.")
    for t in (R.T_HOUSE, R.T_SWITCH):
        first = next((i for i, s in by_turn.items() if s[t] >= 0.10), None)
        name = TYPE_PLURALS[t].capitalize()
        if first is not None and first >= 3 and all(by_turn[i][t] < 0.05 for i in by_turn
                                                    if i < first):
            doc.takeaways.append(f"{name} are rare before turn {first} (under 5% of moves), then "
                                 f"{pct(by_turn[first][t], 0)} of the moves at turn {first}.")
        elif first is None and by_turn and both[1:, t].sum() > 0:
            doc.takeaways.append(f"{name} are rare throughout: under 10% of the moves at every "
                                 f"turn.")


def _attacks(doc: Doc, st: AHTally) -> None:
    doc.add("## How attacks fare\n")
    doc.add("The answer is the defender's, about the attacker's card (`hi`: the attacker's "
            "card is higher). A hand attack that is not `eq` changes nothing but tells both "
            "players something; a house attack that misses costs the attacker that house "
            "(credited to the defender).\n")
    rows = []
    for p in (0, 1):
        for name, arr in (("hand attack", st.hand), ("house attack", st.house)):
            tot = arr[p].sum()
            if tot <= 0:
                continue
            ans = arr[p].sum(axis=0)
            rows.append([PLAYERS[p], name, f"{tot:.3f}"] + [pct(ans[a] / tot) for a in (1, 2, 0)])
    if rows:
        doc.add(md_table(["attacker", "attack", "per game", "eq (hit)", "hi", "lo"], rows,
                         "llrrrr") + "\n")
    else:
        doc.add("No attack is ever played at equilibrium.\n")
    rows = []
    for p in (0, 1):
        hand_hit = st.hand[p, :, 1].sum()
        house_hit = st.house[p, :, 1].sum()
        rows.append([PLAYERS[p], f"{hand_hit:.3f}", f"{house_hit:.3f}", f"{st.elim[p, 2]:.3f}",
                     f"{st.elim[p].sum():.3f}"])
    doc.add("Houses eliminated per game, by who gets the credit and how:\n")
    doc.add(md_table(["credited to", "by hand attack", "by house attack",
                      "by defending a missed house attack", "total"], rows, "lrrrr") + "\n")
    for p in (0, 1):
        parts = [f"{TYPE_PLURALS[t]} hit (`eq`) {pct(arr[p, :, 1].sum() / arr[p].sum())} of "
                 f"the time" for t, arr in ((R.T_HAND, st.hand), (R.T_HOUSE, st.house))
                 if arr[p].sum() > 1e-3]
        if parts:
            doc.takeaways.append(f"{PLAYERS[p]}'s " + " and its ".join(parts) + ".")
    total = st.elim.sum(axis=0)
    if total.sum() > 0:
        how = ["hand attacks", "house attacks", "missed house attacks (credited to the defender)"]
        share = total / total.sum()
        order = np.argsort(-share)
        if share[order[0]] >= share[order[1]] + 0.1:
            doc.takeaways.append(f"The largest share of eliminations comes from {how[order[0]]} "
                                 f"({pct(share[order[0]], 0)} of them).")
        else:
            doc.takeaways.append("Eliminations come from " + ", ".join(
                f"{how[i]} ({pct(share[i], 0)})" for i in order if share[i] > 0) + ".")


def _move_costs(doc: Doc, costs: pd.DataFrame, eps: float) -> None:
    if costs.empty:
        return
    doc.add("## What each kind of move is worth\n")
    doc.add("For each position of equilibrium play where a kind of move is legal: how much "
            "the best move of that kind falls short of the equilibrium move, the game then "
            "going on at equilibrium; averaged over those positions, weighted by how often "
            "they arise. About 0 means the kind of move is as good as anything there (it "
            f"is part of the equilibrium, or tied with it); compare with the exploitability "
            f"{fmt_eps(eps)}.\n")
    doc.add(md_table(["player", "move", "legal in (games)", "chosen there", "cost of forcing it"],
                     [[r.player, r.type, f"{r.legal_probability:.3f}",
                       pct(r.chosen_when_legal), f"{r.cost:.4f}"]
                      for r in costs.itertuples()], "llrrr") + "\n")
    doc.add("(\"legal in\" counts positions: the expected number of turns per game at which "
            "the move is available.)\n")
    for p in PLAYERS:
        mine = costs[costs.player == p].sort_values("cost")
        if len(mine) < 2:
            continue
        worst = mine.iloc[-1]
        if worst.cost > 2 * eps:
            plural = TYPE_PLURALS[TYPE_NAMES.index(worst.type)]
            doc.takeaways.append(
                f"{plural.capitalize()} are {p}'s most expensive moves to get wrong: where "
                f"{p} may play one, the best of them is worth {worst.cost:.3f} less on average "
                f"than the equilibrium move (exploitability {fmt_eps(eps)}); {p} chooses one "
                f"there {pct(worst.chosen_when_legal, 0)} of the time.")


