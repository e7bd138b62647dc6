"""Reviews of played and recorded games: every decision of a seat with its equilibrium
probability, value and loss (:func:`spycfr.analysis.play.review`, exact on a tree run), the
costliest first, and in words what the move showed the opponent and what the opponent then
likely held (its private states weighted by how often the run's strategy and chance reach
each history the seat could be in). Recorded games are full records in the game's notation,
one per line, replayed on the run's tree through the game's ``records.actions``. On a search
agent's run a seat's moves are valued as `spycfr query --seat` values them at each decision
(:meth:`spycfr.analysis.agentplay.AgentOpponent.review`: the agent in that seat)."""

from __future__ import annotations

import numpy as np

from spycfr.analysis.play import (
    SEATS,
    WHOLE_RECORD,
    Decision,
    Opponent,
    _child_node,
    costliest_first,
    review,
)
from spycfr.analysis.query import OFF_PATH
from spycfr.analysis.views import delta, private_namer
from spycfr.engine.labels import state_at
from spycfr.engine.states import CHANCE_PLAYER, State
from spycfr.errors import RecordError, SpycfrError
from spycfr.games import feature, get_plugin
from spycfr.tree import Tree
from spycfr.tree.passes import forward_reach

MAX_RECORDS = 200  # games in one review (each is replayed and reviewed)
LIKELY = 3  # the opponent's most likely private states named in words
SHOWN = 0.005  # holdings at least this likely are named
MAX_HISTORIES = 400  # histories of one position replayed to name the opponent's holdings


def replay_record(opp: Opponent, game, text: str) -> tuple[State, list[list[tuple]]]:
    """The final state of the full record ``text`` and, per seat, its decisions as
    (Decision, state before, state after); RecordError names a bad record."""
    records = feature(opp.result.game, "records", "record notation to review games in")
    if records.actions is None:
        raise SpycfrError(f"{opp.result.game} cannot replay a full record: no review of "
                          "recorded games")
    codes = records.actions(game.variant_obj, text)
    state, node = game.new_initial_state(), 0
    path: list[int] = []
    moves: list[list[tuple]] = [[], []]
    for code in codes:
        p = state.current_player()
        child = state.child(int(code))
        if p != CHANCE_PLAYER:
            actions = list(state.legal_actions())
            labels = [state.action_label(a) for a in actions]
            i = actions.index(int(code))
            moves[p].append((Decision(state.information_state(p), labels[i], i, node,
                                      list(path), labels), state, child))
        node = _child_node(opp.tree, node, int(code))
        path.append(int(code))
        state = child
    return state, moves


def _tree(opp: Opponent) -> Tree:
    """The run's tree (an AttributeError for a sampled run, as reading None's fields gave)."""
    if opp.tree is None:
        raise AttributeError("the run has no tree (a sampled run)")
    return opp.tree


def node_reach(opp: Opponent) -> np.ndarray:
    """reach[n, 0/1/2] of every node of the run's tree under its strategy."""
    tree = _tree(opp)
    reach = np.zeros((tree.num_nodes, 3))
    forward_reach(tree.first_child, tree.num_children, tree.node_player, tree.node_infoset,
                  tree.chance_prob, opp.strategy, reach)
    return reach


def position_reach(opp: Opponent, reach: np.ndarray) -> np.ndarray:
    """pi(J) of every infoset: how often the run's strategy and chance reach it."""
    tree = _tree(opp)
    decision = (tree.node_player == 0) | (tree.node_player == 1)
    return np.bincount(tree.node_infoset[decision], weights=reach[decision].prod(axis=1),
                       minlength=tree.num_infosets)


def likely_held(opp: Opponent, game, seat: int, node: int, reach: np.ndarray,
                parents: np.ndarray, name, at: np.ndarray | None = None
                ) -> list[tuple[str, float]] | None:
    """The opponent's private states at ``seat``'s position (the infoset of ``node``), most
    likely first, with their probabilities given everything ``seat`` saw; None where the
    run gives no reading: the opponent's moves and chance lead to the position in fewer
    than query's OFF_PATH of games (``at``: :func:`position_reach`), or at least SHOWN of
    its weight comes through an opponent's decision at a position reached that rarely,
    whose moves were never trained (ADDA small said P1 'likely held loyal:1-2-1 (92%)'
    holding 1-1-2, after P1's file card that the run plays 0.02% of the time). The seat's
    own moves do not count: the reading conditions on the opponent's moves and chance
    alone (the seat's reach is the same at every history of its position), so after the
    seat's own off-path move it stands until the opponent moves at a position so reached."""
    tree = _tree(opp)
    at = position_reach(opp, reach) if at is None else at
    i = int(tree.node_infoset[node])
    nodes = np.flatnonzero((tree.node_infoset == i) & (tree.node_player == seat))
    weight = reach[nodes, 1 - seat] * reach[nodes, 2]
    if weight.sum() < OFF_PATH:
        return None
    order = np.argsort(-weight, kind="stable")[:MAX_HISTORIES]
    held: dict[str, float] = {}
    untrained = 0.0
    for n, w in zip(nodes[order], weight[order], strict=True):
        v = int(n)
        path: list[int] = []
        blind = False  # an opponent's decision with a choice at a position never reached
        while v > 0:
            path.append(int(tree.node_action[v]))
            v = int(parents[v])
            j = int(tree.node_infoset[v])
            blind |= bool(tree.node_player[v] == 1 - seat and tree.infoset_num_actions[j] > 1
                          and at[j] < OFF_PATH)
        untrained += float(w) if blind else 0.0
        state = state_at(game, path[::-1])
        key = name(state.information_state(1 - seat), 1 - seat,
                   state.information_state(seat).split())
        held[key] = held.get(key, 0.0) + float(w)
    total = float(weight.sum())
    if untrained >= SHOWN * total:
        return None
    return sorted(((k, w / total) for k, w in held.items() if w / total >= SHOWN),
                  key=lambda kv: -kv[1])


