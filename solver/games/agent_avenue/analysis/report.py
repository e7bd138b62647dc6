"""Agent Avenue's sections of the strategy report: how games end, the first turn, the
recruit and its bluffs, discards, game length.

Every number is exact for the run's strategy on its tree: the reach-weighted walk
(:mod:`spycfr.analysis.sections.walk`) replays the rules along every path of positive
probability (chance included) and counts, weighted by that probability, how games end, how
long they last, how often each player swaps, and at every recruit whether the hidden card
was the better one for the recruiter (by the exact values of both choices under the
strategy) and whether the recruiter took the better one. Called by the generic report
through the plug-in.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
from numba import njit

from spycfr.analysis.markdown import Doc, fmt_eps, md_table, pct, save_figure, signed
from spycfr.analysis.sections.walk import reach_walk, register_tally
from spycfr.exact.best_response import node_values
from spycfr.games import tree_labels
from spycfr.games.agent_avenue import rules as R
from spycfr.games.agent_avenue import team_rules as T
from spycfr.games.agent_avenue.variant import make_variant
from spycfr.tree import CHANCE, Tree

PLAYERS = ("P1", "P2")
ENDS = ("a catch", "three Codebreakers", "three Daredevils", "the deck running out")


class AATally(NamedTuple):
    """What play is counted into (see :mod:`spycfr.analysis.sections.walk`):
    ends[reason, winner] (reason: 0 catch, 1 Codebreakers, 2 Daredevils, 3 deck-out),
    ties[0] (games decided by the active-player rule), length[turns], swaps[p] (per game),
    recruit[o, k] for recruiter o: k=0 recruits per game, 1 the hidden card was better for
    o, 2 o took the better card, 3 o took the hidden card, 4 value gained over the worse
    choice, shown[p, name] (cards p shows per game), won_active[0] (games won by the
    mover); values: P1's value at every node under the strategy (an input)."""

    ends: np.ndarray
    ties: np.ndarray
    length: np.ndarray
    swaps: np.ndarray
    recruit: np.ndarray
    shown: np.ndarray
    won_active: np.ndarray
    values: np.ndarray
    max_turns: int


@njit(cache=True)
def _count_node(t, cur, params, p, j, s, k, r, sigma):
    """A recruit: which card is better for the recruiter, and which one it takes."""
    if p != CHANCE and cur[R.PHASE] == R.PH_RECRUIT:
        sign = 1.0 if p == 0 else -1.0
        v_up = sign * t.values[s]
        v_down = sign * t.values[s + 1]
        t.recruit[p, 0] += r
        if v_down > v_up + 1e-12:
            t.recruit[p, 1] += r
            t.recruit[p, 2] += r * sigma[j, 1]
        elif v_up > v_down + 1e-12:
            t.recruit[p, 2] += r * sigma[j, 0]
        else:
            t.recruit[p, 2] += r
        t.recruit[p, 3] += r * sigma[j, 1]
        t.recruit[p, 4] += r * (sigma[j, 0] * v_up + sigma[j, 1] * v_down - min(v_up, v_down))


@njit(cache=True)
def _count_edge(t, cur, child, params, p, code, w, leaf, u):
    """A move (swaps and cards shown) and, at the end of a game, how it ended."""
    if p != CHANCE and cur[R.PHASE] == R.PH_PLAY:
        typ = code >> 20
        if typ == R.T_SWAP:
            t.swaps[p] += w
        elif typ == R.T_PLAY:
            t.shown[p, (code >> 3) & 7] += w
    if leaf:
        fired = child[R.ENDED]
        winner = child[R.WINNER]
        if fired & R.END_TIE:
            t.ties[0] += w
        if winner == child[R.ACTIVE]:
            t.won_active[0] += w
        if fired & (R.END_P1_CATCH | R.END_P2_CATCH):
            t.ends[0, winner] += w
        elif fired & (R.END_P1_CB | R.END_P2_CB):
            t.ends[1, winner] += w
        elif fired & (R.END_P1_DD | R.END_P2_DD):
            t.ends[2, winner] += w
        else:
            t.ends[3, winner] += w
        t.length[min(child[R.TURN], t.max_turns + 1)] += w


