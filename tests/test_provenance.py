"""The code recorded with accumulating results (spycfr.provenance): the version, and the git
commit where the package runs from a checkout, never failing where it does not."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from spycfr import provenance
from spycfr.provenance import code_version, code_words, git_code, same_code

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
