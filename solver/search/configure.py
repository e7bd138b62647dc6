"""Setting a search agent's rollout leaves up for an experiment (the benchmarks'
``--opposing``, ``--focus-rows``, ``--choice``, ...): the options by name, checked, given to
its :class:`spycfr.search.continuation.Continuations`."""

from __future__ import annotations

from spycfr.search.continuation import Continuations


def configure_agent(agent, opposing: tuple[str, ...] | list[str] | None = None,
                    focus_rows: int | None = None, reader_rounds: int | None = None,
                    reader_range: str | None = None, choice: str | None = None,
                    guesses: bool | None = None, guess_by: str | None = None,
                    guess_draws: int | None = None, guess_weight: float | None = None,
                    row_weight: float | None = None,
                    own: tuple[str, ...] | list[str] | None = None) -> None:
    """Set a search agent's rollout leaves (its values, or the function they wrap) up for an
    experiment: guarding against the rollout styles named ``opposing`` and continuing with
    the better of those named ``own`` (names of its game's ``rollout_styles``; None or
    empty: as they are), the rest as :meth:`Continuations.configure`; nothing asked,
    nothing done (whatever its leaves). ValueError where something is asked of leaves that
    are not rollouts, or a name is not one of its game's styles."""
    if not opposing and not own and all(
            x is None for x in (focus_rows, reader_rounds, reader_range, choice, guesses,
                                guess_by, guess_draws, guess_weight, row_weight)):
        return
    inner = getattr(agent.values, "inner", agent.values)
    if not isinstance(inner, Continuations):
        raise ValueError(f"the agent's leaf values are {getattr(inner, 'name', inner)!r}, "
                         "not rollouts: --opposing, --focus-rows and the reader's options "
                         "need rollout leaves")
    names = tuple(agent.plugin.rollout_styles)
    for role, asked in (("opposing", opposing), ("own", own)):
        unknown = [x for x in asked or () if x not in names]
        if unknown:
            raise ValueError(f"{role} {', '.join(unknown)}: not a rollout style of "
                             f"{agent.plugin.name} (one of {', '.join(names) or 'none'})")
    inner.configure(opposing=tuple(names.index(x) for x in opposing) if opposing else None,
                    focus_rows=focus_rows, reader_rounds=reader_rounds, reader_range=reader_range,
                    choice=choice, guesses=guesses, guess_by=guess_by,
                    guess_draws=guess_draws, guess_weight=guess_weight, row_weight=row_weight,
                    own=tuple(names.index(x) for x in own) if own else None)