register_tally(AATally, node=_count_node, edge=_count_edge)


def agent_avenue_stats(tree: Tree, strategy: np.ndarray) -> AATally:
    """Probability-weighted statistics of play under ``strategy`` (see :class:`AATally`)."""
    variant = make_variant(None, dict(tree.variant))
    depth = tree.depth()
    z = np.zeros
    tally = AATally(z((4, 2)), z(1), z(depth + 2), z(2), z((2, 5)), z((2, R.MAX_NAMES)), z(1),
                    node_values(tree, strategy), depth)
    reach_walk(tree, strategy, variant.to_params(), tally)
    return tally


def sections(ctx) -> None:
    """Add Agent Avenue's sections to the report of ``ctx`` (see ReportContext)."""
    variant = make_variant(None, dict(ctx.tree.variant))
    st = agent_avenue_stats(ctx.tree, ctx.strategy)
    _endings(ctx.summary, st, ctx.figures_dir, ctx.rel)
    _first_turn(ctx.body, ctx.openings(), st, variant, ctx.eps, ctx.dec)
    _recruit(ctx.body, st, ctx.eps)
    if variant.discards:
        _discards(ctx.body, st, ctx)


def _endings(doc: Doc, st: AATally, figdir: Path, rel: Path) -> None:
    total = st.ends.sum()
    doc.add("### How games end at equilibrium\n")
    rows = [[ENDS[i], pct(st.ends[i].sum() / total), pct(st.ends[i, 0] / total),
             pct(st.ends[i, 1] / total)] for i in range(4)]
    doc.add(md_table(["the game ends by", "probability", "P1 wins so", "P2 wins so"], rows,
                     "lrrr") + "\n")
    turns = np.arange(st.length.shape[0])
    mean = float((turns * st.length).sum() / st.length.sum())
    doc.add(f"Games last {mean:.2f} turns on average (a turn is one player's play and the "
            f"other's recruit). {pct(st.ties[0] / total)} of games are decided by the tie rule "
            f"(the active player wins), and the player whose turn it is wins "
            f"{pct(st.won_active[0] / total)} of all games.\n")
    fig = _length_figure(st, figdir / "game_length.png")
    doc.add(f"![game length]({(rel / fig.name).as_posix()})\n")
    main = int(np.argmax(st.ends.sum(axis=1)))
    doc.takeaways.append(f"Most games end by {ENDS[main]} "
                         f"({pct(st.ends[main].sum() / total, 0)}); they last {mean:.1f} turns "
                         "on average.")


def _length_figure(st: AATally, path: Path) -> Path:
    from matplotlib.figure import Figure

    turns = np.arange(st.length.shape[0])
    keep = st.length > 1e-9
    fig = Figure(figsize=(6.4, 3.6), layout="constrained")
    ax = fig.subplots()
    ax.bar(turns[keep], st.length[keep] / st.length.sum(), color="#4C72B0")
    ax.set_xticks(turns[keep])
    ax.set_xlabel("turns played when the game ends")
    ax.set_ylabel("probability")
    ax.set_title("Game length at equilibrium")
    ax.grid(True, axis="y", alpha=0.3)
    return save_figure(fig, path)


