"""What the games' sections of the strategy report share. The sections themselves live with
each game (``spycfr.games.<game>.analysis``), loaded by the generic report through the
plug-in's ``report_sections`` / ``team_sections`` strings; they count what happens in
equilibrium play with the one reach-weighted walk of :mod:`spycfr.analysis.sections.walk`
and word it with :mod:`spycfr.analysis.markdown`.
"""
