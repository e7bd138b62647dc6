"""How an Agent Hunter position looks to a seat (the workbench's drawing and the grid's
row names): its houses, decoys and hand, and the opponent's as far as the seat can see."""

from __future__ import annotations

from html import escape

SEATS = ("P1", "P2")

# what a held state's few characters mean (private_state below): the review's "likely held",
# the strategy browser's rows and ranges
HELD = ("what a seat holds is written [2][0+] hand 1: its houses from house 1 on, then its "
        "hand; here card 2 in house 1, card 0 in house 2 with a decoy beside it (each + is a "
        "decoy), card 1 in hand; x is an eliminated house, – an empty house or hand")

NOTATION = f"""
<p>Moves are written as the record writes them; houses are numbered 1..K from their owner's
side, cards by value. <code>?</code> is what you cannot see.</p>
<ul>
<li><code>place:3-7-1</code>: the cards put in your houses 1, 2, 3 (the opponent sees
<code>place:?</code>).</li>
<li><code>hand:5&gt;2</code>: card 5 from your hand attacks the opponent's house 2; the answer
is added: <code>:hi</code> (your card is higher), <code>:lo</code> (lower), <code>:eq</code>
(the same: that house is eliminated).</li>
<li><code>switch:1=4&gt;6@2</code>: your house 1 shows its 4 (back to hand), card 6 goes in,
a decoy goes beside your house 2 (the opponent sees <code>switch:1=4&gt;?@2</code>).</li>
<li><code>house:2=6&gt;3</code>: your house 2 shows its 6 and attacks the opponent's house 3;
after <code>:eq</code> you refill house 2 (<code>&gt;5</code>); after <code>:hi</code> or
<code>:lo</code>, <code>+hand</code> says the defender's 6 came from its hand, <code>+h1</code>
from its house 1 (which it then refills).</li>
<li><code>refill:5</code>: the refill you choose after an attack.</li>
</ul>
<p>{escape(HELD[0].upper() + HELD[1:])}.</p>
"""


def _house(h: dict) -> str:
    if h["status"] == "eliminated":
        card = '<span class="card gone">x</span>'
    elif h["status"] == "empty":
        card = '<span class="card gone">–</span>'
    elif h["card"] == "?":
        card = '<span class="card hidden">?</span>'
    else:
        card = f'<span class="card">{escape(str(h["card"]))}</span>'
    decoys = f"<br>{'◆' * h['decoys']} decoy{'s' if h['decoys'] != 1 else ''}" if h[
        "decoys"] else "<br>&nbsp;"
    return f'<div class="house">house {h["house"]}<br>{card}{decoys}</div>'


def draw(info: dict, seat: int) -> str:
    """Both seats' houses, decoys and hands as ``seat`` sees them (the opponent's first)."""
    parts = []
    for p in (1 - seat, seat):
        pl = info["players"][p]
        hand = pl["hand"]
        size = pl.get("hand_size")
        # a hidden hand: a card back per card it holds (its size is public), one where unknown
        cards = ('<span class="card hidden">?</span>' * (1 if size is None else size) or "–"
                 if hand is None else
                 "".join(f'<span class="card">{c}</span>' for c in hand) or "–")
        out = " ".join(map(str, pl["out"])) or "–"
        hs = info["hand_sum"][p]
        who = "you" if p == seat else "opponent"
        parts.append(
            f'<div class="seat"><b>{SEATS[p]} ({who})</b> · VP {info["vp"][p]} · decoys in '
            f'supply {pl["supply"]} · out: {escape(out)}<br>'
            + "".join(_house(h) for h in pl["houses"])
            + f'<div>hand: {cards} <span class="note">sum {"?" if hs is None else hs}</span>'
            "</div></div>")
    status = "game over" if info["terminal"] else f"{info['to_move']} to move"
    if info.get("pending_refill"):
        r = info["pending_refill"]
        status += f" (refill of {r['player']}'s house {r['house']})"
    return f'<p class="note">turn {info["turns"]} · {escape(status)}</p>' + "".join(parts)


def private_state(info: dict, seat: int) -> str:
    """The seat's houses and hand in a few characters: ``[2][0] hand 1`` (``x``: eliminated,
    ``+``: a decoy beside it)."""
    pl = info["players"][seat]
    houses = []
    for h in pl["houses"]:
        inner = {"eliminated": "x", "empty": "–"}.get(h["status"], str(h["card"]))
        houses.append(f"[{inner}{'+' * h['decoys']}]")
    hand = " ".join(map(str, pl["hand"] or [])) or "–"
    return "".join(houses) + f" hand {hand}"
