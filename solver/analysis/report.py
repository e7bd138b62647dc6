"""Strategy report of a run: a markdown document with PNG figures that a player can read.

Every number is computed exactly on the run's tree under its average strategy: value and
best responses (:mod:`spycfr.exact.best_response`), convergence, and the game's own
sections (its plug-in's ``report_sections``, e.g. Agent Hunter's openings and play);
games without sections get a generic table of how often each action is taken. Values are
always given with the strategy's exploitability, the only honest measure of how far they
are from the game's.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from spycfr.analysis.markdown import (
    Doc,
    fmt_eps,
    md_table,
    pct,
    save_figure,
    signed,
    value_decimals,
)
from spycfr.analysis.openings import openings_table
from spycfr.errors import SpycfrError
from spycfr.exact.best_response import best_response, expected_value, infoset_values
from spycfr.games import get_plugin, tree_labels
from spycfr.io import write_text
from spycfr.runs.result import RunResult
from spycfr.runs.store import Run
from spycfr.tree import Tree
from spycfr.words import params_text

PLAYERS = ("P1", "P2")
SMALL_GAME_INFOSETS = 40  # up to this many infosets, a report lists the whole strategy
ALGORITHM_NAMES = {"cfr": "CFR", "cfr+": "CFR+", "lcfr": "Linear CFR", "dcfr": "Discounted CFR",
                   "pcfr+": "Predictive CFR+", "pdcfr+": "Discounted predictive CFR+",
                   "hs-pcfr+": "Predictive CFR+ with a hyperparameter schedule",
                   "lp": "exact sequence-form LP", "es-mccfr": "external-sampling MCCFR",
                   "os-mccfr": "outcome-sampling MCCFR"}


@dataclass
class ReportContext:
    """What a game's report sections get: the run, its exact values, where figures go, and
    two documents to add to (``summary`` right after the headline numbers, ``body`` after
    the convergence), which share the takeaways list."""

    run: Run
    result: RunResult  # its values all measured (computed on the tree where the run lacks one)
    tree: Tree
    strategy: np.ndarray
    eps: float
    dec: int
    cfv: np.ndarray
    reach: np.ndarray
    opp_reach: np.ndarray
    figures_dir: Path
    rel: Path
    summary: Doc
    body: Doc
    openings: Callable[[], pd.DataFrame]


def variant_words(result: RunResult) -> str:
    """The variant of a run in plain words."""
    return get_plugin(result.game).describe_variant(result.variant)


def convergence_figure(log: pd.DataFrame, final: float, path: Path) -> Path | None:
    """Exploitability against iterations, log-log; None when there is nothing to draw."""
    from matplotlib.figure import Figure

    log = log[(log.iteration > 0) & (log.exploitability > 0)]
    if len(log) < 2:
        return None
    fig = Figure(figsize=(6.4, 4.0), layout="constrained")
    ax = fig.subplots()
    ax.loglog(log.iteration, log.exploitability, "o-", ms=3, color="#4C72B0")
    ax.set_xlabel("iterations")
    ax.set_ylabel("exploitability (NashConv / 2)")
    ax.set_title("Convergence: how far the average strategy is from an equilibrium")
    ax.grid(True, which="both", alpha=0.3)
    ax.text(0.97, 0.95, f"final exploitability {final:.3g}\nafter {int(log.iteration.iloc[-1]):,} "
            f"iterations", transform=ax.transAxes, ha="right", va="top", fontsize=9,
            bbox={"boxstyle": "round", "fc": "white", "ec": "0.8"})
    return save_figure(fig, path)


def _convergence_log(run: Run) -> pd.DataFrame:
    path = run.path / "convergence.csv"
    try:
        log = pd.read_csv(path)
        if {"iteration", "exploitability"} <= set(log.columns):
            return log
    except (OSError, ValueError):
        pass
    return pd.DataFrame(run.result.log, columns=["iteration", "seconds", "exploitability"])


def write_report(run: Run, out_path: str | Path, figures_dir: str | Path | None = None) -> Path:
    """Write the markdown report of ``run`` to ``out_path`` and its figures to ``figures_dir``
    (default: ``<report stem>_files`` next to the report); returns the report's path."""
    out_path = Path(out_path)
    figures_dir = Path(figures_dir) if figures_dir is not None else (
        out_path.parent / f"{out_path.stem}_files")
    try:
        text = _build(run, out_path, figures_dir)
        write_text(out_path, text)
    except OSError as exc:
        raise SpycfrError(f"cannot write the report {str(out_path)!r}: "
                          f"{exc.strerror or exc}") from None
    return out_path


