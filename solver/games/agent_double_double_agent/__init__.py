"""Agent Double Double Agent (Maublanc & Faidutti): the spec's known rules, every unknown
datum a variant parameter; numba rules, Python states, records, openings (its report
sections are analysis code: :mod:`spycfr.games.agent_double_double_agent.analysis`)."""

from __future__ import annotations

from spycfr.games.agent_double_double_agent import position as _position
from spycfr.games.agent_double_double_agent import rules as R
from spycfr.games.agent_double_double_agent.game import ADDAGame, ADDAState
from spycfr.games.agent_double_double_agent.layout import T_LOYAL, code
from spycfr.games.agent_double_double_agent.record import record_to_actions as _record_to_actions
from spycfr.games.agent_double_double_agent.variant import (
    PARAMETERS,
    PRESETS,
    Variant,
    make_variant,
    payoff_unit,
    variant_words,
)
from spycfr.games.plugin import GamePlugin, Openings, Parameter, RecordNotation


def make_game(preset: str | None = None, params: dict | None = None) -> ADDAGame:
    """A game from a preset and/or parameters (bad ones raise VariantError)."""
    return ADDAGame(make_variant(preset, params))


def _opening_paths(variant: Variant) -> list[tuple[int, list[int], str]]:
    """P1's assignment at the root; P2's after any assignment of P1 (P2 does not see it)."""
    first = int(code(T_LOYAL, sum(t * 10**a for a, t in enumerate(sorted(variant.tokens)))))
    return [(0, [], ""), (1, [first], "")]


def highest_places(label: str) -> str:
    """loyal:3-1-2 -> "3 on agent 1": where the highest token goes."""
    tokens = [int(t) for t in label.split(":", 1)[1].split("-")]
    top = max(tokens)
    where = ",".join(str(a + 1) for a, t in enumerate(tokens) if t == top)
    return f"{top} on agent{'s' if ',' in where else ''} {where}"


PLUGIN = GamePlugin(
    name="agent-double-double-agent",
    title="Agent Double Double Agent",
    summary="hide loyalty under shared agents, feed them files (Maublanc & Faidutti); "
            "ASSUMED, not in the rulebook: the 22-card deck, the row of agents, the counters' "
            "starting sides, no action texts (spec defaults); preset standard is the spec's game",
    make_variant=make_variant,
    python_game=ADDAGame,
    numba_params=lambda variant: variant.params,
    parameters=tuple(Parameter(name, text) for name, text in PARAMETERS.items()),
    presets=PRESETS,
    too_big_hint="choose fewer agents, a smaller deck or hand (presets tiny, small)",
    words=variant_words,
    payoff_unit=payoff_unit,
    win_payoff=lambda variant: variant.get("payoff") == "win",
    # margin: at most every card of both decks in one score pile
    payoff_bound=lambda v: 1.0 if v["payoff"] == "win" else float(
        2 * make_variant(None, v).deck_value),
    seat_note="The rulebook draws the first player at random",
    records=RecordNotation(
        summary=_position.summary, fields=tuple(_position.NULL_SUMMARY),
        lines=_position.position_lines, view_key=_position.view_key,
        example="loyal:2-1-1 loyal:1-2-1 deal:?=2 deal:P file:?=2>1 counter:1",  # preset small
        actions=_record_to_actions,
        guide=(
            "loyal:A-B-C  your loyalty tokens under agents 1, 2, 3, ...",
            "file:CARD>N  file a card face down on agent N (0/7=7: a double card shown as "
            "0/7 on its back, worth 7); up:CARD  turn a card face up",
            "counter:N  activate agent N's counter; draw:C  the card that refills your hand",
            "deliver:N:...  agent N delivers: each side's tokens and cards, and who takes "
            "them; '?' alone is what you cannot see",
            "cards: 0..7 worth their number; P Personal Files (worth 0, +1 loyalty to its "
            "owner); 0/7=0, 0/7=7 worth 0 or 7 (its back shows 0/7); ?=1..?=7 worth the number "
            "after '=' (its back shows ?); 0/7=?, ?=? a face you cannot see",
        ),
    ),
    openings=Openings(paths=_opening_paths, group=highest_places, group_name="highest",
                      group_title="places of the highest token", what="loyalty assignment",
                      whats="loyalty assignments"),
    report_sections="spycfr.games.agent_double_double_agent.analysis.report:sections",
    views="spycfr.games.agent_double_double_agent.analysis.views",
    # The two loyalty placements learnt by external sampling, the heuristic playing the
    # rest: +0.243 against it (the game has no information abstraction).
    sampled_settings={"fallback": "heuristic", "store_depth": 2},
)

__all__ = ["PARAMETERS", "PLUGIN", "PRESETS", "R", "ADDAGame", "ADDAState", "Variant",
           "make_game", "make_variant"]
