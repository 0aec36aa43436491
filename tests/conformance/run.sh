#!/usr/bin/env bash
# Schema conformance (issue 21): schemathesis, from PyPI, sends generated requests to every
# operation of openapi/warlog.openapi.json on a running server (a throw-away database) and
# checks that no answer is a 5xx and every answer matches the document. Bounded: a few
# examples per operation, a fixed seed, so a red run can be repeated.
set -euo pipefail
cd "$(dirname "$0")/../.."
examples="${WARLOG_CONFORMANCE_EXAMPLES:-25}"
venv="${WARLOG_CONFORMANCE_VENV:-target/conformance-venv}"
if [ ! -x "$venv/bin/schemathesis" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "schemathesis==3.39.16" "hypothesis==6.127.9"
fi
export WARLOG_ODDS_PER_MINUTE=0
. tests/serve.sh
start_server conformance target/conformance-server.log
token="$admin"
"$venv/bin/schemathesis" run openapi/warlog.openapi.json \
  --base-url "$base" \
  --experimental=openapi-3.1 \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --hypothesis-max-examples "$examples" \
  --hypothesis-seed 20261125 \
  --hypothesis-derandomize \
  --header "Authorization: Bearer $token" \
  --no-color
