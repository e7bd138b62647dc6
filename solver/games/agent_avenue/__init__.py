"""Agent Avenue (Kudahl 2024), simple and advanced mode (black market cards): variants, numba
rules, game records."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from spycfr.games.agent_avenue import position as _position
from spycfr.games.agent_avenue import public as _public  # noqa: F401 (registers)
from spycfr.games.agent_avenue import public_advanced as _public_advanced  # noqa: F401
from spycfr.games.agent_avenue.advanced_core import AgentAvenueAdvancedParams
from spycfr.games.agent_avenue.game import AgentAvenueGame, AgentAvenueState
from spycfr.games.agent_avenue.leaf import (
    needed_moves,
    private_names,
    scored_now,
    search_params,
    weights_row,
)
from spycfr.games.agent_avenue.openings import group as _group
from spycfr.games.agent_avenue.openings import opening_paths as _opening_paths
from spycfr.games.agent_avenue.openings_advanced import opening_paths as _advanced_paths
from spycfr.games.agent_avenue.record import record_to_actions as _record_to_actions
from spycfr.games.agent_avenue.rollout import STYLES as _STYLES
from spycfr.games.agent_avenue.rollout import rollouts as _simple_rollouts
from spycfr.games.agent_avenue.rollout_advanced import rollouts as _advanced_rollouts
from spycfr.games.agent_avenue.rules import SWAP_MARGIN as _SWAP_MARGIN
from spycfr.games.agent_avenue.rules import SWAPPER as _SWAPPER
from spycfr.games.agent_avenue.variant import (
    PARAMETERS,
    PRESETS,
    TEAM_PRESETS,
    Variant,
    make_variant,
)
from spycfr.games.agent_avenue.variant import variant_words as _words
from spycfr.games.plugin import GamePlugin, Openings, Parameter, RecordNotation


def make_game(preset: str | None = None, params: dict | None = None) -> AgentAvenueGame:
    """An Agent Avenue game from a preset and/or parameters (bad ones raise VariantError)."""
    return AgentAvenueGame(make_variant(preset, params))


def rollouts(pubs, params, *args) -> None:
    """The ``rollouts`` hook of the mode of ``params`` (rollout.py, rollout_advanced.py)."""
    advanced = isinstance(params, AgentAvenueAdvancedParams)
    if advanced and any(np.any(styles >= _SWAPPER) for styles in args[3:5]):
        raise ValueError(f"rollout style {_STYLES[_SWAPPER]!r}: simple mode's (advanced mode "
                         f"plays {', '.join(_STYLES[:_SWAPPER])})")
    (_advanced_rollouts if advanced else _simple_rollouts)(pubs, params, *args)


def _paths(variant: Variant) -> list[tuple[int, list[int], str]]:
    """The opening decisions of the variant's mode (openings.py, openings_advanced.py)."""
    return _advanced_paths(variant) if variant.mode == "advanced" else _opening_paths(variant)


PLUGIN = GamePlugin(
    name="agent-avenue",
    title="Agent Avenue",
    summary="recruit agents shown face up or hidden face down, catch the other meeple "
            "(Kudahl 2024); the full simple game is preset standard, the full advanced game "
            "(black market cards) preset advanced",
    make_variant=make_variant,
    python_game=AgentAvenueGame,
    numba_params=lambda variant: variant.to_params(),
    parameters=tuple(Parameter(name, text) for name, text in PARAMETERS.items()),
    presets=PRESETS,
    team_presets=TEAM_PRESETS,
    too_big_hint="choose fewer names, copies, a smaller hand or fewer discards",
    words=_words,
    win_payoff=lambda variant: True,
    seat_note="The rulebook lets the players choose who starts",
    records=RecordNotation(
        summary=_position.summary, fields=tuple(_position.NULL_SUMMARY),
        lines=_position.position_lines, view_key=_position.view_key,
        view_state=_position.view_state, view_steps=_position.view_steps,
        chance_next=_position.chance_next,
        example="deal:EN.CB|CB.DD play:EN/CB draw:EN.DD take:up=CB",  # a game of preset tiny
        actions=_record_to_actions,
        guide=(
            "cards are two-letter agent names (EN, CB, DD, ...); '?' is a card you cannot see",
            "play:UP/DOWN  offer two cards from your hand: UP face up, DOWN face down",
            "take:up / take:down  recruit the face-up or the face-down card of the offer; the "
            "other card goes to the player who offered (the record then shows the face-down "
            "card: take:up=CB)",
            "swap:OUT>IN  discard OUT and draw IN (while discards are left); draw:A.B  the "
            "cards drawn to refill a hand",
            "gap: how far P2's meeple is ahead of P1's; P1 wins by closing it to 0, P2 by "
            "opening it to the board's length",
        ),
    ),
    openings=Openings(paths=_paths, group=_group, group_name="move",
                      group_title="moves", what="first move", whats="first moves",
                      context_name="situation"),
    report_sections="spycfr.games.agent_avenue.analysis.report:sections",
    views="spycfr.games.agent_avenue.analysis.views",
    pooled=lambda variant: replace(variant, open_hands=1),
    team_sections="spycfr.games.agent_avenue.analysis.report:team_sections",
    # The first two decisions learnt by external sampling in the abstraction, the heuristic
    # playing the rest: +0.157 against it; learning 3, 4 or 6 decisions measured worse.
    sampled_settings={"abstraction": True, "fallback": "heuristic", "store_depth": 2},
    search_params=search_params,
    scored_now=scored_now,
    scored_now_words="the payoff at the end; before it, a public estimate of the score "
                     "(the lead in spaces, Codebreakers and Daredevils in play, the side to "
                     "move) fitted on heuristic games, weighed by card removal: no look-ahead "
                     "below the leaf",
    # rollout leaf values: each seat continues as the heuristic (rollout.py); the default:
    # exact exploitability on tiny at depth 2 0.00014, against the scored-now estimate's
    # 0.221 (docs/search.md)
    rollouts=rollouts,
    continuations=("heuristic",),
    # the rollouts' styles in either mode (rollout.py's STYLES: the heuristic, a cautious and
    # a bold recruiter; rollout_advanced.py plays them too): names for --opposing
    # (benchmarks/leaf_options.py), guarded against by no default
    rollout_styles=_STYLES,
    agent_value_function="rollout",
    private_names=private_names,
    pair_weights=weights_row,
    # a turn (the play and the recruitment): one level leaves the recruitment to the leaf
    # estimate (exact exploitability on tiny, 100 iterations: 0.489 at depth 1, 0.221 at 2)
    agent_depth=2,
    # the depth rule (docs/search.md, "The advanced mode"): about 380 public nodes of
    # advanced mode's 2,641 states a seat (a turn's subgame: 273-285; through the black
    # market's resolutions 691-1,511, cut to one level: 9-136); simple mode's depth-2
    # subgames (at most about 200 nodes of 331 states on standard) stay far below it
    agent_subgame_budget=1_000_000,
    needed_moves=needed_moves,
    needed_moves_words=("a swap only where discarding a card and drawing in its place raises "
                        "its best play's score by at least "
                        f"{_SWAP_MARGIN:g} space{'' if _SWAP_MARGIN == 1 else 's'} on average, "
                        "the heuristic swapper's rule"),
)

__all__ = ["PARAMETERS", "PLUGIN", "PRESETS", "Variant", "AgentAvenueGame", "AgentAvenueState",
           "make_game", "make_variant"]
