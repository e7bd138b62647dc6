"""Time to exploitability targets: every CFR variant against the exact HiGHS LP and OpenSpiel's
C++ CFR+, in one process, interleaved.

For each game, in each of ``--repeat`` rounds, every method runs once in turn (so a load
change on the machine hits them alike); the table gives the median over the rounds of the
seconds each needs to reach each target exploitability (NashConv / 2), and the ratio to the
exact LP as ``solve_lp`` ran before (both players' programs) on the same tree.

What is timed: CFR, only ``iterate`` (after ``warm_up``: tree build and numba compilation
excluded; exploitability checks, every ``max(10, t/20)`` iterations, excluded, so a target is
met at the first check below it); the LPs, the whole ``solve_lp`` call (sequence form, HiGHS,
strategy); OpenSpiel, only ``evaluate_and_update_policy``. ``auto`` is what ``spycfr solve``
runs by default (``choose_algorithm``) with each target: its row repeats the methods it picks.

Needs the bench extra for OpenSpiel (``pip install -e '.[bench]'``; without it those rows are
skipped). Run from the repo root:
``python benchmarks/bench_time_to_target.py [--games leduc,agent-hunter:mini] [--cap 60]``.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time

from spycfr.cfr.solver import CFRSolver  # noqa: E402
from spycfr.exact.best_response import exploitability  # noqa: E402
from spycfr.exact.lp import solve_lp  # noqa: E402
from spycfr.games import build_tree, make_game  # noqa: E402
from spycfr.runs.config import SolveConfig  # noqa: E402
from spycfr.runs.game import resolve_game  # noqa: E402
from spycfr.runs.plan import choose_algorithm  # noqa: E402

GAMES = ("kuhn", "leduc", "liars-dice", "agent-hunter:tiny", "agent-hunter:mini")
CFR_METHODS = ("cfr+", "dcfr", "pcfr+", "pdcfr+", "hs-pcfr+")
METHODS = ("lp-both", "lp") + CFR_METHODS + ("openspiel-cfr+",)
# OpenSpiel's built-in games; the others are loaded from spycfr's EFG export.
OPENSPIEL_NAMES = {"kuhn": "kuhn_poker", "leduc": "leduc_poker", "liars-dice": "liars_dice"}


def _list(allowed: tuple[str, ...]):
    def parse(text: str) -> list[str]:
        names = [x.strip() for x in text.split(",") if x.strip()]
        bad = [n for n in names if n not in allowed and "=" not in n]
        if bad or not names:
            raise argparse.ArgumentTypeError(
                f"unknown name(s) {', '.join(bad) or '(none)'}; allowed: {', '.join(allowed)}")
        return names
    return parse


def _targets(text: str) -> list[float]:
    try:
        values = sorted({float(x) for x in text.split(",") if x.strip()}, reverse=True)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated numbers, got {text!r}") from None
    if not values or values[-1] <= 0:
        raise argparse.ArgumentTypeError(f"targets must be > 0, got {text!r}")
    return values


def _split(case: str) -> tuple[str, str | None, dict]:
    """GAME, GAME:PRESET or GAME:K=V/K=V (a variant: the tree shapes of ``auto``'s rule)."""
    game, _, preset = case.partition(":")
    if "=" not in preset:
        return game, preset or None, {}
    return game, None, dict(kv.split("=", 1) for kv in preset.split("/"))


def time_lp(tree, targets, both_sides: bool) -> dict:
    """Seconds of one solve_lp call for every target it meets (its exploitability is ~1e-16)."""
    t0 = time.perf_counter()
    res = solve_lp(tree, both_sides=both_sides)
    seconds = time.perf_counter() - t0
    expl = exploitability(tree, res.strategy)
    return {tg: (seconds, None) for tg in targets if expl <= tg} | {"final": expl}


def time_cfr(tree, algorithm: str, targets, cap: float) -> dict:
    """(seconds iterating, iterations) at the first check at or below each target, within
    ``cap`` seconds of iterations."""
    solver = CFRSolver(tree, algorithm)
    solver.warm_up()
    hits: dict = {}
    expl = math.inf
    while solver.seconds < cap and len(hits) < len(targets):
        solver.iterate(max(10, solver.iteration // 20))
        expl = exploitability(tree, solver.average_strategy())
        for tg in targets:
            if tg not in hits and expl <= tg:
                hits[tg] = (solver.seconds, solver.iteration)
    return hits | {"final": expl, "iterations": solver.iteration}


def time_openspiel(pyspiel, game, targets, cap: float) -> dict:
    """Same as :func:`time_cfr` for OpenSpiel's C++ CFR+ (only the updates are timed)."""
    solver = pyspiel.CFRPlusSolver(game)
    hits: dict = {}
    seconds, done, expl = 0.0, 0, math.inf
    while seconds < cap and len(hits) < len(targets):
        n = max(10, done // 20)
        step = solver.evaluate_and_update_policy
        t0 = time.perf_counter()
        for _ in range(n):
            step()
        seconds += time.perf_counter() - t0
        done += n
        expl = pyspiel.exploitability(game, solver.average_policy())
        for tg in targets:
            if tg not in hits and expl <= tg:
                hits[tg] = (seconds, done)
    return hits | {"final": expl, "iterations": done}


def _openspiel_game(pyspiel, case: str, tree):
    game, preset, params = _split(case)
    if game in OPENSPIEL_NAMES and preset is None and not params:
        return pyspiel.load_game(OPENSPIEL_NAMES[game])
    from spycfr.formats.efg import efg_text
    return pyspiel.load_efg_game(efg_text(tree))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=_list(GAMES), default=list(GAMES),
                        help="comma-separated subset of: " + ", ".join(GAMES))
    parser.add_argument("--methods", type=_list(METHODS), default=list(METHODS),
                        help="comma-separated subset of: " + ", ".join(METHODS))
    parser.add_argument("--targets", type=_targets, default=[1e-3, 1e-4, 1e-6],
                        help="exploitability targets (default 1e-3,1e-4,1e-6)")
    parser.add_argument("--cap", type=float, default=60.0,
                        help="seconds of iterations each iterative method gets per game and "
                             "round (default 60)")
    parser.add_argument("--repeat", type=int, default=1, help="interleaved rounds (median)")
    args = parser.parse_args(argv)
    pyspiel = None
    if "openspiel-cfr+" in args.methods:
        try:
            import pyspiel
        except ImportError:
            print("(open_spiel not installed: OpenSpiel rows skipped; pip install -e '.[bench]')")
    targets = args.targets
    heads = " ".join(f"{f'to {tg:g}':>23}" for tg in targets)
    header = f"{'game':<18} {'method':<20} {heads}  {'final expl':>10}"
    print(header)
    print("-" * len(header))
    for case in args.games:
        game, preset, params = _split(case)
        tree = build_tree(make_game(game, preset, params))
        configs = {tg: SolveConfig(game=game, preset=preset, params=params, algorithm="auto",
                                   target_exploitability=tg) for tg in targets}
        chosen = {tg: choose_algorithm(c, resolve_game(c))[0] for tg, c in configs.items()}
        os_game = None
        if pyspiel is not None:
            os_game = _openspiel_game(pyspiel, case, tree)
        runs: dict[str, list[dict]] = {m: [] for m in args.methods}
        for _ in range(args.repeat):
            for method in args.methods:
                if method == "lp-both":
                    runs[method].append(time_lp(tree, targets, both_sides=True))
                elif method == "lp":
                    runs[method].append(time_lp(tree, targets, both_sides=False))
                elif method == "openspiel-cfr+":
                    if os_game is not None:
                        runs[method].append(time_openspiel(pyspiel, os_game, targets, args.cap))
                else:
                    runs[method].append(time_cfr(tree, method, targets, args.cap))
        medians = {}
        for method, rounds in runs.items():
            if rounds:
                medians[method] = {tg: _median(rounds, tg) for tg in targets}
        iters = {m: {tg: _median(rounds, tg, 1) for tg in targets}
                 for m, rounds in runs.items() if rounds}
        base = medians.get("lp-both", {})
        rows = [(m, {tg: m for tg in targets}) for m in medians]
        if all(m in medians for m in chosen.values()):
            rows.append(("auto", chosen))
        print(f"{case} ({tree.num_nodes:,} nodes)")
        for label, method in rows:
            cells = []
            for tg in targets:
                got = medians[method[tg]][tg]
                if got is None:
                    cells.append(f"{'> cap':>23}")
                    continue
                ratio = ""
                if base.get(tg) is not None and base[tg] > 0:
                    ratio = f" x{got / base[tg]:.2g}"
                n = iters[method[tg]][tg]
                its = f" {n:.0f}it" if n is not None else ""
                cells.append(f"{f'{got:.3g}s{ratio}{its}':>23}")
            picked = sorted(set(method.values()))
            final = statistics.median(r["final"] for r in runs[picked[-1]])
            if label == "auto":
                label = f"auto ({'/'.join(method[tg] for tg in targets)})"
            print(f"{'':<18} {label:<20} {' '.join(cells)}  {final:>10.2g}")
        sys.stdout.flush()
    print("\nseconds: median over rounds; 'xR': R times the two-program LP (lp-both) on the "
          "same tree; 'Nit': iterations (median); '> cap': not reached within --cap seconds "
          "of iterations")
    return 0


def _median(rounds: list[dict], target: float, field: int = 0) -> float | None:
    """Median seconds (``field`` 0; iterations: 1, None for the LP) to ``target`` over the
    rounds; None if any round missed it."""
    got = [r[target][field] for r in rounds if target in r]
    if any(x is None for x in got):
        return None
    return statistics.median(got) if len(got) == len(rounds) else None


if __name__ == "__main__":
    sys.exit(main())
