"""The games' sections of the strategy report: analysis code, one package per game, loaded by
the generic report through the plug-in's ``report_sections`` / ``team_sections`` strings.

Each game's sections count what happens in equilibrium play with the one reach-weighted
walk of :mod:`spycfr.analysis.sections.walk` and word it with :mod:`spycfr.analysis.markdown`.
"""
