"""A sweep's report: how the value for P1 (with its certified interval) and the outcomes
move with each swept parameter, as markdown with one figure per parameter."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from spycfr.analysis.markdown import md_table, pct, plural, save_figure, signed, value_decimals
from spycfr.io import write_text


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
        + (f", with {_params_text(summary['fixed'])} fixed" if summary["fixed"] else "")
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


def _params_text(params: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


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
        return _params_text({n: r[n] for n in names}) or "the base variant"

    def side(r) -> str:
        if r["value_lower"] > 0:
            return "P1 is favoured"
        if r["value_upper"] < 0:
            return "P2 is favoured"
        return "fair within the interval"

    return [f"{len(favour)} of {plural(len(done), 'variant')} favour a side for certain; the "
            f"most lopsided is {name(lop)} (value {signed(lop['value_p1'], decimals)}: "
            f"{side(lop)}); the other {len(done) - len(favour)} are fair within their interval."]


def _figure(done: pd.DataFrame, name: str, others: list[str], out: Path) -> Path:
    """Value for P1 (interval as error bars) and the draw rate against ``name``, one line
    per combination of the other swept parameters."""
    from matplotlib import colormaps
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11.5 if others else 9, 3.8), layout="constrained")
    ax_value, ax_draw = fig.subplots(1, 2)
    colors = colormaps["tab20"].colors  # up to 20 lines before a colour repeats
    for ax in (ax_value, ax_draw):
        ax.set_prop_cycle(color=colors)
    groups = (done.groupby(others, sort=True) if others
              else [((), done)])
    for key, group in groups:
        group = group.sort_values(name)
        key = key if isinstance(key, tuple) else (key,)
        label = _params_text(dict(zip(others, key, strict=True))) or "all"
        xs = group[name].astype(str) if group[name].dtype == object else group[name]
        # an interval that does not hold its value (rounding, an edited row) draws no bar
        err = [(group["value_p1"] - group["value_lower"]).clip(lower=0).fillna(0),
               (group["value_upper"] - group["value_p1"]).clip(lower=0).fillna(0)]
        ax_value.errorbar(xs, group["value_p1"], yerr=err, marker="o", capsize=3, label=label)
        ax_draw.plot(xs, group["draw"], marker="o", label=label)
    if done[name].dtype != object:  # integer parameters: a tick per value, no fractions
        for ax in (ax_value, ax_draw):
            ax.set_xticks(sorted(done[name].unique()))
    ax_value.axhline(0.0, color="grey", linewidth=0.8)
    ax_value.set(xlabel=name, ylabel="value for P1", title=f"Value for P1 by {name}")
    ax_draw.set(xlabel=name, ylabel="probability of a draw", title=f"Draws by {name}",
                ylim=(0, 1))
    if others:
        fig.legend(*ax_value.get_legend_handles_labels(), loc="outside right upper",
                   fontsize=7, title=", ".join(others), title_fontsize=7)
    return save_figure(fig, out / f"value-by-{name}.png")

