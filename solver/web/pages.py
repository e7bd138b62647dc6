"""The workbench's pages: the runs, a run, the strategy browser, openings, the report, and
the figures an entry may serve. (Play and review: :mod:`spycfr.web.games`; sweeps and
teams: :mod:`spycfr.web.many`.)"""

from __future__ import annotations

import bottle  # type: ignore[import-untyped]  # bottle ships no type information
import numpy as np

from spycfr.analysis import views
from spycfr.analysis.markdown import num
from spycfr.games import get_plugin
from spycfr.web.bench import PageError, entry_nav, fmt_eps, parse_line
from spycfr.web.browse import grid, walk, who
from spycfr.web.html import esc, markdown, page, pct, table, url
from spycfr.words import params_text

CONTENT_TYPES = {".png": "image/png", ".svg": "image/svg+xml", ".md": "text/plain",
                 ".csv": "text/csv"}


# what the index's exploitability column means, for a player who has not met the word
EPS_WORDS = ("exploitability: how far a run's strategy is from perfect play, the most a "
             "perfect opponent could win from it per game on average, in the game's payoff "
             "(+1 a win and −1 a loss by the rulesheets' scoring); 0 is an equilibrium, where "
             "neither player gains by changing alone. A search agent's is unknown: its cell "
             "says what its games show instead.")


def index(bench, request) -> str:
    kinds = {"run": "Runs", "sweep": "Sweeps", "team": "Team runs"}
    parts = []
    for kind, title in kinds.items():
        rows = [e for e in bench.entries.values() if e.kind == kind]
        if not rows:
            continue
        # the last cell wraps (td.q): a search agent's exploitability is a sentence (what its
        # games show at 95%), one line of it pushed the column off a 1400-pixel window
        items = "".join(
            f'<tr><td class="l"><a href="{esc(url("/" + kind, run=e.name))}">{esc(e.name)}'
            f'</a></td><td class="l">{esc(e.meta.get("game", ""))}</td><td class="l">'
            f'{esc(_variant(e.meta))}</td><td class="q">{esc(_quality(e))}</td></tr>'
            for e in rows)
        last = "variants solved" if kind == "sweep" else "exploitability"
        parts.append(f"<h2>{title}</h2><table><tr><th class=l>name</th><th class=l>game</th>"
                     f"<th class=l>variant</th><th>{last}</th></tr>{items}</table>"
                     + (f'<p class="note">{EPS_WORDS}</p>' if kind == "run" else ""))
    damaged = "".join(bench.damage_html(e, named=True) for e in bench.entries.values())
    return page("What to open", damaged + "".join(parts))


def _variant(meta: dict) -> str:
    """The variant's parameters as ``k=v`` (after its preset's name); a sweep's fixed ones,
    then the grid it swept (sweep.json has no ``variant``: the column was empty)."""
    variant = meta.get("variant") or {}
    preset = meta.get("preset")
    text = params_text(variant) if isinstance(variant, dict) else ""
    fixed, swept = meta.get("fixed"), meta.get("swept")
    if not variant and (isinstance(fixed, dict) or isinstance(swept, dict)):
        text = params_text(fixed or {})
        if isinstance(swept, dict) and swept:
            grid = params_text(swept)
            text = f"{text}; swept {grid}" if text else f"swept {grid}"
    return f"{preset}: {text}" if preset else text


def _quality(entry) -> str:
    if entry.kind == "sweep":
        counts = entry.meta.get("counts") or {}
        target = (entry.meta.get("solve") or {}).get("target_exploitability")
        each = f", each to exploitability {target:g}" if isinstance(target, float) else ""
        return f"{counts.get('done', '?')} of {counts.get('variants', '?')}{each}"
    return fmt_eps(entry.meta)


def _nodes(meta: dict) -> str:
    """The tree's node count, or why the run has none (a search agent keeps no tree; a
    sampled run's tree is not enumerated)."""
    from spycfr.runs.agent_run import is_agent_run

    if isinstance(meta.get("nodes"), int):
        return f"{meta['nodes']:,}"
    return "– (a search agent: it re-solves, keeping no tree)" if is_agent_run(meta) else \
        "– (not enumerated: a sampled run)"


def run_page(bench, request) -> str:
    entry = bench.entry(request.query.get("run"))
    meta = entry.meta
    plugin = get_plugin(meta["game"])
    rows = [["game", plugin.title], ["variant", _variant(meta)],
            ["in words", plugin.describe_variant(meta["variant"])],
            ["algorithm", meta.get("algorithm")], ["iterations", f"{meta['iterations']:,}"],
            ["value for P1", num(meta.get("value_p1"))],
            ["exploitability", fmt_eps(meta)], ["nodes", _nodes(meta)]]
    links = "".join(f'<li><a href="{esc(h)}">{esc(t)}</a></li>' for t, h in entry_nav(entry)[1:])
    return page(f"Run {entry.title}", bench.damage_html(entry) + table(["", ""], rows, left=2)
                + f"<ul>{links}</ul>", entry_nav(entry))


