#!/usr/bin/env bash
# Regenerates the golden fixtures (fixtures/golden/<model>.fixture.json) of every bundled model in
# fixtures/models/manifest.json (samples and seed from the manifest, bin50 certified at bin100),
# then audits against them. Commit the regenerated files together with the model change.
set -euo pipefail
cd "$(dirname "$0")/.."
# The audit's own script (setup, the g++ build of the command in build-run/), with --update-golden;
# exit status 1 (discrepancies) is the audit's finding, not a failure to regenerate.
bash scripts/run.sh --update-golden --out "${OUT:-audit-out}" "$@" || [ $? -eq 1 ]
