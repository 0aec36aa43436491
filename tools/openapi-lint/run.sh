#!/usr/bin/env bash
# Lints the OpenAPI document (default openapi/warlog.openapi.json) with Spectral
# (`spectral:oas`, .spectral.yaml) and Redocly CLI (`recommended`, redocly.yaml), both the
# versions package-lock.json pins; fails on any error either reports. The tools are
# installed here by `npm ci` on the first run, and again only when the lock file changes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
document="$(realpath "${1:-$here/../../openapi/warlog.openapi.json}")"
cd "$here"
# No telemetry, no update check: CI asks nothing of Redocly's servers. Neither tool needs
# an install script (the only one is a telemetry ping), so none runs.
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true SCARF_ANALYTICS=false
stamp=node_modules/.installed-from
lock="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$lock" ]; then
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
  echo "$lock" >"$stamp"
fi
failed=0
echo "-- Spectral (spectral:oas)"
node_modules/.bin/spectral lint --ruleset .spectral.yaml --fail-severity=error \
  --format=text "$document" || failed=1
echo
echo "-- Redocly (recommended)"
node_modules/.bin/redocly lint --config redocly.yaml --format=stylish "$document" || failed=1
exit "$failed"
