"""A seat's view replayed a token at a time (Agent Avenue's records ``view_steps``,
:class:`~spycfr.games.agent_avenue.record.ReplaySteps`) gives, after each token, what the
replay of that prefix from the start gives (``view_state``, ``replay_view``): the same
state, candidates and canonical tokens, and the same one-line error at the same token. A
search agent's walk along a view (:class:`~spycfr.analysis.agentplay.ViewWalk`: `spycfr
query` and reviews) uses it, so a walk replays each token of a game once, where it used to
replay the view from its start at every token (quadratic in the game's length). Agent
Hunter's records give it too (:class:`~spycfr.games.agent_hunter.record.ViewSteps`: a step
is a token as the notation writes it, a house attack with its refill one step, a refill
written as a token of its own one that amends the token before it)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from spycfr.analysis.agentplay import ViewWalk
from spycfr.errors import RecordError
from spycfr.games import get_plugin, make_variant
from spycfr.games.agent_avenue import record as AR
from spycfr.games.agent_hunter import record as HR
from spycfr.games.agent_hunter import rules as HRULES

RECORDS = get_plugin("agent-avenue").records


def _views(variant, seed: int) -> list[tuple[int | None, str]]:
    """A random game's full record and both seats' views of it (seeded)."""
    acts = AR.random_playout(variant, seed)
    return [(None, AR.format_record(variant, acts))] + [
        (seat, AR.format_record(variant, acts, seat)) for seat in (0, 1)]


@pytest.mark.parametrize("preset,seed", [("tiny", 0), ("tiny", 3), ("standard", 2),
                                         ("advanced", 2), ("advanced", 4)])
def test_a_token_at_a_time_is_each_prefix_replayed(preset, seed):
    variant = make_variant("agent-avenue", preset)
    for viewer, text in _views(variant, seed):
        _each_prefix_replayed(
            AR.ReplaySteps(variant, viewer), text.split(),
            lambda tokens, viewer=viewer: AR._replay(variant, tokens, viewer),
            None if viewer is None else
            lambda text, viewer=viewer: RECORDS.view_state(variant, text, viewer))


def _each_prefix_replayed(steps, tokens: list[str], whole_of, view_of):
    """``steps`` (a game's replay a token at a time) after each token of ``tokens`` is the
    whole replay of that prefix (``whole_of``): its state, candidates, tokens and actions,
    and where ``view_of`` is given the records' view state of the prefix's text. Returns the
    last replay."""
    for k, token in enumerate(tokens, 1):
        state = steps.push(token)
        whole = whole_of(tokens[:k])
        assert np.array_equal(state, whole.state)
        got = steps.replay()
        assert np.array_equal(got.candidates, whole.candidates)
        assert got.tokens == whole.tokens and got.actions == whole.actions
        if view_of is not None:
            assert np.array_equal(view_of(" ".join(tokens[:k])), state)
    return got


def _error(call) -> str:
    with pytest.raises(RecordError) as exc:
        call()
    return str(exc.value)


def test_a_token_at_a_time_fails_where_the_replay_fails():
    """A swap without its draw is a view's last token only: pushed as the last, the next
    token finds it, with the replay's words and token number (as a walk view by view meets
    it); pushed as not the last, at once, as the replay of the whole view does. A card not
    in the variant, at its own token."""
    variant = make_variant("agent-avenue", "standard")
    deal = AR.format_record(variant, AR.random_playout(variant, 2), 0).split()[0]
    card = deal.split(":")[1].split(".")[0]
    wholes = []
    for bad in ([deal, f"swap:{card}", f"play:{card}/{card}"], [deal, "play:XX/CB"]):
        whole = _error(lambda bad=bad: RECORDS.view_state(variant, " ".join(bad), 0))
        wholes.append(whole)
        for as_last in (True, False):
            steps = AR.ReplaySteps(variant, 0)

            def walk(steps=steps, bad=bad, as_last=as_last):
                for k, token in enumerate(bad, 1):
                    steps.push(token, last=as_last or k == len(bad))
            assert _error(walk) == whole
    assert wholes[0] == f"token 2 `swap:{card}`: a swap is followed by its draw: swap:X>Y"
    assert wholes[1].startswith("token 2 `play:XX/CB`: XX is not")


class _Game:
    """A stand-in for the agent's game: the states it is shown."""

    def __init__(self) -> None:
        self.seen: list[np.ndarray] = []

    def observe(self, state) -> None:
        self.seen.append(np.array(state))


