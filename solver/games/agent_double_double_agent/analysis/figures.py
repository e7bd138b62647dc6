"""Figures of Agent Double Double Agent's report sections: how each player spreads loyalty
over the agents, and who takes each agent's files."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from spycfr.analysis.markdown import save_figure

PLAYERS = ("P1", "P2")
COLORS = ("#4C72B0", "#C44E52", "#BBBBBB")


def loyalty_figure(spread: np.ndarray, token_values: list[int], path: Path) -> Path:
    """Heat maps, one per player: probability that agent a holds token value t."""
    from matplotlib.figure import Figure

    n_agents = spread.shape[1]
    fig = Figure(figsize=(4.0 + 1.6 * n_agents, 3.6), layout="constrained")
    axes = fig.subplots(1, 2)
    for p, ax in enumerate(axes):
        data = spread[p].T  # rows: token values, columns: agents
        im = ax.imshow(data, vmin=0, vmax=1, cmap="Blues", aspect="auto", origin="lower")
        for t in range(data.shape[0]):
            for a in range(n_agents):
                ax.text(a, t, f"{100 * data[t, a]:.0f}%", ha="center", va="center",
                        fontsize=9, color="white" if data[t, a] > 0.6 else "black")
        ax.set_xticks(range(n_agents), [f"agent {a + 1}" for a in range(n_agents)])
        ax.set_yticks(range(len(token_values)), [str(t) for t in token_values])
        ax.set_ylabel("loyalty token")
        ax.set_title(f"{PLAYERS[p]}: where each token goes")
    fig.colorbar(im, ax=axes, shrink=0.8, label="probability at equilibrium")
    return save_figure(fig, path)


def agents_figure(deliver: np.ndarray, points: np.ndarray, path: Path) -> Path:
    """Stacked bars per agent: delivered to P1, to P2, never delivered; with points taken."""
    from matplotlib.figure import Figure

    n = deliver.shape[0]
    never = np.clip(1.0 - deliver.sum(axis=1), 0.0, 1.0)
    fig = Figure(figsize=(max(6.0, 2.0 + 1.3 * n), 4.2), layout="constrained")
    ax = fig.subplots()
    x = np.arange(n)
    bottom = np.zeros(n)
    for part, label, color in ((deliver[:, 0], "taken by P1", COLORS[0]),
                               (deliver[:, 1], "taken by P2", COLORS[1]),
                               (never, "never delivered", COLORS[2])):
        ax.bar(x, part, bottom=bottom, color=color, label=label)
        bottom += part
    for a in range(n):
        ax.text(a, 1.02, f"P1 {points[a, 0]:.1f} / P2 {points[a, 1]:.1f} pts", ha="center",
                va="bottom", fontsize=8)
    ax.set_xticks(x, [f"agent {a + 1}" for a in range(n)])
    ax.set_ylim(0, 1.15)
    ax.set_ylabel("probability at equilibrium")
    ax.set_title("Who takes each agent's files (expected points per game above)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3, fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    return save_figure(fig, path)
