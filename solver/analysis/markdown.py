"""Formatting helpers shared by the generic report and the games' report sections:
markdown tables, signed and percent numbers, figures saved atomically, a document
under construction with its takeaways. :func:`num` is the one way a value is written in the
terminal and the workbench alike (never a negative zero)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from spycfr.io import atomic_path


@dataclass
class Doc:
    """Markdown parts in order, and the takeaways gathered along the way."""

    parts: list[str] = field(default_factory=list)
    takeaways: list[str] = field(default_factory=list)

    def add(self, *texts: str) -> None:
        self.parts.extend(texts)


def md_table(headers: list[str], rows: list[list], align: str | None = None) -> str:
    """A GitHub markdown table; ``align`` has one letter per column (l, r or c)."""
    align = align or "l" + "r" * (len(headers) - 1)
    marks = {"l": ":---", "r": "---:", "c": ":---:"}
    lines = ["| " + " | ".join(str(h) for h in headers) + " |",
             "| " + " | ".join(marks[a] for a in align) + " |"]
    for row in rows:
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |")
    return "\n".join(lines)


def num(x: float | None, fmt: str = "{:+.4f}", none: str = "–") -> str:
    """``x`` by ``fmt`` (``none`` for None), never a negative zero: a value that rounds to 0
    is written as 0 (results/mini's value for P1, -1.6e-6, read "-0.0000"). The terminal
    (query, play and its review, the run's header line) and the workbench's pages both
    write values with it."""
    if x is None:
        return none
    text = fmt.format(x)
    if text.startswith("-") and text.lstrip("-").strip("0.") == "":  # "-0.0000", "-0"
        return fmt.format(0.0)
    return text


def signed(x: float, decimals: int = 4) -> str:
    """``x`` with its sign (a true minus sign), never "-0": zero is written unsigned."""
    text = num(x, f"{{:+.{decimals}f}}")
    if float(text) == 0.0:
        return text.lstrip("+")
    return text.replace("-", "−")


def pct(x: float, decimals: int = 1) -> str:
    """``x`` as a percentage; tiny positive values as "<0.1%"."""
    if 0 < x < 0.5 * 10 ** (-decimals - 2):
        return f"<{10 ** -decimals:g}%"
    return f"{100 * x:.{decimals}f}%"


def fmt_eps(x: float) -> str:
    """An exploitability, 3 significant digits."""
    return f"{x:.3g}"


def value_decimals(exploitability: float) -> int:
    """Decimals worth printing for values known to about ``exploitability``: 3..6."""
    if not exploitability > 0 or not math.isfinite(exploitability):
        return 6
    return int(min(6, max(3, 1 - math.floor(math.log10(exploitability)))))


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def save_figure(fig, path: Path) -> Path:
    """Save a matplotlib figure as PNG, atomically."""
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    return path
