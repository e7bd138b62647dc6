"""The public-state protocol: what a game supplies to be solved on the public tree.

Optional per game, beside the history protocol (:mod:`spycfr.engine.protocol`) and in its
style: ``@njit`` functions taking the game's parameters record, registered for its params
class with :func:`register`; the engines call the stubs below and numba resolves each one,
at compile time, to the game's implementation (``numba.extending.overload``).

The model (docs/public-tree.md states it precisely): each seat s has ``num_private(params, s)``
private states, numbered from 0 (Kuhn: its card; Agent Hunter: its hidden house contents).
A public node is a small integer array that everyone sees; it holds no private state. The
tree starts after the private deal, whose joint probability is
``w0[i] * w1[j] * compatible(i, j) / Z`` (Z normalises). Node kinds (``current_player``):

- seat 0 or 1 to move: ``legal_actions`` lists the public labels (children, in order);
  ``private_actions`` lists, for each private state i of the mover, its actions as
  (label index, next private state): a private transition (Agent Hunter's switch: the same
  public label, several hidden choices) or none (next = i, every label: the default).
- ``CHANCE``: public chance (Leduc's board card) or a public signal that depends on private
  states (a hi/lo/eq answer, a revealed card): outcome probabilities, times a factor per
  private state of each seat (``chance_mask``, default 1), e.g. 0 for a card that cannot
  be the board card, or 1 where the answer is consistent with that seat's state.
- ``PRIVATE_CHANCE + s``: chance private to seat s (a hidden draw): one public child; each
  private state i of s moves to j with probability ``private_chance`` (card removal against
  the other seat goes into ``compatible`` on the current states).
- ``TERMINAL``: seat 0's payoff for each pair of private states (``terminal_payoff``), or
  all at once against a range (``terminal_values``, an optional fast hook).

The bridge to the history protocol (``public_of_history``, ``private_of_history``) maps a
history state to its public state and a seat's private state: it maps strategies between
the two trees and lets the conformance suite check one against the other.

Required: ``num_private``, ``initial_weights``, ``initial_state``, ``current_player``,
``legal_actions``, ``chance_outcomes``, ``apply_action``, ``terminal_payoff``,
``max_actions``, ``max_depth``, ``public_of_history``, ``private_of_history``.
Optional: ``private_actions``, ``max_private_actions``, ``private_chance``,
``chance_mask``, ``compatible``, ``terminal_values``, and ``private_action_rows`` /
``private_chance_rows`` (every private state's row at once, by default the per-state
functions state by state: a game whose states share a node's work computes it once).
"""

from __future__ import annotations

from numba import njit
from numba.core import types
from numba.extending import overload

TERMINAL = -1
CHANCE = 2
PRIVATE_CHANCE = 3  # + seat: chance private to that seat

REQUIRED = ("num_private", "initial_weights", "initial_state", "current_player",
            "legal_actions", "chance_outcomes", "apply_action", "terminal_payoff",
            "max_actions", "max_depth", "public_of_history", "private_of_history")
OPTIONAL = ("private_actions", "max_private_actions", "private_chance", "chance_mask",
            "compatible", "terminal_values", "private_action_rows", "private_chance_rows")

_REGISTRY: dict[type, dict] = {}


def register(params_class: type, **impls) -> None:
    """Make the ``@njit`` functions ``impls`` the public-state protocol of games whose params
    are instances of ``params_class``."""
    missing = [name for name in REQUIRED if name not in impls]
    unknown = [name for name in impls if name not in REQUIRED + OPTIONAL]
    if missing or unknown:
        raise TypeError(f"public protocol of {params_class.__name__}: missing {missing}, "
                        f"unknown {unknown}")
    _REGISTRY[params_class] = dict(impls)


@njit(cache=True)
def uniform_weights(params, seat, out):
    """``initial_weights`` of a deal that gives every private state of the seat (``out``,
    one entry each) the same weight: Kuhn's, Leduc's, liar's dice's."""
    out[:] = 1.0 / out.shape[0]


def has_public(params) -> bool:
    """Whether the game of ``params`` (an instance or its class) has a public-state model."""
    cls = params if isinstance(params, type) else type(params)
    return cls in _REGISTRY


def has_hook(params, name: str) -> bool:
    """Whether the game of ``params`` registered the optional function ``name``."""
    cls = params if isinstance(params, type) else type(params)
    return name in _REGISTRY.get(cls, {})


def python_impl(params, name: str):
    """The game's registered ``@njit`` function ``name`` (callable from Python), or None."""
    return _REGISTRY.get(type(params), {}).get(name)


def _impl(name: str, params):
    if isinstance(params, types.BaseNamedTuple):  # type: ignore[attr-defined]  # numba's annotations omit this run-time export
        impls = _REGISTRY.get(params.instance_class)
        if impls is not None:
            return impls.get(name)
    return None


