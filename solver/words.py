"""Text that every command, page and report writes the same way."""

from __future__ import annotations

from collections.abc import Mapping


def params_text(params: Mapping[str, object], sep: str = " ") -> str:
    """Parameters (a variant's, a preset's, a sweep's fixed or swept ones) as ``k=v``, each
    value as ``str`` writes it, joined by ``sep``: ``cards=10 houses=3``; "" for none (each
    caller says what none is)."""
    return sep.join(f"{k}={v}" for k, v in params.items())


def other_variant(source: str, game: str, variant: Mapping[str, object], wanted: str,
                  wanted_variant: Mapping[str, object]) -> str:
    """The error of a run given where one of another game or variant is wanted (query's
    --against, head-to-head's players): one wording, where one said the run "solves" a
    variant and the other that it "plays" it."""
    return (f"run {source!r} plays {game} {params_text(variant)}, not {wanted} "
            f"{params_text(wanted_variant)} (give a run of the same variant)")
