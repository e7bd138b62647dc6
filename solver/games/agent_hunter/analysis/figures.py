"""Figures of Agent Hunter's report sections: placement values against probabilities, and
the moves played at each turn."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from spycfr.analysis.markdown import save_figure, signed
from spycfr.games.agent_hunter import rules as R

TYPE_NAMES = ("placement", "hand attack", "switch", "house attack", "refill")
TURN_TYPES = (R.T_HAND, R.T_SWITCH, R.T_HOUSE)
PLAYERS = ("P1", "P2")
COLORS = {R.T_HAND: "#4C72B0", R.T_SWITCH: "#DD8452", R.T_HOUSE: "#C44E52"}


def openings_figure(table: pd.DataFrame, values: dict, eps: float, path: Path) -> Path:
    """Per player, one row per placement (card sets by how often they are used): how often
    the equilibrium plays it (left) and the value it loses against the equilibrium opponent
    with best play afterwards (right; the grey band is what the run's accuracy calls a tie)."""
    from matplotlib.figure import Figure

    shown = {p: _figure_rows(table[table.player == p], eps) for p in PLAYERS}
    fig = Figure(figsize=(10, 1.9 + 0.24 * sum(len(r) for r in shown.values())),
                 layout="constrained")
    axes = fig.subplots(2, 2, sharex="col", gridspec_kw={
        "height_ratios": [max(len(shown[p]), 1) for p in PLAYERS], "width_ratios": [1, 1.3]})
    band = max(max(float(r.tolerance.max()) for r in shown.values()), 1e-12)
    span = max(max(float(r.loss.max()) for r in shown.values()) * 1.3, 3 * band)
    top_p = max(float(r.probability.max()) for r in shown.values())
    for (left, right), player in zip(axes, PLAYERS, strict=True):
        rows = shown[player]
        y = np.arange(len(rows))[::-1]
        colors = ["#4C72B0" if t else "#C44E52" for t in rows.tie]
        left.barh(y, rows.probability, color=colors, height=0.7)
        for yy, p in zip(y, rows.probability, strict=True):
            left.text(p + 0.01 * top_p, yy, f"{100 * p:.1f}%", va="center", fontsize=8)
        left.set_yticks(y, [f"{o.split(':', 1)[1]}  {{{c}}}" for o, c in
                            zip(rows.opening, rows.cards, strict=True)], fontsize=8)
        left.set_xlim(0, min(1.0, top_p * 1.2 + 0.02))
        left.set_title(f"{player}: how often each placement is used", fontsize=10)
        right.axvspan(0, band, color="grey", alpha=0.2, lw=0,
                      label=f"tie (within {band:.2g} of the best)")
        right.barh(y, rows.loss, color=colors, height=0.7)
        for yy, loss, tie in zip(y, rows.loss, rows.tie, strict=True):
            right.text(max(loss, band) + span * 0.01, yy, "tie" if tie else f"−{loss:.4f}",
                       va="center", fontsize=8)
        right.set_yticks(y, [""] * len(y))
        right.set_xlim(0, span)
        right.set_title(f"{player}: value lost against the best placement "
                        f"(equilibrium value {signed(values[player], 4)})", fontsize=10)
        for ax in (left, right):
            ax.set_ylim(-0.6, len(rows) - 0.4)
            ax.grid(True, axis="x", alpha=0.3)
    handles, labels = axes[0][1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower right", fontsize=8)
    axes[1][0].set_xlabel("probability at equilibrium")
    axes[1][1].set_xlabel("value lost per game (the player's payoff), with best play afterwards")
    fig.suptitle("Placements: how often each is played, and what each costs against the "
                 "equilibrium opponent", fontsize=11)
    return save_figure(fig, path)


def _figure_rows(rows: pd.DataFrame, eps: float, most: int = 24) -> pd.DataFrame:
    """One player's placements for the figure, card sets by probability, placements by
    probability within a set; with more than ``most``, the most played and the costliest."""
    rows = rows.copy()
    if "loss" not in rows:  # a table without the noise-aware columns: ties within 2 eps
        rows["loss"] = rows.br_value.max() - rows.br_value
        rows["tolerance"] = 2 * eps
        rows["tie"] = rows.loss <= rows.tolerance
    if "cards" not in rows:
        rows["cards"] = rows.opening.map(
            lambda o: ",".join(sorted(o.split(":", 1)[1].split("-"), key=int)))
    if len(rows) > most:
        keep = pd.concat([rows.nlargest(most - 4, "probability"), rows.nlargest(4, "loss")])
        rows = rows.loc[keep.index.unique()]
    set_prob = rows.groupby("cards").probability.transform("sum")
    return rows.assign(_s=set_prob).sort_values(
        ["_s", "cards", "probability"], ascending=[False, True, False]).drop(columns="_s")


def turns_figure(stats, path: Path) -> Path:
    """Stacked bars: probability that turn t is played with each move type."""
    from matplotlib.figure import Figure

    turns = np.arange(1, stats.usage.shape[1])
    both = stats.usage.sum(axis=0)[1:]  # the mover alternates: sum over players
    played = both[:, list(TURN_TYPES)].sum(axis=1)
    keep = played > 0
    turns, both = turns[keep], both[keep]
    fig = Figure(figsize=(7.5, 4.2), layout="constrained")
    ax = fig.subplots()
    bottom = np.zeros(len(turns))
    for t in TURN_TYPES:
        ax.bar(turns, both[:, t], bottom=bottom, color=COLORS[t], label=TYPE_NAMES[t])
        bottom += both[:, t]
    for x, h in zip(turns, bottom, strict=True):
        ax.text(x, h + 0.01, f"{100 * h:.0f}%", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(turns, [f"{t}\n{'P1' if t % 2 else 'P2'}" for t in turns])
    ax.set_xlabel("turn (and who moves)")
    ax.set_ylabel("probability (bar height: game still running)")
    ax.set_ylim(0, 1.12)
    ax.set_title("Which move is played at each turn, at equilibrium")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    return save_figure(fig, path)
