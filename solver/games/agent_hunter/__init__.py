"""Agent Hunter (AEG 2013): variants, numba rules, game protocol and game records."""

from __future__ import annotations

from spycfr.games.agent_hunter import position as _position
from spycfr.games.agent_hunter import public as _public  # noqa: F401 (registers)
from spycfr.games.agent_hunter import registration as _registration  # noqa: F401 (registers)
from spycfr.games.agent_hunter import rules as R
from spycfr.games.agent_hunter.features import value_features
from spycfr.games.agent_hunter.game import AgentHunterGame, AgentHunterState
from spycfr.games.agent_hunter.heuristic import HEURISTIC_STYLES
from spycfr.games.agent_hunter.leaf import (
    ROLLOUT_STYLES,
    guess_features,
    move_kinds,
    opening_classes,
    private_names,
    rollouts,
    rollouts_guessing,
    scored_now,
    style_rows,
)
from spycfr.games.agent_hunter.record import record_to_actions as _record_to_actions
from spycfr.games.agent_hunter.variant import (
    PARAMETERS,
    PRESETS,
    Variant,
    make_variant,
    payoff_unit,
    variant_words,
)
from spycfr.games.plugin import GamePlugin, Openings, Parameter, RecordNotation


def make_game(preset: str | None = None, params: dict | None = None) -> AgentHunterGame:
    """An Agent Hunter game from a preset and/or parameters (bad ones raise VariantError)."""
    return AgentHunterGame(make_variant(preset, params))


def _opening_paths(variant: Variant) -> list[tuple[int, list[int], str]]:
    """P1's placement at the root; P2's after any placement of P1 (P2 does not see it)."""
    first = R.encode_place(range(variant.houses), variant.cards)
    return [(0, [], ""), (1, [first], "")]


def _card_set(label: str) -> str:
    """place:2-0 -> "0,2": the cards placed, whatever the houses."""
    return ",".join(sorted(label.split(":", 1)[1].split("-"), key=int))


PLUGIN = GamePlugin(
    name="agent-hunter",
    title="Agent Hunter",
    summary="hide agents in safe houses, hunt the opponent's (AEG 2013); the rulesheet game "
            "is preset standard",
    make_variant=make_variant,
    python_game=AgentHunterGame,
    numba_params=lambda variant: variant.to_params(),
    parameters=tuple(Parameter(name, text) for name, text in PARAMETERS.items()),
    presets=PRESETS,
    too_big_hint="choose fewer cards, houses, decoys or max_turns",
    unbounded_hint="give --max-turns or a preset (--preset tiny, mini, small or standard)",
    words=variant_words,
    payoff_unit=payoff_unit,
    win_payoff=lambda variant: variant.get("payoff") == "win",
    # margin: every house of one player eliminated with every decoy beside them
    payoff_bound=lambda v: 1.0 if v["payoff"] == "win" else v["houses"] * (1 + v["decoys"]),
    heuristic_styles=HEURISTIC_STYLES,
    # The placements learnt by external sampling in the abstraction, the `hunter` playing the
    # rest: +0.406 against it, where sampling more decisions lost (README, "Agent Hunter").
    sampled_settings={"abstraction": True, "fallback": "heuristic", "store_depth": 2},
    seat_note="The rulesheet draws the first player at random",
    records=RecordNotation(
        summary=_position.summary, fields=tuple(_position.NULL_SUMMARY),
        lines=_position.position_lines, view_key=_position.view_key,
        view_state=_position.view_state, view_steps=_position.view_steps,
        example="place:0-2 place:2-1 hand:1>1:lo",
        actions=_record_to_actions,
        guide=(
            "place:A-B  your cards placed in your houses (card A in house 1, B in house 2, "
            "...)",
            "hand:C>H:RESULT  attack the opponent's house H with card C from your hand; "
            "the result is lo, eq or hi (your card lower, equal or higher)",
            "house:H=C>G:RESULT  attack with the card of your own house H (value C) against "
            "house G; '>N' after it is the card that refills your house",
            "switch:H=V>C@D  switch your house H (showing V): card C from your hand goes "
            "in, a decoy beside house D",
            "'?' is a card you cannot see",
        ),
    ),
    openings=Openings(paths=_opening_paths, group=_card_set, group_name="cards",
                      group_title="card sets", what="placement", whats="placements"),
    report_sections="spycfr.games.agent_hunter.analysis.report:sections",
    views="spycfr.games.agent_hunter.analysis.views",
    scored_now=scored_now,
    scored_now_words="the game scored as if it ended at the leaf (VP, then the hand-sum "
                     "tie-break): no look-ahead below the leaf",
    # rollout leaf values: each seat continues as the hunter or the switcher, guarding
    # against those and the prober (uniformly random hand attacks: with it the standard
    # agent beat the prober by +0.639 in 36 games, +0.361 without; results/standard)
    rollouts=rollouts,
    rollout_styles=ROLLOUT_STYLES,
    continuations=("hunter", "switcher"),
    opposing_continuations=("hunter", "switcher", "prober"),
    # the hunter reading the opponent's range at the leaf (not a default continuation: an
    # experiment against what the agent's moves tell; docs/search.md)
    range_reader="ranger",
    rollouts_guessing=rollouts_guessing,
    # each heuristic style's probabilities of a decision's moves, per private state: what a
    # search agent weighs the opponent's play against (spycfr.search.styles; an option)
    style_rows=style_rows,
    # each public move's kind (hand attack, switch, house attack): the detection by kind
    # keeps the prober, a uniformly random hand attacker, while its moves are hand attacks
    move_kinds=move_kinds,
    # the opposing decision's guesses by feature: the ranger believing a house holds a card
    guess_features=guess_features,
    # the placements as a matrix game (spycfr.search.openings): one class per set of cards,
    # the houses' order a relabelling (spec: houses matter only as names in later moves)
    opening_classes=opening_classes,
    private_names=private_names,
    # the rulesheet game: played by re-solving at every decision (docs/search.md)
    agent_presets=("standard",),
    # rollout leaves: on `standard` the agent beats the heuristics where scored-now lost
    # (results/standard/README.md); on tiny 0.173 exploitable against scored-now's 0.333
    agent_value_function="rollout",
    # the first plan (small: the whole game) solved once and saved: 300 CFR+ iterations take
    # small's exact-leaf agent from 0.0121 to 0.0027 (docs/search.md, "Agent Hunter small")
    agent_plan_iterations=300,
    value_features=value_features,
)

__all__ = [
    "PARAMETERS", "PLUGIN", "PRESETS", "Variant", "AgentHunterGame", "AgentHunterState",
    "make_game", "make_variant",
]
