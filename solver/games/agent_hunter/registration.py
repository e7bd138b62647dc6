"""Agent Hunter on the numba game protocol (:mod:`spycfr.engine.protocol`): the rules, the
information abstraction (rules.py) and the heuristic players (heuristic.py), registered for
the params class; the package imports this module, so any import of the game registers it."""

from __future__ import annotations

from spycfr.engine import protocol
from spycfr.games.agent_hunter import rules as R
from spycfr.games.agent_hunter.heuristic import heuristic_policy, styled_heuristic
from spycfr.tree import CHANCE

assert CHANCE not in (0, 1)  # the two players' codes of TO_MOVE
protocol.register(
    R.AgentHunterParams, initial_state=R.initial_state, current_player=R.protocol_player,
    legal_actions=R.legal_actions, chance_outcomes=R.no_chance_outcomes,
    apply_action=R.apply_action, observation=R.observation, returns_p1=R.returns_p1,
    max_actions=R.protocol_max_actions, max_depth=R.protocol_max_depth,
    abstraction_key=R.abstraction_key,
    heuristic_policy=heuristic_policy, styled_heuristic=styled_heuristic,
)
