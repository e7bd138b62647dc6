"""`spycfr info` (tree sizes) and `spycfr solve` (run a CFR-family solver on a game)."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import click

from spycfr.cli.options import (
    game_command,
    memory_limit_option,
    parse_float,
    parse_number,
    parse_seed,
)
from spycfr.cli.progress import heartbeat
from spycfr.cli.solve_agent import agent_options, plays_by_search, solve_agent
from spycfr.cli.solve_progress import SolveProgress
from spycfr.errors import SpycfrError
from spycfr.words import params_text

if TYPE_CHECKING:
    from spycfr.runs.result import RunResult

DEFAULT_ITERATIONS = 1000


def _build(game_name: str, preset: str | None, variant_params: dict):
    from spycfr.runs.source import game_tree

    return game_tree(game_name, preset, variant_params)


@game_command()
@click.argument("game")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@memory_limit_option
def info(game: str, preset: str | None, variant_params: dict, as_json: bool) -> None:
    """Build GAME's tree and print its size: nodes, infosets, actions, depth, memory.

    GAME is a built-in game, an .efg file or openspiel:GAME_STRING (as for solve)."""
    with heartbeat(f"building the tree of {game} (after installing, the first run also "
                   "compiles the game's rules)", "still building the tree ({:.0f} s)"):
        tree = _build(game, preset, variant_params)
    summary = tree.summary()
    if as_json:
        click.echo(json.dumps(summary))
        return
    click.echo(f"{game}  {_variant_text(summary['variant'])}")
    rows = [
        ("nodes", f"{summary['nodes']:,}"),
        ("terminal nodes", f"{summary['terminal_nodes']:,}"),
        ("chance nodes", f"{summary['chance_nodes']:,}"),
        ("infosets", f"{summary['infosets']:,} (P1 {summary['infosets_p1']:,}, "
                     f"P2 {summary['infosets_p2']:,})"),
        ("max actions", str(summary["max_actions"])),
        ("depth", str(summary["depth"])),
        ("bytes", f"{summary['bytes']:,} ({summary['bytes_per_node']:.1f} per node)"),
        ("build seconds", f"{summary['build_seconds']:.3f}"),
    ]
    for label, value in rows:
        click.echo(f"  {label:<15} {value}")


def _variant_text(variant: dict) -> str:
    return params_text(variant) or "(no parameters)"


@game_command()
@click.argument("game", required=False)
@click.option("--algorithm", default=None,
              help="auto (default: the exact LP on trees up to 1M nodes; pdcfr+ above, for a "
                   "target of 1e-3 or looser on trees over 100k nodes, or with --iterations, "
                   "--time-limit or other iteration settings; es-mccfr when the tree would "
                   "not fit; it says what it picked and why: README, Choosing the algorithm), "
                   "lp "
                   "(exact sequence-form LP), cfr, cfr+, lcfr, dcfr, pcfr+, pdcfr+ (discounted "
                   "predictive CFR+), hs-pcfr+ (predictive CFR+, hyperparameter schedule), or "
                   "Monte-Carlo CFR: es-mccfr (external sampling) or "
                   "os-mccfr (outcome sampling), or re-solving: a search agent that re-solves "
                   "at every decision (the default of the presets too big to solve whole, "
                   "Agent Hunter standard: docs/search.md); it writes the agent's run "
                   "directory (-o, default GAME-PRESET-agent).")
@agent_options
@click.option("--iterations", default=None, help="Stop after this many iterations (>= 1).")
@click.option("--target-exploitability", default=None,
              help="Stop once the average strategy's exploitability is at most this (> 0).")
@click.option("--time-limit", default=None, help="Stop after this many seconds of iterations.")
@click.option("--seed", default=None,
              help="Random seed of es-mccfr/os-mccfr (default 0); recorded for the "
                   "deterministic full-tree solvers.")
@click.option("--epsilon", default=None,
              help="os-mccfr exploration, in (0, 1] (default 0.6).")
@click.option("--memory-limit", default=None,
              help="Keep the process's peak resident memory under this many GiB (default and "
                   "most: half the RAM). Full tree: refuse at once, or as soon as enumerating "
                   "shows it, a tree or solver that would not fit. es-mccfr/os-mccfr: stop "
                   "cleanly (stopped by memory, checkpoint kept) before the tables would pass "
                   "it, or with --when-full freeze go on with the table full.")
@click.option("--when-full", default=None, type=click.Choice(["stop", "freeze"]),
              help="es-mccfr/os-mccfr at the memory limit: stop (default), or freeze the "
                   "table and go on until the other limits: the infosets stored keep "
                   "learning, one met for the first time plays uniformly and is not stored.")
@click.option("--fallback", default=None, type=click.Choice(["uniform", "heuristic"]),
              help="es-mccfr/os-mccfr: how an information state the table does not hold (a "
                   "full table, --when-full freeze) is played, in the run and by its strategy: "
                   "uniformly (default) or as the game's heuristic player.")
@click.option("--store-depth", default=None,
              help="es-mccfr/os-mccfr: learn only the first N decisions of a game (both "
                   "players', counted from the start); in the run every deeper one plays the "
                   "--fallback, and so does the strategy where it has no row. Memory and time "
                   "then go to the states met again and again near the root (default: no "
                   "limit).")
@click.option("--abstraction", is_flag=True,
              help="es-mccfr/os-mccfr: key information states by the game's information "
                   "abstraction (what matters, history order forgotten) instead of the whole "
                   "history: far fewer to learn on big games (see `spycfr games`).")
@click.option("--alpha", default=None,
              help="dcfr/pdcfr+ positive-regret discount exponent (1.5; pdcfr+ 2.3).")
@click.option("--beta", default=None, help="dcfr negative-regret discount exponent (0).")
@click.option("--gamma", default=None,
              help="dcfr/pdcfr+/hs-pcfr+ strategy-sum discount exponent (2; pdcfr+ 5; "
                   "hs-pcfr+ 30 at the start, falling by 5 over 1,000 iterations).")
@click.option("--check-every", default=None,
              help="Iterations between exploitability checks (default 100; MCCFR: a tenth of "
                   "--iterations, else 1000 for es-mccfr and 100000 for os-mccfr).")
@click.option("--device", default=None,
              help="Full-tree algorithms: cpu (default), gpu (numba.cuda: needs numba-cuda, "
                   "pip install 'spycfr[gpu]', and an NVIDIA GPU; same results bit for bit) or "
                   "auto (the GPU when numba finds one); on the history tree, or on the "
                   "public tree with --tree public. A resumed run may change it.")
@click.option("--threads", default=None,
              help="Full-tree CFR on the CPU: threads of the iterations (default 1), or auto "
                   "(every available CPU on trees of 5,000 nodes or more); the same results "
                   "bit for bit whatever the number. For a machine of your own: threads "
                   "that share busy CPUs wait for each other and run slower than one. A "
                   "resumed run may change it.")
@click.option("--tree", "tree", default=None,
              help="Full-tree CFR algorithms: auto (default: the public tree where the game "
                   "has a public-state model with at least 0.8 history nodes per live range "
                   "entry on trees of 1,000 nodes or more, both trees fit the memory limit "
                   "and a CFR algorithm runs on one CPU thread; else the history tree), "
                   "public (one range vector per seat and public node: docs/public-tree.md) "
                   "or history. The run's strategy files are on the history tree either way.")
@click.option("--simultaneous", is_flag=True,
              help="Update both players from one traversal (default: alternating updates).")
@click.option("-o", "--output", "output", default=None, type=click.Path(),
              help="Write a run directory (run.json, strategy tables, convergence, checkpoint).")
@click.option("--overwrite", is_flag=True,
              help="With -o: replace the run already in that directory.")
@click.option("--checkpoint-every", default=None,
              help="With -o: save the solver state atomically every K iterations.")
@click.option("--resume", default=None, type=click.Path(),
              help="Continue the run in this directory from its checkpoint.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def solve(
    game: str | None, preset: str | None, variant_params: dict, algorithm: str | None,
    iterations: str | None, target_exploitability: str | None, time_limit: str | None,
    seed: str | None, epsilon: str | None, memory_limit: str | None, when_full: str | None,
    fallback: str | None, store_depth: str | None, abstraction: bool,
    alpha: str | None,
    beta: str | None, gamma: str | None, check_every: str | None, device: str | None,
    threads: str | None, tree: str | None, simultaneous: bool,
    output: str | None, overwrite: bool, checkpoint_every: str | None, resume: str | None,
    quiet: bool, as_json: bool, search_depth: str | None = None,
    value_function: str | None = None,
    value_file: str | None = None, endgame: str | None = None,
    plan_endgame: str | None = None, plan_iterations: str | None = None,
    plan_depth: str | None = None, subgame_budget: str | None = None,
    plan_play: str | None = None, needs_only: bool | None = None,
) -> None:
    """Solve GAME with a CFR-family algorithm; report value, exploitability and timing.

    With -o RUN_DIR the run is saved for the analysis commands (openings, query, report,
    best-response, exploitability, export); --resume RUN_DIR continues a saved run, giving
    the same result as an uninterrupted run. Ctrl-C keeps the last checkpoint.

    GAME is a built-in game (`spycfr games`), a Gambit .efg file (two-player zero-sum,
    perfect recall: e.g. one written by `spycfr export-efg`), or openspiel:GAME_STRING, any
    two-player zero-sum OpenSpiel game (needs the bench extra), e.g. openspiel:leduc_poker.
    Their trees are saved with the run.

    es-mccfr/os-mccfr sample the game instead of enumerating it. On a variant
    small enough to enumerate the exploitability is still exact; on larger ones (the standard
    preset) it cannot be computed: the run says "unknown"; `spycfr measure` measures its
    strength instead (head to head, a lower bound, the openings' stability), and openings,
    query (runs with --abstraction), report, export and head-to-head read its run directory.
    """
    options = dict(locals())  # every option, by name, for _solve_command
    # Say what is happening before the solver's modules load (seconds of imports, then
    # numba compiling on a first run): at a terminal the first line comes at once.
    progress = SolveProgress(None, None, quiet, None)
    progress.preparing()
    try:
        _solve_command(progress, **options)
    finally:
        progress.stop_preparing()


def _solve_command(
    progress: SolveProgress, *, game: str | None, preset: str | None, variant_params: dict,
    algorithm: str | None, iterations: str | None, target_exploitability: str | None,
    time_limit: str | None, seed: str | None, epsilon: str | None, memory_limit: str | None,
    when_full: str | None, fallback: str | None, store_depth: str | None, abstraction: bool,
    alpha: str | None, beta: str | None, gamma: str | None, check_every: str | None,
    device: str | None, threads: str | None, tree: str | None, simultaneous: bool,
    output: str | None, overwrite: bool, checkpoint_every: str | None, resume: str | None,
    quiet: bool, as_json: bool, search_depth: str | None, value_function: str | None,
    value_file: str | None, endgame: str | None, plan_endgame: str | None,
    plan_iterations: str | None, plan_depth: str | None, subgame_budget: str | None,
    plan_play: str | None, needs_only: bool | None,
) -> None:
    """The solve command's work, its first progress line already on its way."""
    from spycfr.runs.config import AUTO_THREADS, MCCFR_ALGORITHMS, SolveConfig, check_requested
    from spycfr.runs.solve import solve_run

    if resume is not None:
        given = [name for name, value in (
            ("GAME", game), ("--preset", preset), ("variant options", variant_params or None),
            ("--algorithm", algorithm), ("--seed", seed), ("--epsilon", epsilon),
            ("--alpha", alpha), ("--beta", beta), ("--gamma", gamma),
            ("--abstraction", abstraction or None), ("--fallback", fallback),
            ("--store-depth", store_depth), ("--tree", tree),
            ("--simultaneous", simultaneous or None), ("-o", output)) if value is not None]
        if given:
            raise SpycfrError(
                f"--resume continues the run with its own game, variant and algorithm settings: "
                f"drop {', '.join(given)} (limits such as --iterations, --time-limit, "
                "--memory-limit still apply)"
            )
    algorithm = algorithm or "auto"
    from spycfr.runs.config import ALL_ALGORITHMS
    from spycfr.search.agent import ALGORITHM as SEARCHING

    if algorithm not in (*ALL_ALGORITHMS, SEARCHING):  # the list with the search agent's
        raise SpycfrError(f"unknown algorithm {algorithm!r}; allowed: "
                          f"{', '.join((*ALL_ALGORITHMS, SEARCHING))}")
    searching = (search_depth, value_function, value_file, endgame, plan_endgame,
                 plan_iterations, plan_depth, subgame_budget, plan_play, needs_only)
    if resume is None and game is not None and plays_by_search(
            game, preset, algorithm, searching, (
                target_exploitability, time_limit, epsilon, memory_limit, when_full, fallback,
                store_depth, abstraction or None, alpha, beta, gamma, check_every, device,
                threads, tree, simultaneous or None, checkpoint_every)):
        progress.stop_preparing()  # the agent's own lines follow
        solve_agent(game, preset, variant_params, iterations, search_depth, value_function,
                     value_file, seed, output, overwrite, quiet, as_json, endgame, plan_endgame,
                     plan_iterations, plan_depth, subgame_budget, plan_play, needs_only)
        return
    if any(x is not None for x in searching):
        raise SpycfrError("--depth, --value-function, --value-file, --endgame, "
                          "--plan-endgame, --plan-iterations, --plan-depth, --subgame-budget, "
                          "--plan-play and --needs-only belong to --algorithm re-solving")
    mccfr = algorithm in MCCFR_ALGORITHMS
    n_iter = parse_number("iterations", iterations, int, 1, strict=False)
    target = parse_number("target-exploitability", target_exploitability, float, 0, strict=True)
    limit = parse_number("time-limit", time_limit, float, 0, strict=True)
    seed_value = parse_seed(seed) or 0
    eps = parse_number("epsilon", epsilon, float, 0, strict=True)
    mem = parse_number("memory-limit", memory_limit, float, 0, strict=True)
    every = parse_number("check-every", check_every, int, 1, strict=False)
    ckpt = parse_number("checkpoint-every", checkpoint_every, int, 1, strict=False)
    depth = parse_number("store-depth", store_depth, int, 1, strict=False)
    n_threads = None if resume else 1  # a resumed run keeps its own unless given
    if threads is not None and threads.strip().lower() == "auto":
        n_threads = AUTO_THREADS
    elif threads is not None:
        if not threads.strip().isdigit():
            raise SpycfrError(f"--threads must be a number >= 1 or auto, got {threads!r}")
        n_threads = parse_number("threads", threads, int, 1, strict=False)
    config = SolveConfig(
        game=game or "", preset=preset, params=variant_params, algorithm=algorithm,
        alpha=parse_float("alpha", alpha), beta=parse_float("beta", beta),
        gamma=parse_float("gamma", gamma), alternating=not simultaneous, iterations=n_iter,
        target_exploitability=target, time_limit=limit, seed=seed_value, epsilon=eps,
        memory_limit=mem, abstraction=abstraction, when_full=when_full, fallback=fallback,
        store_depth=depth,
        device=device or (None if resume else "cpu"),  # a resumed run keeps its own unless given
        threads=n_threads, tree=tree or "auto",
    )
    if resume is None:
        check_requested(config)  # the algorithm and its settings, before the game is read
        if game is None:
            raise SpycfrError("missing GAME; games: " + ", ".join(_game_names()))
        from spycfr.games import foreign_kind, get_plugin

        if foreign_kind(game) is None:
            get_plugin(game)  # unknown game -> one-line error before anything else
    if n_iter is None and target is None and limit is None and resume is None and (
            algorithm not in ("auto", "lp")):  # auto: the iterative choices default to it too
        n_iter = DEFAULT_ITERATIONS
    if every is None and resume is None:  # a resumed run keeps its own
        if mccfr:  # measuring costs far more than an MCCFR iteration
            every = max(1, n_iter // 10) if n_iter else (
                1000 if algorithm == "es-mccfr" else 100_000)
        elif n_iter is not None:
            every = min(100, n_iter)
    config = config.replace(iterations=n_iter, check_every=every)
    out = solve_run(config, out_dir=output, resume=resume, checkpoint_every=ckpt,
                    progress=progress, overwrite=overwrite)
    progress.stop_preparing()
    estimate = out.exploitability_estimate
    seconds = out.solve_seconds or 0.0
    if out.algorithm == "lp":
        pass  # no iterations to report: the summary below has the exact result
    elif estimate is None:
        progress(out.iterations, seconds, out.exploitability, final=True)
    elif estimate.informative:
        progress(out.iterations, seconds, estimate.value, final=True,
                 label="exploitability~ (sampled-regret bound estimate)")
    else:
        progress(out.iterations, seconds, None, final=True, label="exploitability unknown")
    if as_json:
        click.echo(json.dumps(out.to_json()))
        return
    _summary(out)
    sys.stdout.flush()


def _summary(out: RunResult) -> None:
    """The solve's result in lines of text."""
    echo = click.echo
    params = out.algorithm_params
    echo(f"{out.game}  {_variant_text(out.variant)}")
    if out.algorithm in ("es-mccfr", "os-mccfr"):
        extra = f" (epsilon {params['epsilon']:g})" if params["epsilon"] is not None else ""
        extra += ", information abstraction" if params.get("abstraction") else ""
        extra += ", heuristic fallback" if params.get("fallback") == "heuristic" else ""
        if params.get("store_depth") is not None:
            extra += f", first {params['store_depth']} decisions stored"
        echo(f"  algorithm       {out.algorithm}{extra}, seed {out.seed}")
    else:
        echo(f"  algorithm       {out.algorithm}"
             f"{'' if params['alternating'] else ' (simultaneous)'}, on the {out.device}"
             f"{'' if out.device == 'cpu' else ' (numba.cuda)'}"
             f"{_threads_text(out)}")
    if out.algorithm_choice is not None:
        echo(f"  chosen by auto  {out.algorithm_choice.why}")
    if out.public_tree:
        pub = out.public_tree
        echo(f"  public tree     {pub['public_nodes']:,} public nodes, {pub['range_entries']:,} "
             f"range entries, built in {pub['build_seconds']:.2f}s (strategy mapped onto the "
             "history tree below)")
    if out.nodes is not None:
        echo(f"  tree            {out.nodes:,} nodes, {out.infosets:,} infosets, "
             f"built in {out.build_seconds:.2f}s")
    else:
        echo(f"  tree            not enumerated (about {out.estimated_nodes:.2g} nodes)")
    if out.algorithm == "lp":
        echo(f"  solve time      {out.solve_seconds:.3f}s (one HiGHS program; exact)")
    else:
        echo(f"  iterations      {out.iterations} (stopped by {out.stopped_by})")
        echo(f"  solve time      {out.solve_seconds:.3f}s "
             f"({out.ms_per_iteration:.4f} ms/iteration)")
    if out.infosets_seen is not None and out.memory is not None:
        echo(f"  infosets seen   {out.infosets_seen:,} (P1 {out.infosets_seen_p1:,}, "
             f"P2 {out.infosets_seen_p2:,})")
        echo(f"  memory          {out.memory.bytes_allocated / 2**30:.3f} GiB of tables "
             f"(limit {out.memory.limit_bytes / 2**30:.3g} GiB on the resident memory)")
    if out.exploitability is not None and out.value_interval is not None:
        lo, hi = out.value_interval
        echo(f"  value (P1)      {out.value_p1:+.6f}")
        echo(f"  game value      in [{lo:+.9g}, {hi:+.9g}] (P1's; certified by the two best "
             "responses)")
        echo(f"  exploitability  {out.exploitability:.6g} (NashConv {out.nash_conv:.6g})")
    elif out.exploitability_estimate is not None:
        estimate = out.exploitability_estimate
        echo("  value (P1)      not measured (no tree)")
        if estimate.informative:
            echo(f"  exploitability  not measured; estimate {estimate.value:.6g} "
                 f"({estimate.kind})")
        else:
            echo("  exploitability  unknown: no tree for a best response, and the sampled-regret"
                 f" bound {estimate.shortfall}, so it bounds nothing; measure the run's "
                 "strength with spycfr measure RUN_DIR")
    if out.peak_rss_bytes:
        echo(f"  peak memory     {out.peak_rss_bytes / 2**30:.3f} GiB resident (measured: "
             "the process's peak resident set size)")
    if out.memory_stop:
        echo(f"  memory stop     {out.memory_stop}")
    if out.frozen_at_iteration is not None:
        echo(f"  table full      frozen at iteration {out.frozen_at_iteration:,} by the memory "
             f"limit; {out.unstored_decisions:,} decisions met an infoset not stored "
             f"(played as the fallback: {params.get('fallback', 'uniform')})")
    if out.tree_not_enumerated_because:
        echo(f"  no tree         {out.tree_not_enumerated_because}")
    if out.tables_skipped:
        echo(f"  tables          {out.tables_skipped}")
    if out.run_dir:
        echo(f"  run directory   {out.run_dir}")


def _game_names() -> list[str]:
    from spycfr.games import game_names

    return game_names()


def _threads_text(out: RunResult) -> str:
    """', N threads' for a CPU run (and why only one when the tree did not allow more)."""
    n = out.threads
    if n is None:
        return ""
    text = f", {n} thread{'s' if n != 1 else ''}"
    return text + (f" ({out.threads_note})" if out.threads_note else "")