class _Agent:
    """A stand-in for a search agent: what ViewWalk asks of one."""

    plugin = get_plugin("agent-avenue")

    def __init__(self, variant) -> None:
        self.variant = variant

    def forget(self) -> None:
        """Nothing to forget: no leaf values."""

    def game(self, seat: int) -> _Game:
        return _Game()

    def initial(self) -> np.ndarray:
        return self.variant.rules.initial_state(self.variant.to_params())


class _HunterAgent(_Agent):
    plugin = get_plugin("agent-hunter")

    def initial(self) -> np.ndarray:
        return HRULES.initial_state(self.variant.to_params())


@pytest.mark.parametrize("preset,seed", [("standard", 2), ("tiny", 3)])
def test_a_walk_along_a_game_replays_each_token_once(monkeypatch, preset, seed):
    """A seat's walk to each of its decisions (as a review walks them) shows the agent the
    state of each prefix's replay, and replays each token once: the walk used to rebuild the
    view from its start at every token (n(n+1)/2 tokens replayed for a view of n; 406 for
    the 28 of seed 8's game on ``standard``)."""
    variant = make_variant("agent-avenue", preset)
    replayed = []
    canonical = AR._canonical
    monkeypatch.setattr(AR, "_canonical", lambda *a: replayed.append(1) or canonical(*a))
    for seat in (0, 1):
        tokens = AR.format_record(variant, AR.random_playout(variant, seed), seat).split()
        walk = ViewWalk(_Agent(variant), RECORDS, variant, seat)
        replayed.clear()
        for k in range(1, len(tokens) + 1, 3):
            walk.to(" ".join(tokens[:k]))
        walk.to(" ".join(tokens))
        assert len(replayed) == len(tokens)
        seen = walk.game.seen[1:]  # after the initial state, one state a token
        assert len(seen) == len(tokens)
        for k, state in enumerate(seen, 1):
            assert np.array_equal(state, RECORDS.view_state(variant, " ".join(tokens[:k]),
                                                            seat))


# --- Agent Hunter ----------------------------------------------------------------------

HUNTER = get_plugin("agent-hunter").records
# Hand-built full games: the placements; a defender's refill after a miss (`+h1>7`) and an
# attacker's after `eq` (`:eq>2`); switches; attacks from hand; each to the game's end
# (standard: one player's houses all eliminated; tiny: the turns run out).
HUNTER_GAMES = [
    ("standard", "place:3-6-1 place:6-2-5 house:2=6>3:hi+h1>7 switch:3=5>1@3 "
                 "house:3=1>3:eq>2 house:1=7>3:hi+hand switch:1=3>3@1 switch:2=2>3@2 "
                 "house:3=2>2:lo+hand switch:2=3>8@2 house:1=3>2:lo+hand"),
    # `spycfr play results/standard --seat P2 --seed 2`, P2's moves drawn at random
    ("standard", "place:0-9-1 place:0-1-4 hand:2>1:hi house:1=0>1:eq>8 hand:6>1:lo "
                 "house:3=4>2:lo+hand switch:2=9>2@2 house:1=8>2:hi+hand hand:6>2:hi "
                 "hand:6>2:hi hand:7>2:hi house:2=1>3:eq>6 hand:9>2:hi house:2=6>2:hi+hand"),
    ("tiny", "place:0-2 place:2-1 house:2=2>1:eq>1 house:2=1>2:eq>0"),
    ("tiny", "place:0-2 place:2-1 switch:2=2>2@1 house:2=1>2:lo+hand"),
]


def _refills_apart(view: str) -> str:
    """``view`` with each refill written as a token of its own (``refill:7``, ``refill:?``),
    as spycfr lists the move: the replay merges it into the attack's token."""
    out = []
    for token in view.split():
        m = re.fullmatch(r"(house:.*(?::eq|\+h\d))>(\d|\?)", token)
        out += [m.group(1), f"refill:{m.group(2)}"] if m else [token]
    return " ".join(out)


def _hunter_views() -> list[tuple[object, int, str]]:
    views = []
    for preset, record in HUNTER_GAMES:
        variant = make_variant("agent-hunter", preset)
        for seat in (0, 1):
            view = HR.view_of(variant, record, seat)
            views += [(variant, seat, view), (variant, seat, _refills_apart(view))]
    return views


