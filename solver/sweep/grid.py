"""A sweep's grid: each swept parameter takes a list or a range of values; the grid is their
Cartesian product over a base variant (a preset, or the game's defaults)."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from spycfr.errors import SpycfrError

MAX_VARIANTS = 10_000
_RANGE = re.compile(r"^(-?\d+)\.\.(-?\d+)$")


def _items(name: str, text: str) -> list[str | range]:
    """The items of one swept parameter, a range left as a range (never expanded here)."""
    items = text.split(";") if ";" in text else text.split(",")
    out: list[str | range] = []
    for item in (i.strip() for i in items):
        if not item:
            raise SpycfrError(f"--{name.replace('_', '-')} {text!r}: an empty value in the "
                              "list (values are separated by ',' or, when a value holds "
                              "commas, by ';')")
        m = _RANGE.match(item)
        if m:
            if len(m.group(1)) > 18 or len(m.group(2)) > 18:
                raise SpycfrError(f"--{name.replace('_', '-')} {item!r}: a range of more than "
                                  f"{MAX_VARIANTS:,} values")
            lo, hi = int(m.group(1)), int(m.group(2))
            if hi < lo:
                raise SpycfrError(f"--{name.replace('_', '-')} {item!r}: the range ends "
                                  "below its start")
            out.append(range(lo, hi + 1))
        else:
            out.append(item)
    return out


def count_values(name: str, text: str) -> int:
    """How many values ``text`` gives the parameter (ranges counted, not expanded)."""
    return sum(len(i) if isinstance(i, range) else 1 for i in _items(name, text))


def parse_values(name: str, text: str) -> list[str]:
    """The values of one swept parameter: ``a;b;c`` when a value itself holds commas (Agent
    Avenue's --names), else ``a,b,c``; an integer item ``lo..hi`` is the range lo..hi. The
    values are counted before a range is expanded (at most MAX_VARIANTS)."""
    count = count_values(name, text)
    if count > MAX_VARIANTS:
        raise SpycfrError(f"--{name.replace('_', '-')} {text[:80]!r} gives {count:,} values; "
                          f"at most {MAX_VARIANTS:,} variants in one sweep")
    values: list[str] = []
    for item in _items(name, text):
        values.extend(str(v) for v in item) if isinstance(item, range) else values.append(item)
    if len(set(values)) < len(values):
        raise SpycfrError(f"--{name.replace('_', '-')} {text!r} repeats a value")
    return values


@dataclass(frozen=True)
class Cell:
    """One variant of the grid: the swept parameters' values, and a name for its files."""

    params: dict  # parameter name -> value (strings, as on the command line)

    @property
    def key(self) -> str:
        """A file-name-safe, readable name: ``cards-3_decoys-0``."""
        parts = []
        for name, value in self.params.items():
            safe = re.sub(r"[^A-Za-z0-9.+-]+", "+", value).strip("+") or "empty"
            parts.append(f"{name.replace('_', '-')}-{safe}")
        return "_".join(parts) or "base"


def grid_size(swept: dict[str, str]) -> int:
    """The number of cells of the grid, counted without expanding a range."""
    size = 1
    for name, text in swept.items():
        size *= count_values(name, text)
    return size


def expand(swept: dict[str, str]) -> tuple[list[str], list[Cell]]:
    """(the swept parameter names, every cell of their grid in order); SpycfrError if the
    grid has more than MAX_VARIANTS cells (counted before anything is expanded)."""
    size = grid_size(swept)
    if size > MAX_VARIANTS:
        raise SpycfrError(f"the grid has {size:,} variants; at most {MAX_VARIANTS:,} in one "
                          "sweep")
    names = list(swept)
    lists = [parse_values(n, swept[n]) for n in names]
    cells = [Cell(dict(zip(names, combo, strict=True)))
             for combo in itertools.product(*lists)]
    if len({c.key for c in cells}) < len(cells):
        raise SpycfrError("two variants of the grid get the same file name (values that "
                          "differ only in punctuation): rename the values")
    return names, cells


def split_grid(params: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(fixed, swept): the parameters given one value, and those given several."""
    fixed, swept = {}, {}
    for name, text in params.items():
        if count_values(name, text) == 1:
            fixed[name] = parse_values(name, text)[0]
        else:
            swept[name] = text
    return fixed, swept
