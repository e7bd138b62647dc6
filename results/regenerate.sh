#!/usr/bin/env bash
# Regenerate the committed results: solve each enumerable Agent Hunter preset with CFR+ to
# exploitability <= 1e-4, then write its strategy report.
#   bash results/regenerate.sh [PRESET ...]      (default: tiny mini small)
# Needs spycfr installed (pip install -e .); set SPYCFR to use another executable.
set -euo pipefail
cd "$(dirname "$0")"
SPYCFR=${SPYCFR:-spycfr}
presets=("$@")
[ ${#presets[@]} -gt 0 ] || presets=(tiny mini small)
for preset in "${presets[@]}"; do
  "$SPYCFR" solve agent-hunter --preset "$preset" --algorithm cfr+ \
    --target-exploitability 1e-4 --check-every 100 -o "$preset" --overwrite
  "$SPYCFR" report "$preset" -o "$preset/report.md"
done
