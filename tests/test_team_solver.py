"""The team equilibrium (TMECor, solver/exact/team.py) on hand-built games whose values are
derived by hand, and on two-player games where it must equal the sequence-form LP."""

from __future__ import annotations

from collections import deque
from fractions import Fraction

import numpy as np
import pytest

from spycfr.errors import SpycfrError
from spycfr.exact.lp import solve_lp
from spycfr.exact.team import solve_team
from spycfr.games import build_tree, make_game
from spycfr.tree import CHANCE, TERMINAL, Tree


def tree_of(root, num_seats: int) -> Tree:
    """A flat tree from nested tuples: ("c", [(prob, child), ...]), ("d", team, seat, key,
    [child, ...]) with infosets named by ``key``, or ("t", team 0's payoff)."""
    fc, nc, pl, ni, na, ut, cp = [], [], [], [], [-1], [], []
    keys: dict = {}
    inf_player, inf_seat, inf_nact, inf_node = [], [], [], []
    queue, n_nodes = deque([root]), 1
    while queue:
        node = queue.popleft()
        v = len(pl)
        if node[0] == "t":
            fc.append(0), nc.append(0), pl.append(TERMINAL), ni.append(-1), ut.append(node[1])
            continue
        children = [c for _, c in node[1]] if node[0] == "c" else node[4]
        fc.append(n_nodes), nc.append(len(children)), ut.append(0.0)
        if node[0] == "c":
            pl.append(CHANCE)
            ni.append(len(cp))
            cp += [p for p, _ in node[1]]
        else:
            _, team, seat, key = node[:4]
            if key not in keys:
                keys[key] = len(inf_player)
                inf_player.append(team), inf_seat.append(seat)
                inf_nact.append(len(children)), inf_node.append(v)
            pl.append(team)
            ni.append(keys[key])
        na += list(range(len(children)))
        queue.extend(children)
        n_nodes += len(children)
    return Tree(game="hand-built", variant={}, first_child=np.array(fc, dtype=np.int64),
                num_children=np.array(nc, dtype=np.int16), node_player=np.array(pl, np.int8),
                node_infoset=np.array(ni, np.int32), node_action=np.array(na, np.int32),
                utility=np.array(ut, float), chance_prob=np.array(cp, float),
                infoset_player=np.array(inf_player, np.int8),
                infoset_num_actions=np.array(inf_nact, np.int16),
                infoset_node=np.array(inf_node, np.int64),
                infoset_seat=np.array(inf_seat, np.int8), num_seats=num_seats)


def close(value: float, exact: Fraction) -> bool:
    return abs(value - float(exact)) < 1e-9


def test_correlation_beats_independent_mixing():
    """Teammates A, B each pick 0 or 1 unseen; the adversary C guesses. The team wins 1
    when a == b != guess. Agreeing on (0,0) or (1,1) by a fair coin before the game wins
    1/2 (TMECor); mixing independently could win only 1/4."""
    def c(a, b):
        return ("d", 1, 2, "C", [("t", float(a == b and a != g)) for g in (0, 1)])

    def b_(a):
        return ("d", 0, 1, "B", [c(a, b) for b in (0, 1)])

    game = tree_of(("d", 0, 0, "A", [b_(a) for a in (0, 1)]), 3)
    result = solve_team(game)
    assert close(result.value, Fraction(1, 2)) and result.gap <= 1e-9
    # The team's mixture is the two matched plans, half each.
    side = result.sides[0]
    matched = {tuple(p[s][i] for s in (0, 1) for i in p[s]): w
               for p, w in zip(side["plans"], side["weights"], strict=True) if w > 1e-9}
    assert set(matched) == {(0, 0), (1, 1)} and all(abs(w - 0.5) < 1e-9
                                                    for w in matched.values())


@pytest.mark.parametrize("b_sees_a,value", [(False, Fraction(1, 2)), (True, Fraction(1))])
def test_a_teammate_can_only_use_what_it_sees(b_sees_a, value):
    """Chance deals A a fair bit; A acts, then B names the bit (team wins 1 if right). If B
    sees A's action, A signals the bit (value 1); if not, B guesses (value 1/2). The
    adversary's move changes nothing."""
    def b_(bit, a):
        key = f"B{a}" if b_sees_a else "B"
        return ("d", 0, 1, key, [("d", 1, 2, "C", [("t", float(guess == bit))] * 2)
                                 for guess in (0, 1)])

    def a_(bit):
        return ("d", 0, 0, f"A{bit}", [b_(bit, a) for a in (0, 1)])

    game = tree_of(("c", [(0.5, a_(0)), (0.5, a_(1))]), 3)
    result = solve_team(game)
    assert close(result.value, value) and result.gap <= 1e-9


def test_two_teams_of_two():
    """2v2 matching pennies between teams: each team's pair picks (x, y) unseen by its
    teammate and by the other team; team 0 wins 1 if its pair equals team 1's, else -1/3.
    With 4 joint pure plans per side the game is 4x4 matching pennies: the uniform mixture
    makes the value (1 - 3 * 1/3) / 4 = 0."""
    def leaf(x, y, u, w):
        return ("t", 1.0 if (x, y) == (u, w) else -1 / 3)

    def t1(x, y):
        return ("d", 1, 2, "U", [("d", 1, 3, "W", [leaf(x, y, u, w) for w in (0, 1)])
                                 for u in (0, 1)])

    game = tree_of(("d", 0, 0, "X", [("d", 0, 1, "Y", [t1(x, y) for y in (0, 1)])
                                     for x in (0, 1)]), 4)
    result = solve_team(game)
    assert close(result.value, Fraction(0)) and result.gap <= 1e-9


@pytest.mark.parametrize("game,preset", [("kuhn", None), ("agent-avenue", "tiny")])
def test_two_player_games_give_the_lp_value(game, preset):
    tree = build_tree(make_game(game, preset))
    result = solve_team(tree)
    assert abs(result.value - solve_lp(tree).value_p1) < 1e-8 and result.gap <= 1e-9
    if game == "kuhn":
        assert close(result.value, Fraction(-1, 18))


def test_a_seat_that_forgets_is_refused():
    forgetful = tree_of(("d", 0, 0, "A", [("d", 0, 0, "A2", [("t", 1.0), ("t", 0.0)]),
                                          ("d", 0, 0, "A2", [("t", 0.0), ("t", 1.0)])]), 1)
    with pytest.raises(SpycfrError, match="seat 0 forgets"):
        solve_team(forgetful)
