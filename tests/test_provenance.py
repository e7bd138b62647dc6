"""The code recorded with accumulating results (spycfr.provenance): the version, and the git
commit where the package runs from a checkout, never failing where it does not."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from spycfr import provenance
from spycfr.provenance import (
    agent_words,
    code_version,
    code_words,
    git_code,
    played_by_words,
    same_code,
    without_played_by,
)

ROOT = Path(__file__).resolve().parent.parent


def test_the_code_is_this_checkouts_commit():
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=False)
    if head.returncode != 0:
        pytest.skip("not run from a git checkout")
    code = code_version()
    assert code["commit"] == head.stdout.strip() and code["version"]
    assert code["modified"] in (True, False)


def test_outside_a_checkout_or_without_git_the_commit_is_none(tmp_path, monkeypatch):
    (tmp_path / "__init__.py").write_text("")
    assert git_code(tmp_path) == (None, None)  # not a checkout
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert git_code(tmp_path) == (None, None)  # a checkout that does not track the package

    def no_git(*args, **kwargs):
        raise FileNotFoundError("git")

    monkeypatch.setattr(provenance.subprocess, "run", no_git)
    assert git_code(ROOT / "solver") == (None, None)


def test_a_code_in_words():
    assert code_words({"version": "0.1.0", "commit": "1a2b3c4d" * 5, "modified": False}) == (
        "spycfr 0.1.0 at 1a2b3c4")
    assert code_words({"version": "0.1.0", "commit": "1a2b3c4d" * 5, "modified": True}) == (
        "spycfr 0.1.0 at 1a2b3c4, modified")
    assert code_words({"version": "0.1.0", "commit": None}) == "spycfr 0.1.0 (no git commit)"
    assert code_words(None) == "code not recorded"
    assert code_words({"version": None, "commit": None, "note": "the agent before f555065"}) == (
        "code not recorded (the agent before f555065)")


def test_an_agent_in_words_shares_the_codes_words():
    """agent_words names the code as code_words does (built from the same parts, where it
    sliced code_words' text), or says the code was not recorded, with the note either way."""
    code = {"version": "0.1.0", "commit": "1a2b3c4d" * 5, "modified": True, "note": "n"}
    assert agent_words(code) == "the agent of spycfr 0.1.0 at 1a2b3c4, modified (n)"
    assert agent_words({"version": "0.1.0", "commit": None}) == (
        "the agent of spycfr 0.1.0 (no git commit)")
    assert agent_words(None) == "an agent whose code was not recorded"
    assert agent_words({"version": None, "commit": None, "note": "the agent before f555065"}) == (
        "an agent whose code was not recorded (the agent before f555065)")


def test_a_method_loses_its_played_by_sentence_however_its_code_was_worded():
    """without_played_by cuts a method's closing played_by_words sentence by its opening
    words, so a method recorded when the code read otherwise (here a format this code does
    not write) loses it too, where rebuilding the sentence and removing it as a suffix left
    it; the sentence for several codes too, and a method without one is unchanged."""
    base = "local best response in 11 games. Its mean is at most the exploitability"
    one = {"version": "0.1.0", "commit": "a" * 40, "games": 11}
    assert without_played_by(f"{base}. {played_by_words([one])}") == base
    assert without_played_by(f"{base}. {played_by_words([one, {**one, 'commit': None}])}") == (
        base)
    assert without_played_by(f"{base}. Every game played by spycfr-0.0.9@aaaa") == base
    assert without_played_by(base) == base


def test_each_caller_gets_its_own_copy_of_the_code():
    """code_version is asked of git once per process, and each call returns a copy: a caller
    that changes its dict (noting it, say) changes no later caller's."""
    code = code_version()
    code["note"] = "changed by a caller"
    code["commit"] = "0" * 40
    again = code_version()
    assert "note" not in again and again["commit"] != "0" * 40 and again is not code


def test_codes_are_the_same_only_where_one_commit_is_recorded():
    a = {"version": "0.1.0", "commit": "1a2b3c4d" * 5, "modified": False}
    assert same_code(a, {**a, "modified": True, "games": 3})  # the commit and version
    assert not same_code(a, {**a, "commit": "0" * 40})
    assert not same_code(a, {**a, "version": "0.2.0"})
    none = {"version": "0.1.0", "commit": None}  # outside a checkout: not known to be any
    assert not same_code(none, none) and not same_code(None, None) and not same_code(a, None)
