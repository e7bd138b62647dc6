"""Agent Avenue positions as data and words: what ``spycfr record check`` and ``query`` show
after a record (full, or one player's view with what it cannot know left out). In advanced
mode the summary adds the meeples' spaces and the black market (all public)."""

from __future__ import annotations

import numpy as np

from spycfr.games.agent_avenue import advanced as A
from spycfr.games.agent_avenue import market as M
from spycfr.games.agent_avenue import rules as R
from spycfr.games.agent_avenue import team_record as TR
from spycfr.games.agent_avenue import team_rules as T
from spycfr.games.agent_avenue.record import (
    PLAYER_NAMES,
    Replay,
    ReplaySteps,
    action_label,
    replay,
    replay_view,
)
from spycfr.games.agent_avenue.variant import Variant

PHASES = {R.PH_DEAL0: "deal", R.PH_DEAL1: "deal", R.PH_PLAY: "play", R.PH_SWAP_DRAW: "swap draw",
          R.PH_REFILL: "draw", R.PH_RECRUIT: "recruit", R.PH_OVER: "over",
          A.PH_MARKET: "black market setup", A.PH_BM_TAKE: "black market take",
          A.PH_BM_SUPPLY: "black market supply refill", A.PH_CHOOSE: "black market ability",
          A.PH_EFFECT: "black market ability", A.PH_HAND_DRAW: "draw after an ability"}
ENDINGS = ((R.END_P1_CATCH, "P1 caught P2's meeple"), (R.END_P2_CATCH, "P2 caught P1's meeple"),
           (R.END_P1_CB, "P1 has three Codebreakers"), (R.END_P2_CB, "P2 has three Codebreakers"),
           (R.END_P1_DD, "P1 has three Daredevils"), (R.END_P2_DD, "P2 has three Daredevils"),
           (A.END_P1_LEADER, "P1 has three Daredevils and Leader of the Pack"),
           (A.END_P2_LEADER, "P2 has three Daredevils and Leader of the Pack"),
           (A.END_P1_MASTER, "P1 has seven different agents in play and Masterplan"),
           (A.END_P2_MASTER, "P2 has seven different agents in play and Masterplan"),
           (A.END_P1_SECURITY, "P2's meeple is on P1's home space and P1 has Security System"),
           (A.END_P2_SECURITY, "P1's meeple is on P2's home space and P2 has Security System"),
           (R.END_DECK_OUT, "the deck ran out"), (R.END_TIE, "a tie, won by the active player"))

NULL_SUMMARY = {
    "valid": False, "error": None, "record": None, "view": None, "tokens": None, "turns": None,
    "phase": None, "terminal": None, "to_move": None, "active": None, "payoff": None,
    "ended": None, "legal_moves": None, "gap": None, "deck_size": None, "shown": None,
    "players": None, "consistent_positions": None, "variant": None,
    "seats": None,  # the team variant: each seat's cards (players: each team's)
}
TEAM_PHASES = {T.PH_DEAL: "deal", T.PH_LEAD: "lead (the captain names the face-up seat)",
               T.PH_UP: "face up", T.PH_DOWN: "face down", T.PH_PAIR: "pair",
               T.PH_SWAP_DRAW: "discard draw", T.PH_REFILL: "draw", T.PH_RECRUIT: "recruit",
               T.PH_OVER: "over"}


def _counts(v: Variant, s: np.ndarray, base: int) -> dict:
    return {c: int(s[base + i]) for i, c in enumerate(v.names) if s[base + i]}


def _agreed(values):
    first = values[0]
    return first if all(x == first for x in values) else None


