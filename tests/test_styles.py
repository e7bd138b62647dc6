"""The opponent's style posterior (spycfr.search.styles) on hand-built Agent Hunter histories,
held to the same posterior summed by brute force over the opponent's placements on the rules
themselves; and the agent's detection option choosing its leaves by it."""

import math

import numpy as np
import pytest

from spycfr.games.agent_hunter import PLUGIN, make_variant, public
from spycfr.games.agent_hunter import rules as R
from spycfr.games.agent_hunter.heuristic import HEURISTIC_STYLES, styled_heuristic
from spycfr.search.agent import AgentConfig, SearchAgent
from spycfr.search.styles import StyleBelief
from spycfr.search.tree import build

STYLES = tuple(range(len(HEURISTIC_STYLES)))


def _agent(preset: str, **changes) -> SearchAgent:
    return SearchAgent("agent-hunter", make_variant(preset).as_dict(),
                       AgentConfig.default("agent-hunter", **changes))


def _apply(params, state, action):
    out = np.empty_like(state)
    R.apply_action(state, params, action, out)
    return out


def _after(params, picks):
    """The state after each of ``picks`` (an index into the legal actions) from the start."""
    buf = np.empty(R.protocol_max_actions(params), np.int32)
    s = R.initial_state(params)
    for pick in picks:
        R.legal_actions(s, params, buf)
        s = _apply(params, s, int(buf[pick]))
    return s


def _walk(agent: SearchAgent, actions: list[int], belief: StyleBelief) -> StyleBelief:
    """The belief after the rules ``actions`` from the start, stepped along the public tree
    (one public edge a step, as the agent's walk)."""
    params = agent.variant.to_params()
    state = R.initial_state(params)
    pub = agent.public(state)
    for a in actions:
        state = _apply(params, state, a)
        for nxt in agent.public_path(pub, agent.public(state)):
            t = build(agent.model, pub, depth=1)
            kids = [c for c in range(t.first[0], t.first[0] + t.count[0])
                    if np.array_equal(t.pub[c], nxt)]
            belief = belief.stepped(t, 0, kids[0] - int(t.first[0]))
            pub = nxt
    return belief


def _brute(params, opening: list[int], then: list[int], move: int, style: int) -> float:
    """P(P2 makes the rules move ``move`` | what P1 saw) under ``style``: P1 places
    ``opening[0]``, P2 any placement alike, P1 plays ``then`` (its attacks' answers as in the
    game of P2's placement ``opening[1]``); the mean over P2's placements that give the same
    answers of the style's probability of ``move``."""
    buf = np.empty(R.protocol_max_actions(params), np.int32)
    probs = np.empty(buf.size)

    def game(place2):
        s = _apply(params, _apply(params, R.initial_state(params), opening[0]), place2)
        seen = []
        for a in then:
            s = _apply(params, s, a)
            seen.append(s[R.LAST:R.LAST + 2].copy())
        return s, seen

    state = _apply(params, R.initial_state(params), opening[0])
    k = R.legal_actions(state, params, buf)
    placements = [int(x) for x in buf[:k]]
    _, truth = game(opening[1])
    got = []
    for place2 in placements:
        s, seen = game(place2)
        if all(np.array_equal(x, y) for x, y in zip(seen, truth, strict=True)):
            k = R.legal_actions(s, params, buf)
            styled_heuristic(s, params, np.int64(style), buf, k, probs)
            hit = [x for x in range(k) if buf[x] == move]
            got.append(probs[hit[0]] if hit else 0.0)
    return float(np.mean(got))


def _expected(likes: list[float], prior: float, none_prob: float) -> np.ndarray:
    """The posterior from each style's likelihood of P2's one turn move (its placement has
    one public label: no evidence), "none" giving the move ``none_prob``."""
    p = np.array([*(prior / len(likes) * x for x in likes), (1 - prior) * none_prob])
    return p / p.sum()