def browse(bench, request) -> str:
    """The strategy browser: the public line, the public moves on, the grid and ranges."""
    entry = bench.entry(request.query.get("run"))
    loaded = bench.load(entry.name)
    run, tree = loaded.run, loaded.run.tree
    line = parse_line(request.query.get("line"))
    spot = walk(tree, run.strategy, loaded.game, line)
    plugin = get_plugin(run.result.game)
    private = views.private_namer(plugin, loaded.game)
    g = grid(spot, tree, run.strategy, loaded.values, loaded.eps, private)
    dot = ".".join(map(str, line))
    crumbs = ['<a href="' + esc(url("/browse", run=entry.name)) + '">start</a>']
    for n, name in enumerate(spot.line):
        prefix = ".".join(map(str, line[:n + 1]))
        crumbs.append(f'<a href="{esc(url("/browse", run=entry.name, line=prefix))}">'
                      f"{esc(name)}</a>")
    head = (f'<p>{esc(plugin.title)} · {esc(_variant(entry.meta))} · exploitability '
            f'<b id="eps">{esc(fmt_eps(entry.meta))}</b> · {esc(run.result.algorithm)}, '
            f'{run.result.iterations:,} iterations</p>'
            f'<p class="path">public line: {" → ".join(crumbs)}</p>')
    n = len(spot.items)
    body = [head, f'<p class="note">this public state: {n:,} '
                  f'{"history" if n == 1 else "histories"} (ways the hidden cards and moves may '
                  f'lie behind what both seats saw), reached in {pct(spot.reach)} of games at '
                  'equilibrium</p>']
    if spot.options:
        movers = " and ".join(sorted({who(o.actor) for o in spot.options}))
        moves = "".join(
            f'<a class="pub{"" if o.reach > 0 else " never"}" '
            f'href="{esc(url("/browse", run=entry.name, line=_join(dot, j)))}" '
            f'title="{_share(o.reach, spot.reach)} of the time here">{esc(o.label)}</a>'
            for j, o in enumerate(spot.options))
        body.append(f'<h2>{esc(movers)} to move: the public moves</h2><div class="line">{moves}'
                    "</div>")
    else:
        body.append("<h2>the game is over here</h2>")
    if g is not None:
        body.append(_grid_html(g, plugin, run.result.variant))
    help_html = views.notation_help(plugin)
    if help_html:
        body.append(f"<h2>notation</h2><div class=note>{help_html}</div>")
    return page(f"Strategy browser: {entry.title}", "".join(body), entry_nav(entry))


def _share(part: float, whole: float) -> str:
    return pct(part / whole) if whole > 0 else "never"


def _join(dot: str, j: int) -> str:
    return f"{dot}.{j}" if dot else str(j)


def _grid_html(g, plugin, variant: dict) -> str:
    seat = who(g.seat)
    scale = float(plugin.payoff_bound(variant))
    head = "".join(f'<th class="mv">{esc(c)}</th>' for c in g.columns)
    rows = []
    for r in g.rows:
        cells = []
        for c in g.columns:
            if c not in r["cells"]:
                cells.append("<td></td>")
                continue
            p, v = r["cells"][c]
            cells.append(f'<td class="c" data-move="{esc(c)}" data-p="{p!r}" data-v="'
                         f'{"" if v is None else repr(v)}" data-scale="{scale}">{p:.3f}</td>')
        rows.append(f'<tr data-view="{esc(r["view"])}" data-infoset="{r["infoset"]}">'
                    f'<td class="l priv">{esc(r["private"])}</td><td>{pct(r["share"])}</td>'
                    + "".join(cells) + "</tr>")
    tol = "" if g.tolerance is None else f"; values within {g.tolerance:.2g} tie"
    grid = (f"<h2>{seat}'s strategy here: its private states against its moves</h2>"
            '<p><button class="mode" data-mode="probability" onclick="show(\'probability\')">'
            'probability</button> <button class="mode" data-mode="value" '
            'onclick="show(\'value\')">value</button> <span class="note">probability: how '
            f"often {seat} plays the move in that private state; value: {seat}'s expected "
            f"payoff after the move, play going on at equilibrium{tol}; share: how often "
            f"{seat} holds that private state here</span></p>"
            f'<div style="overflow-x:auto"><table class="grid"><tr><th class="l">{seat} holds'
            f"</th><th>share</th>{head}</tr>{''.join(rows)}</table></div>")
    other = who(1 - g.seat)
    bars = "".join(
        f'<tr><td class="l">{esc(k)}</td><td>{pct(v)}</td><td class="l"><span class="bar" '
        f'style="width:{0 if v != v else int(200 * v)}px"></span></td></tr>'
        for k, v in g.opponent_range[:30])
    more = (f"<p class=note>and {len(g.opponent_range) - 30} more</p>"
            if len(g.opponent_range) > 30 else "")
    return (grid + f"<h2>{other}'s range here (what it holds, given the public line)</h2>"
            f'<table class="range"><tr><th class=l>{other} holds</th><th>probability</th>'
            f"<th></th></tr>{bars}</table>{more}")