def _ours(params) -> bool:
    return (isinstance(params, types.BaseNamedTuple)  # type: ignore[attr-defined]  # numba's annotations omit this run-time export
            and params.instance_class in _REGISTRY)


# --- the stubs (called from numba code only) ---------------------------------------------

def _stub(*args):
    raise NotImplementedError("protocol functions run inside numba code only")


def num_private(params, seat):
    """Number of private states of ``seat``."""
    _stub()


def initial_weights(params, seat, out):
    """Writes the prior weight (>= 0) of each private state of ``seat`` into ``out``."""
    _stub()


def compatible(params, i, j):
    """Weight (>= 0; usually 1 or 0: card removal) of seat 0 holding i with seat 1 holding j."""
    _stub()


def initial_state(params):
    """The public root (after the private deal): a 1-D integer array."""
    _stub()


def current_player(pub, params):
    """0 or 1 (that seat moves), CHANCE, PRIVATE_CHANCE + seat, or TERMINAL."""
    _stub()


def legal_actions(pub, params, out):
    """At a decision or private chance: the public label codes (children, in order)."""
    _stub()


def max_private_actions(params):
    """An upper bound on the actions of one private state at a decision."""
    _stub()


def private_actions(pub, params, i, n_labels, kids, nexts):
    """At a decision: private state i's actions, as kids[e] (index of the public label) and
    nexts[e] (the mover's private state after it); returns their number (>= 1)."""
    _stub()


def private_chance(pub, params, i, nexts, probs):
    """At PRIVATE_CHANCE + s: private state i of s goes to nexts[e] with probability probs[e]."""
    _stub()


def private_action_rows(pub, params, seat, n_labels, kids, nexts, counts):
    """At a decision of ``seat``: :func:`private_actions` of each of its private states i
    at once, into ``kids[i]``, ``nexts[i]`` and ``counts[i]`` (the same entries). Like the
    per-state functions, it reads back only entries it wrote (tree._fill
    sets back to 0 only the part of them it keeps)."""
    _stub()


def private_chance_rows(pub, params, seat, nexts, probs, counts):
    """At PRIVATE_CHANCE + seat: :func:`private_chance` of each of its private states i at
    once, into ``nexts[i]``, ``probs[i]`` and ``counts[i]`` (the same entries; written, not
    read, as :func:`private_action_rows`)."""
    _stub()


def chance_outcomes(pub, params, codes, probs):
    """At a public chance node: outcome codes and their probabilities; returns their number."""
    _stub()


def chance_mask(pub, params, outcome, seat, out):
    """At a public chance node: the outcome's factor for each private state of ``seat``."""
    _stub()


def apply_action(pub, params, action, out):
    """Writes the public state after a public label or chance outcome into ``out``."""
    _stub()


def terminal_payoff(pub, params, i, j):
    """Seat 0's payoff at a terminal when seat 0 holds i and seat 1 holds j."""
    _stub()


def terminal_values(pub, params, seat, opp, compat, out):
    """out[i] = sum_j compat(i, j) * u_seat(i, j) * opp[j] over the other seat's states j
    (``compat`` oriented seat 0 x seat 1)."""
    _stub()


def max_actions(params):
    """An upper bound on public labels and chance outcomes at a node."""
    _stub()


def max_depth(params):
    """An upper bound on the edges of a root-to-leaf path of the public tree."""
    _stub()


def public_of_history(state, params, out):
    """Writes the public state of a history state (of the history protocol) into ``out``."""
    _stub()


def private_of_history(state, params, seat):
    """``seat``'s private state at a history state (-1 before it is dealt)."""
    _stub()


# --- dispatch ----------------------------------------------------------------------------

@overload(num_private)
def _num_private(params, seat):
    f = _impl("num_private", params)
    if f is not None:
        return lambda params, seat: f(params, seat)


@overload(initial_weights)
def _initial_weights(params, seat, out):
    f = _impl("initial_weights", params)
    if f is not None:
        return lambda params, seat, out: f(params, seat, out)


@overload(initial_state)
def _initial_state(params):
    f = _impl("initial_state", params)
    if f is not None:
        return lambda params: f(params)


@overload(current_player)
def _current_player(pub, params):
    f = _impl("current_player", params)
    if f is not None:
        return lambda pub, params: f(pub, params)


@overload(legal_actions)
def _legal_actions(pub, params, out):
    f = _impl("legal_actions", params)
    if f is not None:
        return lambda pub, params, out: f(pub, params, out)


@overload(chance_outcomes)
def _chance_outcomes(pub, params, codes, probs):
    f = _impl("chance_outcomes", params)
    if f is not None:
        return lambda pub, params, codes, probs: f(pub, params, codes, probs)


