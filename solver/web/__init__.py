"""The players' workbench: a local web app over run, sweep and team directories (strategy
browser, openings, reports, play, reviews), above the analysis layer."""