def _none_by_kind(agent: SearchAgent, pub, move: int, none_prob: float) -> float:
    """"None of them"'s probability of the public label ``move`` at decision ``pub`` by kind:
    ``none_prob`` (1 if every label is of one type) over the labels of its type."""
    labels = np.empty(agent.model.max_actions, np.int32)
    n = public.legal_actions(pub, agent.model.params, labels)
    types = labels[:n] >> 12
    alike = int((types == move >> 12).sum())
    return (none_prob if len(set(types.tolist())) > 1 else 1.0) / alike


@pytest.mark.parametrize("by", ["move", "kind"])
def test_posterior_of_one_move_is_the_rules_brute_force(by):
    """By move "none" gives the move none_prob; by kind none_prob over the moves of its kind
    (a hand attack among the hand attacks, a house attack among the house attacks)."""
    agent = _agent("mini")
    params = agent.variant.to_params()
    s = R.initial_state(params)
    buf = np.empty(R.protocol_max_actions(params), np.int32)
    R.legal_actions(s, params, buf)
    opening = [int(buf[1])]
    s = _apply(params, s, opening[0])
    k = R.legal_actions(s, params, buf)
    opening.append(int(buf[4]))
    s = _apply(params, s, opening[1])
    # P1's first move: its first hand attack, then P2 to move at its first turn
    k = R.legal_actions(s, params, buf)
    attack = next(int(a) for a in buf[:k] if a >> 12 == R.T_HAND)
    s = _apply(params, s, attack)
    then = [attack]
    while R.current_player(s) != 1 or s[R.PHASE] != R.PH_TURN:  # a refill, if any
        k = R.legal_actions(s, params, buf)
        s = _apply(params, s, int(buf[0]))
        then.append(int(buf[0]))
    k = R.legal_actions(s, params, buf)
    moves = [int(a) for a in buf[:k]]
    start = StyleBelief.start(PLUGIN, agent.model.params, agent.model.weights[1], 1, STYLES,
                              prior=0.5, none_prob=0.25, by=by)
    pub = agent.public(s)
    nobody = kept = 0
    types = set()
    for move in moves:
        if move >> 12 == R.T_SWITCH:
            continue  # a switch's public label hides the card: the brute force is per action
        likes = [_brute(params, opening, then, move, x) for x in STYLES]
        got = _walk(agent, opening + then + [move], start)
        none = 0.25 if by == "move" else _none_by_kind(agent, pub, move, 0.25)
        want = _expected(likes, 0.5, none)
        types.add(move >> 12)
        assert got.posterior() == pytest.approx(want, abs=1e-12), (move, likes)
        for x, like in enumerate(likes):
            assert (got.log_like[x] == -math.inf) == (like == 0)
        nobody += max(likes) == 0
        kept += likes[0] > 0
        if max(likes) == 0:  # a move no style makes: every style out
            assert got.posterior()[-1] == 1.0 and not got.explained()
    assert nobody and kept  # both kinds of move were met
    assert types == {R.T_HAND, R.T_HOUSE}  # by kind: two kinds of different sizes


def test_a_switch_no_style_makes_drops_every_style():
    """At P2's first turn nothing of its houses is known, so the switcher does not switch
    (and the hunter and the prober never do): a switch leaves only "none"."""
    agent = _agent("mini")
    params = agent.variant.to_params()
    buf = np.empty(R.protocol_max_actions(params), np.int32)
    s = R.initial_state(params)
    acts = []
    for pick in (0, 3):  # the placements
        R.legal_actions(s, params, buf)
        acts.append(int(buf[pick]))
        s = _apply(params, s, acts[-1])
    k = R.legal_actions(s, params, buf)  # P1's first move: a switch of its own, told nothing
    acts.append(next(int(a) for a in buf[:k] if a >> 12 == R.T_SWITCH))
    s = _apply(params, s, acts[-1])
    k = R.legal_actions(s, params, buf)
    switch = next(int(a) for a in buf[:k] if a >> 12 == R.T_SWITCH)
    start = StyleBelief.start(PLUGIN, agent.model.params, agent.model.weights[1], 1, STYLES)
    before = _walk(agent, acts, start)
    assert before.posterior() == pytest.approx([1 / 6, 1 / 6, 1 / 6, 1 / 2])
    after = _walk(agent, acts + [switch], start)
    assert after.log_like[:-1] == (-math.inf,) * 3
    assert after.posterior()[-1] == 1.0
    by_kind = _walk(agent, acts + [switch], StyleBelief.start(
        PLUGIN, agent.model.params, agent.model.weights[1], 1, STYLES, by="kind"))
    assert by_kind.posterior()[-1] == 1.0  # the prober never switches


