"""Report of a run sampled without a tree (Monte-Carlo CFR on a game too big to enumerate):
what was run, what was measured (head to head, the lower bound it implies, the openings'
stability, from run.json's ``measured``: :mod:`spycfr.analysis.measure`) and the most
played openings. No value or exploitability can be computed: the report says "unknown"
and what was measured instead.
"""

from __future__ import annotations

import re
from pathlib import Path

from spycfr.analysis.bound import METHOD, lbr_games_note, lower_bound
from spycfr.analysis.headtohead import INTERVAL_WORDS, NORMAL_WORDS
from spycfr.analysis.markdown import Doc, md_table, num, pct, signed
from spycfr.analysis.openings import (
    needs_only_words,
    openings_by_group,
    openings_spec,
    treeless_table,
)
from spycfr.analysis.report import ALGORITHM_NAMES, variant_words
from spycfr.errors import SpycfrError
from spycfr.games import get_plugin
from spycfr.io import write_text
from spycfr.provenance import without_played_by
from spycfr.runs.agent_run import leaf_words, opening_table, replays_first_move
from spycfr.runs.result import RunResult
from spycfr.runs.store import treeless_openings
from spycfr.search.agent import ALGORITHM as AGENT_ALGORITHM
from spycfr.words import params_text

TOP = 10  # openings listed per player (per situation)


def write_sampled_report(run_dir: str | Path, out_path: str | Path) -> Path:
    """Write the markdown report of the sampled run in ``run_dir`` to ``out_path``."""
    loaded = treeless_openings(run_dir)
    if loaded is None:
        raise SpycfrError(f"run {str(run_dir)!r} has a tree: use its full report")
    meta, raw = loaded
    doc = Doc()
    if meta.algorithm == AGENT_ALGORITHM:
        _agent_header(doc, meta)
        matched = _agent_matches(doc, Path(run_dir))
    else:
        _header(doc, meta)
        matched = False
    _measured(doc, meta, matched)
    _openings(doc, meta, raw, Path(run_dir))
    out_path = Path(out_path)
    try:
        write_text(out_path, "\n".join(doc.parts))
    except OSError as exc:
        raise SpycfrError(f"cannot write the report {str(out_path)!r}: "
                          f"{exc.strerror or exc}") from None
    return out_path


def _header(doc: Doc, meta: RunResult) -> None:
    title = get_plugin(meta.game).title
    preset = meta.preset
    doc.add(f"# Strategy report: {title}" + (f", preset `{preset}`" if preset else "") + "\n")
    params = meta.algorithm_params
    alg = ALGORITHM_NAMES.get(meta.algorithm, meta.algorithm)
    if params.get("epsilon") is not None:
        alg += f" (exploration {params['epsilon']:g})"
    keys = ("the game's information abstraction" if params.get("abstraction") else
            "the whole history of each seat's observations")
    frozen = meta.frozen_at_iteration
    memory = (f"limit {meta.memory_limit_gib or 0:g} GiB on the resident memory; peak "
              f"measured {(meta.peak_rss_bytes or 0) / 2**30:.2f} GiB")
    if frozen is not None:
        memory += (f"; table full (frozen) from iteration {frozen:,}, after which "
                   f"{meta.unstored_decisions or 0:,} sampled decisions met an information "
                   f"state not stored (played as the fallback, "
                   f"{params.get('fallback', 'uniform')}; not learnt)")
    depth = params.get("store_depth")
    if depth is not None:
        memory += (f"; only the first {depth} decisions of a game (both players', counted "
                   f"from the start) are learnt (--store-depth {depth}); every later decision "
                   f"plays the fallback ({params.get('fallback', 'uniform')})")
    rows = [
        ["game", f"{title}: {variant_words(meta)}"],
        ["parameters", params_text(meta.variant)],
        ["algorithm", f"{alg}, seed {meta.seed}"],
        ["information states", f"keyed by {keys}; {meta.infosets_seen or 0:,} stored"],
        ["iterations", f"{int(meta.iterations):,} (stopped by {meta.stopped_by}) in "
                       f"{float(meta.solve_seconds or 0):,.0f} s"],
        ["memory", memory],
        ["where the table has no row", "the strategy plays the game's heuristic player"
         if params.get("fallback") == "heuristic" else "the strategy plays uniformly"],
        ["tree", f"not enumerated (about {meta.estimated_nodes or 0:.2g} nodes)"],
        ["spycfr", f"{meta.version or '?'}, run made {meta.created or '?'}"],
    ]
    doc.add(md_table(["", ""], rows, "ll") + "\n")


