"""Fixtures shared by the test files: the validation games' trees, built once per session."""

from __future__ import annotations

import pytest

from solver.build import build_tree
from solver.games import make_game
from solver.tree import Tree


@pytest.fixture(scope="session")
def kuhn() -> Tree:
    return build_tree(make_game("kuhn"))


@pytest.fixture(scope="session")
def leduc() -> Tree:
    return build_tree(make_game("leduc"))
