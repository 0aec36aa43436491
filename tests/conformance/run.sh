#!/usr/bin/env bash
# Schema conformance (issues 21 and 32): schemathesis, from PyPI, sends generated requests
# to every operation of openapi/warlog.openapi.json on a running server (a throw-away
# database, given players, a tournament and games by seed.py, whose ids
# schemathesis.toml hands on) and checks that no answer is a 5xx and every answer matches
# the document: its status, content type, headers and body. Valid and invalid inputs both
# (`--mode all`), so the refusals are checked too. Bounded and repeatable: a few examples
# per operation, deterministic generation (the same cases every run, so no seed is
# needed), one worker, nothing kept between runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
version=4.32.5
examples="${WARLOG_CONFORMANCE_EXAMPLES:-25}"
venv="${WARLOG_CONFORMANCE_VENV:-target/conformance-venv-$version}"
if [ ! -x "$venv/bin/schemathesis" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "schemathesis==$version"
fi
export WARLOG_ODDS_PER_MINUTE=0
. tests/serve.sh
start_server conformance target/conformance-server.log
token="$admin"
eval "$(python3 tests/conformance/seed.py "$base" "$token")"
export WARLOG_GAME="$game" WARLOG_TOURNAMENT="$tournament"
"$venv/bin/schemathesis" --config-file tests/conformance/schemathesis.toml \
  run openapi/warlog.openapi.json \
  --url "$base" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
  --mode all \
  --max-examples "$examples" \
  --generation-deterministic \
  --workers 1 \
  --header "Authorization: Bearer $token" \
  --no-color
