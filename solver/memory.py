"""The process's memory as the operating system counts it: resident set now and at its
peak, so that memory limits are promises about what is measured, not about table sizes."""

from __future__ import annotations

import os
import resource
import sys

from spycfr.errors import SpycfrError


def rss_bytes() -> int:
    """Resident set size now (Linux /proc; elsewhere the peak, an upper bound)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return peak_rss_bytes()


def peak_rss_bytes() -> int:
    """The largest resident set size of this process so far: VmHWM on Linux (getrusage's
    ru_maxrss survives exec, so a process started by a big parent would report the parent's
    size); ru_maxrss elsewhere."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak) if sys.platform == "darwin" else int(peak) * 1024


class MemoryLimitError(SpycfrError):
    """An allocation that would take the process past its memory limit (refused)."""


class MemoryBudget:
    """A ``--memory-limit``: checked before every large allocation of a full-tree solve, so
    that the process's peak resident memory stays under it (the allocation is refused with
    a one-line error, never made)."""

    def __init__(self, limit_bytes: float, name: str | None = None) -> None:
        self.limit_bytes = float(limit_bytes)
        self.name = name or f"--memory-limit {self.limit_bytes / 2**30:.3g} GiB"

    def fits(self, extra_bytes: float) -> bool:
        """Whether ``extra_bytes`` more than the resident memory now stay under the limit."""
        return rss_bytes() + extra_bytes <= self.limit_bytes

    def require(self, what: str, extra_bytes: float, advice: str = "") -> None:
        """Raise MemoryLimitError unless ``what`` (``extra_bytes`` more) fits under the limit."""
        now = rss_bytes()
        if now + extra_bytes > self.limit_bytes:
            raise MemoryLimitError(
                f"{self.name}: {what} needs about "
                f"{extra_bytes / 2**30:.3g} GiB more and {now / 2**30:.3g} GiB are resident "
                f"already" + (f"; {advice}" if advice else ""))
