"""Wrong inputs as a player makes them, each one `error:` line naming what is wrong and
what is allowed, exit status 2, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_helpers import spycfr

RESULTS = Path(__file__).resolve().parent.parent / "results"


def _one_error(args: list[str]) -> str:
    code, out, err = spycfr(*args)
    lines = [x for x in err.splitlines() if x.startswith("error:")]
    assert code == 2 and len(lines) == 1 and "Traceback" not in out + err, (code, out, err)
    return lines[0]


@pytest.mark.parametrize("args", [
    ["head-to-head", str(RESULTS / "tiny"), str(RESULTS / "agent-avenue" / "tiny"),
     "--games", "2"],
    ["query", str(RESULTS / "tiny"), "--seat", "P1", "--against",
     str(RESULTS / "agent-avenue" / "tiny")],
])
def test_a_run_of_another_game_is_named_with_its_variant_in_words(args):
    """Both said the variants as Python dicts ({'names': 'EN,CB,DD', 'copies': 2, ...}); and
    in one wording (query said the run "solves" the variant, head-to-head that it "plays" it)."""
    line = _one_error(args)
    assert f"run {str(RESULTS / 'agent-avenue' / 'tiny')!r} plays agent-avenue" in line, line
    assert "agent-avenue names=EN,CB,DD copies=2" in line and "{" not in line, line
    assert "agent-hunter cards=3 houses=2" in line and "same variant" in line, line


def test_a_preset_given_as_a_word_is_said_to_be_an_option():
    """The README writes `spycfr info GAME [variant]`; `spycfr info agent-hunter mini` said
    only "Got unexpected extra argument (mini)"."""
    line = _one_error(["info", "agent-hunter", "mini"])
    assert "unexpected extra argument (mini): a preset is an option, --preset mini" in line
    assert "a preset" not in _one_error(["info", "agent-hunter", "minii"])  # not a preset
