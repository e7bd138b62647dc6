"""A game in the terminal in one seat of a team against a team run's TMECor, then a review.

Before the game each team draws one joint plan from the run's mixture (team_plans.npz), as a
TMECor team does: the program's seats play their team's drawn plan, the player's teammate
included. The player is a member of its team, so it is told what its team's drawn plan
prescribes at each of its positions and may follow it or not; the other team's draw stays
hidden. Chance is dealt from the seed. The review is exact on the run's tree: at each of the
player's positions, every move's value for its team given the player's view, the teammate
following the drawn plan, the player's other moves as played and the other team playing its
TMECor mixture (:func:`spycfr.analysis.team.values_against`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from spycfr.analysis.markdown import num
from spycfr.analysis.play import (
    Moves,
    ask_move,
    how_to_answer,
    news_since,
    sample_index,
    show_position,
)
from spycfr.analysis.team import TeamRun, load_team_run, plan_reach, seat_name, values_against
from spycfr.engine.states import CHANCE_PLAYER
from spycfr.errors import SpycfrError
from spycfr.games import get_plugin, make_game
from spycfr.seeds import check_seed
from spycfr.tree import Tree

TOLERANCE = 1e-9  # moves this close to the best are as good (the values are exact)


def play_team_game(run_dir: str, seat: int, seed: int, moves: Moves,
                   say: Callable[[str], None], run: TeamRun | None = None) -> dict:
    """Play one game in ``seat`` (0: S1) against the team run's plans; returns the result
    and the review. ``say`` prints a line; ``moves`` gives the input."""
    seed = check_seed(seed)
    run = run or load_team_run(run_dir)
    tree = run.tree
    if run.plans is None or run.weights is None:
        raise SpycfrError(f"{run_dir} keeps no joint plans (its mixture takes too many): play "
                          "draws one; solve a smaller variant")
    if not 0 <= seat < tree.num_seats:
        raise SpycfrError(f"{seat_name(seat)} is not a seat of this run "
                          f"(S1..S{tree.num_seats})")
    plans, weights = run.plans, run.weights
    team = 0 if seat in run.meta["teams"][0] else 1
    rng = np.random.default_rng(seed)
    drawn = [sample_index(rng, weights[t]) for t in (0, 1)]
    meta = run.meta
    game = make_game(meta["game"], None, meta["variant"])
    plugin = get_plugin(meta["game"])
    mates = [seat_name(s) for s in meta["teams"][team] if s != seat]
    others = [seat_name(s) for s in meta["teams"][1 - team]]
    me = seat_name(seat)
    say(f"{plugin.title} ({meta['preset'] or 'teams ' + str(meta['variant'].get('teams'))}): "
        f"you are {me} on team {team}" + (f" with {', '.join(mates)}" if mates else "")
        + f"; the program plays {', '.join(mates + others)} with the TMECor plans of "
          f"{run_dir} (exploitability {meta['exploitability']:.2g}); seed {seed}")
    say(f"before the game your team drew its joint plan #{drawn[team]} (probability "
        f"{weights[team][drawn[team]]:.3g}): your teammates follow it whatever you do, and "
        "you are shown what it tells you; the other team drew one too, hidden from you")
    say(how_to_answer(plugin))
    guide = plugin.records.guide if plugin.records else ()
    state, node = game.new_initial_state(), 0
    told = ""  # the player's view when last told
    played: list[dict] = []
    while not state.is_terminal():
        p = state.current_player()
        first, count = int(tree.first_child[node]), int(tree.num_children[node])
        if p == CHANCE_PLAYER:
            codes, probs = zip(*state.chance_outcomes(), strict=True)
            action = int(codes[sample_index(rng, np.asarray(probs, dtype=float))])
        else:
            i = int(tree.node_infoset[node])
            mover = int(tree.infoset_seat[i])
            advised = int(plans[p][drawn[p]][i])
            if mover == seat:
                view = state.information_state(seat)
                if told and view != told:
                    say(f"since your last move: {news_since(told, view)}")
                show_position(plugin, game, view, seat, say)
                labels = [state.action_label(int(tree.node_action[first + j]))
                          for j in range(count)]
                say(f"your team's plan: {labels[advised]}")
                chosen = ask_move(labels, moves, say, guide)
                if chosen is None:
                    say("game abandoned")
                    return {"abandoned": True, "seat": me,
                            "moves": [d["move"] for d in played]}
                say(f"you: {labels[chosen]}")
                played.append({"infoset": i, "node": node, "index": chosen,
                               "advised": advised, "view": view, "labels": labels,
                               "move": labels[chosen]})
                advised = chosen
                told = state.child(int(tree.node_action[first + chosen])).information_state(
                    seat)
            action = int(tree.node_action[first + advised])
        hits = np.flatnonzero(tree.node_action[first:first + count] == action)
        node = first + int(hits[0])
        state = state.child(action)
    return _finish(run, plugin, game, state, seat, team, drawn, played, say)


def _finish(run: TeamRun, plugin, game, state, seat: int, team: int, drawn: list[int],
            played: list[dict], say: Callable[[str], None]) -> dict:
    """The end of the game: every seat's view, the result, the review."""
    view = state.information_state(seat)
    show_position(plugin, game, view, seat, say, final=True)
    u = state.returns()[team]
    verdict = "your team wins" if u > 0 else "your team loses" if u < 0 else "a draw"
    say(f"result: {verdict} (team {team}'s payoff {num(u, '{:+g}')})")
    for s in range(run.tree.num_seats):
        if s != seat:
            say(f"{seat_name(s)} saw: {state.information_state(s)}")
    rows = review(run, seat, team, drawn[team], played)
    _say_review(rows, say)
    return {"abandoned": False, "seat": seat_name(seat), "team": team, "payoff": u,
            "result": verdict, "view": view, "plans_drawn": drawn,
            "moves": [d["move"] for d in played], "review": rows}