@overload(apply_action)
def _apply_action(pub, params, action, out):
    f = _impl("apply_action", params)
    if f is not None:
        return lambda pub, params, action, out: f(pub, params, action, out)


@overload(terminal_payoff)
def _terminal_payoff(pub, params, i, j):
    f = _impl("terminal_payoff", params)
    if f is not None:
        return lambda pub, params, i, j: f(pub, params, i, j)


@overload(max_actions)
def _max_actions(params):
    f = _impl("max_actions", params)
    if f is not None:
        return lambda params: f(params)


@overload(max_depth)
def _max_depth(params):
    f = _impl("max_depth", params)
    if f is not None:
        return lambda params: f(params)


@overload(public_of_history)
def _public_of_history(state, params, out):
    f = _impl("public_of_history", params)
    if f is not None:
        return lambda state, params, out: f(state, params, out)


@overload(private_of_history)
def _private_of_history(state, params, seat):
    f = _impl("private_of_history", params)
    if f is not None:
        return lambda state, params, seat: f(state, params, seat)


@overload(compatible)
def _compatible(params, i, j):
    if not _ours(params):
        return None
    f = _impl("compatible", params)
    if f is not None:
        return lambda params, i, j: f(params, i, j)
    return lambda params, i, j: 1.0


@overload(max_private_actions)
def _max_private_actions(params):
    if not _ours(params):
        return None
    f = _impl("max_private_actions", params) or _impl("max_actions", params)
    return lambda params: f(params)


@overload(private_actions)
def _private_actions(pub, params, i, n_labels, kids, nexts):
    if not _ours(params):
        return None
    f = _impl("private_actions", params)
    if f is not None:
        return lambda pub, params, i, n_labels, kids, nexts: f(pub, params, i, n_labels, kids,
                                                               nexts)

    def every_label(pub, params, i, n_labels, kids, nexts):  # no private transitions
        for k in range(n_labels):
            kids[k] = k
            nexts[k] = i
        return n_labels
    return every_label


@overload(private_chance)
def _private_chance(pub, params, i, nexts, probs):
    if not _ours(params):
        return None
    f = _impl("private_chance", params)
    if f is not None:
        return lambda pub, params, i, nexts, probs: f(pub, params, i, nexts, probs)
    return lambda pub, params, i, nexts, probs: 0  # none: the enumerator refuses the node


@overload(private_action_rows)
def _private_action_rows(pub, params, seat, n_labels, kids, nexts, counts):
    if not _ours(params):
        return None
    f = _impl("private_action_rows", params)
    if f is not None:
        return lambda pub, params, seat, n_labels, kids, nexts, counts: f(
            pub, params, seat, n_labels, kids, nexts, counts)

    def state_by_state(pub, params, seat, n_labels, kids, nexts, counts):
        for i in range(num_private(params, seat)):
            counts[i] = private_actions(pub, params, i, n_labels, kids[i], nexts[i])
    return state_by_state


@overload(private_chance_rows)
def _private_chance_rows(pub, params, seat, nexts, probs, counts):
    if not _ours(params):
        return None
    f = _impl("private_chance_rows", params)
    if f is not None:
        return lambda pub, params, seat, nexts, probs, counts: f(pub, params, seat, nexts,
                                                                 probs, counts)

    def state_by_state(pub, params, seat, nexts, probs, counts):
        for i in range(num_private(params, seat)):
            counts[i] = private_chance(pub, params, i, nexts[i], probs[i])
    return state_by_state


@overload(chance_mask)
def _chance_mask(pub, params, outcome, seat, out):
    if not _ours(params):
        return None
    f = _impl("chance_mask", params)
    if f is not None:
        return lambda pub, params, outcome, seat, out: f(pub, params, outcome, seat, out)

    def ones(pub, params, outcome, seat, out):
        for i in range(out.shape[0]):
            out[i] = 1.0
    return ones


@overload(terminal_values)
def _terminal_values(pub, params, seat, opp, compat, out):
    if not _ours(params):
        return None
    f = _impl("terminal_values", params)
    if f is not None:
        return lambda pub, params, seat, opp, compat, out: f(pub, params, seat, opp, compat,
                                                             out)
    payoff = _impl("terminal_payoff", params)

    def every_pair(pub, params, seat, opp, compat, out):  # O(n0 * n1): the generic fallback
        for i in range(out.shape[0]):
            acc = 0.0
            for j in range(opp.shape[0]):
                w = opp[j]
                if w == 0.0:
                    continue
                if seat == 0:
                    c = compat[i, j]
                    if c != 0.0:
                        acc += c * w * payoff(pub, params, i, j)
                else:
                    c = compat[j, i]
                    if c != 0.0:
                        acc -= c * w * payoff(pub, params, j, i)
            out[i] = acc
    return every_pair