def _first_turn(doc: Doc, table: pd.DataFrame, st: AATally, variant, eps: float,
                dec: int) -> None:
    p1 = table[table.player == "P1"]
    doc.add("## The first turn\n")
    doc.add("For each hand P1 can be dealt: how often it arises, P1's equilibrium play "
            "(`play:UP/DOWN`: the face-up card, then the face-down one; `swap:X`: discard X "
            "and draw) and its value for P1 (exploitability " + fmt_eps(eps) + "). "
            "`spycfr openings RUN_DIR` lists every move with its value.\n")
    rows = []
    for hand, moves in p1.groupby("situation", sort=False):
        played = moves[moves.probability > 1e-3].sort_values("probability", ascending=False)
        value = float((moves.probability * moves.eq_value).sum())
        rows.append([hand, pct(float(moves.reach.iloc[0])),
                     ", ".join(f"{m} {pct(q, 0)}" for m, q in zip(played.opening,
                                                                   played.probability,
                                                                   strict=True)),
                     signed(value, dec)])
    rows.sort(key=lambda r: -float(r[1].rstrip("%").lstrip("<")))
    shown = rows if len(rows) <= 30 else rows[:30]
    doc.add(md_table(["P1's hand", "dealt", "equilibrium play", "value for P1"], shown,
                     "lrlr") + "\n")
    if len(rows) > len(shown):
        doc.add(f"({len(rows) - len(shown)} rarer hands left out.)\n")
    p2 = table[table.player == "P2"].copy()
    if len(p2):
        p2["shown"] = p2.situation.str.split(" sees ").str[1]
        up = p2[p2.opening == "take:up"]
        by_card = up.groupby("shown").apply(
            lambda g: float((g.reach * g.probability).sum() / g.reach.sum())
            if g.reach.sum() > 0 else float("nan"), include_groups=False)
        doc.add("P2's first recruit, by the card P1 shows: how often P2 takes the face-up "
                "card (over P2's hands, weighted by how often each situation arises).\n")
        doc.add(md_table(["P1 shows", "P2 takes it"],
                         [[c, pct(q)] for c, q in by_card.items() if q == q], "lr") + "\n")
    names = variant.names
    for p in (0, 1):
        total = st.shown[p].sum()
        if total <= 0:
            continue
        share = {names[i]: st.shown[p, i] / total for i in range(len(names))}
        top = max(share, key=lambda name: share[name])
        doc.takeaways.append(f"{PLAYERS[p]} shows (plays face up) {top} most often: "
                             f"{pct(share[top], 0)} of its face-up cards.")


def _recruit(doc: Doc, st: AATally, eps: float) -> None:
    doc.add("## The recruit: bluffs and reads\n")
    doc.add("At every recruit, the exact values of taking the face-up and the face-down card "
            "(the game then going on at equilibrium) say which card is better for the "
            "recruiter. The hidden card is the better one in the share of recruits below: "
            "that is how often the player who plays hides the card the opponent would want. "
            "Counted per recruit of equilibrium play, weighted by how often it arises.\n")
    rows = []
    for o in (0, 1):
        n = st.recruit[o, 0]
        if n <= 0:
            continue
        rows.append([PLAYERS[o], f"{n:.2f}", pct(st.recruit[o, 1] / n),
                     pct(st.recruit[o, 3] / n), pct(st.recruit[o, 2] / n),
                     f"{st.recruit[o, 4] / n:.4f}"])
    doc.add(md_table(["recruiter", "recruits per game", "hidden card better for the recruiter",
                      "takes the hidden card", "takes the better card",
                      "value gained over the worse choice"], rows, "lrrrrr") + "\n")
    for o in (0, 1):
        n = st.recruit[o, 0]
        if n > 0:
            doc.takeaways.append(
                f"When {PLAYERS[1 - o]} plays, the face-down card is the better one for "
                f"{PLAYERS[o]} {pct(st.recruit[o, 1] / n, 0)} of the time; {PLAYERS[o]} "
                f"takes the better card {pct(st.recruit[o, 2] / n, 0)} of the time "
                f"(exploitability {fmt_eps(eps)}).")


