"""Monte-Carlo CFR kernels: iterations per second, against another commit's kernels, in one process.

For each case, a solver of this tree's ``solver/cfr/mccfr_kernels.py`` and, with
``--baseline REF``, one running that file as it is at git commit ``REF`` (loaded as a separate
module, compiled into a temporary folder; the modules it imports are this tree's) run the same
iterations from the same seed: ``--warm``
first (compilation and the tables' growth excluded), then ``--rounds`` alternating timed
batches of ``--iterations``. The table gives the median iterations per second and the ratio,
and checks that both solvers' states (every array of ``state_dict``) are equal bit for bit. A
case ``...:freeze`` freezes the table after the warm-up (``--when-full freeze``), so the timed
iterations meet unstored infosets, played by ``--fallback heuristic``.

Run from the repo root: ``python benchmarks/bench_mccfr.py --baseline HEAD~1
[--cases agent-hunter:standard:outcome,agent-hunter:tiny:external]``.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from revision import RevisionError, module_at  # noqa: E402

from spycfr.cfr import mccfr  # noqa: E402
from spycfr.cfr.mccfr_kernels import C_FROZEN  # noqa: E402
from spycfr.games import make_game  # noqa: E402

CASES = ("agent-hunter:tiny:external", "agent-hunter:standard:outcome",
         "agent-hunter:standard:outcome:abstraction", "agent-hunter:standard:outcome:freeze",
         "agent-avenue:small:outcome", "agent-avenue:standard:outcome",
         "agent-double-double-agent:standard:outcome", "agent-double-double-agent:tiny:external")
KERNEL = "solver/cfr/mccfr_kernels.py"


class _Runner:
    """An MCCFR solver whose iterations run a given kernel module's ``run_iterations``."""

    def __init__(self, kernels, case: str, seed: int) -> None:
        game, preset, scheme, *flags = case.split(":")
        self.kernels = kernels
        self.solver = self._call(lambda: mccfr.MCCFRSolver(
            make_game(game, preset or None), scheme=scheme, seed=seed,
            abstraction="abstraction" in flags,
            fallback="heuristic" if "freeze" in flags else "uniform"))
        self.freeze = "freeze" in flags

    def _call(self, fn):
        saved = mccfr.run_iterations
        mccfr.run_iterations = self.kernels.run_iterations
        try:
            return fn()
        finally:
            mccfr.run_iterations = saved

    def warm(self, n: int) -> None:
        self._call(lambda: self.solver.iterate(n))
        if self.freeze:
            self.solver._counts[C_FROZEN] = self.solver.iteration + 1

    def timed(self, n: int) -> float:
        t0 = time.perf_counter()
        self._call(lambda: self.solver.iterate(n))
        return n / (time.perf_counter() - t0)

    def digest(self) -> str:
        state = self.solver.state_dict()
        h = hashlib.sha256()
        for name in sorted(k for k, v in state.items() if isinstance(v, np.ndarray)):
            h.update(name.encode())
            h.update(memoryview(np.ascontiguousarray(state[name])).cast("B"))
        return h.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", default=",".join(CASES),
                        help="comma-separated GAME:PRESET:SCHEME[:abstraction][:freeze] "
                             "(default: " + ",".join(CASES) + ")")
    parser.add_argument("--baseline", help="git commit whose kernels to compare against")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--warm", type=int, default=2000)
    parser.add_argument("--iterations", type=int, default=5000, help="per timed batch")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    from spycfr.cfr import mccfr_kernels
    with tempfile.TemporaryDirectory() as tmp:
        kinds = {"this": mccfr_kernels}
        if args.baseline:
            try:
                baseline = module_at(args.baseline, KERNEL, "mccfr_kernels_baseline", Path(tmp))
            except RevisionError as e:
                parser.exit(2, f"error: --baseline {args.baseline}: {e}\n")
            kinds = {"baseline": baseline, **kinds}
        print(f"seed {args.seed}; {args.warm} warm-up iterations, then median of {args.rounds} "
              f"alternating rounds of {args.iterations}")
        head = "".join(f"{f'it/s {k}':>16}" for k in kinds)
        print(f"{'case':<46}{head}{'ratio':>8}  same bits")
        for case in args.cases.split(","):
            runners = {k: _Runner(m, case, args.seed) for k, m in kinds.items()}
            for r in runners.values():
                r.warm(args.warm)
            rates = {k: [] for k in kinds}
            for _ in range(args.rounds):
                for k, r in runners.items():
                    rates[k].append(r.timed(args.iterations))
            med = {k: statistics.median(v) for k, v in rates.items()}
            cells = "".join(f"{med[k]:>16.0f}" for k in kinds)
            if args.baseline:
                same = len({r.digest() for r in runners.values()}) == 1
                print(f"{case:<46}{cells}{med['this'] / med['baseline']:>7.2f}x  "
                      f"{'yes' if same else 'NO'}", flush=True)
            else:
                print(f"{case:<46}{cells}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
