"""Search while playing: belief tracking over the public tree, safe re-solving of public
subgames with leaf value functions, and the measurement of the re-solving agent."""
