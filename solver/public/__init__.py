"""The public tree: the public-state protocol (``protocol``, at the engine's layer: games
implement it) and the range-vector engine over it (enumerator, kernels, solver)."""
