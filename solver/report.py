"""Strategy report of a run: a markdown document with PNG figures that a player can read.

Every number is computed exactly on the run's tree under its average strategy: value and
best responses (:mod:`solver.best_response`), openings (:mod:`solver.openings`), and, for
Agent Hunter, one numba depth-first pass that replays the rules along every path of
positive probability and accumulates, weighted by that probability, which moves are
played at which turn, how attacks end and how games end. Values are always given with
the strategy's exploitability, the only honest measure of how far they are from the game's.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from numba import njit

from solver.best_response import best_response, expected_value, infoset_values
from solver.errors import SpycfrError
from solver.games.agent_hunter import rules as R
from solver.io import atomic_path, write_text
from solver.run import Run
from solver.tree import Tree

TYPE_NAMES = ("placement", "hand attack", "switch", "house attack", "refill")
TYPE_PLURALS = ("placements", "hand attacks", "switches", "house attacks", "refills")
TURN_TYPES = (R.T_HAND, R.T_SWITCH, R.T_HOUSE)
ANSWERS = ("lo", "eq", "hi")
PLAYERS = ("P1", "P2")
COLORS = {R.T_HAND: "#4C72B0", R.T_SWITCH: "#DD8452", R.T_HOUSE: "#C44E52"}
SMALL_GAME_INFOSETS = 40  # up to this many infosets, a report lists the whole strategy
GAME_TITLES = {"agent-hunter": "Agent Hunter", "kuhn": "Kuhn poker", "leduc": "Leduc poker",
               "liars-dice": "Liar's dice"}
GAME_WORDS = {
    "kuhn": "three cards (J, Q, K), one dealt to each player, ante 1, one betting round "
            "(pass or bet 1)",
    "leduc": "six cards (two suits of J, Q, K), one private card each and one public card, "
             "two betting rounds with raises of 2 then 4",
}
ALGORITHM_NAMES = {"cfr": "CFR", "cfr+": "CFR+", "lcfr": "Linear CFR", "dcfr": "Discounted CFR",
                   "pcfr+": "Predictive CFR+", "es-mccfr": "external-sampling MCCFR",
                   "os-mccfr": "outcome-sampling MCCFR"}


# --- the Agent Hunter pass -------------------------------------------------------------


@njit(cache=True)
def _ah_stats(first_child, num_children, node_player, node_infoset, node_action, utility,
              sigma, params, n_turns, stack_cap):
    """Probability-weighted statistics of equilibrium play, one depth-first pass.

    Replays the rules along every path of positive probability (the reach is the product
    of both players' action probabilities: Agent Hunter has no chance node). Returns
    usage[p, turn, type], hand[p, turn, answer], house[p, turn, answer], house_src[p, s]
    (a missed house attack: defender's card from hand s=0 or from a house s=1),
    switch[p, same card, decoy beside the switched house], end[turn, by elimination],
    outcome[P1 wins/draw/P2 wins], vp[p] (expected VP), tiebreak (probability that equal
    VP were decided by hand sums), elim[p, how] (houses eliminated by p: hand eq,
    house eq, defending against a missed house attack).
    """
    S = R.STATE_SIZE
    k_houses = params[R.P_HOUSES]
    usage = np.zeros((2, n_turns + 2, 5))
    hand = np.zeros((2, n_turns + 2, 3))
    house = np.zeros((2, n_turns + 2, 3))
    house_src = np.zeros((2, 2))
    switch = np.zeros((2, 2, 2))
    end = np.zeros((n_turns + 2, 2))
    outcome = np.zeros(3)
    vp = np.zeros(2)
    tiebreak = 0.0
    elim = np.zeros((2, 3))
    st_node = np.empty(stack_cap, dtype=np.int64)
    st_state = np.empty((stack_cap, S), dtype=np.int16)
    st_reach = np.empty(stack_cap)
    cur = np.empty(S, dtype=np.int16)
    child = np.empty(S, dtype=np.int16)
    st_node[0] = 0
    st_state[0] = R.initial_state(params)
    st_reach[0] = 1.0
    sp = 1
    while sp > 0:
        sp -= 1
        n = st_node[sp]
        r = st_reach[sp]
        for i in range(S):
            cur[i] = st_state[sp, i]
        p = node_player[n]
        j = node_infoset[n]
        s = first_child[n]
        turn = min(cur[R.TURN] + 1, n_turns + 1)
        base = p * R.PSTRIDE
        obase = (1 - p) * R.PSTRIDE
        for a in range(num_children[n]):
            w = r * sigma[j, a]
            if w <= 0.0:
                continue
            c = s + a
            code = node_action[c]
            typ = code >> 12
            pay = code & 0xFFF
            if typ != R.T_PLACE:
                usage[p, turn, typ] += w
            if typ == R.T_HAND:
                cc = pay >> 2
                v = cur[obase + R.O_HOUSE + (pay & 3)]
                ans = R._answer(cc, v)
                hand[p, turn, ans] += w
                if ans == R.ANS_EQ:
                    elim[p, 0] += w
            elif typ == R.T_HOUSE:
                x = cur[base + R.O_HOUSE + (pay >> 2)]
                v = cur[obase + R.O_HOUSE + (pay & 3)]
                ans = R._answer(x, v)
                house[p, turn, ans] += w
                if ans == R.ANS_EQ:
                    elim[p, 1] += w
                else:
                    elim[1 - p, 2] += w
                    if (cur[obase + R.O_HAND] >> x) & 1:
                        house_src[p, 0] += w
                    else:
                        house_src[p, 1] += w
            elif typ == R.T_SWITCH:
                h = pay >> 6
                same = 1 if cur[base + R.O_HOUSE + h] == ((pay >> 2) & 15) else 0
                beside = 1 if (pay & 3) == h else 0
                switch[p, same, beside] += w
            R.apply_action(cur, params, code, child)
            if num_children[c] == 0:
                early = 1 if (R._all_eliminated(child, 0, k_houses)
                              or R._all_eliminated(child, 1, k_houses)) else 0
                end[min(child[R.TURN], n_turns + 1), early] += w
                u = utility[c]
                v0 = R.vp(child, 0)
                v1 = R.vp(child, 1)
                vp[0] += w * v0
                vp[1] += w * v1
                if u > 0:
                    outcome[0] += w
                elif u < 0:
                    outcome[2] += w
                else:
                    outcome[1] += w
                if v0 == v1 and u != 0:
                    tiebreak += w
                continue
            st_node[sp] = c
            st_reach[sp] = w
            for i in range(S):
                st_state[sp, i] = child[i]
            sp += 1
    return usage, hand, house, house_src, switch, end, outcome, vp, tiebreak, elim


@dataclass
class AHStats:
    """What :func:`_ah_stats` returns, by name."""

    usage: np.ndarray
    hand: np.ndarray
    house: np.ndarray
    house_src: np.ndarray
    switch: np.ndarray
    end: np.ndarray
    outcome: np.ndarray
    vp: np.ndarray
    tiebreak: float
    elim: np.ndarray


def agent_hunter_stats(tree: Tree, strategy: np.ndarray) -> AHStats:
    """Probability-weighted statistics of play under ``strategy`` (see :func:`_ah_stats`)."""
    from solver.games.agent_hunter.variant import make_variant

    variant = make_variant(None, dict(tree.variant))
    n_turns = int(variant.max_turns or tree.depth())
    cap = (tree.depth() + 1) * max(int(tree.num_children.max()), 1) + 1
    out = _ah_stats(tree.first_child, tree.num_children, tree.node_player, tree.node_infoset,
                    tree.node_action, tree.utility, np.ascontiguousarray(strategy),
                    variant.to_array(), n_turns, cap)
    return AHStats(*out[:8], float(out[8]), out[9])


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


# --- small helpers ---------------------------------------------------------------------


def md_table(headers: list[str], rows: list[list], align: str | None = None) -> str:
    """A GitHub markdown table; ``align`` has one letter per column (l, r or c)."""
    align = align or "l" + "r" * (len(headers) - 1)
    marks = {"l": ":---", "r": "---:", "c": ":---:"}
    lines = ["| " + " | ".join(str(h) for h in headers) + " |",
             "| " + " | ".join(marks[a] for a in align) + " |"]
    for row in rows:
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |")
    return "\n".join(lines)


def _signed(x: float, decimals: int = 4) -> str:
    text = f"{x:+.{decimals}f}"
    if float(text) == 0.0:
        return f"{0.0:.{decimals}f}"
    return text.replace("-", "−")


def _pct(x: float, decimals: int = 1) -> str:
    if 0 < x < 0.5 * 10 ** (-decimals - 2):
        return f"<{10 ** -decimals:g}%"
    return f"{100 * x:.{decimals}f}%"


def _eps(x: float) -> str:
    return f"{x:.3g}"


def value_decimals(exploitability: float) -> int:
    """Decimals worth printing for values known to about ``exploitability``: 3..6."""
    if not exploitability > 0 or not math.isfinite(exploitability):
        return 6
    return int(min(6, max(3, 1 - math.floor(math.log10(exploitability)))))


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def variant_words(meta: dict) -> str:
    """The variant of a run in plain words."""
    game = meta["game"]
    v = meta["variant"]
    if game != "agent-hunter":
        if game in GAME_WORDS:
            return GAME_WORDS[game]
        return ", ".join(f"{k} = {val}" for k, val in v.items()) or "no parameters"
    n, k, d, t = v["cards"], v["houses"], v["decoys"], v["max_turns"]
    parts = [f"each player owns {n} cards (0–{n - 1}) and hides {k} of them in "
             f"{_plural(k, 'safe house')}"]
    parts.append(f"{_plural(d, 'decoy')} each" if d else "no decoys (so no switches)")
    if t is None:
        parts.append("no turn limit")
    else:
        parts.append(f"the game is scored after {_plural(t, 'turn')} "
                     f"({(t + 1) // 2} for P1, {t // 2} for P2) unless a player loses every house")
    if d:
        parts.append("a switch's decoy goes beside any own house (English rule)"
                     if v["decoy_rule"] == "any"
                     else "a switch's decoy goes beside the switched house (French rule)")
    parts.append("payoff: win +1 / draw 0 / loss −1, equal VP decided by the higher hand sum"
                 if v["payoff"] == "win" else "payoff: the VP margin (P1's VP − P2's VP)")
    return "; ".join(parts) + "."


# --- figures ---------------------------------------------------------------------------


def _save(fig, path: Path) -> Path:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    return path


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
    return _save(fig, path)


def openings_figure(table: pd.DataFrame, values: dict, eps: float, path: Path) -> Path:
    """Per player: value of each pure placement against the equilibrium vs its probability."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 4.4), layout="constrained")
    axes = fig.subplots(1, 2)
    for ax, player in zip(axes, PLAYERS, strict=True):
        rows = table[table.player == player]
        v = values[player]
        ax.axhspan(v - eps, v + eps, color="grey", alpha=0.15,
                   label=f"equilibrium value {_signed(v, 4)} ± exploitability")
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
    return _save(fig, path)


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


def turns_figure(stats: AHStats, path: Path) -> Path:
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
    return _save(fig, path)


# --- the report ------------------------------------------------------------------------


@dataclass
class _Doc:
    parts: list[str] = field(default_factory=list)
    takeaways: list[str] = field(default_factory=list)

    def add(self, *texts: str) -> None:
        self.parts.extend(texts)


def _convergence_log(run: Run) -> pd.DataFrame:
    path = run.path / "convergence.csv"
    try:
        log = pd.read_csv(path)
        if {"iteration", "exploitability"} <= set(log.columns):
            return log
    except (OSError, ValueError):
        pass
    return pd.DataFrame(run.meta.get("log") or [], columns=["iteration", "seconds",
                                                             "exploitability"])


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


def _complete_meta(run: Run) -> dict:
    """run.json's numbers, computing on the tree any that an older or other run lacks."""
    meta = dict(run.meta)
    if meta.get("value_p1") is None:
        meta["value_p1"] = expected_value(run.tree, run.strategy)
    for p, key in enumerate(("best_response_p1", "best_response_p2")):
        if meta.get(key) is None:
            meta[key] = best_response(run.tree, run.strategy, p)[0]
    if meta.get("exploitability") is None:
        meta["exploitability"] = (meta["best_response_p1"] + meta["best_response_p2"]) / 2
    return meta


def _build(run: Run, out_path: Path, figures_dir: Path) -> str:
    meta = _complete_meta(run)
    run = Run(run.path, meta, run.tree, run.strategy)
    tree, strategy = run.tree, run.strategy
    doc = _Doc()
    eps = float(meta["exploitability"])
    dec = value_decimals(eps)
    rel = Path(os.path.relpath(figures_dir, out_path.parent))
    ah = tree.game == "agent-hunter"

    _header(doc, meta, tree)
    _headline(doc, meta, eps, dec)
    cfv, reach, opp_reach = infoset_values(tree, strategy)
    stats = agent_hunter_stats(tree, strategy) if ah else None
    if stats is not None:
        _outcomes(doc, meta, stats, eps)
    _convergence(doc, run, eps, figures_dir, rel)
    if ah:
        _openings(doc, run, eps, dec, figures_dir, rel)
        _play(doc, stats, figures_dir, rel)
        _attacks(doc, stats)
        _move_costs(doc, move_type_costs(tree, strategy, cfv, reach, opp_reach), eps)
    else:
        _generic_actions(doc, tree, strategy, reach)
    _best_responses(doc, run, eps, dec)
    out = list(doc.parts)
    out.append("## What a player can learn\n")
    if doc.takeaways:
        out.append("\n".join(f"- {t}" for t in doc.takeaways) + "\n")
    out.append(
        f"All numbers are exact for this strategy on the full game tree. They describe *one* "
        f"approximate equilibrium (exploitability {_eps(eps)}): values are within the "
        f"exploitability of the game's, but another equilibrium may mix differently, so read "
        f"probabilities as one good way to play, not the only one.\n")
    return "\n".join(out)


def _header(doc: _Doc, meta: dict, tree: Tree) -> None:
    title = GAME_TITLES.get(meta["game"], meta["game"])
    preset = meta.get("preset")
    doc.add(f"# Strategy report: {title}" + (f", preset `{preset}`" if preset else "") + "\n")
    alg = ALGORITHM_NAMES.get(meta["algorithm"], meta["algorithm"])
    params = meta.get("algorithm_params") or {}
    updates = "alternating" if params.get("alternating", True) else "simultaneous"
    seconds = float(meta.get("solve_seconds", 0.0))
    rows = [
        ["game", f"{title}: {variant_words(meta)}"],
        ["parameters", " ".join(f"{k}={v}" for k, v in meta["variant"].items()) or "none"],
        ["algorithm", f"{alg} ({updates} updates)"],
        ["iterations", f"{int(meta['iterations']):,} (stopped by {meta.get('stopped_by', '?')})"],
        ["seed", str(meta.get("seed", "-"))],
        ["solve time", f"{seconds:,.1f} s ({meta.get('ms_per_iteration') or 0:.3g} ms per "
                       f"iteration) + {meta.get('build_seconds') or 0:.1f} s to build the tree"],
        ["tree", f"{tree.num_nodes:,} nodes, {tree.num_infosets:,} information sets"],
        ["spycfr", f"{meta.get('version', '?')}, run made {meta.get('created', '?')}"],
    ]
    doc.add(md_table(["", ""], rows, "ll") + "\n")


def _headline(doc: _Doc, meta: dict, eps: float, dec: int) -> None:
    v = float(meta["value_p1"])
    br1, br2 = float(meta["best_response_p1"]), float(meta["best_response_p2"])
    lo, hi = -br2, br1  # the exact game value lies between the two best responses
    win = meta["game"] == "agent-hunter" and meta["variant"].get("payoff") == "win"
    unit = ("VP" if meta["variant"].get("payoff") == "margin" else
            "chips" if meta["game"] in ("kuhn", "leduc") else "points")
    per_game = "per game" if win else f"{unit} per game"
    e = f"exploitability {_eps(eps)}"
    doc.add("## Headline numbers\n")
    doc.add(md_table(
        ["quantity", "value", "accuracy"],
        [["value of the game for P1", _signed(v, dec), e],
         ["value of the game for P2", _signed(-v, dec), e],
         ["first-player advantage (P1's value − P2's value)", _signed(2 * v, dec), e],
         ["exact game value for P1 lies in", f"[{_signed(lo, dec)}, {_signed(hi, dec)}]",
          "certified: [−BR(P2), BR(P1)]"]],
        "lrl") + "\n")
    meaning = (" A value is the probability of winning minus the probability of losing."
               if win else f" Values are in {unit} per game.")
    doc.add(f"The strategy found is {_eps(eps)} from an equilibrium (exploitability: the "
            f"average of what each player's best response gains against it), so every value "
            f"above is known to about ±{_eps(eps)}; the two best responses bound the game's "
            f"exact value.{meaning}\n")
    if lo <= 0 <= hi:
        seat = (f"The exact value lies in [{_signed(lo, dec)}, {_signed(hi, dec)}], which "
                f"contains 0: at this accuracy neither seat is better.")
        take = (f"Moving first is worth nothing measurable: the game's value for P1 is "
                f"{_signed(v, dec)} (exploitability {_eps(eps)}).")
    else:
        better = "P1 (moving first)" if lo > 0 else "P2 (moving second)"
        size = min(abs(lo), abs(hi))
        seat = (f"The exact value lies in [{_signed(lo, dec)}, {_signed(hi, dec)}]: {better} "
                f"has the better seat, by at least {size:.{dec}f} per game.")
        take = (f"The seat matters: {better} is worth {_signed(abs(v), dec)} {per_game} "
                f"(exploitability {_eps(eps)}); the other seat loses as much.")
    who = ("The rulesheet draws the first player at random" if meta["game"] == "agent-hunter"
           else "When the first player is drawn at random")
    doc.add(f"{seat} {who}, so over the two seats the game is fair (average value 0 by "
            f"symmetry); what the toss decides is the seat, worth {_signed(v, dec)} to the "
            f"first player and {_signed(-v, dec)} to the second: a swing of "
            f"{abs(2 * v):.{dec}f} {per_game} between winning and losing the toss.\n")
    doc.takeaways.append(take)


def _outcomes(doc: _Doc, meta: dict, st: AHStats, eps: float) -> None:
    win = meta["variant"]["payoff"] == "win"
    total_end = st.end.sum()
    early = st.end[:, 1].sum()
    rows = [["P1 wins" if win else "P1 ahead on VP", _pct(st.outcome[0])],
            ["draw" if win else "equal VP", _pct(st.outcome[1])],
            ["P2 wins" if win else "P2 ahead on VP", _pct(st.outcome[2])],
            ["game ends early (a player lost every house)", _pct(early / total_end)],
            ["expected VP of P1 / P2", f"{st.vp[0]:.3f} / {st.vp[1]:.3f}"]]
    if win:
        rows.append(["equal VP decided by the hand-sum tie-break", _pct(st.tiebreak)])
    doc.add("### How games end at equilibrium\n")
    doc.add(md_table(["", "probability"], rows, "lr") + "\n")
    if win:
        text = (f"At equilibrium P1 wins {_pct(st.outcome[0])} of games, P2 "
                f"{_pct(st.outcome[2])}, and {_pct(st.outcome[1])} are drawn.")
        if st.tiebreak >= 0.05:
            text += (f" {_pct(st.tiebreak)} are won on the hand-sum tie-break (equal VP): the "
                     f"cards left in hand at the end matter.")
        doc.takeaways.append(text)
    if early / total_end < 0.05:
        doc.takeaways.append(
            f"Games almost never end by a player losing every house "
            f"({_pct(early / total_end)}): they are scored at the turn limit.")
    elif early / total_end > 0.95:
        doc.takeaways.append(
            f"Games almost always end before the turn limit, with a player losing every house "
            f"({_pct(early / total_end)}).")


def _convergence(doc: _Doc, run: Run, eps: float, figdir: Path, rel: Path) -> None:
    log = _convergence_log(run)
    doc.add("## Convergence\n")
    fig = convergence_figure(log, eps, figdir / "convergence.png")
    good = log[(log.iteration > 0) & (log.exploitability > 0)]
    if fig is not None:
        doc.add(f"![exploitability against iterations]({(rel / fig.name).as_posix()})\n")
        half = good[good.iteration >= good.iteration.iloc[-1] / 4]
        text = (f"Exploitability went from {good.exploitability.iloc[0]:.3g} after "
                f"{int(good.iteration.iloc[0]):,} iterations to {_eps(eps)} after "
                f"{int(run.meta['iterations']):,}.")
        if len(half) >= 3:
            slope = np.polyfit(np.log(half.iteration), np.log(half.exploitability), 1)[0]
            text += (f" Over the last three quarters of the run it fell like "
                     f"iterations^{slope:.2f}.")
        doc.add(text + "\n")
    else:
        doc.add(f"The run logged too few points for a curve; final exploitability "
                f"{_eps(eps)} after {int(run.meta['iterations']):,} iterations.\n")


def _placement_cards(opening: str) -> list[int]:
    return [int(c) for c in opening.split(":", 1)[1].split("-")]


def _arrangement(cards: list[int]) -> str:
    ranks = np.argsort(np.argsort(cards))
    names = {1: ["—"], 2: ["low", "high"], 3: ["low", "mid", "high"]}[len(cards)]
    return "-".join(names[r] for r in ranks)


def _openings(doc: _Doc, run: Run, eps: float, dec: int, figdir: Path, rel: Path) -> None:
    from solver.openings import openings_by_cards, openings_table

    tree = run.tree
    table = openings_table(tree, run.strategy)
    table["house_cards"] = table.opening.map(_placement_cards)
    table["arrangement"] = table.house_cards.map(_arrangement)
    n_cards = int(tree.variant["cards"])
    k = int(tree.variant["houses"])
    v = float(run.meta["value_p1"])
    values = {"P1": v, "P2": -v}
    doc.add("## Optimal openings\n")
    doc.add(f"Each player hides {k} of their {n_cards} cards, P2 without seeing P1's choice. "
            f"For each placement: its probability at equilibrium, and its value against the "
            f"equilibrium opponent, when the placing player then plays as well as possible "
            f"(\"best value\") or follows the equilibrium (\"eq value\"). Placements played "
            f"at equilibrium all have (about) the game's value: the opponent's strategy makes "
            f"them equally good. Values are the placing player's payoff (exploitability "
            f"{_eps(eps)}).\n")
    fig = openings_figure(table, values, eps, figdir / "openings.png")
    for player in PLAYERS:
        rows = table[table.player == player].sort_values(
            ["probability", "br_value"], ascending=False, kind="stable")
        shown = rows if len(rows) <= 24 else rows.head(20)
        doc.add(f"### {player}'s placements\n")
        doc.add(md_table(
            ["placement"] + [f"house {h + 1}" for h in range(k)]
            + ["probability", "best value", "eq value"],
            [[r.opening] + list(r.house_cards) + [_pct(r.probability), _signed(r.br_value, dec),
                                                   _signed(r.eq_value, dec)]
             for r in shown.itertuples()],
            "l" + "c" * k + "rrr") + "\n")
        if len(rows) > len(shown):
            doc.add(f"({len(rows) - len(shown)} more placements, with probability "
                    f"{_pct(rows.probability.iloc[20:].sum())} in all, are left out: "
                    f"`spycfr openings` lists them all.)\n")
        by_cards = openings_by_cards(table)
        sets = by_cards[by_cards.player == player]
        arr = rows.groupby("arrangement", sort=False).probability.sum().sort_values(
            ascending=False)
        if k > 1:  # with one house a card set is a placement
            doc.add(md_table(
                ["cards hidden", "probability", "best value of its best arrangement"],
                [[f"{{{c}}}", _pct(q), _signed(b, dec)]
                 for c, q, b in zip(sets.cards, sets.probability, sets.best_br_value,
                                    strict=True)], "lrr") + "\n")
            doc.add(md_table(["arrangement (house 1 … house " + str(k) + ")", "probability"],
                             [[a, _pct(p)] for a, p in arr.items()], "lr") + "\n")
        _opening_takeaways(doc, player, rows, sets, values[player], n_cards, k, eps, dec)
    hidden = {p: _hidden_by_card(table[table.player == p], n_cards) for p in PLAYERS}
    doc.add("### Which cards are hidden\n")
    doc.add("Probability that each card is in one of the player's safe houses after the "
            "placement (the others start in hand).\n")
    doc.add(md_table(["card"] + list(PLAYERS),
                     [[str(c)] + [_pct(hidden[p][c]) for p in PLAYERS] for c in range(n_cards)],
                     "lrr") + "\n")
    for p in PLAYERS:
        most, least = int(np.argmax(hidden[p])), int(np.argmin(hidden[p]))
        if hidden[p][most] >= 0.6 and hidden[p][most] <= 0.99:
            doc.takeaways.append(f"{p} hides card {most} in {_pct(hidden[p][most], 0)} of games.")
        if 0.01 <= hidden[p][least] <= 0.25:
            doc.takeaways.append(f"{p} rarely hides card {least} "
                                 f"({_pct(hidden[p][least], 0)} of games).")
    if fig is not None:
        doc.add(f"![placement values against probabilities]({(rel / fig.name).as_posix()})\n")
        doc.add("Points on the dashed line are placements as good as the equilibrium; the "
                "further below, the more a placement costs against a good opponent.\n")


def _opening_takeaways(doc, player, rows, sets, value, n_cards, k, eps, dec) -> None:
    top = rows.iloc[0]
    if top.probability >= max(0.3, 2.0 / len(rows)):
        what = (f"card {top.opening.split(':')[1]} in its house" if k == 1 else
                f"{top.opening.split(':')[1]} (cards of houses 1..{k})")
        doc.takeaways.append(f"{player}'s most frequent opening is {what}, in "
                             f"{_pct(top.probability)} of games.")
    best_set = sets.iloc[0]
    if best_set.probability >= 0.5 and len(sets) > 1:
        doc.takeaways.append(f"{player} hides the cards {{{best_set.cards}}} in "
                             f"{_pct(best_set.probability)} of games.")
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
                                 f"{h + 1} in {_pct(highest_in[h])} of games.")
    worst = rows.sort_values("br_value").iloc[0]
    loss = value - worst.br_value
    if loss > 2 * eps:
        doc.takeaways.append(
            f"The worst placement for {player}, {worst.opening.split(':')[1]}, costs "
            f"{loss:.{dec}f} per game against the equilibrium opponent even with perfect play "
            f"afterwards (exploitability {_eps(eps)}).")
    elif len(rows) > 1:
        doc.takeaways.append(
            f"No placement is a blunder for {player}: against the equilibrium opponent, with "
            f"perfect play afterwards, every placement is within {2 * eps:.{dec}f} (twice the "
            f"exploitability) of the game's value.")


def _hidden_by_card(rows: pd.DataFrame, n_cards: int) -> np.ndarray:
    """Probability that each card is placed in a safe house."""
    hidden = np.zeros(n_cards)
    for cards, prob in zip(rows.house_cards, rows.probability, strict=True):
        hidden[list(cards)] += prob
    return hidden


def _play(doc: _Doc, st: AHStats, figdir: Path, rel: Path) -> None:
    doc.add("## How the game is played at equilibrium\n")
    doc.add("Expected number of times each move is made per game, and its share of the "
            "player's turns (refills are not turns: they follow a successful attack, or a "
            "failed one on the defender's side).\n")
    rows = []
    for p in (0, 1):
        counts = st.usage[p].sum(axis=0)
        turns = counts[list(TURN_TYPES)].sum()
        for t in (*TURN_TYPES, R.T_REFILL):
            share = _pct(counts[t] / turns) if t != R.T_REFILL and turns > 0 else "—"
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
        rows.append([str(t), PLAYERS[(t - 1) % 2], _pct(played)]
                    + [_pct(both[t, x] / played) for x in TURN_TYPES])
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
            rows.append([PLAYERS[p], f"{total:.3f}", _pct(sw[p, 1].sum() / total),
                         _pct(sw[p, :, 1].sum() / total)])
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
        ranked = sorted(shares, key=shares.get, reverse=True)
        text = f"{PLAYERS[p]}'s turns: " + ", ".join(
            f"{TYPE_NAMES[t]} {_pct(shares[t], 0)}" for t in TURN_TYPES)
        if shares[ranked[0]] >= shares[ranked[1]] + 0.1:
            text += f"; the {TYPE_NAMES[ranked[0]]} is the main move"
        doc.takeaways.append(text + ".")
    by_turn = {i: both[i, list(TURN_TYPES)].sum() for i in range(1, n_turns + 1)}
    by_turn = {i: both[i] / played for i, played in by_turn.items() if played > 0}
    for i in list(by_turn)[:2]:
        t = max(TURN_TYPES, key=lambda x: by_turn[i][x])
        if by_turn[i][t] >= 0.8:
            doc.takeaways.append(f"On turn {i}, {PLAYERS[(i - 1) % 2]} plays a {TYPE_NAMES[t]} "
                                 f"{_pct(by_turn[i][t])} of the time.")
    for t in (R.T_HOUSE, R.T_SWITCH):
        first = next((i for i, s in by_turn.items() if s[t] >= 0.10), None)
        name = TYPE_PLURALS[t].capitalize()
        if first is not None and first >= 3 and all(by_turn[i][t] < 0.05 for i in by_turn
                                                    if i < first):
            doc.takeaways.append(f"{name} are rare before turn {first} (under 5% of moves), then "
                                 f"{_pct(by_turn[first][t], 0)} of the moves at turn {first}.")
        elif first is None and by_turn and both[1:, t].sum() > 0:
            doc.takeaways.append(f"{name} are rare throughout: under 10% of the moves at every "
                                 f"turn.")


def _attacks(doc: _Doc, st: AHStats) -> None:
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
            rows.append([PLAYERS[p], name, f"{tot:.3f}"] + [_pct(ans[a] / tot) for a in (1, 2, 0)])
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
        parts = [f"{TYPE_PLURALS[t]} hit (`eq`) {_pct(arr[p, :, 1].sum() / arr[p].sum())} of "
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
                                 f"({_pct(share[order[0]], 0)} of them).")
        else:
            doc.takeaways.append("Eliminations come from " + ", ".join(
                f"{how[i]} ({_pct(share[i], 0)})" for i in order if share[i] > 0) + ".")


def _move_costs(doc: _Doc, costs: pd.DataFrame, eps: float) -> None:
    if costs.empty:
        return
    doc.add("## What each kind of move is worth\n")
    doc.add("For each position of equilibrium play where a kind of move is legal: how much "
            "the best move of that kind falls short of the equilibrium move, the game then "
            "going on at equilibrium; averaged over those positions, weighted by how often "
            "they arise. About 0 means the kind of move is as good as anything there (it "
            f"is part of the equilibrium, or tied with it); compare with the exploitability "
            f"{_eps(eps)}.\n")
    doc.add(md_table(["player", "move", "legal in (games)", "chosen there", "cost of forcing it"],
                     [[r.player, r.type, f"{r.legal_probability:.3f}",
                       _pct(r.chosen_when_legal), f"{r.cost:.4f}"]
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
                f"than the equilibrium move (exploitability {_eps(eps)}); {p} chooses one "
                f"there {_pct(worst.chosen_when_legal, 0)} of the time.")


def _generic_actions(doc: _Doc, tree: Tree, strategy: np.ndarray, reach: np.ndarray) -> None:
    from solver.labels import tree_labels

    try:
        _, labels = tree_labels(tree)
    except ValueError:
        return
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
            rows.append([p, r.action, f"{r.times:.3f}", _pct(r.times / total)])
        if total > 0:
            main = mine.sort_values("times").iloc[-1]
            doc.takeaways.append(f"{p}'s most frequent action is {main.action} "
                                 f"({_pct(main.times / total)} of {p}'s decisions).")
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
            rows.append([PLAYERS[tree.infoset_player[i]], f"`{keys[i]}`", _pct(reach[i])]
                        + ["; ".join(f"{labels[i][a]} {_pct(strategy[i, a])}" for a in range(k))])
        doc.add(md_table(["player", "information state", "reached", "strategy"], rows,
                         "llrl") + "\n")


def _best_responses(doc: _Doc, run: Run, eps: float, dec: int) -> None:
    tree, strategy, meta = run.tree, run.strategy, run.meta
    v = float(meta["value_p1"])
    br1, br2 = float(meta["best_response_p1"]), float(meta["best_response_p2"])
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
        [["P1", _signed(v, dec), _signed(br1, dec), f"{br1 - v:.3g}"],
         ["P2", _signed(-v, dec), _signed(br2, dec), f"{br2 + v:.3g}"]], "lrrr") + "\n")
    doc.add(f"Exploitability = average gain = {_eps(eps)}.\n")
    doc.add("Against a uniformly random opponent (every legal move equally likely): what the "
            "equilibrium strategy wins, and what a perfect exploiter of the random player "
            "wins. Values are the named player's payoff.\n")
    doc.add(md_table(
        ["player", "equilibrium vs random", "best response vs random", "random vs random"],
        [["P1", _signed(eq_vs_rand[0], dec), _signed(br_vs_rand[0], dec), _signed(rand_v, dec)],
         ["P2", _signed(eq_vs_rand[1], dec), _signed(br_vs_rand[1], dec),
          _signed(-rand_v, dec)]], "lrrr") + "\n")
    doc.takeaways.append(
        f"Skill pays: against a player who moves at random, the equilibrium strategy wins "
        f"{_signed(eq_vs_rand[0], 3)} per game as P1 and {_signed(eq_vs_rand[1], 3)} as P2. "
        f"It is safe, not greedy: a player who knew the opponent was random could win "
        f"{_signed(br_vs_rand[0], 3)} and {_signed(br_vs_rand[1], 3)}.")
