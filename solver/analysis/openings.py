"""Openings: the equilibrium distribution at a game's opening decisions (those its plug-in
names, e.g. Agent Hunter's placements), and the value of every opening move against the
equilibrium opponent.

For each move the table gives its equilibrium probability, its value when play then follows
the equilibrium (``eq_value``) and its best-response value (``br_value``: the most the move
can earn against the equilibrium opponent when the rest of the game is played as well as
possible). Values are the moving player's payoff. The plug-in's ``group`` names what a move
amounts to (Agent Hunter: the set of cards placed), for a summary by group.

The ranking knows the run is approximate: ``loss`` is how far a move's best-response value
falls below the best move's, and moves within the tolerance of ``spycfr query`` (what the
run's exploitability allows at that decision) tie and share a rank.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from spycfr.exact.best_response import best_response_values, infoset_values
from spycfr.games import feature, get_plugin, make_variant, tree_labels
from spycfr.games.plugin import Openings
from spycfr.tree import Tree

if TYPE_CHECKING:
    from spycfr.runs.result import RunResult

SHOWN = 0.005  # openings played at least this often are "played" in the words


def openings_spec(game: str) -> Openings:
    """The game's openings, or a one-line error naming the games that have them."""
    return feature(game, "openings", "openings table")


def node_at(tree: Tree, path) -> int:
    """The node reached from the root by the action (or chance outcome) codes ``path``."""
    node = 0
    for a in path:
        s, k = int(tree.first_child[node]), int(tree.num_children[node])
        hits = np.flatnonzero(tree.node_action[s:s + k] == int(a))
        if len(hits) != 1:
            raise ValueError(f"action {a} is not available at node {node}")
        node = s + int(hits[0])
    return node


def opening_infosets(tree: Tree) -> list[tuple[int, int, str]]:
    """(player, infoset id, context) of each opening decision of the tree's game (one row
    per infoset, in the order the game lists them)."""
    spec = openings_spec(tree.game)
    variant = make_variant(tree.game, None, tree.variant)
    out, seen = [], set()
    for player, path, context in spec.paths(variant):
        infoset = int(tree.node_infoset[node_at(tree, path)])
        if infoset not in seen:
            seen.add(infoset)
            out.append((player, infoset, context))
    return out


def openings_table(tree: Tree, strategy: np.ndarray,
                   exploitability: float | None = None) -> pd.DataFrame:
    """One row per (player, context, opening move), ranked by best-response value within
    each player and context, ties (``loss`` within ``tolerance``) sharing a rank.
    ``exploitability``: the run's (computed here when not given)."""
    from spycfr.analysis.query import tie_tolerance

    spec = openings_spec(tree.game)
    _, labels = tree_labels(tree)
    cfv, reach, opp_reach = infoset_values(tree, strategy)
    best = {p: best_response_values(tree, strategy, p) for p in (0, 1)}
    eps = float(exploitability if exploitability is not None else _accuracy(tree, strategy))
    frames = []
    for player, infoset, context in opening_infosets(tree):
        q, _, opp = best[player]
        k = int(tree.infoset_num_actions[infoset])
        frame = pd.DataFrame({
            "player": "P1" if player == 0 else "P2",
            "opening": labels[infoset][:k],
            "probability": strategy[infoset, :k],
            "eq_value": cfv[infoset, :k] / opp_reach[infoset],
            "br_value": q[infoset, :k] / opp[infoset],
        })
        if spec.context_name:
            frame.insert(1, spec.context_name, context)
            frame["reach"] = reach[infoset]
        tol = tie_tolerance(eps, float(reach[infoset]))
        frame["tolerance"] = 2 * eps if tol is None else tol
        frames.append(frame)
    return _ranked(pd.concat(frames, ignore_index=True), spec, ["br_value", "probability"])


def _accuracy(tree: Tree, strategy: np.ndarray) -> float:
    """The run's exploitability (what the tie tolerance needs), computed exactly."""
    from spycfr.exact.best_response import exploitability

    return exploitability(tree, strategy)


def treeless_table(game: str, raw: pd.DataFrame) -> pd.DataFrame:
    """The openings of a tree-less MCCFR run (``openings.csv``): probabilities only, values
    NaN (they need a tree), most played first."""
    spec = openings_spec(game)
    keep = ["player", *([spec.context_name] if spec.context_name else []), "opening",
            "probability", "seen"]
    table = raw[keep].assign(eq_value=np.nan, br_value=np.nan)
    return _ranked(table, spec, ["probability"])