def position_summary(rep: Replay) -> dict:
    """The position after a replayed record, as plain data (JSON-ready); for a view, what
    the viewer cannot know (the other hand, its discards, a face-down card) is None."""
    v, s = rep.variant, rep.state
    params = v.to_params()
    rules = v.rules
    ph = int(s[R.PHASE])
    terminal = ph == R.PH_OVER
    a = int(s[R.ACTIVE])
    mover = int(rules.current_player(s, params))
    players = []
    for p in range(2):
        known = rep.viewer is None or rep.viewer == p
        players.append({
            "hand": _counts(v, s, R.HAND + 8 * p) if known else None,
            "hand_size": int(s[R.HANDSIZE + p]),
            "in_play": _counts(v, s, R.PLAY + 8 * p),
            "discards_left": int(s[R.DLEFT + p]),
            "discarded": int(sum(s[R.DISC + 8 * p + i] for i in range(len(v.names)))),
            "discard_pile": _counts(v, s, R.DISC + 8 * p) if known else None,
        })
    legal = None
    if mover in (0, 1) and (rep.viewer is None or rep.viewer == mover):
        buf = np.empty(max(int(rules.max_actions(params)), 2), dtype=np.int32)
        k = rules.legal_actions(s, params, buf)
        legal = [action_label(v, s, int(x)) for x in buf[:k]]
    shown = None
    if int(s[R.UP]) >= 0:
        down = _agreed([int(c[R.DOWN]) for c in rep.candidates])
        shown = {"up": v.names[int(s[R.UP])],
                 "down": None if down is None or (rep.viewer is not None and rep.viewer != a)
                 else v.names[down]}
    ended = None
    payoff = None
    if terminal:
        ended = [text for bit, text in ENDINGS if int(s[R.ENDED]) & bit]
        u = float(rules.returns_p1(s, params))
        payoff = [u, -u]
    info = {
        "valid": True,
        "error": None,
        "record": rep.record,
        "view": None if rep.viewer is None else PLAYER_NAMES[rep.viewer],
        "tokens": len(rep.tokens),
        "turns": int(s[R.TURN]),
        "phase": PHASES[ph],
        "terminal": terminal,
        "to_move": PLAYER_NAMES[mover] if mover in (0, 1) else None,
        "active": None if terminal else PLAYER_NAMES[a],
        "payoff": payoff,
        "ended": ended,
        "legal_moves": legal,
        "gap": int(s[R.GAP]),
        "deck_size": int(s[R.DECKSIZE]),
        "shown": shown,
        "players": players,
        "consistent_positions": None if rep.viewer is None else int(len(rep.candidates)),
        "variant": v.as_dict(),
        "seats": None,
    }
    if v.mode == "advanced":
        info.update(_black_market(s))
    return info


def _black_market(s: np.ndarray) -> dict:
    """The advanced mode's public position: the meeples' spaces and the black market."""
    card = int(s[A.CARD])
    return {
        "spaces": [int(s[A.POS]), int(s[A.POS + 1])],
        "black_market": {
            "supply": M.card_list(s, A.L_SUPPLY),
            "deck_size": int(s[A.BMDECK]),
            "discard_pile": M.card_list(s, A.L_DISCARD),
            "ongoing": [M.card_list(s, A.L_OWNER + p) for p in range(2)],
            "resolving": None if card < 0 else M.KEYS[card],
            "player": None if int(s[A.BMP]) < 0 else PLAYER_NAMES[int(s[A.BMP])],
        },
    }


