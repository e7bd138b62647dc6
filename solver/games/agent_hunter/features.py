"""What a learned value function reads of an Agent Hunter public state
(:mod:`spycfr.search.learned`): the public state's numbers, with its bit masks (cards out,
what each player's observations allow in each opposing house) as one input per card, its
phase one-hot, and the last move's observation and a pending attack split into their fields.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from spycfr.games.agent_hunter.public import PENDING, PH_SIGNAL
from spycfr.games.agent_hunter.rules import KNOW, LAST, O_OUT, PHASE, PSTRIDE

_BITMASKS = [O_OUT, PSTRIDE + O_OUT, *range(KNOW, KNOW + 6)]


def _bits(x: np.ndarray, n: int) -> np.ndarray:
    return ((x[:, None] >> np.arange(n)) & 1).astype(float)


def value_features(variant) -> Callable[[np.ndarray], np.ndarray]:
    """The features of ``variant``'s public states, (L, P) -> (L, F)."""
    cards = variant.cards

    def features(pubs: np.ndarray) -> np.ndarray:
        p = np.atleast_2d(np.asarray(pubs, np.int64))
        plain = [c for c in range(p.shape[1])
                 if c not in _BITMASKS and c not in (PHASE, LAST, LAST + 1, PENDING)]
        seen = p[:, LAST] | (p[:, LAST + 1] << 15)
        pending = p[:, PENDING]
        parts = [p[:, plain].astype(float)]
        parts += [_bits(np.maximum(p[:, c], 0), cards) for c in _BITMASKS]
        parts.append((np.maximum(p[:, KNOW:KNOW + 6], 0) >> 15) & 1)  # the house is in play
        parts.append((p[:, PHASE][:, None] == np.arange(PH_SIGNAL + 1)).astype(float))
        parts.append(((seen & 7)[:, None] == np.arange(5)).astype(float))
        parts.append(np.stack([(seen >> s) & 15 for s in (3, 7, 11, 15, 19)], axis=1))
        parts.append(np.where(pending[:, None] >= 0, np.stack(
            [pending >> 12, (pending >> 8) & 15, (pending >> 4) & 15, pending & 15], axis=1),
            -1).astype(float))
        return np.concatenate(parts, axis=1)

    return features
