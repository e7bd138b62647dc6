"""A sweep's report: how the value for P1 (with its certified interval) and the outcomes
move with each swept parameter, as markdown with one figure per parameter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from spycfr.analysis.markdown import md_table, pct, plural, save_figure, signed, value_decimals
from spycfr.io import write_text
from spycfr.words import params_text


def write_report(summary: dict, table: pd.DataFrame, out: Path) -> Path:
    """report.md (and value-by-PARAM.png figures) in the sweep directory ``out``."""
    names = list(summary["swept"])
    done = table[table["status"] == "done"]
    solve = summary["solve"]
    lines = [
        f"# Sweep of {summary['game']}" + (f" (preset {summary['preset']})"
                                            if summary["preset"] else ""),
        "",
        f"{plural(len(table), 'variant')} over {', '.join(names) or 'no parameter'}"
        + (f", with {params_text(summary['fixed'], ', ')} fixed" if summary["fixed"] else "")
        + f": {len(done)} solved, {int((table['status'] == 'failed').sum())} failed, "
        f"{int((table['status'] == 'todo').sum())} not solved yet. Each variant was solved "
        f"with {solve['algorithm']} to exploitability {solve['target_exploitability']:g} "
        f"(at most {solve['max_iterations']} iterations"
        + (f", {solve['time_limit']:g} s" if solve["time_limit"] else "") + ") on "
        f"{summary['cluster']}; spycfr {summary['version']}.",
        "",
        "The value is P1's expected payoff under the solved strategies; the interval "
        "[lower, upper] is certified by the two exact best responses (the true game value lies "
        "in it). Outcomes are exact probabilities under the strategies and chance; "
        "decisions is the expected number of decisions (both players) in a game.",
        "",
    ]
    decimals = value_decimals(solve["target_exploitability"])
    if len(done):
        lines += _verdicts(done, names, decimals) + [""]
    headers = [*names, "nodes", "value P1", "interval", "expl.", "P1 wins", "draws",
               "P2 wins", "decisions", "seconds"]
    rows = []
    for _, r in done.iterrows():
        rows.append([*(r[n] for n in names), f"{int(r['nodes']):,}",
                     signed(r["value_p1"], decimals),
                     f"[{signed(r['value_lower'], decimals)}, "
                     f"{signed(r['value_upper'], decimals)}]",
                     f"{r['exploitability']:.1e}", pct(r["p1_win"]), pct(r["draw"]),
                     pct(r["p2_win"]), f"{r['mean_decisions']:.2f}", f"{r['seconds']:.1f}"])
    if rows:
        lines += ["## Every variant", "", md_table(headers, rows), ""]
    failed = table[table["status"] == "failed"]
    if len(failed):
        lines += ["## Failed variants", "",
                  md_table([*names, "error"], [[*(r[n] for n in names), r["error"]]
                                               for _, r in failed.iterrows()]), ""]
    for name in names:
        if done[name].nunique() >= 2:
            figure = _figure(done, name, [n for n in names if n != name], out)
            lines += [f"## By {name}", "", f"![value by {name}]({figure.name})", ""]
    write_text(out / "report.md", "\n".join(lines))
    return out / "report.md"


def _verdicts(done: pd.DataFrame, names: list[str], decimals: int) -> list[str]:
    """Which variants favour a side (certified: the whole interval on one side of 0), and the
    most lopsided one, in words."""
    favour = done[(done["value_lower"] > 0) | (done["value_upper"] < 0)]
    if favour.empty:
        return ["Every variant is fair within its certified interval (no side is favoured "
                "beyond what the exploitability leaves open)."]
    order = favour.assign(gap=favour["value_p1"].abs()).sort_values("gap")
    lop = order.iloc[-1]

    def name(r) -> str:
        return params_text({n: r[n] for n in names}, ", ") or "the base variant"

    def side(r) -> str:
        if r["value_lower"] > 0:
            return "P1 is favoured"
        if r["value_upper"] < 0:
            return "P2 is favoured"
        return "fair within the interval"

    return [f"{len(favour)} of {plural(len(done), 'variant')} favour a side for certain; the "
            f"most lopsided is {name(lop)} (value {signed(lop['value_p1'], decimals)}: "
            f"{side(lop)}); the other {len(done) - len(favour)} are fair within their interval."]


MIN_VALUE_SPAN = 0.1  # the value axis spans at least this much (no 1e-16 scale at a fair game)
MAX_PANEL_COLUMNS = 4


def _figure(done: pd.DataFrame, name: str, others: list[str], out: Path) -> Path:
    """Small multiples of the value for P1 (interval as error bars, top row of each pair)
    and the draw rate (below it) against ``name``: one panel per combination of the other
    swept parameters but the one with fewest values, which is drawn as a line per value
    inside each panel (a few lines a panel, never a dozen overlaid)."""
    from matplotlib.figure import Figure

    done = done.copy()
    for column in ("value_p1", "value_lower", "value_upper", "draw"):
        done[column] = pd.to_numeric(done[column], errors="coerce")
    hue = min(others, key=lambda o: (done[o].nunique(), others.index(o))) if others else None
    by = [o for o in others if o != hue]
    panels = list(done.groupby(by, sort=True)) if by else [((), done)]
    ncols = min(MAX_PANEL_COLUMNS, len(panels))
    nrows = -(-len(panels) // ncols)
    fig = Figure(figsize=(2.9 * ncols + 0.6, 4.3 * nrows + 0.5), layout="constrained")
    grid = fig.subplots(2 * nrows, ncols, sharex=True, squeeze=False,
                        gridspec_kw={"height_ratios": [3, 2] * nrows})
    numeric = done[name].dtype != object
    handles: dict[str, Any] = {}  # legend label -> errorbar container
    for k, (key, panel) in enumerate(panels):
        ax_value, ax_draw = grid[2 * (k // ncols), k % ncols], grid[2 * (k // ncols) + 1, k % ncols]
        key = key if isinstance(key, tuple) else (key,)
        lines = panel.groupby(hue, sort=True) if hue else [(None, panel)]
        for j, (value, line) in enumerate(lines):
            line = line.sort_values(name)
            xs = line[name] if numeric else line[name].astype(str)
            # an interval that does not hold its value (rounding, an edited row): no bar
            err = [(line["value_p1"] - line["value_lower"]).clip(lower=0).fillna(0),
                   (line["value_upper"] - line["value_p1"]).clip(lower=0).fillna(0)]
            color = f"C{j % 10}"
            handle = ax_value.errorbar(xs, line["value_p1"], yerr=err, marker="o", ms=4,
                                       capsize=3, color=color)
            ax_draw.plot(xs, line["draw"], marker="o", ms=4, color=color)
            handles.setdefault(f"{hue}={value}" if hue else "value", handle)
        title = params_text(dict(zip(by, key, strict=True)), ", ") or "all variants"
        ax_value.set_title(title, fontsize=9)
        ax_value.axhline(0.0, color="grey", linewidth=0.8)
        ax_draw.set_ylim(0, 1)
        ax_draw.set_xlabel(name)
        ax_draw.tick_params(labelbottom=True)  # every panel names its x values
        if k % ncols == 0:
            ax_value.set_ylabel("value for P1")
            ax_draw.set_ylabel("draws")
        if numeric:
            ax_draw.set_xticks(sorted(done[name].unique()))
    for k in range(len(panels), nrows * ncols):  # empty cells of the last row
        grid[2 * (k // ncols), k % ncols].set_visible(False)
        grid[2 * (k // ncols) + 1, k % ncols].set_visible(False)
    _value_axes([grid[2 * r, c] for r in range(nrows) for c in range(ncols)], done)
    fig.suptitle(f"Value for P1 (with its certified interval) and draws by {name}",
                 fontsize=11)
    if hue:
        fig.legend(list(handles.values()), list(handles), loc="outside lower center",
                   ncols=min(len(handles), 6), fontsize=8)
    return save_figure(fig, out / f"value-by-{name}.png")


def _value_axes(axes: list, done: pd.DataFrame) -> None:
    """One value range for every panel, spanning 0 and at least MIN_VALUE_SPAN, in plain
    numbers (no offset, no 1e-16 scale)."""
    values = pd.concat([done["value_lower"], done["value_upper"], done["value_p1"]]).dropna()
    lo = min(float(values.min()) if len(values) else 0.0, 0.0)
    hi = max(float(values.max()) if len(values) else 0.0, 0.0)
    if hi - lo < MIN_VALUE_SPAN:
        middle = (hi + lo) / 2
        lo, hi = middle - MIN_VALUE_SPAN / 2, middle + MIN_VALUE_SPAN / 2
    pad = 0.06 * (hi - lo)
    for ax in axes:
        ax.set_ylim(lo - pad, hi + pad)
        ax.ticklabel_format(axis="y", style="plain", useOffset=False)