def team_summary(rep: Replay) -> dict:
    """The position of the team variant after a replayed record, as plain data: players
    are the teams (cards in play), seats the seats (a card the viewer cannot see: None)."""
    v, s = rep.variant, rep.state
    params = v.to_params()
    ph = int(s[T.PHASE])
    terminal = ph == T.PH_OVER
    a = int(s[T.ACTIVE])
    mover = int(T.current_seat(s, params)) if int(T.current_player(s, params)) in (0, 1) \
        else None
    seen = [rep.viewer is None or bool(T.sees(params, rep.viewer, p))
            for p in range(v.num_seats)]
    seats = []
    for p in range(v.num_seats):
        seats.append({
            "seat": TR.seat_name(p), "team": int(T.team_of(params, p)),
            "hand": _counts(v, s, T.HAND + 8 * p) if seen[p] else None,
            "hand_size": int(s[T.HANDSIZE + p]),
            "discards_left": int(s[T.DLEFT + p]),
            "discarded": int(sum(s[T.DISC + 8 * p + i] for i in range(len(v.names)))),
            "discard_pile": _counts(v, s, T.DISC + 8 * p) if seen[p] else None,
        })
    teams = [{"team": t, "seats": [x["seat"] for x in seats if x["team"] == t],
              "in_play": _counts(v, s, T.PLAY + 8 * t)} for t in range(2)]
    legal = None
    if mover is not None and seen[mover]:
        buf = np.empty(max(int(T.max_actions(params)), 2), dtype=np.int32)
        k = T.legal_actions(s, params, buf)
        legal = [f"{TR.seat_name(mover)}:{TR.action_label(v, s, params, int(x))}"
                 for x in buf[:k]]
    shown = None
    if int(s[T.UP]) >= 0:
        down = _agreed([int(c[T.DOWN]) for c in rep.candidates])
        lead = int(s[T.LEAD])
        down_seat = lead if int(T.team_size(params, a)) == 1 else lead ^ 1
        shown = {"up": v.names[int(s[T.UP])], "up_seat": TR.seat_name(lead),
                 "down": None if down is None or down < 0 or not seen[down_seat]
                 else v.names[down], "down_seat": TR.seat_name(down_seat)}
    ended = payoff = None
    if terminal:
        ended = [text.replace("P1", "team 0").replace("P2", "team 1") for bit, text in ENDINGS
                 if int(s[T.ENDED]) & bit]
        u = float(T.returns_p1(s, params))
        payoff = [u, -u]
    return dict(NULL_SUMMARY, **{
        "valid": True, "record": rep.record,
        "view": None if rep.viewer is None else TR.seat_name(rep.viewer),
        "tokens": len(rep.tokens), "turns": int(s[T.TURN]), "phase": TEAM_PHASES[ph],
        "terminal": terminal, "to_move": None if mover is None else TR.seat_name(mover),
        "active": None if terminal else f"team {a}", "payoff": payoff, "ended": ended,
        "legal_moves": legal, "gap": int(s[T.GAP]), "deck_size": int(s[T.DECKSIZE]),
        "shown": shown, "players": teams, "seats": seats,
        "consistent_positions": None if rep.viewer is None else int(len(rep.candidates)),
        "variant": v.as_dict(),
    })


def summary(variant: Variant, text: str) -> dict:
    """The position after a full record or a view (RecordError if illegal)."""
    if variant.num_seats > 2:
        return team_summary(TR.replay(variant, text))
    return position_summary(replay(variant, text))


def view_state(variant: Variant, text: str, player: int) -> np.ndarray:
    """One full state consistent with ``player``'s view ``text`` (two-seat games: a sampled
    run reads its row there by the information abstraction, the same for every such state)."""
    return replay_view(variant, text, player).state


def view_steps(variant: Variant, player: int) -> ReplaySteps:
    """``player``'s view replayed a token at a time: ``push(token)`` gives the state that
    :func:`view_state` gives for the tokens pushed so far, at the cost of one token."""
    return ReplaySteps(variant, player)


def view_key(variant: Variant, text: str, player: int) -> tuple[str, dict]:
    """(``player``'s information-state key, position summary) of the view ``text``;
    ``player`` is a seat (0 .. 3) in a team variant."""
    if variant.num_seats > 2:
        rep = TR.replay_view(variant, text, player)
        return " ".join(rep.tokens), team_summary(rep)
    rep = replay_view(variant, text, player)
    return " ".join(rep.tokens), position_summary(rep)


