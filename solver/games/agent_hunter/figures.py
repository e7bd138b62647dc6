"""Figures of Agent Hunter's report sections: placement values against probabilities, and
the moves played at each turn."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from solver.analysis.markdown import save_figure, signed
from solver.games.agent_hunter import rules as R

TYPE_NAMES = ("placement", "hand attack", "switch", "house attack", "refill")
TURN_TYPES = (R.T_HAND, R.T_SWITCH, R.T_HOUSE)
PLAYERS = ("P1", "P2")
COLORS = {R.T_HAND: "#4C72B0", R.T_SWITCH: "#DD8452", R.T_HOUSE: "#C44E52"}


def openings_figure(table: pd.DataFrame, values: dict, eps: float, path: Path) -> Path:
    """Per player: value of each pure placement against the equilibrium vs its probability."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 4.4), layout="constrained")
    axes = fig.subplots(1, 2)
    for ax, player in zip(axes, PLAYERS, strict=True):
        rows = table[table.player == player]
        v = values[player]
        ax.axhspan(v - eps, v + eps, color="grey", alpha=0.15,
                   label=f"equilibrium value {signed(v, 4)} ± exploitability")
        ax.axhline(v, color="grey", lw=1, ls="--")
        spread = max(float(rows.br_value.max() - rows.br_value.min()), 4 * eps, 0.02)
        lo = min(float(rows.br_value.min()), v) - 0.15 * spread
        hi = max(float(rows.br_value.max()), v) + 0.15 * spread
        ax.set_ylim(lo, hi)
        ax.scatter(rows.probability, rows.br_value, s=36, color="#4C72B0", zorder=3)
        labelled = rows if len(rows) <= 24 else pd.concat(
            [rows.sort_values("probability", ascending=False).head(8),
             rows.sort_values("br_value").head(2)]).drop_duplicates("opening")
        xr = (0.0, max(1.0, float(rows.probability.max())))
        for (x, y), names in _clusters(labelled, (xr[1] - xr[0]) * 0.02, (hi - lo) * 0.03):
            ax.annotate(", ".join(names), (x, y), fontsize=8, textcoords="offset points",
                        xytext=(5, 2))
        ax.set_xlabel("probability at equilibrium")
        ax.set_ylabel(f"{player}'s value of the placement")
        ax.set_title(f"{player}'s placements")
        ax.set_xlim(-0.03, max(1.0, float(rows.probability.max())) + 0.03)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
    fig.suptitle("Placements: value against the equilibrium opponent (best play afterwards)")
    return save_figure(fig, path)


def _clusters(rows: pd.DataFrame, dx: float, dy: float) -> list:
    """Placements whose points (nearly) coincide, labelled together: [((x, y), names)]."""
    groups: list = []
    for r in rows.sort_values("probability", ascending=False).itertuples():
        name = r.opening.split(":", 1)[1]
        for (x, y), names in groups:
            if abs(r.probability - x) <= dx and abs(r.br_value - y) <= dy:
                names.append(name)
                break
        else:
            groups.append(((r.probability, r.br_value), [name]))
    return groups


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
