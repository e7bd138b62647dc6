"""How many of Agent Avenue's four-card hands need a discard at the first move of advanced
mode (docs/search.md, "The hook in advanced mode"): P1's first move with the black market's
supply ``--market``, each hand the deck can deal counted once, by
advanced_heuristic.swap_choice (the hook's rule in advanced mode: the black market's gains)
and by rules.swap_choice (simple mode's gains), at rules.SWAP_MARGIN; the hands where the
two differ listed with the card each would discard.

    python benchmarks/avenue_needed_discards.py --market DEVICE.WATCHTOWER.TWIN
"""

from __future__ import annotations

import argparse
import itertools


def count(market: str) -> dict:
    """The hands (their record text) that need a discard by each rule, those that need the
    same one by both, and those the two rules tell apart (hand, advanced's card, simple's
    card; '-' for none), at P1's first move with supply ``market`` (a record's market token:
    names joined by dots)."""
    from spycfr.games.agent_avenue import advanced as A
    from spycfr.games.agent_avenue import advanced_heuristic as AH
    from spycfr.games.agent_avenue import rules as R
    from spycfr.games.agent_avenue.record import replay
    from spycfr.games.agent_avenue.variant import CODES, make_variant

    variant = make_variant("advanced")
    params = variant.to_params()
    deck = A.initial_state(params)[R.DECK:R.DECK + len(CODES)]
    hands = [h for h in itertools.combinations_with_replacement(range(len(CODES)), 4)
             if all(h.count(c) <= deck[c] for c in set(h))]
    out: dict = {"hands": len(hands), "advanced": [], "simple": [], "same": [], "differ": []}
    for hand in hands:
        text = ".".join(CODES[c] for c in hand)
        # P1's view: the mover's choice reads only what it sees (the unseen copies counted)
        state = replay(variant, f"deal:{text}|? market:{market}").state
        picks = [rule(state.copy(), params, 0, R.SWAP_MARGIN)
                 for rule in (AH.swap_choice, R.swap_choice)]
        for key, pick in zip(("advanced", "simple"), picks, strict=True):
            if pick >= 0:
                out[key].append(text)
        if picks[0] == picks[1] >= 0:
            out["same"].append(text)
        elif picks[0] != picks[1]:
            out["differ"].append((text, *(CODES[p] if p >= 0 else "-" for p in picks)))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--market", default="DEVICE.WATCHTOWER.TWIN",
                   help="the black market's supply at the first move (default: the openings "
                        "of results/agent-avenue/advanced)")
    args = p.parse_args()
    from spycfr.errors import SpycfrError
    try:
        got = count(args.market)
    except SpycfrError as e:  # a market that is not three of the black market's cards
        p.exit(2, f"error: --market {args.market}: {e}\n")
    print(f"market {args.market}: {len(got['advanced'])} of the {got['hands']} four-card "
          f"hands need a discard by advanced_heuristic.swap_choice, {len(got['simple'])} "
          f"by rules.swap_choice (simple mode's gains), {len(got['same'])} of them the same "
          "hands with "
          "the same card")
    for hand, advanced, simple in got["differ"]:
        print(f"  {hand}: advanced {advanced}, simple {simple}")


if __name__ == "__main__":
    main()