def _completed(run: Run) -> Run:
    """``run`` with run.json's values, computing on the tree any that an older or other run
    lacks."""
    r = run.result
    value = r.value_p1 if r.value_p1 is not None else expected_value(run.tree, run.strategy)
    br1, br2 = (b if b is not None else best_response(run.tree, run.strategy, p)[0]
                for p, b in enumerate((r.best_response_p1, r.best_response_p2)))
    eps = r.exploitability if r.exploitability is not None else (br1 + br2) / 2
    result = dataclasses.replace(r, value_p1=value, best_response_p1=br1,
                                 best_response_p2=br2, exploitability=eps)
    return dataclasses.replace(run, result=result)


def _build(run: Run, out_path: Path, figures_dir: Path) -> str:
    run = _completed(run)
    meta = run.result
    tree, strategy = run.tree, run.strategy
    plugin = get_plugin(meta.game)
    doc = Doc()
    assert meta.exploitability is not None
    eps = float(meta.exploitability)
    dec = value_decimals(eps)
    rel = Path(os.path.relpath(figures_dir, out_path.parent))

    _header(doc, meta, tree)
    _headline(doc, meta, eps, dec)
    cfv, reach, opp_reach = infoset_values(tree, strategy)
    summary, body = Doc(takeaways=doc.takeaways), Doc(takeaways=doc.takeaways)
    if plugin.report_sections is not None:
        module, function = plugin.report_sections.split(":")
        sections = getattr(importlib.import_module(module), function)
        sections(ReportContext(
            run, meta, tree, strategy, eps, dec, cfv, reach, opp_reach, figures_dir, rel,
            summary, body, lambda: openings_table(tree, strategy)))
    else:
        _generic_actions(body, tree, strategy, reach)
    doc.add(*summary.parts)
    _convergence(doc, run, eps, figures_dir, rel)
    doc.add(*body.parts)
    _best_responses(doc, run, eps, dec)
    out = list(doc.parts)
    out.append("## What a player can learn\n")
    if doc.takeaways:
        out.append("\n".join(f"- {t}" for t in doc.takeaways) + "\n")
    out.append(
        f"All numbers are exact for this strategy on the full game tree. They describe *one* "
        f"approximate equilibrium (exploitability {fmt_eps(eps)}): values are within the "
        f"exploitability of the game's, but another equilibrium may mix differently, so read "
        f"probabilities as one good way to play, not the only one.\n")
    return "\n".join(out)


def _values(result: RunResult) -> tuple[float, float, float]:
    """(P1's value, P1's best-response value, P2's) of a completed result."""
    v, br1, br2 = result.value_p1, result.best_response_p1, result.best_response_p2
    assert v is not None and br1 is not None and br2 is not None  # completed by _completed
    return float(v), float(br1), float(br2)


def _header(doc: Doc, meta: RunResult, tree: Tree) -> None:
    title = get_plugin(meta.game).title
    preset = meta.preset
    doc.add(f"# Strategy report: {title}" + (f", preset `{preset}`" if preset else "") + "\n")
    alg = ALGORITHM_NAMES.get(meta.algorithm, meta.algorithm)
    params = meta.algorithm_params
    updates = "alternating" if params.get("alternating", True) else "simultaneous"
    seconds = float(meta.solve_seconds or 0.0)
    build = f"{meta.build_seconds or 0:.1f} s to build the tree"
    if meta.algorithm == "lp":
        solved = [["algorithm", f"{alg} (one HiGHS program, exact)"],
                  ["solve time", f"{seconds:,.1f} s + {build}"]]
    else:
        solved = [
            ["algorithm", f"{alg} ({updates} updates)"],
            ["iterations",
             f"{int(meta.iterations):,} (stopped by {meta.stopped_by or '?'})"],
            ["seed", str(meta.seed if meta.seed is not None else "-")],
            ["solve time", f"{seconds:,.1f} s ({meta.ms_per_iteration or 0:.3g} ms per "
                           f"iteration) + {build}"]]
    rows = [
        ["game", f"{title}: {variant_words(meta)}"],
        ["parameters", params_text(meta.variant) or "none"],
        *solved,
        ["tree", f"{tree.num_nodes:,} nodes, {tree.num_infosets:,} information sets"],
        ["spycfr", f"{meta.version or '?'}, run made {meta.created or '?'}"],
    ]
    doc.add(md_table(["", ""], rows, "ll") + "\n")


