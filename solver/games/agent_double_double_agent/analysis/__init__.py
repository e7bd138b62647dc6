"""Agent Double Double Agent's sections of the strategy report (`report`) and their figures."""
