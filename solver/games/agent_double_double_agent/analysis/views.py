"""How an Agent Double Double Agent position looks to a seat (the workbench's drawing, the
strategy grid's row names, a review's "likely held"): its loyalty tokens, its hand and the
faces of its cards filed face down; the agents with their counters, thresholds and cards;
the opponent's as far as the seat can see. The grid named its rows by the seat's view
tokens ("loyal:2-1 deal:0/7=7 file:0/7=7>2 draw:1": the hand left to work out) and the
play page drew nothing."""

from __future__ import annotations

from html import escape

SEATS = ("P1", "P2")

# what a held state's words mean (private_state below): the review's "likely held", the
# strategy browser's rows and ranges
HELD = ("what a seat holds is written loyal 2-1 · hand 1 P · filed 0/7=7>2: its loyalty tokens "
        "under agents 1, 2, ... (seen by the opponent only when that agent delivers), the "
        "cards in its hand, and the cards it filed face down whose face the opponent cannot "
        "see (here a 0/7 card worth 7 on agent 2); nothing hidden before its loyalty")

NOTATION = f"""
<p>Cards: <code>0</code>..<code>7</code> worth their number, <code>P</code> Personal Files
(worth 0, +1 loyalty to its owner), <code>0/7=0</code> and <code>0/7=7</code> worth 0 or 7
(the back shows 0/7), <code>?=2</code> worth 2 (the back shows ?); <code>0/7=?</code> and
<code>?=?</code> are faces you cannot see. Moves are written as the record writes them:</p>
<ul>
<li><code>loyal:2-1-1</code>: your loyalty tokens under agents 1, 2, 3 (the opponent sees
<code>loyal:?</code>).</li>
<li><code>file:5&gt;3</code>: file card 5 face down on agent 3 (the opponent sees the back:
<code>file:?=?&gt;3</code> for a <code>?</code> card, <code>file:0/7=?&gt;3</code> for a 0/7
card, the card itself for the others).</li>
<li><code>up:?=2</code>: play a <code>?</code> card face up (no effect; it leaves the
game).</li>
<li><code>counter:3</code>: move agent 3's counter towards your end.</li>
<li><code>draw:6</code>: the card that refills your hand (the opponent sees
<code>draw:?</code>).</li>
<li><code>deliver:3:2-1:5|?=2,P&gt;P1</code>: agent 3 delivers: P1's and P2's tokens on it,
P1's and P2's cards, and who takes them (everything revealed).</li>
</ul>
<p>{escape(HELD[0].upper() + HELD[1:])}.</p>
"""


def _card(label: str) -> str:
    """A card as its face shows to the seat: a back where its face is hidden (its back's
    mark on it); a label wider than a card's two characters (0/7=7) widens the card."""
    hidden = label in ("?=?", "0/7=?")
    text = label[:-2] if hidden else label
    wide = ' style="width:auto;padding:0 4px"' if len(text) > 2 else ""
    return (f'<span class="card{" hidden" if hidden else ""}" title="{escape(label)}"{wide}>'
            f"{escape(text)}</span>")


def _cards(labels: list[str], hidden: int = 0) -> str:
    return ("".join(_card(c) for c in labels)
            + '<span class="card hidden">?</span>' * hidden) or "–"


def _agent(ag: dict, seat: int, track: int) -> str:
    """One agent as ``seat`` sees it: status, threshold, counter (on a ``track``-space
    track), both sides' tokens and cards (the opponent's first, as the seats are drawn)."""
    c = ag["counter"]
    counter = (f"counter on space {c['space']} of {track}, "
               f"{'your' if c['side'] == SEATS[seat] else 'their'} side"
               + (", activated" if c["activated"] else ""))
    sides = []
    for p in (1 - seat, seat):
        token = ag["tokens"][p]
        who = "you" if p == seat else "opp."
        sides.append(f"{who}: token {'?' if token is None else token}<br>"
                     f"{_cards(ag['cards'][p])}")
    plus = " · +1 file" if ag["plus_one"] else ""
    return (f'<div class="house"><b>agent {ag["agent"]}</b> · {escape(ag["status"])}<br>'
            f'delivers at {ag["threshold"]}{plus} · {escape(counter)}<br>'
            + "<br>".join(sides) + "</div>")


def draw(info: dict, seat: int) -> str:
    """The agents and both seats' hands, piles and scores as ``seat`` sees them (the
    opponent's first)."""
    parts = []
    for p in (1 - seat, seat):
        pl = info["players"][p]
        hand = (_cards([], pl["hand_size"]) if pl["hand"] is None else _cards(pl["hand"]))
        score = "?" if pl["score"] is None else pl["score"]
        who = "you" if p == seat else "opponent"
        parts.append(f'<div class="seat"><b>{SEATS[p]} ({who})</b> · score {score} · '
                     f'draw pile {pl["pile"]}<div>hand: {hand}</div></div>')
    agents = "".join(_agent(ag, seat, info["variant"]["track"]) for ag in info["agents"])
    status = "game over" if info["terminal"] else info["awaiting"]
    return (f'<p class="note">turn {info["turns"]} · {escape(status)}</p>' + parts[0]
            + f"<div>{agents}</div>" + parts[1])


def private_state(info: dict, seat: int) -> str:
    """The seat's loyalty tokens, hand and hidden faces in a few words:
    ``loyal 2-1 · hand 1 P · filed 0/7=7>2`` (see HELD)."""
    words = []
    tokens = [ag["tokens"][seat] for ag in info["agents"]]
    if all(t is not None for t in tokens):
        words.append("loyal " + "-".join(map(str, tokens)))
    hand = info["players"][seat]["hand"]
    if hand:
        words.append("hand " + " ".join(hand))
    # its cards on agents still in play whose faces the opponent cannot see (0/7 and ?
    # cards: a delivery reveals them)
    filed = [f"{c}>{ag['agent']}" for ag in info["agents"]
             if ag["status"] in ("in play", "delivering")
             for c in ag["cards"][seat] if "=" in c]
    if filed:
        words.append("filed " + " ".join(filed))
    return " · ".join(words) or "nothing hidden"