def _headline(doc: Doc, meta: RunResult, eps: float, dec: int) -> None:
    v, br1, br2 = _values(meta)
    lo, hi = -br2, br1  # the exact game value lies between the two best responses
    plugin = get_plugin(meta.game)
    win = plugin.win_payoff(meta.variant)
    unit = plugin.payoff_unit(meta.variant)
    per_game = "per game" if win else f"{unit} per game"
    e = f"exploitability {fmt_eps(eps)}"
    doc.add("## Headline numbers\n")
    doc.add(md_table(
        ["quantity", "value", "accuracy"],
        [["value of the game for P1", signed(v, dec), e],
         ["value of the game for P2", signed(-v, dec), e],
         ["first-player advantage (P1's value − P2's value)", signed(2 * v, dec), e],
         ["exact game value for P1 lies in", f"[{signed(lo, dec)}, {signed(hi, dec)}]",
          "certified: [−BR(P2), BR(P1)]"]],
        "lrl") + "\n")
    meaning = (" A value is the probability of winning minus the probability of losing."
               if win else f" Values are in {unit} per game.")
    doc.add(f"The strategy found is {fmt_eps(eps)} from an equilibrium (exploitability: the "
            f"average of what each player's best response gains against it), so every value "
            f"above is known to about ±{fmt_eps(eps)}; the two best responses bound the game's "
            f"exact value.{meaning}\n")
    if lo <= 0 <= hi:
        seat = (f"The exact value lies in [{signed(lo, dec)}, {signed(hi, dec)}], which "
                f"contains 0: at this accuracy neither seat is better.")
        take = (f"Moving first is worth nothing measurable: the game's value for P1 is "
                f"{signed(v, dec)} (exploitability {fmt_eps(eps)}).")
    else:
        better = "P1 (moving first)" if lo > 0 else "P2 (moving second)"
        size = min(abs(lo), abs(hi))
        seat = (f"The exact value lies in [{signed(lo, dec)}, {signed(hi, dec)}]: {better} "
                f"has the better seat, by at least {size:.{dec}f} per game.")
        take = (f"The seat matters: {better} is worth {signed(abs(v), dec)} {per_game} "
                f"(exploitability {fmt_eps(eps)}); the other seat loses as much.")
    who = plugin.seat_note
    doc.add(f"{seat} {who}, so over the two seats the game is fair (average value 0 by "
            f"symmetry); what the toss decides is the seat, worth {signed(v, dec)} to the "
            f"first player and {signed(-v, dec)} to the second: a swing of "
            f"{abs(2 * v):.{dec}f} {per_game} between winning and losing the toss.\n")
    doc.takeaways.append(take)


def _convergence(doc: Doc, run: Run, eps: float, figdir: Path, rel: Path) -> None:
    log = _convergence_log(run)
    doc.add("## Convergence\n")
    fig = convergence_figure(log, eps, figdir / "convergence.png")
    good = log[(log.iteration > 0) & (log.exploitability > 0)]
    if fig is not None:
        doc.add(f"![exploitability against iterations]({(rel / fig.name).as_posix()})\n")
        half = good[good.iteration >= good.iteration.iloc[-1] / 4]
        text = (f"Exploitability went from {good.exploitability.iloc[0]:.3g} after "
                f"{int(good.iteration.iloc[0]):,} iterations to {fmt_eps(eps)} after "
                f"{int(run.result.iterations):,}.")
        if len(half) >= 3:
            slope = np.polyfit(np.log(half.iteration), np.log(half.exploitability), 1)[0]
            text += (f" Over the last three quarters of the run it fell like "
                     f"iterations^{slope:.2f}.")
        doc.add(text + "\n")
    elif run.result.algorithm == "lp":
        doc.add(f"Solved exactly by the sequence-form LP: exploitability {fmt_eps(eps)} (the "
                f"floating-point rounding of an exact equilibrium).\n")
    else:
        doc.add(f"The run logged too few points for a curve; final exploitability "
                f"{fmt_eps(eps)} after {int(run.result.iterations):,} iterations.\n")