def _agent_header(doc: Doc, meta: RunResult) -> None:
    """What a search agent's run is: its configuration (run.json ``agent``)."""
    title = get_plugin(meta.game).title
    a = meta.record.get("agent") or {}
    doc.add(f"# Search agent report: {title}"
            + (f", preset `{meta.preset}`" if meta.preset else "") + "\n")
    leaf = f"{a.get('value_function')}: {leaf_words(meta)}"
    if a.get("value_file"):
        leaf += f" (weights {a['value_file']})"
    rows = [
        ["game", f"{title}: {variant_words(meta)}"],
        ["parameters", params_text(meta.variant)],
        ["algorithm", "re-solving (continual re-solving, DeepStack 2017: at every decision "
                      "the public subgame is re-solved from both seats' ranges with CFR+, with "
                      "the re-solving gadget where the leaf values cover both seats' private "
                      "states and without it where they cover only the agent's own (rollout "
                      "leaves on a big game); docs/search.md)"],
        ["effort", f"{a.get('iterations')} CFR+ iterations per re-solve; subgames "
                   f"{a.get('depth')} decision level(s) deep (the first plan "
                   f"{a.get('plan_depth')})" + _depth_rule_words(a) + _endgame_words(a)
                   + _plan_play_words(a)],
        ["leaf values", leaf],
        ["seed", f"{meta.seed} (the agent is deterministic; matches sample from seeded "
                 "streams)"],
        ["spycfr", f"{meta.version or '?'}, made {meta.created or '?'}"],
    ]
    doc.add(md_table(["", ""], rows, "ll") + "\n")


def _agent_matches(doc: Doc, run_dir: Path) -> bool:
    """The head-to-head results kept beside the run (headtohead-*.json, written by
    results/regenerate.sh), each with its 95% interval; whether there were any."""
    import json

    rows, how, flat = [], [], False
    for path in sorted(run_dir.glob("headtohead-*.json")):
        try:
            r = json.loads(path.read_text())
            lo, hi = r["a_payoff"]["ci95"]
            # every game won, lost or drawn: its interval may be the no-spread one
            flat |= max(r["a_wins"], r["draws"], 1 - r["a_wins"] - r["draws"]) == 1
            rows.append([r["b"], str(r["a_payoff"]["games"]),
                         f"{signed(r['a_payoff']['mean'], 3)} [{signed(lo, 3)}, "
                         f"{signed(hi, 3)}]", signed(r["a_as_p1"]["mean"], 3),
                         signed(r["a_as_p2"]["mean"], 3), pct(r["a_wins"]), pct(r["draws"])])
            seed = f"seed {r['seed']}" if isinstance(r["seed"], int) else r["seed"]
            how.append(f"- against {r['b']} (`{path.name}`): {seed}; {r['method']}")
        except (OSError, ValueError, KeyError, TypeError):
            raise SpycfrError(f"{str(path)!r} is not a head-to-head result") from None
    if rows:
        doc.add("## Head to head\n")
        doc.add("The agent's payoff per game against each player (`spycfr head-to-head` or "
                "pairs of games, half the games in each seat; "
                f"{INTERVAL_WORDS if flat else NORMAL_WORDS}):\n")
        doc.add(md_table(["against", "games", "payoff", "as P1", "as P2", "wins", "draws"],
                         rows, "lrrrrrr") + "\n")
        doc.add("How each was played:\n\n" + "\n".join(how) + "\n")
    return bool(rows)


def _depth_rule_words(agent: dict) -> str:
    """The depth rule's budget in the report's effort row (none in runs made before it)."""
    if not agent.get("subgame_budget"):
        return ""
    return (f", a level less while a re-solve's subgame passes {agent['subgame_budget']:,} "
            "node-states")


def _plan_play_words(agent: dict) -> str:
    """Where the agent plays its first plan instead of re-solving (AgentConfig.plan_play; none
    in runs made before it) in the report's effort row."""
    levels = agent.get("plan_play")
    if not levels:
        return ""
    return (f", the first plan's own strategy played at its first {levels} decision "
            f"level{'s' if levels > 1 else ''} (no re-solve there)")


def _endgame_words(agent: dict) -> str:
    """The endgame rule's budgets in the report's effort row (none in runs made before it)."""
    if not agent.get("endgame") and not agent.get("plan_endgame"):
        return ""
    return (f", or to the end of the game, exact, where the rest takes at most "
            f"{agent.get('endgame', 0):,} node-states ({agent.get('plan_endgame', 0):,} for "
            "the first plan)")


def _instead(matched: bool, measured: bool) -> str:
    """What an agent's report says was measured in place of its exploitability."""
    where = [w for w, has in (("the head-to-head results above", matched),
                              ("what follows", measured)) if has]
    if not where:
        return ("Nothing was measured instead yet: `spycfr head-to-head` and `spycfr measure` "
                "do that.")
    return "What was measured instead: " + " and ".join(where) + "."


