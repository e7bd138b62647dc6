"""Agent Avenue's sections of the strategy report (`report`) and their figures."""
