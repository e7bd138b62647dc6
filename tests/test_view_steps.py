"""A seat's view replayed a token at a time (Agent Avenue's records ``view_steps``,
:class:`~spycfr.games.agent_avenue.record.ReplaySteps`) gives, after each token, what the
replay of that prefix from the start gives (``view_state``, ``replay_view``): the same
state, candidates and canonical tokens, and the same one-line error at the same token. A
search agent's walk along a view (:class:`~spycfr.analysis.agentplay.ViewWalk`: `spycfr
query` and reviews) uses it, so a walk replays each token of a game once, where it used to
replay the view from its start at every token (quadratic in the game's length)."""

from __future__ import annotations

import numpy as np
import pytest

from spycfr.analysis.agentplay import ViewWalk
from spycfr.errors import RecordError
from spycfr.games import get_plugin, make_variant
from spycfr.games.agent_avenue import record as AR

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
        tokens = text.split()
        steps = AR.ReplaySteps(variant, viewer)
        for k, token in enumerate(tokens, 1):
            state = steps.push(token)
            whole = AR._replay(variant, tokens[:k], viewer)
            assert np.array_equal(state, whole.state)
            got = steps.replay()
            assert np.array_equal(got.candidates, whole.candidates)
            assert got.tokens == whole.tokens and got.actions == whole.actions
            if viewer is not None:
                assert np.array_equal(RECORDS.view_state(variant, " ".join(tokens[:k]), viewer),
                                      state)


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

    class values:  # noqa: N801  (no forget: nothing to reset)
        pass

    plugin = get_plugin("agent-avenue")

    def __init__(self, variant) -> None:
        self.variant = variant

    def game(self, seat: int) -> _Game:
        return _Game()

    def initial(self) -> np.ndarray:
        return self.variant.rules.initial_state(self.variant.to_params())


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