def test_hunter_views_hold_what_the_steps_must_follow():
    """The hand-built views hold '?' tokens, refills (hidden ones too), refills written
    apart, switches, and each ends with the game's end."""
    views = _hunter_views()
    joined = " ".join(text for _, _, text in views)
    for part in ("place:?", "switch:", ">?@", "+h1>7", "+h1>?", ":eq>2", ":eq>?", "refill:?",
                 "refill:2"):
        assert part in joined, part
    for variant, seat, text in views:
        assert HR.replay_view(variant, text, seat).state[HRULES.PHASE] == HRULES.PH_OVER


@pytest.mark.parametrize("case", range(len(_hunter_views())))
def test_hunter_a_token_at_a_time_is_each_prefix_replayed(case):
    variant, seat, text = _hunter_views()[case]
    got = _each_prefix_replayed(HR.ViewSteps(variant, seat), text.split(),
                                lambda tokens: HR._replay_view(variant, tokens, seat),
                                lambda text: HUNTER.view_state(variant, text, seat))
    assert got.actions is None  # a view's replay has no tree actions


def test_hunter_a_view_ending_in_an_attack_without_its_result():
    """The view's last move may be an attack without its result, completed where the view
    decides it (P2 knows where its card came from); a step pushed as the last is completed
    as the replay completes it, and a token after it meets the replay's error at it."""
    variant = make_variant("agent-hunter", "standard")
    steps = HR.ViewSteps(variant, 1)
    for token in ("place:?", "place:6-2-5", "house:2=6>3"):
        state = steps.push(token)
    whole = HUNTER.view_state(variant, "place:? place:6-2-5 house:2=6>3", 1)
    assert np.array_equal(state, whole)
    assert steps.replay().tokens[-1] == "house:2=6>3:hi+h1"
    longer = "place:? place:6-2-5 house:2=6>3 refill:7"
    error = _error(lambda: steps.push("refill:7"))
    assert error == _error(lambda: HUNTER.view_state(variant, longer, 1))
    assert error.startswith("move 3 `house:2=6>3`: the result is missing")


@pytest.mark.parametrize("preset,seat,bad", [
    ("standard", 1, "place:? place:6-2-5 house:2=6>3 refill:7"),  # a result left out
    ("standard", 0, "place:3-6-1 place:? house:2=6>3:hi+h1 hand:0>1:lo"),  # refill missing
    ("standard", 0, "place:0-1-2 place:? hand:5>1:hi switch:1=7>?@1"),  # impossible
    ("tiny", 0, "place:0-2 place:? house:2=2>1:eq>1 house:2=1>2:eq>? hand:0>1:lo"),  # over
    ("tiny", 0, "place:0-2 place:? house:2=2>1:eq>?"),  # its own refill hidden
    ("tiny", 0, "place:0-2 place:? house:2=2>1:eq>1 refill:1"),  # no refill pending
    ("tiny", 1, "place:? place:2-1 house:2=2>1:eq refill:1"),  # the opponent's shown
])
def test_hunter_a_token_at_a_time_fails_where_the_replay_fails(preset, seat, bad):
    """Each token pushed as the last (as a walk view by view meets it) or as not the last
    (as the replay of the whole view reads it): the whole view's one-line error, with its
    token and number; the steps stay as they were before the failing push."""
    variant = make_variant("agent-hunter", preset)
    whole = _error(lambda: HUNTER.view_state(variant, bad, seat))
    assert whole.startswith("move ")
    tokens = bad.split()
    for as_last in (True, False):
        steps = HR.ViewSteps(variant, seat)
        done: list[str] = []

        def walk(steps=steps, as_last=as_last, done=done):
            for k, token in enumerate(tokens, 1):
                steps.push(token, last=as_last or k == len(tokens))
                done.append(token)
        assert _error(walk) == whole
        if done:
            assert steps.replay().tokens == HR.replay_view(variant, " ".join(done),
                                                           seat).tokens


@pytest.mark.parametrize("preset,record", [HUNTER_GAMES[0], HUNTER_GAMES[2]])
def test_hunter_walk_along_a_game_replays_each_token_once(monkeypatch, preset, record):
    """A seat's walk along its view (as a review walks it) shows the agent each prefix's
    state and reads each token once: the walk without ``view_steps`` replayed the view from
    its start at every token."""
    variant = make_variant("agent-hunter", preset)
    parsed = []
    parse = HR._parse_token
    monkeypatch.setattr(HR, "_parse_token", lambda *a: parsed.append(1) or parse(*a))
    for seat in (0, 1):
        tokens = HR.view_of(variant, record, seat).split()
        walk = ViewWalk(_HunterAgent(variant), HUNTER, variant, seat)
        assert walk.steps is not None
        parsed.clear()
        for k in range(1, len(tokens) + 1, 2):
            walk.to(" ".join(tokens[:k]))
        walk.to(" ".join(tokens))
        assert len(parsed) == len(tokens)
        seen = walk.game.seen[1:]
        assert len(seen) == len(tokens)
        for k, state in enumerate(seen, 1):
            assert np.array_equal(state, HUNTER.view_state(variant, " ".join(tokens[:k]),
                                                           seat))