def _generic_actions(doc: Doc, tree: Tree, strategy: np.ndarray, reach: np.ndarray) -> None:
    _, labels = tree_labels(tree)
    counts = tree.infoset_num_actions.astype(np.int64)
    rows_i = np.repeat(np.arange(tree.num_infosets), counts)
    cols = np.concatenate([np.arange(k) for k in counts])
    frame = pd.DataFrame({
        "player": np.array(PLAYERS)[tree.infoset_player[rows_i]],
        "action": [labels[i][a] for i, a in zip(rows_i, cols, strict=True)],
        "times": reach[rows_i] * strategy[rows_i, cols],
    })
    agg = frame.groupby(["player", "action"], sort=False).times.sum().reset_index()
    doc.add("## How often each action is taken at equilibrium\n")
    rows = []
    for p in PLAYERS:
        mine = agg[agg.player == p]
        total = mine.times.sum()
        for r in mine.itertuples():
            rows.append([p, r.action, f"{r.times:.3f}", pct(r.times / total)])
        if total > 0:
            main = mine.sort_values("times").iloc[-1]
            doc.takeaways.append(f"{p}'s most frequent action is {main.action} "
                                 f"({pct(main.times / total)} of {p}'s decisions).")
    doc.add(md_table(["player", "action", "times per game", "share of decisions"], rows,
                     "llrr") + "\n")
    if tree.num_infosets <= SMALL_GAME_INFOSETS:
        keys, _ = tree_labels(tree)
        doc.add("### The whole strategy\n")
        doc.add("Every information state (what the player to move knows), how often it "
                "arises at equilibrium, and the probability of each action there.\n")
        rows = []
        for i in np.argsort(tree.infoset_player, kind="stable"):
            k = int(tree.infoset_num_actions[i])
            rows.append([PLAYERS[tree.infoset_player[i]], f"`{keys[i]}`", pct(reach[i])]
                        + ["; ".join(f"{labels[i][a]} {pct(strategy[i, a])}" for a in range(k))])
        doc.add(md_table(["player", "information state", "reached", "strategy"], rows,
                         "llrl") + "\n")


def _best_responses(doc: Doc, run: Run, eps: float, dec: int) -> None:
    tree, strategy = run.tree, run.strategy
    v, br1, br2 = _values(run.result)
    width = strategy.shape[1]
    cols = np.arange(width)
    na = tree.infoset_num_actions.astype(np.float64)[:, None]
    uniform = np.where(cols[None, :] < na, 1.0 / np.maximum(na, 1.0), 0.0)
    rand_v = expected_value(tree, uniform)
    eq_vs_rand, br_vs_rand = [], []
    for p in (0, 1):
        profile = uniform.copy()
        rows = tree.infoset_player == p
        profile[rows] = strategy[rows]
        sign = 1.0 if p == 0 else -1.0
        eq_vs_rand.append(sign * expected_value(tree, profile))
        del profile
        br_vs_rand.append(best_response(tree, uniform, p)[0])
    doc.add("## Best responses\n")
    doc.add("Against the equilibrium: the most a player who knew the strategy exactly could "
            "win with a perfect counter-strategy. The gain over the equilibrium value is how "
            "exploitable the strategy is.\n")
    doc.add(md_table(
        ["player", "equilibrium value", "best response against the equilibrium", "gain"],
        [["P1", signed(v, dec), signed(br1, dec), f"{br1 - v:.3g}"],
         ["P2", signed(-v, dec), signed(br2, dec), f"{br2 + v:.3g}"]], "lrrr") + "\n")
    doc.add(f"Exploitability = average gain = {fmt_eps(eps)}.\n")
    doc.add("Against a uniformly random opponent (every legal move equally likely): what the "
            "equilibrium strategy wins, and what a perfect exploiter of the random player "
            "wins. Values are the named player's payoff.\n")
    doc.add(md_table(
        ["player", "equilibrium vs random", "best response vs random", "random vs random"],
        [["P1", signed(eq_vs_rand[0], dec), signed(br_vs_rand[0], dec), signed(rand_v, dec)],
         ["P2", signed(eq_vs_rand[1], dec), signed(br_vs_rand[1], dec),
          signed(-rand_v, dec)]], "lrrr") + "\n")
    doc.takeaways.append(
        f"Skill pays: against a player who moves at random, the equilibrium strategy wins "
        f"{signed(eq_vs_rand[0], 3)} per game as P1 and {signed(eq_vs_rand[1], 3)} as P2. "
        f"It is safe, not greedy: a player who knew the opponent was random could win "
        f"{signed(br_vs_rand[0], 3)} and {signed(br_vs_rand[1], 3)}.")
