"""A plain-Python twin of the public-tree engine: recursion over the public-state protocol
(calling the game's registered functions from Python), for checking the numba engine.

A profile is ``policy(pub, seat, i, n) -> probabilities of private state i's n actions``.
"""

from __future__ import annotations

import numpy as np

from spycfr.public import protocol as pp


def _f(params, name):
    return pp.python_impl(params, name)


def _private_actions(params, pub, i, n_labels):
    f = _f(params, "private_actions")
    if f is None:
        return [(k, i) for k in range(n_labels)]
    kids = np.zeros(64, np.int64)
    nexts = np.zeros(64, np.int64)
    n = f(pub, params, i, n_labels, kids, nexts)
    return list(zip(kids[:n].tolist(), nexts[:n].tolist(), strict=True))


def _mask(params, pub, code, seat, n):
    f = _f(params, "chance_mask")
    out = np.ones(n)
    if f is not None:
        f(pub, params, code, seat, out)
    return out


def _sizes(params):
    return [int(_f(params, "num_private")(params, s)) for s in (0, 1)]


def compat_matrix(params) -> np.ndarray:
    n0, n1 = _sizes(params)
    f = _f(params, "compatible")
    if f is None:
        return np.ones((n0, n1))
    return np.array([[f(params, i, j) for j in range(n1)] for i in range(n0)], dtype=float)


def _children(params, pub):
    buf = np.zeros(int(_f(params, "max_actions")(params)), np.int32)
    n = _f(params, "legal_actions")(pub, params, buf)
    out = []
    for a in buf[:n]:
        child = np.empty_like(pub)
        _f(params, "apply_action")(pub, params, int(a), child)
        out.append(child)
    return out


def values(params, policy, seat: int, best_response: bool = False) -> float:
    """``seat``'s expected payoff under the profile, or its best response's value when
    ``best_response`` (the other seat follows ``policy``)."""
    n = _sizes(params)
    compat = compat_matrix(params)
    w = [np.zeros(n[s]) for s in (0, 1)]
    for s in (0, 1):
        _f(params, "initial_weights")(params, s, w[s])
    z = float(w[0] @ compat @ w[1])
    opp = 1 - seat

    def rec(pub, reach):  # reach: [seat's own reach, opponent's reach]; returns v_seat[i]
        player = int(_f(params, "current_player")(pub, params))
        if player == pp.TERMINAL:
            u = np.array([[_f(params, "terminal_payoff")(pub, params, i, j) for j in range(n[1])]
                          for i in range(n[0])])
            m = compat * u
            return (m @ reach[1] if seat == 0 else -(m.T @ reach[0])) / z
        if player == pp.CHANCE:
            codes = np.zeros(int(_f(params, "max_actions")(params)), np.int32)
            probs = np.zeros(codes.shape[0])
            k = _f(params, "chance_outcomes")(pub, params, codes, probs)
            v = np.zeros(n[seat])
            for c, p in zip(codes[:k], probs[:k], strict=True):
                child = np.empty_like(pub)
                _f(params, "apply_action")(pub, params, int(c), child)
                masks = [_mask(params, pub, int(c), s, n[s]) for s in (0, 1)]
                r = [reach[0] * masks[0], reach[1] * masks[1]]
                v += p * masks[seat] * rec(child, r)
            return v
        kids = _children(params, pub)
        if player == seat:
            v = np.full(n[seat], -np.inf if best_response else 0.0)
            # own reach does not enter seat's values: recurse once per label with the
            # opponent's reach unchanged
            vk = [rec(c, reach) for c in kids]
            for i in range(n[seat]):
                acts = _private_actions(params, pub, i, len(kids))
                probs = policy(pub, seat, i, len(acts))
                vals = [vk[k][j] for k, j in acts]
                v[i] = max(vals) if best_response else float(np.dot(probs, vals))
            return v
        v = np.zeros(n[seat])
        for k, c in enumerate(kids):
            r = [reach[0].copy(), reach[1].copy()]
            r_new = np.zeros(n[opp])
            for i in range(n[opp]):
                acts = _private_actions(params, pub, i, len(kids))
                probs = policy(pub, opp, i, len(acts))
                for (kk, j), p in zip(acts, probs, strict=True):
                    if kk == k:
                        r_new[j] += reach[opp][i] * p
            r[opp] = r_new
            v += rec(c, r)
        return v

    root = _f(params, "initial_state")(params)
    return float(w[seat] @ rec(root, [w[0], w[1]]))


def uniform(pub, seat, i, n):
    return np.full(n, 1.0 / n)
