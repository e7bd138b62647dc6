"""The process's memory as the operating system counts it: resident set now and at its
peak, so that memory limits are promises about what is measured, not about table sizes."""

from __future__ import annotations

import os
import resource
import sys


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