def _ranked(table: pd.DataFrame, spec: Openings, by: list[str]) -> pd.DataFrame:
    """Rank within each player (and context): by ``by``; with values, moves whose
    best-response values are within the tolerance share a rank (the most played first)."""
    keys = ["player", *([spec.context_name] if spec.context_name else [])]
    table.insert(len(keys) + 1, spec.group_name, table.opening.map(spec.group))
    if "tolerance" not in table or table.br_value.isna().all():
        table = table.sort_values([*keys, *by], ascending=[True] * len(keys) + [False] * len(by),
                                  kind="stable")
        table["rank"] = table.groupby(keys, sort=False).cumcount() + 1
        return table.reset_index(drop=True)
    top = table.groupby(keys, sort=False).br_value.transform("max")
    table["loss"] = top - table.br_value
    table["tie"] = table.loss <= table.tolerance
    table["rank"] = 1 + table.groupby(keys, sort=False, group_keys=False)[
        ["br_value", "tolerance"]].apply(_tied_rank)
    table = table.sort_values([*keys, "rank", "probability", "br_value"],
                              ascending=[True] * (len(keys) + 1) + [False, False], kind="stable")
    return table.reset_index(drop=True)


def _tied_rank(group: pd.DataFrame) -> pd.Series:
    """How many moves of the group are better than each one by more than the tolerance."""
    v, tol = group.br_value.to_numpy(), group.tolerance.to_numpy()
    return pd.Series([(v > x + t).sum() for x, t in zip(v, tol, strict=True)],
                     index=group.index)


def columns_note(spec: Openings) -> str:
    """What the openings table's columns mean, in words (``spycfr openings`` and the
    workbench's openings page print it above their tables)."""
    return (f"Columns: eq prob = how often the equilibrium plays the {spec.what}; BR value = its "
            f"value against the equilibrium opponent when the player then plays as well as "
            f"possible; eq value = the same when the game then goes on at equilibrium; loss = how "
            f"far the BR value falls below the best {spec.what}'s ('tie': within what the run's "
            f"exploitability allows, no real difference); tied {spec.whats} share a rank. Values "
            f"are the player's payoff.")


def openings_words(rows: pd.DataFrame, spec: Openings, player: str, top: int = 6) -> list[str]:
    """One player's openings (at one situation) in plain words: what the equilibrium plays
    and how often, by group; what is as good without being played; what loses value."""
    played = rows[rows.probability >= SHOWN]
    out = []
    groups = played.groupby(spec.group_name, sort=False).probability.sum().sort_values(
        ascending=False)
    if spec.group(rows.opening.iloc[0]) == rows.opening.iloc[0] or len(groups) == len(played):
        out.append(f"{player} plays " + _listing(played, top) + ".")
    else:
        parts = []
        for g, p in list(groups.items())[:top]:
            inner = played[played[spec.group_name] == g]
            parts.append(f"{{{g}}} {_pct(p)} ({_listing(inner, 4)})")
        more = f", and {len(groups) - top} more" if len(groups) > top else ""
        out.append(f"{player} uses the {spec.group_title} " + ", ".join(parts) + more + ".")
    if "tie" not in rows or rows.tie.isna().all():
        return out
    tol = float(rows.tolerance.max())
    ties, losing = rows[rows.tie], rows[~rows.tie.astype(bool)].sort_values("loss")
    if losing.empty:
        out.append(f"Every {spec.what} is as good as the best against the equilibrium opponent "
                   f"(within {tol:.2g}): any is fine against it; mixing them as above keeps an "
                   f"opponent who adapts from exploiting you.")
    else:
        unplayed = ties[ties.probability < SHOWN]
        if not unplayed.empty:
            out.append(f"As good, though the equilibrium does not play "
                       f"{'it' if len(unplayed) == 1 else 'them'}: "
                       + ", ".join(unplayed.opening.head(top)) + ".")
        shown = ", ".join(f"{o} (loses {_loss(x)})" for o, x in
                          zip(losing.opening.head(top), losing.loss.head(top), strict=True))
        more = f" and {len(losing) - top} more" if len(losing) > top else ""
        out.append(f"Losing value against the equilibrium opponent even with the best play "
                   f"afterwards (ties within {tol:.2g}): {shown}{more}.")
    return out