def chance_next(variant: Variant, info: dict) -> str | None:
    """The black market's chance, where a record stops before it (a query's one-line
    error): the supply dealt at setup (a ``market:`` token, right after the deal) or the card
    that refills it after a take (``>CARD`` on the ``bm:`` token); None for a deal or draw."""
    example = ".".join(M.KEYS[c] for c in (A.N_ONGOING, A.N_ONGOING + 1, A.N_BM - 1))
    if info.get("phase") == PHASES[A.PH_MARKET]:
        return ("the black market's supply is dealt next (advanced mode): give it with a "
                f"market: token after the deal, its {A.SUPPLY_SIZE} cards by key, number 1-"
                f"{A.N_BM} or name, e.g. market:{example}")
    if info.get("phase") == PHASES[A.PH_BM_SUPPLY]:
        return ("the card that refills the black market's supply comes next: give it on the "
                f"bm: token, e.g. bm:P1={M.KEYS[A.N_ONGOING - 1]}>{M.KEYS[A.N_ONGOING]}")
    return None


def card_names(counts: dict | None) -> list[str]:
    """One name a card, in the summary's order ({"CB": 2, "DD": 1}: CB, CB, DD; None: none),
    as a player lays them out (the text here, the workbench's view)."""
    return [c for c, k in (counts or {}).items() for _ in range(k)]


def _cards(counts: dict | None) -> str:
    """Cards in a line ("CB CB DD", where the line read "CBx2 DDx1"); "?" unseen, "-" none."""
    return "?" if counts is None else " ".join(card_names(counts)) or "-"


