"""Agent Avenue's openings: P1's first turn for each starting hand, and P2's first recruit
for each hand and face-up card (P1 having made no discard), as action paths from the root."""

from __future__ import annotations

import numpy as np

from spycfr.games.agent_avenue import rules as R
from spycfr.games.agent_avenue.record import draw_text
from spycfr.games.agent_avenue.variant import Variant


def _outcomes(state: np.ndarray, params) -> list[int]:
    codes = np.empty(max(int(R.max_actions(params)), 2), dtype=np.int32)
    probs = np.empty(codes.shape[0])
    k = R.chance_outcomes(state, params, codes, probs)
    return [int(c) for c in codes[:k]]


def _step(state: np.ndarray, params, action: int) -> np.ndarray:
    out = np.empty_like(state)
    R.apply_action(state, params, np.int32(action), out)
    return out


def _hand(state: np.ndarray, variant: Variant, p: int) -> list[int]:
    return [int(state[R.HAND + 8 * p + i]) for i in range(len(variant.names))]


def opening_paths(variant: Variant) -> list[tuple[int, list[int], str]]:
    """(player, path, context) of P1's first decision for every starting hand (context: the
    hand) and of P2's first recruit for every hand and face-up card (context: "CB.DD sees
    EN"), reached without a discard."""
    params = variant.to_params()
    root = R.initial_state(params)
    paths: list[tuple[int, list[int], str]] = []
    hands = _outcomes(root, params)
    for h1 in hands:
        after = _step(root, params, h1)
        h2 = _outcomes(after, params)[0]
        paths.append((0, [h1, h2], draw_text(variant, h1)))
    n = len(variant.names)
    seen = set()
    for h2 in hands:  # every multiset of `hand` cards the full deck can give
        for x in range(n):
            path = _recruit_path(variant, params, root, h2, x)
            if path is not None and (h2, x) not in seen:
                seen.add((h2, x))
                paths.append((1, path, f"{draw_text(variant, h2)} sees {variant.names[x]}"))
    return paths


def _recruit_path(variant: Variant, params, root: np.ndarray, h2: int, x: int):
    """A path to P2's first recruit with hand ``h2`` and P1's face-up ``x``, or None."""
    for h1 in _outcomes(root, params):
        s = _step(root, params, h1)
        if h2 not in _outcomes(s, params):
            continue
        s = _step(s, params, h2)
        hand = _hand(s, variant, 0)
        if hand[x] == 0:
            continue
        acts = np.empty(max(int(R.max_actions(params)), 2), dtype=np.int32)
        k = R.legal_actions(s, params, acts)
        plays = [int(a) for a in acts[:k] if (int(a) >> 20) == R.T_PLAY
                 and ((int(a) >> 3) & 7) == x]
        if not plays:
            continue
        path = [h1, h2, plays[0]]
        s = _step(s, params, plays[0])
        if int(s[R.PHASE]) == R.PH_REFILL:
            draw = _outcomes(s, params)[0]
            path.append(draw)
        return path
    return None


def group(label: str) -> str:
    """What a first-turn move amounts to: the card shown, a swap, or the recruit choice."""
    kind, rest = label.split(":", 1)
    if kind == "play":
        return "show " + rest.split("/")[0]
    return f"{kind} {rest}"
