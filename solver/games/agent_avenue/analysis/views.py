"""How an Agent Avenue position looks to a seat (the workbench's drawing, the strategy grid's
row names, a review's "likely held"): its hand, its face-down card on offer, its recruits and
discards, the meeples' gap; the opponent's as far as the seat can see. The grid named its
rows by the seat's view ("deal:CB.CB|? swap:?>? play:EN/CB") and the play page drew nothing."""

from __future__ import annotations

from html import escape

from spycfr.games.agent_avenue.position import card_names

SEATS = ("P1", "P2")

# what a held state's words mean (private_state below)
HELD = ("what a seat holds is written hand CB DD · discarded EN · down CB: the cards in its "
        "hand, the cards it discarded (unseen by the opponent), and its face-down card while "
        "the opponent chooses which to recruit; – an empty hand")

NOTATION = f"""
<p>Cards are the agents' two-letter names (DA Double Agent, EN Enforcer, CB Codebreaker, SA
Saboteur, DD Daredevil, SE Sentinel, SK Sidekick, MO Mole); <code>?</code> is a card you cannot
see. Moves are written as the record writes them:</p>
<ul>
<li><code>swap:DD&gt;CB</code>: discard DD, draw CB (the opponent sees
<code>swap:?&gt;?</code>).</li>
<li><code>play:EN/CB</code>: offer EN face up and CB face down (the opponent sees
<code>play:EN/?</code>).</li>
<li><code>take:up</code> / <code>take:down</code>: recruit the face-up or the face-down card of
the offer; the other goes to the player who offered (the record adds the face-down card,
<code>take:up=CB</code>).</li>
<li><code>draw:DA.SE</code>: the cards drawn to refill a hand.</li>
</ul>
<p>The gap: how far P2's meeple is ahead of P1's; P1 catches by closing it to 0, P2 by opening
it to the board's length. {escape(HELD[0].upper() + HELD[1:])}.</p>
"""


def _cards(names: list[str], hidden: int = 0) -> str:
    shown = "".join(f'<span class="card">{escape(c)}</span>' for c in names)
    return shown + '<span class="card hidden">?</span>' * hidden or "–"


def _down(info: dict, seat: int) -> str | None:
    """The seat's own face-down card on offer, while the opponent chooses (None: none)."""
    shown = info.get("shown")
    if not shown or info.get("active") != SEATS[seat] or not shown.get("down"):
        return None
    return shown["down"] if shown["down"] != "?" else None


def draw(info: dict, seat: int) -> str | None:
    """Both seats' hands, recruits and discards as ``seat`` sees them (the opponent's first),
    the offer on the table and the gap; None in advanced mode and team variants (their
    lines say the black market and the teams)."""
    if info.get("seats") is not None or "black_market" in info:
        return None
    parts = []
    for p in (1 - seat, seat):
        pl = info["players"][p]
        hand = (_cards([], pl["hand_size"]) if pl["hand"] is None else
                _cards(card_names(pl["hand"])))
        pile = pl.get("discard_pile")
        discarded = ("" if pile is None else
                     f" · discarded: {' '.join(card_names(pile)) or '–'}")
        who = "you" if p == seat else "opponent"
        parts.append(
            f'<div class="seat"><b>{SEATS[p]} ({who})</b> · discards left '
            f'{pl["discards_left"]}{escape(discarded)}<br>recruited: '
            f'{_cards(card_names(pl["in_play"]))}<div>hand: {hand}</div></div>')
    shown = info.get("shown")
    offer = ""
    if shown:
        down = shown.get("down") or "?"
        offer = (f'<p>on the table: <span class="card">{escape(shown["up"])}</span> face up, '
                 + (_cards([], 1) if down == "?" else _cards([down])) + " face down</p>")
    status = "game over" if info["terminal"] else f"{info['to_move'] or 'chance'} to move"
    return (f'<p class="note">turn {info["turns"]} · gap {info["gap"]} · deck '
            f'{info["deck_size"]} · {escape(status)}</p>' + "".join(parts) + offer)


def private_state(info: dict, seat: int) -> str | None:
    """The seat's hand, its discards and its face-down card on offer in a few words:
    ``hand CB DD · discarded EN · down CB``; None in a team variant (the seat's view)."""
    if info.get("seats") is not None:
        return None
    pl = info["players"][seat]
    text = "hand " + (" ".join(card_names(pl["hand"])) or "–")
    if pl.get("discard_pile"):
        text += " · discarded " + " ".join(card_names(pl["discard_pile"]))
    down = _down(info, seat)
    return text + (f" · down {down}" if down else "")