def _count(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _gap(gap: int, board: int, ahead: str, behind: str, over: bool) -> str:
    """The gap in words, up to the parenthesis its line goes on and closes: ``ahead``'s
    meeple so many spaces ahead of ``behind``'s and the distance the other way round the
    board, or, at or past a catch (0 or ``board``, where the other way would read negative),
    who reached whom and the gap's number (the play's end showed "P2's meeple is -3 spaces
    ahead of P1's"). Only the End step catches (the rulebook: "you can win the game only
    during the End step"; a meeple that escapes forward in the same turn is not caught): in
    advanced mode the black market resolves between the moves and the End step, and its
    cards can still move a meeple (Surveillance Truck, a recruit by Smoke Screen...), so
    before the game is ``over`` a meeple at or past the other's has reached it, not caught
    it (`spycfr play` said "P2's meeple has caught P1's" with a take pending).

    The gap is counted along the chase, not round the loop (the spec's g: P2 catches at
    ``board``, P1 at 0), so a turn's moves can carry it past the catch: "gap 19" on the
    14-space board is P2's meeple on P1's space and 5 spaces beyond (the rulebook: reaching
    or exceeding the other's position catches it). Past the catch the line says how far
    ("gap 19: 5 spaces past it"), which the loop's size alone made a puzzle."""
    if gap <= 0 or gap >= board:
        catcher, caught = (behind, ahead) if gap <= 0 else (ahead, behind)
        beyond = -gap if gap <= 0 else gap - board
        past = f": {beyond} space{'' if beyond == 1 else 's'} past it" if beyond else ""
        if over:
            return f"{catcher}'s meeple has caught {caught}'s (gap {gap}{past}; "
        return (f"{catcher}'s meeple has reached {caught}'s (gap {gap}{past}, not a catch "
                "yet: the End step judges it after the black market resolves; ")
    return (f"{ahead}'s meeple is {gap} space{'' if gap == 1 else 's'} ahead of {behind}'s "
            f"({board - gap} the other way; ")


def _catches(gap: int, board: int) -> str:
    """Which gap is each seat's catch, the gap named by its number where the line has not
    said it ("P1 catches at 0, P2 at 14" read as two numbers with nothing to measure them
    by)."""
    of = f" of {gap}" if 0 < gap < board else ""
    return f"P1 catches when the gap{of} falls to 0, P2 when it reaches {board}"


def position_lines(info: dict, variant: Variant) -> list[str]:
    """The position of a summary in words, for the terminal."""
    if info["seats"] is not None:
        return _team_lines(info, variant)
    board = variant.board
    lines = [f"agent-avenue  {variant.describe()}"]
    view = f"  (view of {info['view']})" if info["view"] else ""
    lines.append(f"record: {info['record'] or '(empty)'}{view}")
    g = info["gap"]
    # the turn and the deck, the gap, then each seat's hand, recruits and discards on a
    # line of its own (one line held them all with the gap: 200 characters)
    lines.append(f"turns played: {info['turns']}   deck: {_count(info['deck_size'])} left")
    lines.append(f"gap: {_gap(g, board, 'P2', 'P1', info['terminal'])}"
                 f"{_catches(g, board)})")
    for p, pl in enumerate(info["players"]):
        lines.append(f"P{p + 1}  hand: {_cards(pl['hand'])} ({_count(pl['hand_size'])})   "
                     f"recruited: {_cards(pl['in_play'])}   discards: "
                     f"{pl['discards_left']} left, {pl['discarded']} made")
    if "black_market" in info:
        bm = info["black_market"]
        for p in range(2):
            lines.append(f"P{p + 1}  on space {info['spaces'][p]}   black market cards: "
                         f"{' '.join(bm['ongoing'][p]) or '-'}")
        lines.append(f"black market: supply {' '.join(bm['supply']) or '-'}   deck "
                     f"{bm['deck_size']}   discarded {' '.join(bm['discard_pile']) or '-'}"
                     + (f"   {bm['player']} resolves {bm['resolving']}" if bm["resolving"]
                        else ""))
    if info["terminal"]:
        who = "P1" if info["payoff"][0] > 0 else "P2"
        lines.append(f"game over: {who} wins ({'; '.join(info['ended'])})")
        return lines
    if info["shown"]:
        down = info["shown"]["down"] or "?"
        lines.append(f"on the table: {info['shown']['up']} face up, {down} face down")
    return lines + _move_lines(info)


def _team_lines(info: dict, variant: Variant) -> list[str]:
    """A team variant's position in words: the teams' cards in play, each seat's hand."""
    lines = [f"agent-avenue  {variant.describe()}"]
    view = f"  (view of {info['view']})" if info["view"] else ""
    lines.append(f"record: {info['record'] or '(empty)'}{view}")
    g = info["gap"]
    lines.append(f"turns played: {info['turns']}   gap: "
                 f"{_gap(g, variant.board, 'team 1', 'team 0', info['terminal'])}"
                 f"catch at 0 and {variant.board})   "
                 f"deck: {info['deck_size']}")
    for team in info["players"]:
        lines.append(f"team {team['team']} ({', '.join(team['seats'])})  in play: "
                     f"{_cards(team['in_play'])}")
    for seat in info["seats"]:
        lines.append(f"{seat['seat']} (team {seat['team']})  hand: {_cards(seat['hand'])} "
                     f"({_count(seat['hand_size'])})   discards left: {seat['discards_left']}"
                     f"   discarded: {seat['discarded']}")
    if info["terminal"]:
        lines.append(f"game over: team {0 if info['payoff'][0] > 0 else 1} wins "
                     f"({'; '.join(info['ended'])})")
        return lines
    shown = info["shown"]
    if shown:
        lines.append(f"on the table: {shown['up']} face up ({shown['up_seat']}), "
                     f"{shown['down'] or '?'} face down ({shown['down_seat']})")
    return lines + _move_lines(info)


def _move_lines(info: dict) -> list[str]:
    """Who moves, and the legal moves as the record writes them (or why they are not shown)."""
    lines = [f"{info['to_move'] or 'chance'} to move ({info['phase']})"]
    legal = info["legal_moves"]
    if legal is None:
        lines.append("legal moves: " + ("a draw (chance)" if info["to_move"] is None
                                        else "hidden from this view"))
    else:
        lines.append(f"legal moves ({len(legal)}): {' '.join(legal)}")
    return lines
