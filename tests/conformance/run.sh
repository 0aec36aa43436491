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
cargo build --quiet -p warlog
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
database="warlog_conformance_$$"
export WARLOG_DATABASE="$database" WARLOG_BIND="127.0.0.1:$port" WARLOG_ODDS_PER_MINUTE=0
token=$(./target/debug/warlog token create --role admin --name conformance 2>/dev/null | tail -n 1)
./target/debug/warlog serve >target/conformance-server.log 2>&1 &
server=$!
cleanup() {
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  psql -h 127.0.0.1 -U postgres -q -c "DROP DATABASE IF EXISTS $database WITH (FORCE)" postgres \
    >/dev/null 2>&1 || true
}
trap cleanup EXIT
for _ in $(seq 1 100); do
  if curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then break; fi
  sleep 0.2
done
"$venv/bin/schemathesis" run openapi/warlog.openapi.json \
  --base-url "http://127.0.0.1:$port" \
  --experimental=openapi-3.1 \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --hypothesis-max-examples "$examples" \
  --hypothesis-seed 20261125 \
  --hypothesis-derandomize \
  --header "Authorization: Bearer $token" \
  --no-color