def openings(bench, request) -> str:
    from spycfr.analysis.openings import (
        columns_note,
        openings_spec,
        openings_table,
        openings_words,
        treeless_table,
    )
    from spycfr.runs.agent_run import is_agent_run
    from spycfr.runs.store import treeless_openings

    entry = bench.entry(request.query.get("run"))
    game = entry.meta["game"]
    spec = openings_spec(game)
    raw = treeless_openings(entry.path)
    if raw is None:
        loaded = bench.load(entry.name)
        frame = openings_table(loaded.run.tree, loaded.run.strategy,
                               loaded.run.result.exploitability)
    else:
        frame = treeless_table(game, raw[1])
    keys = ["player", *([spec.context_name] if spec.context_name else [])]
    parts = [bench.damage_html(entry), f"<p>exploitability {esc(fmt_eps(entry.meta))}</p>"]
    heads = {"probability": "eq prob", "br_value": "BR value", "eq_value": "eq value"}
    if raw is None:
        parts.append(f"<p class=note>{esc(columns_note(spec))}</p>")
    else:  # no values, and no equilibrium's probabilities: named as `spycfr openings` does
        agent = is_agent_run(entry.meta)
        heads["probability"] = "plan prob" if agent else "avg prob"
        who = "the search agent's first plan" if agent else "the run's average strategy"
        parts.append(f"<p class=note>{esc(no_values_note(entry.meta, entry.path))}. Column "
                     f"{heads['probability']}: how often {who} plays the {spec.what}.</p>")
        frame = frame.drop(columns=[c for c in ("br_value", "eq_value", "loss")
                                    if c in frame and frame[c].isna().all()])
    for key, rows in frame.groupby(keys, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        title = " · ".join(str(k) for k in key)
        words = " ".join(openings_words(rows, spec, str(key[0])))
        cols = [c for c in ("rank", "opening", spec.group_name, "probability", "br_value",
                            "eq_value", "loss") if c in rows]
        shown = [[_opening_cell(r, c) for c in cols] for _, r in rows.head(40).iterrows()]
        more = f"<p class=note>and {len(rows) - 40} more</p>" if len(rows) > 40 else ""
        parts.append(f"<h2>{esc(title)}</h2><p>{esc(words)}</p>"
                     + table([heads.get(c, c) for c in cols], shown, left=3) + more)
    return page(f"Openings: {entry.title}", "".join(parts), entry_nav(entry))


def no_values_note(meta: dict, path) -> str:
    """Why a run without a tree shows no BR value and eq value (its openings table has no
    value columns), and where a player finds values instead."""
    from spycfr.runs.agent_run import is_agent_run

    if not is_agent_run(meta):
        return ("No BR value or eq value here: this run was sampled without a tree "
                "(Monte-Carlo CFR): an opening's value against a best response or at "
                "equilibrium needs the whole game's tree")
    where = (f"`spycfr openings {path}` gives the values of its openings table (a matrix game)"
             if (meta.get("agent") or {}).get("opening_file") else
             f"`spycfr query {path}` values a position's moves as the agent sees them")
    return ("No BR value or eq value here: a search agent re-solves as it plays and "
            "keeps no tree: an opening's value against a best response or at equilibrium "
            f"needs the whole game's tree; {where}")


def _opening_cell(row, column: str) -> str:
    """A cell of the openings table as ``spycfr openings`` writes it: values signed (never
    "-0.0000"), a loss within the tie tolerance "tie", '–' where there is no number."""
    x, tie = row[column], row.get("tie")
    if column == "loss" and isinstance(tie, bool | np.bool_) and tie:
        return "tie"
    if isinstance(x, float):
        if x != x:
            return "–"
        return num(x) if column in ("br_value", "eq_value") else f"{x:.4f}"
    return str(x)


def report(bench, request) -> str:
    entry = bench.entry(request.query.get("run"), kind=None)
    target = entry.files.get("report.md")
    if target is None:
        raise PageError(f"{entry.name!r} has no report.md: write one with `spycfr report "
                        f"{entry.path} -o {entry.path}/report.md`", 404)
    text = target.read_text(encoding="utf-8", errors="replace")
    body = markdown(text, lambda src: _figure_url(entry, src))
    return page(f"Report: {entry.title}", bench.damage_html(entry) + body, entry_nav(entry))


def _figure_url(entry, src: str) -> str | None:
    return url("/file", run=entry.name, name=src) if src in entry.files else None


def file(bench, request):
    entry = bench.entry(request.query.get("run"), kind=None)
    name = request.query.get("name") or ""
    target = entry.files.get(name)
    if target is None:
        raise PageError(f"{entry.name!r} serves no file {name[:100]!r} (only its figures, "
                        "report and table)", 404)
    suffix = target.suffix.lower()
    return bottle.HTTPResponse(target.read_bytes(), status=200, headers={
        "Content-Type": CONTENT_TYPES.get(suffix, "application/octet-stream")})