def explained(opp: Opponent, game, seat: int, moves: list[tuple], reach: np.ndarray | None
              ) -> list[dict]:
    """The review rows of ``seat``'s moves (Decision, state before, state after) with the
    words: ``showed`` (what the opponent saw of the move) and ``likely`` (the opponent's
    likely private states then, on a tree run)."""
    rows = review(opp, seat, [d for d, _, _ in moves])
    name = private_namer(get_plugin(opp.result.game), game)
    parents = opp.tree.parents() if opp.tree is not None and moves else None
    at = None if parents is None or reach is None else position_reach(opp, reach)
    for n, (row, (d, before, after)) in enumerate(zip(rows, moves, strict=True), 1):
        row["number"] = n
        row["showed"] = delta(before.information_state(1 - seat),
                              after.information_state(1 - seat)) or "(nothing)"
        held = (None if parents is None or reach is None else
                likely_held(opp, game, seat, d.node, reach, parents, name, at))
        row["likely"] = [] if held is None else held[:LIKELY]
        row["unread"] = held is None and at is not None  # off the path: no reading
        row["words"] = words(row, seat)
    return rows


def words(row: dict, seat: int) -> str:
    """One decision in plain words."""
    other = SEATS[1 - seat]
    text = f"{row['move']}: {other} saw {row['showed']}"
    if row["likely"]:
        text += f"; {other} then likely held " + ", ".join(
            f"{k} ({100 * p:.0f}%)" for k, p in row["likely"])
        rest = 1.0 - sum(p for _, p in row["likely"])
        if rest >= SHOWN:  # the holdings not named: three named ones read as the only ones
            text += f", or another ({100 * rest:.0f}% in all)"
    elif row.get("unread"):
        text += (f"; no reading of what {other} held: the run (almost) never plays the moves "
                 "that led here")
    if row.get("cut"):  # a search agent's re-solve cut the move: why it has no value
        return text + f"; not valued: {row['cut']}."
    if row.get("loss") is None:
        return text + "."
    if row.get("unranked"):  # a rare position: within its tolerance, not equal
        return text + (f"; {row['loss']:.4f} below the best ({row['best_moves'][0]}) against "
                       "the run's strategy, but not ranked: at a position this rare the "
                       f"run's values may be off by up to {row['tolerance']:.2g}.")
    # off the equilibrium path the values are best replies' (play.review): say so
    off = (", off the equilibrium path (best-reply values)" if row.get("basis") == "best reply"
           else "")
    if row["tie"]:
        return text + f"; as good as the best move there{off}."
    better = ", ".join(row["best_moves"][:3])
    return text + f"; lost {row['loss']:.4f} against the best ({better}){off}."


def summary(rows: list[dict]) -> dict:
    """Moves, those that lost value, the total and the largest loss (tree runs)."""
    valued = [r for r in rows if r.get("loss") is not None]
    lost = [r for r in valued if not r["tie"]]
    return {"moves": len(rows), "valued": len(valued), "lost_value": len(lost),
            "total_loss": float(sum(r["loss"] for r in lost)),
            "largest_loss": max((r["loss"] for r in lost), default=0.0)}


def records_in(text: str) -> list[str]:
    """The game records of ``text``, one a line, blank lines skipped (`spycfr review`'s
    file or RECORD, the workbench's review form). A `spycfr play` game pasted whole, or its
    last lines, gives the records of its "the whole record: ..." lines, the label dropped:
    its boards, prompts and review are not records (each was an error, 43 for one game of
    Agent Avenue tiny, and the record line itself failed on its label)."""
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    if not any(x.startswith(WHOLE_RECORD) for x in lines):
        return lines
    return [x[len(WHOLE_RECORD):].strip() for x in lines if x.startswith(WHOLE_RECORD)]


def review_records(opp: Opponent, game, texts: list[str], seats: tuple[int, ...] = (0, 1)
                   ) -> dict:
    """Each record's review (per seat: rows, costliest first, and their summary) and the
    summary over all of them; a record that does not replay gets its error instead."""
    if len(texts) > MAX_RECORDS:
        raise SpycfrError(f"{len(texts):,} records: at most {MAX_RECORDS} are reviewed at once")
    reach = node_reach(opp) if opp.tree is not None else None
    games: list[dict] = []
    every: dict[int, list[dict]] = {s: [] for s in seats}
    for number, text in enumerate(texts, 1):
        try:
            final, moves = replay_record(opp, game, text)
        except RecordError as exc:
            games.append({"game": number, "record": text[:200], "error": str(exc)})
            continue
        seat_reviews: dict[str, dict] = {}
        entry = {"game": number, "record": text, "terminal": final.is_terminal(),
                 "payoff": list(final.returns()) if final.is_terminal() else None,
                 "seats": seat_reviews}
        for s in seats:
            rows = explained(opp, game, s, moves[s], reach)
            every[s].extend(rows)
            seat_reviews[SEATS[s]] = {
                "summary": summary(rows),
                "moves": costliest_first(rows),
            }
        games.append(entry)
    return {"games": games, "summary": {SEATS[s]: summary(every[s]) for s in seats},
            "errors": sum("error" in g for g in games)}