def _discards(doc: Doc, st: AATally, ctx) -> None:
    tree, strategy = ctx.tree, ctx.strategy
    cfv, reach, opp = ctx.cfv, ctx.reach, ctx.opp_reach
    fc = tree.first_child[tree.infoset_node]
    width = strategy.shape[1]
    cols = np.arange(width)
    legal = cols[None, :] < tree.infoset_num_actions[:, None]
    codes = tree.node_action[np.where(legal, fc[:, None] + cols[None, :], 0)]
    is_swap = legal & ((codes >> 20) == R.T_SWAP)
    ok = (opp > 0) & (reach > 0) & is_swap.any(axis=1)
    values = np.full((tree.num_infosets, width), -np.inf)
    np.divide(cfv[:, :width], opp[:, None], out=values, where=ok[:, None] & legal)
    rows = []
    for p in (0, 1):
        mine = ok & (tree.infoset_player == p)
        if not mine.any():
            continue
        best_swap = np.where(is_swap, values, -np.inf).max(axis=1)[mine]
        best_play = np.where(legal & ~is_swap, values, -np.inf).max(axis=1)[mine]
        wts = reach[mine]
        gain = float(np.sum(wts * (best_swap - best_play)) / wts.sum())
        rows.append([PLAYERS[p], f"{st.swaps[p]:.3f}", f"{wts.sum():.3f}", f"{gain:+.4f}"])
    for p in (0, 1):
        if not (ok & (tree.infoset_player == p)).any():
            rows.insert(p, [PLAYERS[p], f"{st.swaps[p]:.3f}", "0 (never allowed)", "—"])
    doc.add("## Discards\n")
    doc.add("How often each player discards a card to draw a new one, and what the best "
            "discard is worth against the best play at the positions where a discard is "
            "allowed (the game then going on at equilibrium; positive: discarding is better "
            "there on average).\n")
    doc.add(md_table(["player", "discards per game", "positions with a discard allowed "
                      "(per game)", "best discard − best play"], rows, "lrrr") + "\n")


# --- the team variant: how teammates coordinate (a team run's report) ----------------------


def _lead_nodes(tree: Tree, variant) -> tuple[list[int], np.ndarray]:
    """The nodes where a captain names the face-up seat, and the state at every node (the
    tree walked with the numba rules, parents before children)."""
    params = variant.to_params()
    states = np.empty((tree.num_nodes, T.STATE_SIZE), dtype=np.int16)
    states[0] = T.initial_state(params)
    for v in range(tree.num_nodes):
        s, k = int(tree.first_child[v]), int(tree.num_children[v])
        for c in range(s, s + k):
            T.apply_action(states[v], params, np.int32(tree.node_action[c]), states[c])
    leads = [v for v in range(tree.num_nodes)
             if int(states[v, T.PHASE]) == T.PH_LEAD]
    return leads, states


def _hand(variant, state: np.ndarray, seat: int) -> str:
    return ".".join(name for i, name in enumerate(variant.names)
                    for _ in range(int(state[T.HAND + 8 * seat + i])))


def _first_turn_choice(tree: Tree, labels: list, plan: np.ndarray, v: int, cap: int) -> str:
    """The team's first turn under ``plan`` from lead node ``v``: who plays which card."""
    a = int(plan[tree.node_infoset[v]])
    lead, other = f"S{cap + 1 + a}", f"S{cap + 2 - a}"
    words: list[str] = []
    node = int(tree.first_child[v]) + a
    for seat in (lead, other):  # the face-up card, then the face-down card
        i = int(tree.node_infoset[node])
        label = labels[i][int(plan[i])]
        if label.startswith("discard"):
            return ", ".join([*words, f"{seat} discards first"])
        words.append(f"{seat} {label.replace(':', ' ')}")
        node = int(tree.first_child[node]) + int(plan[i])
    return ", ".join(words)


