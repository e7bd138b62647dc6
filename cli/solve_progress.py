"""`spycfr solve`'s progress lines on stderr: what is being prepared (numba compiling), the
iterations with exploitability, rate and ETA, and the exact LP's time spent."""

from __future__ import annotations

import math
import sys
import time

import click

from spycfr.cli.progress import Heartbeat
from spycfr.ticking import Ticker

LP_TICK = 10.0  # seconds between the exact LP's "still solving" lines
TREND = 3  # exploitability checks before the ETA to a target is extrapolated


def _lp_tick(seconds: float) -> None:
    click.echo(f"exact LP: solving, {seconds:.0f} s", err=True)


class SolveProgress:
    """Progress lines on stderr: iterations, exploitability, it/s, ETA (at most ~1 per second).

    The first call gives the starting point (a resumed run's iteration and seconds); the rate
    counts the iterations and seconds since then, the ETA the run's totals.
    """

    def __init__(self, iterations: int | None, time_limit: float | None, quiet: bool,
                 target: float | None = None) -> None:
        self.iterations = iterations
        self.time_limit = time_limit
        self.target = target
        self.measured: list[tuple[int, float]] = []  # (iteration, exploitability) checks
        self.quiet = quiet
        self.last_print = -math.inf
        self.printed = -1  # iteration of the last line printed
        self.start: tuple[int, float] | None = None
        self.expl: float | None = None
        self.label = "exploitability"
        self.iteration, self.seconds = 0, 0.0
        self._lp: Ticker | None = None  # the exact LP's "still solving" lines

    def preparing(self) -> None:
        """Once the settings are checked, before the tree is built: if that takes more than
        two seconds (numba compiling on a first run), tell the person waiting at a terminal
        rather than stay silent."""
        if not self.quiet and sys.stderr.isatty() and getattr(self, "_timer", None) is None:
            self._timer = Heartbeat(
                "preparing the game and the solver (after installing, the first run also "
                "compiles the numba kernels: a minute or two)",
                "still preparing: building the tree and compiling the solver ({:.0f} s)")
            self._timer.start()

    def choice(self, choice: dict, option: str = "--algorithm") -> None:
        """What ``option`` auto (--algorithm, --tree) picked and why, before the work
        starts."""
        if not self.quiet:
            click.echo(f"{option} auto: {choice['chosen']}, because {choice['why']}", err=True)

    def limits(self, iterations: int | None, time_limit: float | None,
               target: float | None) -> None:
        """The limits the run solves to, as the solver settles them: a resumed run's are its
        checkpoint's where the command gives none, which the ETA needs."""
        self.iterations, self.time_limit, self.target = iterations, time_limit, target

    def note(self, text: str) -> None:
        """A line of progress from the preparation (counting the public tree)."""
        if not self.quiet:
            click.echo(text, err=True)

    def stop_preparing(self) -> None:
        timer = getattr(self, "_timer", None)
        if timer is not None:
            timer.cancel()

    def solving_lp(self, nodes: int | None) -> None:
        """The exact LP starts (``nodes``: its tree's size) or ends (None). HiGHS reports no
        progress, so say what runs and then the time spent, every LP_TICK seconds."""
        if self.quiet:
            return
        if nodes is None:
            if self._lp is not None:
                self._lp.stop(join=False)
            return
        click.echo(f"exact LP: HiGHS on P1's sequence-form program, tree of {nodes:,} nodes "
                   "(no progress to report until it ends; measured: Agent Hunter mini's 205,723 "
                   "nodes in 1-5 s, a 716,605-node tree in 15-36 s)", err=True)
        self._lp = Ticker(_lp_tick, LP_TICK).start()

    def __call__(self, iteration: int, seconds: float, expl: float | None,
                 label: str = "exploitability", details=None, final: bool = False) -> None:
        if self.start is None:  # the heartbeat goes on until the first iterations are done
            timer = getattr(self, "_timer", None)
            if isinstance(timer, Heartbeat):
                timer.again = ("still preparing: the first iterations (on a first run, numba "
                               "compiles them) ({:.0f} s)")
            self.start = (iteration, seconds)
            return
        if expl is not None:
            self.expl = expl
            if label == "exploitability" and expl > 0:
                self.measured.append((iteration, expl))
        self.label = label
        self.iteration, self.seconds = iteration, seconds
        if self.quiet:
            return
        now = time.monotonic()
        if (now - self.last_print < 1.0 and not final) or (final and self.printed == iteration):
            return
        self.last_print, self.printed = now, iteration
        self.stop_preparing()
        done, spent = iteration - self.start[0], seconds - self.start[1]
        rate = done / spent if spent > 0 else math.inf
        etas = []
        left = None if self.iterations is None else max(self.iterations - iteration, 0)
        if left == 0:  # at its count (a resumed run that stays as it is): timed or not
            etas.append(0.0)
        elif left is not None and rate > 0 and math.isfinite(rate):
            etas.append(left / rate)
        if self.time_limit is not None:
            etas.append(max(self.time_limit - seconds, 0.0))
        to_target = self._iterations_to_target()
        if to_target == 0.0:  # met at this check: the run stops here, however few checks
            etas.append(0.0)
        elif to_target is not None and rate > 0 and math.isfinite(rate):
            etas.append(to_target / rate)
        # a final line has nothing left to wait for (a resumed run that stays did no
        # iterations, so no rate gives its ETA)
        eta = f"{min(etas):.1f}s" if etas else "0.0s" if final else self._no_eta()
        if etas and to_target and rate > 0 and min(etas) == to_target / rate:
            eta = "~" + eta  # extrapolated from the exploitability curve
        shown = "" if label.endswith("unknown") else (
            " ?" if self.expl is None else f" {self.expl:.6g}")
        extra = details() if details is not None else ""
        click.echo(
            f"iteration {iteration}  {label}{shown}{extra}  {_rate(rate)} it/s  ETA {eta}",
            err=True,
        )

    def _no_eta(self) -> str:
        """Why there is no ETA yet, in a few words: the quick start printed 'ETA ?' until its
        third exploitability check (a target alone gives no iteration count to reach)."""
        if self.iterations is not None:
            return "unknown (no iterations timed yet)"
        if self.target is None:  # no limit known (a resumed run's come from the solver)
            return "unknown"
        more = TREND - len(self.measured)
        if more > 0:
            return f"after {more} more exploitability check{'s' if more > 1 else ''}"
        return "unknown (the exploitability is not falling)"

    def _iterations_to_target(self) -> float | None:
        """Iterations still needed to reach the target, extrapolating the log-log slope of the
        exploitability measured over the second half of the run so far (None if unknown; 0
        where the last check meets it)."""
        if self.target is None:
            return None
        if self.label == "exploitability" and self.expl is not None and self.expl <= self.target:
            return 0.0  # the quick start's last line said 'after 1 more exploitability check'
        if len(self.measured) < TREND:
            return None
        (t0, e0), (t1, e1) = self.measured[len(self.measured) // 2], self.measured[-1]
        if t1 <= t0 or e1 >= e0:
            return None
        if e1 <= self.target:
            return 0.0
        slope = math.log(e1 / e0) / math.log(t1 / t0)
        return t1 * ((self.target / e1) ** (1.0 / slope) - 1.0)


def _rate(rate: float) -> str:
    """Iterations a second in a progress line; '-' where none were timed (a resumed run
    that stays as it is did no iterations)."""
    if not math.isfinite(rate):
        return "-"
    return f"{rate:,.0f}" if rate >= 10 else f"{rate:.2f}"