def test_move_kinds_are_the_labels_types():
    """The hook's kinds are the public labels' types, in the tree's order of children."""
    agent = _agent("mini")
    params = agent.variant.to_params()
    pub = agent.public(_after(params, (2, 5)))
    t = build(agent.model, pub, depth=1)
    kinds = np.empty(agent.model.max_actions, np.int32)
    n = PLUGIN.move_kinds(pub, agent.model.params, kinds)
    labels = np.empty(agent.model.max_actions, np.int32)
    assert n == t.count[0] == public.legal_actions(pub, agent.model.params, labels)
    assert np.array_equal(kinds[:n], labels[:n] >> 12)
    assert set(kinds[:n].tolist()) == {R.T_HAND, R.T_SWITCH, R.T_HOUSE}
    for o in range(n):  # child o is label o's public state
        after = np.empty_like(pub)
        public.apply_action(pub, agent.model.params, labels[o], after)
        assert np.array_equal(t.pub[t.first[0] + o], after)


def test_hunter_play_keeps_the_hunter():
    """The hunter's own moves along a game against the prober: the hunter is never out and
    its posterior ends above "none"'s; the prober's moves leave the hunter out."""
    agent = _agent("mini")
    params = agent.variant.to_params()
    buf = np.empty(R.protocol_max_actions(params), np.int32)
    probs = np.empty(buf.size)
    rng = np.random.default_rng(3)
    s = R.initial_state(params)
    acts = []
    while s[R.PHASE] != R.PH_OVER:
        k = R.legal_actions(s, params, buf)
        style = 0 if R.current_player(s) == 1 else 2  # P2 the hunter, P1 the prober
        styled_heuristic(s, params, np.int64(style), buf, k, probs)
        acts.append(int(buf[rng.choice(k, p=probs[:k] / probs[:k].sum())]))
        s = _apply(params, s, acts[-1])
    start = [StyleBelief.start(PLUGIN, agent.model.params, agent.model.weights[x], x, STYLES)
             for x in (1, 0)]
    hunter, prober = (_walk(agent, acts, b) for b in start)
    assert hunter.log_like[0] > -math.inf and hunter.explained()
    assert hunter.posterior()[0] > hunter.posterior()[-1]
    assert prober.log_like[0] == -math.inf
    # by move the prober, a uniformly random hand attacker, reads as "none"; by kind its
    # hand attacks keep it, and the hunter's exact moves keep the hunter
    assert not prober.explained()
    start = [StyleBelief.start(PLUGIN, agent.model.params, agent.model.weights[x], x, STYLES,
                               by="kind") for x in (1, 0)]
    kind_hunter, kind_prober = (_walk(agent, acts, b) for b in start)
    assert kind_hunter.explained() and kind_hunter.posterior()[-1] < hunter.posterior()[-1]
    assert kind_prober.explained() and kind_prober.log_like[2] == prober.log_like[2]
    assert kind_prober.posterior()[2] > kind_prober.posterior()[-1]


def test_style_rows_are_the_rules_probabilities():
    """Each live private state's row at a turn sums to one (every rules action of the style
    is an entry of its row) and reads the heuristic's probability of each entry's action."""
    agent = _agent("mini")
    params = agent.variant.to_params()
    s = _after(params, (2, 5))
    buf = np.empty(R.protocol_max_actions(params), np.int32)
    pub = agent.public(s)
    t = build(agent.model, pub, depth=1)
    q = t.row[0]
    live = np.flatnonzero(t.row_count[q] > 1).astype(np.int64)
    for style in STYLES:
        out = np.zeros((live.size, t.row_kid.shape[2]))
        PLUGIN.style_rows(pub, agent.model.params, np.int64(style), live, out)
        assert out.sum(axis=1) == pytest.approx(np.ones(live.size))
    own = agent.private(s, 0)
    out = np.zeros((1, t.row_kid.shape[2]))
    PLUGIN.style_rows(pub, agent.model.params, np.int64(0), np.array([own]), out)
    k = R.legal_actions(s, params, buf)
    probs = np.empty(buf.size)
    styled_heuristic(s, params, np.int64(0), buf, k, probs)
    assert probs[:k].max() == 1.0  # the hunter: one hand attack, whose label is its code
    labels = np.empty(t.count[0] + 1, np.int32)
    public.legal_actions(pub, agent.model.params, labels)
    e = int(np.argmax(out[0]))
    assert out[0, e] == 1.0
    assert labels[t.row_kid[q, own, e]] == buf[int(np.argmax(probs[:k]))]