def review(run: TeamRun, seat: int, team: int, plan_index: int,
           played: list[dict]) -> list[dict]:
    """Each of the player's moves with its team's drawn plan's move and every move's value
    given the player's view (module docstring): the plan with the player's moves as played,
    the other team's mixture."""
    if not played:
        return []
    assert run.plans is not None and run.weights is not None
    tree: Tree = run.tree
    plan = run.plans[team][plan_index].copy()
    for d in played:
        plan[d["infoset"]] = d["index"]
    chance, reach = plan_reach(run)
    opponents = run.weights[1 - team] @ reach[1 - team]
    own = _own_reach(run, team, plan)
    sign = 1.0 if team == 0 else -1.0
    rows = []
    for d in played:
        i = d["infoset"]
        nodes = np.flatnonzero((tree.node_infoset == i) & (tree.node_player == team))
        k = int(tree.infoset_num_actions[i])
        w = chance[nodes] * own[nodes] * opponents[nodes]
        values = np.zeros(k)
        for a in range(k):
            trial = plan.copy()
            trial[i] = a
            below = values_against(run, team, trial, opponents)
            values[a] = sign * (chance[nodes] * own[nodes] * below[tree.first_child[nodes] + a]
                                ).sum()
        mass = float(w.sum())
        values = values / mass if mass > 0 else np.full(k, np.nan)
        best = [a for a in range(k) if values.max() - values[a] <= TOLERANCE]
        loss = float(values.max() - values[d["index"]])
        rows.append({
            "move": d["move"], "plan_move": d["labels"][d["advised"]],
            "followed": d["index"] == d["advised"], "view": d["view"],
            "value": _num(values[d["index"]]), "plan_value": _num(values[d["advised"]]),
            "best_value": _num(values.max()), "loss": _num(loss),
            "best_moves": [d["labels"][a] for a in sorted(best, key=lambda a: -values[a])],
            "reached_by_the_other_team": mass > 0,
        })
    return rows


def _own_reach(run: TeamRun, team: int, plan: np.ndarray) -> np.ndarray:
    """0/1: the nodes ``team``'s pure ``plan`` does not steer away from."""
    tree = run.tree
    on = np.zeros(tree.num_nodes)
    on[0] = 1.0
    kids = tree.first_child
    for v in np.flatnonzero(tree.num_children > 0).tolist():  # parents precede children
        if on[v] == 0.0:
            continue
        if tree.node_player[v] == team:
            on[kids[v] + int(plan[tree.node_infoset[v]])] = 1.0
        else:
            on[kids[v]:kids[v] + tree.num_children[v]] = 1.0
    return on


def _num(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def _say_review(rows: list[dict], say: Callable[[str], None]) -> None:
    if not rows:
        return
    say("")
    say("review of your moves")
    say("  value: your team's expected payoff from that position given your view, your "
        "teammates following the drawn plan and the other team its TMECor mixture")
    say(f"  {'#':>3}  {'move':<22} {'plan says':<22} {'value':>8} {'best':>8} {'loss':>8}")
    for n, r in enumerate(rows, 1):
        if r["value"] is None:
            say(f"  {n:>3}  {r['move']:<22} {r['plan_move']:<22} (the other team's plans "
                "never lead here: no value)")
            continue
        loss = "best" if r["loss"] <= TOLERANCE else f"{r['loss']:.4f}"
        note = "" if r["loss"] <= TOLERANCE else f"  better: {', '.join(r['best_moves'][:3])}"
        say(f"  {n:>3}  {r['move']:<22} {r['plan_move']:<22} {num(r['value']):>8} "
            f"{num(r['best_value']):>8} {loss:>8}{note}")
    followed = sum(r["followed"] for r in rows)
    say(f"you followed your team's plan in {followed} of {len(rows)} moves")
