"""Variant sweeps: a grid of a game's variants, each solved into its own run directory on a
Dask cluster, gathered into one tidy table and a report."""