def _refill_decisions(tokens: list[str]) -> list[int]:
    """The indices of the tokens that hold a refill (``house:...:eq>8``, ``...+h1>7``)."""
    return [k for k, t in enumerate(tokens) if re.fullmatch(r"house:.*(:eq|\+h\d)>(\d|\?)", t)]


@pytest.mark.parametrize("preset,record", [HUNTER_GAMES[0], HUNTER_GAMES[1], HUNTER_GAMES[2]])
def test_hunter_a_refill_amends_the_attack_as_the_replay_merges_it(preset, record):
    """A view that stops at a refill's decision (its last token the attack, ``...:eq``) and
    the next view, which writes the refill in that token (``...:eq>8``): ``amend`` takes the
    completion as a step, and the steps then hold what the longer view's replay holds (the
    candidates, state, canonical tokens and move count, and the same after every token
    that follows); a token that is not the completion, or a refill that cannot follow, is
    None with the steps as they were."""
    variant = make_variant("agent-hunter", preset)
    amended = 0
    for seat in (0, 1):
        tokens = HR.view_of(variant, record, seat).split()
        for k in _refill_decisions(tokens):
            attack = tokens[k].rsplit(">", 1)[0]
            steps = HR.ViewSteps(variant, seat)
            for j, token in enumerate([*tokens[:k], attack]):
                steps.push(token, last=j == k)
            kept = (steps.cands, list(steps.canon), steps.moves)
            for other in (tokens[k] + "1", attack + ">" + ("?" if tokens[k][-1] != "?" else "1"),
                          "hand:1>1:hi"):
                assert steps.amend(other, last=True) is None, other
                assert (steps.cands is kept[0] and steps.canon == kept[1]
                        and steps.moves == kept[2])
            fresh = HR.ViewSteps(variant, seat)
            for j, token in enumerate(tokens[:k + 1]):
                fresh.push(token, last=j == k)
            state = steps.amend(tokens[k], last=k + 1 == len(tokens))
            amended += 1
            assert state is not None and np.array_equal(state, fresh.cands[0])
            for j in range(k + 1, len(tokens) + 1):
                assert np.array_equal(steps.cands, fresh.cands)
                assert steps.canon == fresh.canon and steps.moves == fresh.moves
                if j < len(tokens):
                    last = j + 1 == len(tokens)
                    assert np.array_equal(steps.push(tokens[j], last), fresh.push(tokens[j], last))
    assert amended >= 4


def test_hunter_a_walk_goes_on_through_a_refill():
    """A review's walk to a refill's decision and on to the next view (the refill written in
    the attack's token) goes on through it, where it started again from the game's start:
    the agent is shown each token's state as a walk for each view alone shows it, and the
    view is read once."""
    preset, record = HUNTER_GAMES[0]
    variant = make_variant("agent-hunter", preset)
    for seat in (0, 1):
        tokens = HR.view_of(variant, record, seat).split()
        walk = ViewWalk(_HunterAgent(variant), HUNTER, variant, seat)
        for k in _refill_decisions(tokens):
            view = " ".join([*tokens[:k], tokens[k].rsplit(">", 1)[0]])
            walk.to(view)
            longer = " ".join(tokens[:k + 1])
            assert walk.goes_on_to(longer) and not walk.extends_to(longer)
            walk.to(longer)
        walk.to(" ".join(tokens))
        seen = walk.game.seen[1:]
        want = []
        for k in range(1, len(tokens) + 1):
            if k - 1 in _refill_decisions(tokens):  # the attack's state, then the refill's
                attack = " ".join([*tokens[:k - 1], tokens[k - 1].rsplit(">", 1)[0]])
                want.append(HUNTER.view_state(variant, attack, seat))
            want.append(HUNTER.view_state(variant, " ".join(tokens[:k]), seat))
        assert len(seen) == len(want)
        assert all(np.array_equal(a, b) for a, b in zip(seen, want, strict=True))