def team_sections(run) -> list[str]:
    """How each team of two coordinates at equilibrium: who plays face up first, and its
    first turn for every pair of dealt hands (the run's plans, weighted by their
    probabilities and by how often each history arises)."""
    from spycfr.analysis.team import plan_reach

    tree = run.tree
    variant = make_variant(None, run.meta["variant"])
    params = variant.to_params()
    _, labels = tree_labels(tree)
    chance, reach = plan_reach(run)
    leads, states = _lead_nodes(tree, variant)
    out = ["", "## How teammates coordinate", "",
           "A TMECor team agrees before the game on a lottery over joint plans, then plays the "
           "drawn plan without talking: the captain names who plays face up knowing only its "
           "own hand, the face-up seat chooses its card knowing only its own hand, and the "
           "teammate its face-down card knowing its own hand and the face-up card. Every "
           "figure weighs the run's plans by their probabilities and each history by how often "
           "it arises when both teams follow their plans (chance included). This is one "
           "equilibrium: other optimal plans may coordinate differently."]
    for t in (0, 1):
        seats = run.meta["teams"][t]
        if len(seats) != 2:
            out += ["", f"Team {t} ({', '.join(f'S{s + 1}' for s in seats)}) is a lone "
                    "player: nothing to coordinate."]
            continue
        cap, o = int(T.captain(params, t)), 1 - t
        lam, mu = run.weights[t], run.weights[o]
        mine = [v for v in leads if int(tree.node_player[v]) == t]
        # weight of (lead node, plan): chance * the plan reaches it * the other team's mixture
        w = (chance[mine] * (mu @ reach[o][:, mine]))[None, :] * lam[:, None] * \
            reach[t][:, mine]
        choice = run.plans[t][:, tree.node_infoset[mine]]  # 0: the captain leads
        captain_all = float((w * (choice == 0)).sum() / w.sum())
        first = np.asarray([int(states[v, T.TURN]) == t for v in mine])
        wf, cf = w[:, first], choice[:, first]
        captain_first = float((wf * (cf == 0)).sum() / wf.sum())
        rows: dict = {}
        for col, v in enumerate(np.asarray(mine)[first].tolist()):
            hands = (_hand(variant, states[v], cap), _hand(variant, states[v], cap + 1))
            row = rows.setdefault(hands, {"p": 0.0, "cap": 0.0, "choices": {}})
            for k in np.flatnonzero(wf[:, col] > 0).tolist():
                x = float(wf[k, col])
                row["p"] += x
                row["cap"] += x * (cf[k, col] == 0)
                text = _first_turn_choice(tree, labels, run.plans[t][k], v, cap)
                row["choices"][text] = row["choices"].get(text, 0.0) + x
        total = sum(r["p"] for r in rows.values())
        table = [[f"`{h[0]}`", f"`{h[1]}`", pct(r["p"] / total), pct(r["cap"] / r["p"]),
                  "; ".join(f"{c} ({pct(x / r['p'])})" for c, x in sorted(
                      r["choices"].items(), key=lambda cx: -cx[1]))]
                 for h, r in sorted(rows.items())]
        names = f"S{cap + 1}", f"S{cap + 2}"
        out += ["", f"### Team {t} ({names[0]}, captain, and {names[1]}): "
                f"{len(lam)} plan{'s' if len(lam) != 1 else ''} in the support", "",
                f"Who plays face up: the captain {names[0]} in {pct(captain_first)} of team "
                f"{t}'s first turns and {pct(captain_all)} of all its turns (weighted by how "
                f"often each turn is played), {names[1]} otherwise.", "",
                f"Team {t}'s first turn by dealt hands" + (
                    " (the hands it holds at its first turn; its choices also depend on "
                    "team 0's first turn, which they are averaged over; shares among the "
                    "games that reach it)" if t == 1 else "")
                + ":", "",
                md_table([f"{names[0]}'s hand", f"{names[1]}'s hand", "share of first turns",
                          f"{names[0]} leads", "first turn (share given the hands)"], table,
                         "llrrl")]
    return out