# without the endgame rule: on tiny it solves every subgame to the end, with no leaves
LEAVES = {"endgame": 0, "plan_endgame": 0}


def _first_turn_policy(agent: SearchAgent) -> np.ndarray:
    """The agent's move probabilities as P1 at its first turn of tiny (fixed placements)."""
    params = agent.variant.to_params()
    s = _after(params, (1, 2))
    return agent.game(0).policy(s)


def test_detection_plays_its_leaves():
    """With the detection the agent re-solves with its own leaves where a style explains the
    opponent (here by the prior alone: no turn move yet), bit for bit the agent without the
    detection, and with the robust ones where not, as the agent with those leaves."""
    from spycfr.search.configure import configure_agent
    from spycfr.search.styles import configure_detection

    # the "robust" leaves here guard against the prober alone, which plays apart on tiny
    # (styles.ROBUST's choice and guesses change nothing where every pair is played)
    other = {"opposing": ["prober"]}
    plain = _agent("tiny", **LEAVES)
    assert plain.detection is None and plain.game(0).styles is None
    want_own = _first_turn_policy(plain)
    robust = _agent("tiny", **LEAVES)
    configure_agent(robust, **other)
    want_robust = _first_turn_policy(robust)
    assert not np.array_equal(want_own, want_robust)  # the test tells the two apart
    for prior, want, which in ((0.9, want_own, "own"), (0.1, want_robust, "robust")):
        agent = _agent("tiny", **LEAVES)
        detection = configure_detection(agent, prior=prior, robust=other)
        assert detection.styles == STYLES
        got = _first_turn_policy(agent)
        if which == "own":
            assert np.array_equal(got, want)
        else:  # the first plan (the placements) is solved with the agent's own leaves, the
            # robust agent's with its: the re-solve from it agrees to rounding (2e-19)
            assert got == pytest.approx(want, abs=1e-12)
            assert np.abs(got - want_own).max() > 1e-4
        assert detection.counts[which] >= 1 and sum(detection.counts.values()) == \
            detection.counts[which]


def test_a_game_keeps_its_leaves_whatever_other_games_do():
    """A game over the agent re-solves with, and LBR's model of it (its particles' rows)
    reads, the leaves the game's detection chose, whatever another game over the same agent
    does meanwhile (here one starting, which reset the shared leaves to the own ones); the
    agent's values stay its own leaves outside a solve."""
    from spycfr.analysis.headtohead import player_from
    from spycfr.analysis.lbr_agent import AgentOpponent
    from spycfr.games import make_game
    from spycfr.search.styles import configure_detection

    heuristic = player_from("heuristic", make_game("agent-hunter", "tiny"))

    def rows(another: bool):
        agent = _agent("tiny", **LEAVES)
        detection = configure_detection(agent, prior=0.1, robust={"opposing": ["prober"]})
        lbr = AgentOpponent(agent, heuristic).game(0)
        lbr.view.policy(_after(agent.variant.to_params(), (1, 2)))  # a robust re-solve
        if another:
            agent.game(1)
        return lbr._particles_rows(lbr.view.mine), lbr.view, agent, detection

    got, game, agent, detection = rows(True)
    assert np.array_equal(got, rows(False)[0])
    assert game.leaves is detection.robust and agent.values is detection.own


