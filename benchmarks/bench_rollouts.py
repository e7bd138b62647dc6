"""Agent Avenue's ``rollouts`` hook (rollout.py, rollout_advanced.py) timed on fixed jobs, its
payoffs saved so that a change of the kernels can be shown bit-identical.

    python benchmarks/bench_rollouts.py [--jobs 20000] [--repeat 3] [--save out.npz]
                                        [--compare before.npz]

The jobs: the public states and both private states at the decisions of random seeded
games (uniform moves, the rules' draws) of simple mode's ``standard`` preset with the
discards forgotten (the full game's model) and kept, and of advanced mode; each job one of
those leaves with its true pair, seed q. Prints each mode's best wall time of ``--repeat``
calls after a compiling call; ``--compare`` exits 1 unless every payoff is the same to the
bit as the saved file's.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from spycfr.games import get_plugin, make_variant
from spycfr.games.agent_avenue import advanced as A
from spycfr.games.agent_avenue import make_game
from spycfr.games.agent_avenue import public as AP
from spycfr.games.agent_avenue import public_advanced as PA
from spycfr.games.agent_avenue import rules as R
from spycfr.tree import CHANCE, TERMINAL


def _leaves(rules, public, params, games: int, seed: int) -> tuple:
    """(public states, P1's and P2's private states) at the decisions of random games of
    ``rules`` (a rules module) where both private states of the ``public`` model are known
    (> 0)."""
    rng = np.random.default_rng(seed)
    m = max(rules.max_actions(params), 2)
    acts, probs = np.empty(m, np.int32), np.empty(m)
    pubs, i0, i1 = [], [], []
    for _ in range(games):
        state = rules.initial_state(params)
        while True:
            who = rules.current_player(state, params)
            if who == TERMINAL:
                break
            a, b = (int(public.private_of_history(state, params, s)) for s in (0, 1))
            if who != CHANCE and min(a, b) > 0:
                pub = np.empty_like(state)
                public.public_of_history(state, params, pub)
                pubs.append(pub)
                i0.append(a)
                i1.append(b)
            if who == CHANCE:
                k = rules.chance_outcomes(state, params, acts, probs)
                act = acts[rng.choice(k, p=probs[:k] / probs[:k].sum())]
            else:
                act = acts[rng.integers(rules.legal_actions(state, params, acts))]
            nxt = np.empty_like(state)
            rules.apply_action(state, params, act, nxt)
            state = nxt
    return np.array(pubs, np.int32), np.array(i0), np.array(i1)


def _modes() -> dict:
    simple = make_variant("agent-avenue", "standard").to_params()
    return {"simple-forget": (R, AP, simple._replace(forget=np.int64(1))),
            "simple-keep": (R, AP, simple._replace(forget=np.int64(0))),
            "advanced": (A, PA, make_game("advanced").params)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--save")
    ap.add_argument("--compare")
    args = ap.parse_args(argv)
    hook = get_plugin("agent-avenue").rollouts
    saved = dict(np.load(args.compare)) if args.compare else {}
    out_all, same = {}, True
    for name, (rules, public, params) in _modes().items():
        pubs, i0, i1 = _leaves(rules, public, params, 20, 7)
        rng = np.random.default_rng(11)
        leaf = np.sort(rng.integers(0, len(pubs), args.jobs))
        styles = rng.integers(0, 3, args.jobs) if name != "advanced" else \
            np.zeros(args.jobs, np.int64)
        call = (pubs, params, leaf, i0[leaf], i1[leaf], styles, styles[::-1].copy(),
                np.arange(args.jobs, dtype=np.int64))
        out = np.empty(args.jobs)
        hook(*call, out)  # compiles (or loads the cache)
        best = float("inf")
        for _ in range(args.repeat):
            start = time.perf_counter()
            hook(*call, out)
            best = min(best, time.perf_counter() - start)
        out_all[name] = out.copy()
        line = f"{name}: {len(pubs)} leaves, {args.jobs} jobs, best of {args.repeat} {best:.3f} s"
        if name in saved:
            equal = np.array_equal(saved[name].view(np.int64), out.view(np.int64))
            same &= equal
            line += "; bit-identical to the saved payoffs" if equal else "; DIFFERENT payoffs"
        print(line, flush=True)
    if args.save:
        np.savez(args.save, **out_all)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
