"""The flat-array game tree and the passes every solver shares (the bottom layer)."""

from spycfr.tree.tree import CHANCE, TERMINAL, Tree

__all__ = ["CHANCE", "TERMINAL", "Tree"]
