"""Times what `spycfr play` reads of a tree run before its tree: ``check_run`` (every file
run.json vouches for, and the strategy) then the load's read of the strategy
(``_read_strategy``), by the working tree's spycfr.runs.store against ``--old``'s
(``git show``, loaded as its own module), alternately in one process. Prints the best and
median wall and CPU seconds of each, and new over old round by round.

    nice -n 10 python benchmarks/bench_check_run.py results/small --old main --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from revision import RevisionError, module_at  # noqa: E402

from spycfr.errors import SpycfrError  # noqa: E402
from spycfr.runs import store as new_store  # noqa: E402


def checked_and_read(store, run: Path) -> tuple[float, float]:
    """Wall and CPU seconds of ``store.check_run`` and the strategy's read after it."""
    wall, cpu = time.perf_counter(), time.process_time()
    meta = store.check_run(run)
    if not meta.treeless and meta.strategy_sha256 is not None:
        store._read_strategy(run, meta)
    return time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", help="a run directory")
    p.add_argument("--old", default="main", help="git revision of the old store.py")
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args(argv)
    if args.rounds < 1:
        p.exit(2, "error: --rounds must be at least 1\n")
    run = Path(args.run)
    try:
        new_store.check_run(run)
    except SpycfrError as e:
        p.exit(2, f"error: {e}\n")
    with tempfile.TemporaryDirectory() as tmp:
        try:
            old_store = module_at(args.old, "solver/runs/store.py", "store_old", Path(tmp))
        except RevisionError as e:
            p.exit(2, f"error: --old {args.old}: {e}\n")
        times: dict[str, list[tuple[float, float]]] = {"old": [], "new": []}
        for r in range(args.rounds + 1):  # the first round warms the file cache, untimed
            for name, store in (("old", old_store), ("new", new_store)):
                took = checked_and_read(store, run)
                if r:
                    times[name].append(took)
    for name, each in times.items():
        wall, cpu = [w for w, _ in each], [c for _, c in each]
        print(f"{name} ({args.old if name == 'old' else 'working tree'}): wall best/median "
              f"{min(wall):.3f}/{statistics.median(wall):.3f} s, CPU "
              f"{min(cpu):.3f}/{statistics.median(cpu):.3f} s ({len(each)} rounds)")
    print(ratio_words(times["old"], times["new"]))
    return 0


def ratio_words(old: list[tuple[float, float]], new: list[tuple[float, float]]) -> str:
    """New over old round by round (the rounds alternate, so a round's two share the
    machine's load): the median ratio and range of the CPU and of the wall seconds."""
    words = []
    for i, what in ((1, "CPU"), (0, "wall")):
        ratios = [n[i] / o[i] for o, n in zip(old, new, strict=True)]
        words.append(f"{what} {statistics.median(ratios):.2f}x (range {min(ratios):.2f}-"
                     f"{max(ratios):.2f})")
    return f"new/old, round by round: {', '.join(words)}"


if __name__ == "__main__":
    sys.exit(main())
