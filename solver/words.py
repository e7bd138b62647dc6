"""Text that every command, page and report writes the same way."""

from __future__ import annotations

from collections.abc import Mapping


def params_text(params: Mapping[str, object], sep: str = " ") -> str:
    """Parameters (a variant's, a preset's, a sweep's fixed or swept ones) as ``k=v``, each
    value as ``str`` writes it, joined by ``sep``: ``cards=10 houses=3``; "" for none (each
    caller says what none is)."""
    return sep.join(f"{k}={v}" for k, v in params.items())