def _measured(doc: Doc, meta: RunResult, matched: bool) -> None:
    doc.add("## How strong it is\n")
    est = meta.exploitability_estimate
    if meta.algorithm == AGENT_ALGORITHM and meta.exploitability is not None:
        exact = meta.record["exact_measure"]
        doc.add(f"**Exploitability: {meta.exploitability:.4g}, exact.** The agent was "
                "re-solved at every public node of this variant as a real game re-solves, "
                "then a full best response taken against each seat (best responses: P1 "
                f"{num(exact['br_p1'])}, P2 {num(exact['br_p2'])}; "
                f"{exact['re_solves']:,} re-solves).\n")
        if not meta.measured:
            return
    elif meta.algorithm == AGENT_ALGORITHM:
        # walked exactly, but not as a real game plays (agent_run.exact_measure's note)
        why = str(meta.record.get("exploitability_note", "")).removeprefix("unknown: ")
        doc.add("**Exploitability: unknown.** " + (
            f"{why[:1].upper()}{why[1:]}. " if meta.record.get("exact_measure") else
            "The agent stores no strategy to take a best response to, and the game is far "
            "too big for one. ") + _instead(matched, bool(meta.measured)) + "\n")
        if not meta.measured:
            return
    elif est is not None and est.informative:
        why = f", {est.value:.3g}, is an estimate from sampled regrets, not a measurement"
    elif est is not None:
        why = f" {est.shortfall}, so it bounds nothing"
    else:
        why = " was not recorded"
    if meta.algorithm != AGENT_ALGORITHM:
        doc.add("**Exploitability: unknown.** The game is far too big for an exact best "
                f"response, and the sampled-regret bound{why}. What was measured instead:\n")
    m = meta.measured
    if not m:
        doc.add("Nothing yet: head-to-head results, a local best response, a lower bound on the "
                "exploitability and the openings' stability are **unknown** (`spycfr measure "
                "RUN_DIR --lbr-games N` measures them).\n")
        return
    if not m["head_to_head"]:  # measure --games 0: the local best response alone
        doc.add(f"Measured by `{m['command']}` (no head-to-head games there"
                f"{_lbr_count(m)}).\n")
    else:
        doc.add(f"Head to head, {m['games']:,} sampled games against each player, half in each "
                f"seat (`{m['command']}`{_lbr_count(m)}); the run's mean payoff per game with "
                "its 95% interval:\n")
        rows = []
        for r in m["head_to_head"]:
            lo, hi = r["payoff"]["ci95"]
            rows.append([r["opponent"], f"{signed(r['payoff']['mean'], 3)} [{signed(lo, 3)}, "
                         f"{signed(hi, 3)}]", signed(r["as_p1"], 3), signed(r["as_p2"], 3),
                         pct(r["wins"]), pct(r["draws"])])
        doc.add(md_table(["against", "payoff", "as P1", "as P2", "wins", "draws"], rows,
                         "lrrrrr") + "\n")
    b = lower_bound(m)
    # where LBR's games were not played by the run's code the bound line names their agent,
    # so the LBR paragraph's method leaves out its own sentence on the code (said once)
    agent = lbr_games_note(m, meta.record.get("code"), b)
    r = m.get("local_best_response")
    if r:
        lo, hi = r["ci95"]
        method = r["method"] if agent is None else without_played_by(r["method"])
        doc.add(f"**Local best response: {signed(r['value'], 3)}** per game (95% interval "
                f"{signed(lo, 3)} to {signed(hi, 3)}; as P1 {signed(r['as_p1']['mean'], 3)}, as "
                f"P2 {signed(r['as_p2']['mean'], 3)}; wins {pct(r['wins'])}): {method}.\n")
    else:
        doc.add("**Local best response: unknown** (not measured: `spycfr measure RUN_DIR "
                "--lbr-games N`).\n")
    if b is None:
        doc.add("**Lower bound on the exploitability: none measured** (no opponent played: "
                "`spycfr measure RUN_DIR`).\n")
    else:
        doc.add(f"**Lower bound on the exploitability at 95%: {num(b.shown, '{:.3f}')}** "
                f"({b.words()}{'' if agent is None else '; ' + agent}). Method: {METHOD}.\n")
    s = m.get("openings_stability")
    if s:
        u = s["against_uniform"]
        doc.add("**Openings' stability** (" + s["method"] + "). Distance to uniform play: "
                + ", ".join(f"{p} {u[p]['tvd']:.3f}" for p in sorted(u)) + ".\n")
        if s["against_runs"]:
            rows = [[o["run"], str(o["seed"]), f"{o['iterations']:,}"]
                    + [f"{o[p]['tvd']:.3f} ({o[p]['top5_shared']}/5)" for p in ("P1", "P2")]
                    for o in s["against_runs"]]
            doc.add(md_table(["other run", "seed", "iterations", "P1 distance (top 5 shared)",
                              "P2 distance (top 5 shared)"], rows, "lrrrr") + "\n")
        else:
            doc.add("Against other runs: unknown (no run compared).\n")