def _listing(rows: pd.DataFrame, top: int) -> str:
    rows = rows.sort_values("probability", ascending=False)
    text = ", ".join(f"{o} {_pct(p)}" for o, p in
                     zip(rows.opening.head(top), rows.probability.head(top), strict=True))
    return text + (f", ... ({len(rows) - top} more)" if len(rows) > top else "")


def _loss(x: float) -> str:
    return f"{x:.4f}" if x >= 1e-3 else f"{x:.1e}"


def _pct(p: float) -> str:
    return f"{100 * p:.0f}%" if p >= 0.095 else f"{100 * p:.1f}%"


def openings_by_group(table: pd.DataFrame, group: str, context: str | None = None
                      ) -> pd.DataFrame:
    """Opening moves grouped by ``group`` (e.g. the set of cards placed, arrangement ignored).

    With ``context`` (several opening decisions per player), a group's probability is its
    share of the player's opening moves: situations weighted by how often they arise
    (``reach``) where the table has it, equally otherwise.
    """
    if context is not None:
        table = table.copy()
        weight = table["reach"] if "reach" in table else pd.Series(1.0, index=table.index)
        per_player = table.assign(w=weight).drop_duplicates(["player", context]).groupby(
            "player").w.sum()
        table["probability"] = table.probability * weight / table.player.map(per_player)
    grouped = table.groupby(["player", group], sort=False).agg(
        probability=("probability", "sum"),
        best_br_value=("br_value", "max"),
        arrangements=("opening", "count"),
    )
    grouped = grouped.reset_index().sort_values(
        ["player", "probability", "best_br_value"], ascending=[True, False, False], kind="stable"
    )
    return grouped.reset_index(drop=True)


def sampled_caveat(measured: dict | None, estimate, run_code: dict | None = None) -> str:
    """How far a sampled run's openings can be trusted: the lower bound on its
    exploitability that ``measured`` (run.json's block) shows, with where its games were
    another agent's than the run's (``run_code``: run.json's ``code``;
    :func:`spycfr.analysis.bound.bound_words`, brief), the regret-bound estimate, or
    unknown."""
    from spycfr.analysis.bound import bound_words
    from spycfr.runs.store import TREELESS_CAVEAT

    bound = bound_words(measured, run_code, brief=True)
    if bound:
        return (f"approximate: MCCFR; exploitability unknown: {bound} (its exact value needs "
                "a tree, as the values do)")
    if estimate is not None and estimate.informative:
        return (f"{TREELESS_CAVEAT} (regret-bound estimate {estimate.value:.3g}; values need a "
                "tree)")
    return (f"{TREELESS_CAVEAT}: unknown (`spycfr measure` on this run bounds it from below: "
            "games against other players, with --lbr-games a local best response); values "
            "need a tree")


def needs_only_words(meta: RunResult) -> str:
    """For an agent with AgentConfig.needs_only, that its first plan's moves are not cut
    (the plan is solved without cards; the cut is its actual hand's re-solve's); else ''."""
    if not (meta.record.get("agent") or {}).get("needs_only"):
        return ""
    return ("It makes only the moves its cards need (needs_only: "
            f"{get_plugin(meta.game).needed_moves_said()}), which this plan, solved without "
            "cards, does not cut: where these first moves are ones its hand does not need, it "
            "plays another. ")


def agent_openings_words(meta: RunResult) -> str:
    """What a search agent run's openings are: the moves of its first plan, not a stored
    average strategy."""
    from spycfr.runs.agent_run import agent_config, leaf_words, plan_to_end, replays_first_move

    config = agent_config(meta)
    words = (f"The agent's openings: the moves of its first plan, solved once for the start "
             f"of every game ({config.iterations} CFR+ iterations "
             + ("to the end of the game, no leaf values); " if plan_to_end(meta) else
                f"over its first {config.plan_depth} decision levels, the positions where it "
                f"stops valued by {leaf_words(meta)}); "))
    if replays_first_move(meta):
        words += ("in play the agent re-solves every decision, its first move too, with the "
                  "rollouts spent on its own hand, so its first moves may differ from these "
                  "(`spycfr query` gives the move it plays for a hand). ")
        words += needs_only_words(meta)
    elif plan_to_end(meta):
        words += ("in play it plays these, and re-solves a later decision where the rest of "
                  "the game fits its endgame budget. ")
    else:
        words += "every later decision is re-solved in play. "
    return words + ("Exploitability unknown (`spycfr report` gives what was measured: head to "
                    "head, local best response).")