def test_a_restarted_walk_forgets_the_robust_leaves_too(monkeypatch):
    """A view walk's restart (ViewWalk.restart, each review and query walk) forgot the
    agent's own leaves only: a game that re-solved with the detection's robust leaves left
    its games and focus in them. Now SearchAgent.forget forgets both, and the game played
    after plays as a fresh agent's, the same decisions bit for bit."""
    from spycfr.analysis.agentplay import ViewWalk
    from spycfr.search.styles import configure_detection

    def detecting() -> SearchAgent:
        agent = _agent("tiny", **LEAVES)
        configure_detection(agent, prior=0.1, robust={"opposing": ["prober"]})
        return agent

    agent = detecting()
    _first_turn_policy(agent)  # a robust re-solve: its games played, its focus set
    forgot = []
    for which in ("own", "robust"):
        leaves = getattr(agent.detection, which)
        leaves = getattr(leaves, "inner", leaves)
        assert leaves._ready or which == "own"
        monkeypatch.setattr(leaves, "forget",
                            lambda w=which, f=leaves.forget: forgot.append(w) or f())
    ViewWalk(agent, PLUGIN.records, agent.variant, 0)  # a walk starts: restart
    assert sorted(forgot) == ["own", "robust"]
    assert np.array_equal(_first_turn_policy(agent), _first_turn_policy(detecting()))


def test_detection_keeps_the_agents_settings():
    """The robust leaves start as the agent's own are set up (configure_agent before
    configure_detection: the own styles and every option), ``robust``'s changes on top; a
    change the agent's settings rule out is refused naming the robust leaves, before
    anything is set."""
    from spycfr.search.configure import configure_agent
    from spycfr.search.styles import configure_detection

    agent = _agent("tiny")
    configure_agent(agent, own=["switcher"], choice="leaf", focus_rows=3, guess_weight=0.5)
    detection = configure_detection(agent, robust={"opposing": ["prober"], "guesses": True})
    own = getattr(agent.values, "inner", agent.values)
    robust = getattr(detection.robust, "inner", detection.robust)
    assert own.own_styles == robust.own_styles == (1,)  # the switcher's rollout style
    assert robust.opposing_styles == (2,) and robust.guesses  # robust's changes
    assert (robust.choice, robust.focus_rows, robust.guess_weight) == ("leaf", 3, 0.5)
    assert (own.opposing_styles, own.guesses) == ((0, 1, 2), False)  # the own ones kept
    refused = _agent("tiny")
    configure_agent(refused, choice="leaf", guess_weight=0.5)
    with pytest.raises(ValueError, match="robust leaves.*choice 'state' with guess_weight"):
        configure_detection(refused)  # ROBUST's per-state choice takes no guess_weight
    assert refused.detection is None


def test_detection_says_what_is_wrong():
    from spycfr.search.styles import configure_detection

    agent = _agent("tiny")
    for kw in ({"prior": 1.0}, {"none_prob": 0.0}):
        with pytest.raises(ValueError, match="prior"):
            configure_detection(agent, **kw)
    with pytest.raises(ValueError, match="by 'kinds': one of move, kind"):
        configure_detection(agent, by="kinds")
    assert agent.detection is None  # refused before anything was set
    with pytest.raises(ValueError, match="by 'kinds': one of move, kind"):  # read as "kind"
        StyleBelief.start(PLUGIN, agent.model.params, agent.model.weights[1], 1, STYLES,
                          by="kinds")


def test_detection_is_refused_where_there_is_nothing_to_detect():
    """configure_detection's other two refusals, each before anything is set: a game
    without the style_rows hook (Agent Avenue), and leaves that guard against none of the
    game's heuristic styles."""
    from types import SimpleNamespace

    from spycfr.games import get_plugin
    from spycfr.search.styles import configure_detection

    avenue = SimpleNamespace(plugin=get_plugin("agent-avenue"), detection=None)
    with pytest.raises(ValueError, match="agent-avenue has no style_rows hook"):
        configure_detection(avenue)
    none = SimpleNamespace(plugin=PLUGIN, values=SimpleNamespace(opposing_styles=()),
                           detection=None)
    with pytest.raises(ValueError, match="guard against none of its game's heuristic"):
        configure_detection(none)
    assert avenue.detection is None and none.detection is None