def _openings(doc: Doc, meta: RunResult, raw, run_dir: Path) -> None:
    spec = openings_spec(meta.game)
    table = treeless_table(meta.game, raw)
    doc.add(f"## Most played {spec.whats}\n")
    opening_file = (meta.record.get("agent") or {}).get("opening_file")
    if opening_file:
        _opening_table(doc, run_dir, meta, spec)
        return
    what = ("The agent's first plan at the opening decisions" if meta.algorithm ==
            AGENT_ALGORITHM else "The run's average strategy at the opening decisions")
    replay = ""
    if replays_first_move(meta):
        replay = (" In play the agent re-solves its first move too, the rollouts spent on its "
                  "own hand, and may play otherwise than this plan shared by every deal "
                  "(`spycfr query RUN_DIR --seat P1 RECORD` gives the move it plays). "
                  + needs_only_words(meta)).rstrip()
    doc.add(f"{what} (the first {TOP} rows per player; the full list is `spycfr openings "
            "RUN_DIR --csv`). Read them with the measurements above: they are only as good as "
            f"the strategy.{replay}\n")
    by_group = openings_by_group(table, spec.group_name, spec.context_name)
    for player in ("P1", "P2"):
        rows = table[table.player == player]
        keys = [spec.context_name] if spec.context_name else []
        shown = [[*(str(getattr(r, k)) for k in keys), r.opening, f"{r.probability:.4f}"]
                 for r in rows.head(TOP).itertuples()]
        doc.add(f"**{player}**\n")
        doc.add(md_table([*keys, spec.what, "probability"], shown,
                         "l" * (len(keys) + 1) + "r") + "\n")
        if spec.context_name:  # many situations: what the player does over all of them
            sets = by_group[by_group.player == player].head(TOP)
            doc.add(f"Over every {spec.context_name} ({rows[spec.context_name].nunique():,}, "
                    f"weighted equally), the {spec.group_title} played most: " + ", ".join(
                        f"{c} {p:.3f}" for c, p in
                        zip(sets[spec.group_name], sets.probability, strict=True)) + ".\n")


def _opening_table(doc: Doc, run_dir: Path, meta: RunResult, spec) -> None:
    """An agent that opens by its openings table: the matrix game, its value and mixtures
    (the table checked against run.json: :func:`spycfr.runs.agent_run.opening_table`)."""
    table = opening_table(run_dir, meta)
    path = Path(str(meta.record["agent"]["opening_file"]))
    group = "card set" if spec.group_name == "cards" else spec.group_name
    doc.add(f"The agent opens with the equilibrium mixture of its openings table "
            f"(`{path.name}`, `spycfr train-openings`; `spycfr openings RUN_DIR` shows it). "
            + " ".join(line[0].upper() + line[1:] + "." for line in
                       table.describe(spec.whats, group)) + "\n")
    s = table.summary(TOP)
    for p in ("P1", "P2"):
        doc.add(f"**{p}**: {s[p]['support']} {group}s played, each in any house order "
                "uniformly; value: against the other's mixture, continuing best\n")
        doc.add(md_table([group, "probability", "value"],
                         [[r["cards"], f"{r['probability']:.4f}", num(r["value"])]
                          for r in s[p]["top"]], "lrr") + "\n")


def _lbr_count(measured: dict) -> str:
    """Where the local best response counted another number of games than the command
    asked (``--lbr-games``: a search agent's games file keeps every finished game of the
    same settings, so a rerun or another machine's games add to it), that number and why;
    else nothing. Before, the report gave the command's 10 beside '11 sampled games'."""
    r = measured.get("local_best_response") or {}
    asked = _lbr_asked(measured)
    if not r or asked is None or asked == r.get("games"):
        return ""
    where = f" in {r['games_file']}" if r.get("games_file") else ""
    return (f"; its local best response counts {r['games']:,} games, not the "
            f"{asked:,} asked: every finished game of the same settings{where} counts")


def _lbr_asked(measured: dict) -> int | None:
    """The games the measurement's local best response was asked for: as measure_run
    records it (``lbr_games``), else (a run.json measured before the record) the command's
    ``--lbr-games``; None where neither says."""
    if isinstance(measured.get("lbr_games"), int):
        return int(measured["lbr_games"])
    asked = re.search(r"--lbr-games[ =](\d+)", measured.get("command") or "")
    return None if asked is None else int(asked.group(1))
