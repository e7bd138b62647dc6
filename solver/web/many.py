"""Pages of entries that are not one two-player run: a sweep (its table of variants and its
figures) and a team run (its numbers and its report)."""

from __future__ import annotations

from functools import partial

import pandas as pd

from spycfr.analysis.markdown import num
from spycfr.memory import reading
from spycfr.web.bench import PageError, entry_nav
from spycfr.web.html import esc, markdown, page, table, url
from spycfr.words import params_text

SWEEP_COLUMNS = ("status", "nodes", "value_p1", "value_lower", "value_upper", "exploitability",
                 "p1_win", "draw", "p2_win", "iterations", "seconds")


def sweep(bench, request) -> str:
    entry = bench.entry(request.query.get("run"), kind="sweep")
    meta = entry.meta
    csv = entry.files.get("sweep.csv")
    if csv is None:
        raise PageError(f"sweep {entry.name!r} has no sweep.csv yet", 404)
    with reading(lambda exc: f"{entry.name!r}: sweep.csv is unreadable ({str(exc)[:120]})",
                 partial(PageError, status=409)):  # pandas raises many types on a damaged file
        frame = pd.read_csv(csv)
    swept = list((meta.get("swept") or {}).keys())
    cols = [c for c in [*swept, *SWEEP_COLUMNS] if c in frame]
    rows = [[_cell(r[c], c) for c in cols] for _, r in frame.iterrows()]
    fixed = params_text(meta.get("fixed") or {}, ", ") or "none"
    swept_text = ", ".join(f"{k} in {v}" for k, v in (meta.get("swept") or {}).items())
    figures = "".join(
        f'<div class="box"><img alt="{esc(name)}" src="'
        f'{esc(url("/file", run=entry.name, name=name))}"><div class=note>{esc(name)}</div></div>'
        for name in entry.files if name.endswith((".png", ".svg")))
    report = ""
    if "report.md" in entry.files:
        report = f'<p><a href="{esc(url("/report", run=entry.name))}">the sweep report</a></p>'
    body = (f"<p>{esc(meta.get('game'))}: fixed {esc(fixed)}; swept {esc(swept_text)}; "
            f"{len(frame)} variants</p>{report}<h2>figures</h2>{figures}<h2>variants</h2>"
            + table(cols, rows, left=len(swept) + 1))
    return page(f"Sweep {entry.title}", body, entry_nav(entry))


def _cell(x, column: str = "") -> str:
    if isinstance(x, float) and column == "exploitability":
        return "–" if x != x else f"{x:.2g}"
    if isinstance(x, float):
        return "–" if x != x else (f"{x:.4g}" if abs(x) >= 1000 else f"{x:.5f}")
    return str(x)


def team(bench, request) -> str:
    entry = bench.entry(request.query.get("run"), kind="team")
    meta = entry.meta
    teams = meta.get("teams")
    rows = [["game", meta.get("game")], ["variant", meta.get("preset") or meta.get("variant")],
            ["teams", teams], ["method", meta.get("method")],
            ["value for team 0", num(meta.get("value_team0"))],
            ["certified interval", f"[{num(meta.get('lower'))}, {num(meta.get('upper'))}]"],
            ["exploitability", num(meta.get("exploitability"), "{:.2g}")],
            ["converged", meta.get("converged")], ["nodes", meta.get("nodes")]]
    report = ""
    if "report.md" in entry.files:
        text = entry.files["report.md"].read_text(encoding="utf-8", errors="replace")
        report = "<h2>report</h2>" + markdown(text, lambda src: url(
            "/file", run=entry.name, name=src) if src in entry.files else None)
    return page(f"Team run {entry.title}", table(["", ""], [[k, str(v)] for k, v in rows],
                                                left=2) + report, entry_nav(entry))
