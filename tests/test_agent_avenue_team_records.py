"""Records of Agent Avenue's team variant: sampled games round-trip (full records and every
seat's view, games in progress included), malformed and illegal records fail with one line
naming the token and why, and `spycfr record check` reads them."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from spycfr.cli.main import cli
from spycfr.errors import RecordError
from spycfr.games import get_plugin
from spycfr.games.agent_avenue import team_record as TR
from spycfr.games.agent_avenue import team_rules as T
from spycfr.games.agent_avenue.record import random_playout
from spycfr.games.agent_avenue.variant import make_variant

V22 = make_variant(None, {"names": "EN,CB,DD", "copies": 4, "hand": 2, "discards": 1,
                          "board": 6, "teams": "2v2"})
DEALT = "S1:deal:CB.CB S2:deal:EN.CB S3:deal:EN.EN S4:deal:EN.CB"
TURN = f"{DEALT} S1:lead:S1 S1:up:CB S2:discard:CB S2:draw:DD S2:down:DD S1:draw:DD S2:draw:DD"
VARIANTS = {
    "team-tiny": make_variant("team-tiny"),
    "2v2 with discards": V22,
    "2v1 open hands": make_variant("team-tiny", {"open_hands": 1, "copies": 6, "hand": 3,
                                                     "discards": 1}),
}


def _state(variant, actions) -> np.ndarray:
    params = variant.to_params()
    s = T.initial_state(params)
    out = np.empty_like(s)
    for a in actions:
        T.apply_action(s, params, np.int32(a), out)
        s, out = out, s
    return s


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_sampled_games_round_trip(name):
    variant = VARIANTS[name]
    rng = np.random.default_rng(7)
    discards = 0
    for game in range(12):
        actions = random_playout(variant, rng)
        if game % 3 == 2:  # a game in progress, possibly right after a discard
            actions = actions[:int(rng.integers(1, len(actions)))]
        full = TR.format_record(variant, actions)
        discards += full.count(":discard:")
        rep = TR.replay(variant, full)
        assert rep.actions == actions and rep.record == full and rep.viewer is None
        assert np.array_equal(rep.state, _state(variant, actions))
        for seat in range(variant.num_seats):
            view = TR.format_record(variant, actions, seat)
            rep = TR.replay_view(variant, view, seat)
            assert rep.record == view and rep.actions is None
            assert (rep.candidates == _state(variant, actions)).all(axis=1).any()
            if "?" in view and f"{TR.seat_name(seat)}:deal:" in view:
                # the viewer is read from its deal (or a teammate's, hands open)
                inferred = TR.replay(variant, view).viewer
                assert inferred == seat or (variant.open_hands and inferred // 2 == seat // 2)
    assert name != "2v2 with discards" or discards > 0


@pytest.mark.parametrize("record, error", [
    ("S1:deal:CB.CB S2:hello", "token 2 `S2:hello`: not a token (shapes: S1:deal:EN.CB"),
    ("P1:deal:CB.CB", "token 1 `P1:deal:CB.CB`: not a token"),
    ("S9:deal:EN.EN", "token 1 `S9:deal:EN.EN`: S9 is not a seat of this variant (S1..S4)"),
    ("S1:deal:SA.SA", "SA is not in this variant's deck (this variant's cards: EN,CB,DD)"),
    ("S1:deal:ZZ.EN", "ZZ is not an agent code (this variant's cards: EN,CB,DD)"),
    ("S2:deal:EN.EN", "token 1 `S2:deal:EN.EN`: expected S1:deal here"),
    ("S1:deal:CB.CB S2:deal:CB.CB S3:deal:CB.CB",
     "token 3 `S3:deal:CB.CB`: the deck cannot give that: 2 card(s) are drawn from ENx4, DDx4"),
    (f"{DEALT} S2:lead:S1", "token 5 `S2:lead:S1`: expected S1:lead here"),
    (f"{DEALT} S1:lead:S3", "token 5 `S1:lead:S3`: the face-up seat is S1 or S2 (the team on "
                            "turn)"),
    (f"{DEALT} S1:lead:S1 S2:up:CB", "token 6 `S2:up:CB`: expected S1:discard or S1:up here"),
    (f"{DEALT} S1:lead:S1 S1:up:EN", "token 6 `S1:up:EN`: S1 cannot play that (hand: CBx2)"),
    (f"{DEALT} S1:lead:S1 S1:up:CB S2:down:CB",
     "token 7 `S2:down:CB`: the face-down card must differ from the face-up CB"),
    (f"{DEALT} S1:lead:S1 S1:up:CB S2:discard:CB S2:draw:DD S2:discard:EN",
     "token 9 `S2:discard:EN`: S2 has no discards left"),
    (f"{TURN} S3:take:down=EN", "token 12 `S3:take:down=EN`: the face-down card was not that "
                                "one"),
    (f"{TURN} S4:take:down=DD", "token 12 `S4:take:down=DD`: expected S3:take here"),
    ("S1:deal:? S2:deal:EN.CB S3:deal:? S4:deal:? S1:lead:S1 S1:up:CB S2:down:?",
     "token 7 `S2:down:?`: S2 sees S2's face-down card: name the card(s)"),
    ("S1:deal:? S2:deal:?", "a seat's view (it writes ? for hidden cards) shows the viewer's "
                            "own deal"),
    ("S1:deal:? S2:deal:? S3:deal:EN.EN S4:deal:EN.CB",
     "token 4 `S4:deal:EN.CB`: S3 cannot see S4's hand: write ?"),
    ("S1:deal:? S2:deal:? S3:deal:EN.EN S4:deal:? S1:lead:S1 S1:up:CB S2:down:DD",
     "token 7 `S2:down:DD`: S3 cannot see S2's face-down card: write ?"),
    ("S1:deal:? S2:deal:? S3:deal:EN.EN S4:deal:? S1:lead:S1 S1:up:?",
     "token 6 `S1:up:?`: the face-up card is seen by every seat"),
    ("S1:deal:? S2:deal:? S3:deal:EN.EN S4:deal:? S1:lead:S1 S1:up:CB S2:down:? S1:draw:? "
     "S2:draw:? S3:take:up", "token 10 `S3:take:up`: write the face-down card the recruitment "
                             "reveals: S3:take:up=X"),
    ("S1:deal:? S2:deal:? S3:deal:EN.EN S4:deal:? S1:lead:S1 S1:up:CB S2:down:? S1:draw:? "
     "S2:draw:? S3:take:up=SK", "SK is not in this variant's deck"),
    ("S1:deal:? S2:deal:? S3:deal:EN.EN S4:deal:? S1:lead:S1 S1:up:EN S2:down:? S1:draw:?.?",
     "token 8 `S1:draw:?.?`: no position consistent with this view allows it (e.g. the deck "
     "cannot give that: 1 card(s) are drawn from"),
])
def test_bad_records_are_one_line_errors(record, error):
    with pytest.raises(RecordError) as exc:
        TR.replay(V22, record)
    assert error in str(exc.value) and "\n" not in str(exc.value)


def test_the_game_is_over_and_the_take_card_may_follow_from_a_full_record():
    variant = VARIANTS["team-tiny"]
    full = TR.format_record(variant, random_playout(variant, 3))
    with pytest.raises(RecordError, match=r"`S1:lead:S1`: the game is already over"):
        TR.replay(variant, f"{full} S1:lead:S1")
    rep = TR.replay(V22, f"{TURN} S3:take:down")
    assert rep.tokens[-1] == "S3:take:down=DD" and int(rep.state[T.PHASE]) == T.PH_LEAD


def test_the_plugin_summary_checks_the_text_and_labels_moves_ready_to_paste():
    notation = get_plugin("agent-avenue").records
    with pytest.raises(RecordError, match="character U\\+0009 at column 14"):
        notation.summary(V22, "S1:deal:CB.CB\tS2:deal:EN.CB")
    info = notation.summary(V22, f"{DEALT} S1:lead:S2")
    assert info["to_move"] == "S2" and info["phase"] == "face up" and info["active"] == "team 0"
    assert info["legal_moves"] == ["S2:discard:EN", "S2:discard:CB", "S2:up:EN", "S2:up:CB"]
    info = notation.summary(V22, TURN)  # the recruiter does not know the face-down card
    assert info["legal_moves"] == ["S3:take:up", "S3:take:down"]
    assert info["shown"] == {"up": "CB", "up_seat": "S1", "down": "DD", "down_seat": "S2"}
    key, view = notation.view_key(V22, TR.format_record(V22, TR.replay(V22, TURN).actions, 2),
                                  2)
    assert key.split()[-3:] == ["S2:down:?", "S1:draw:?", "S2:draw:?"]
    assert view["shown"]["down"] is None and view["seats"][2]["hand"] == {"EN": 2}
    assert view["seats"][0]["hand"] is None and view["legal_moves"] == ["S3:take:up",
                                                                        "S3:take:down"]


def test_spycfr_record_check_reads_team_records():
    runner = CliRunner()
    args = ["record", "check", "agent-avenue", "--names", "EN,CB,DD", "--copies", "4",
            "--hand", "2", "--discards", "1", "--board", "6", "--teams", "2v2"]
    r = runner.invoke(cli, [*args, TURN])
    assert r.exit_code == 0, r.output
    assert "S3 to move (recruit)" in r.output and "on the table: CB face up (S1), DD face " \
                                                  "down (S2)" in r.output
    r = runner.invoke(cli, [*args, "--json", f"{TURN} S4:take:up=DD"])
    assert r.exit_code == 1
    assert json.loads(r.output)["error"] == "token 12 `S4:take:up=DD`: expected S3:take here"
    r = runner.invoke(cli, [*args, f"{DEALT} S1:lead:S4"])
    assert isinstance(r.exception, RecordError)  # main() prints it as one line: error: ...
    assert str(r.exception).startswith("token 5 `S1:lead:S4`: the face-up seat is S1 or S2")
