#!/usr/bin/env bash
# Generated clients (issue 17), run by .ci/run: from openapi/warlog.openapi.json,
# openapi-python-client (PyPI) generates a Python client that plays a short Cut-Throat game
# against a running server (tests/clients/play.py), whose export `warlog audit` then checks;
# openapi-typescript with openapi-fetch (npm) generates a TypeScript client, and tsc
# type-checks a script that makes the same calls (tests/clients/typescript/play.ts).
# Everything generated or installed lives under target/clients/.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
work="target/clients"
mkdir -p "$work"

# --- the Python client
venv="$work/venv"
if [ ! -x "$venv/bin/openapi-python-client" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "openapi-python-client==0.29.1"
fi
rm -rf "$work/python"
"$venv/bin/openapi-python-client" generate --path openapi/warlog.openapi.json \
  --output-path "$work/python" --meta none --config tests/clients/python-config.yaml >"$work/generate.log" 2>&1 \
  || { cat "$work/generate.log"; exit 1; }
if grep -q "Warning" "$work/generate.log"; then
  echo "openapi-python-client warned about the document:"; cat "$work/generate.log"; exit 1
fi
mkdir -p "$work/pythonpath" && rm -rf "$work/pythonpath/warlog_client"
mv "$work/python" "$work/pythonpath/warlog_client"

# --- the TypeScript client: generated and type-checked
ts="$work/typescript"
mkdir -p "$ts"
cp tests/clients/typescript/package.json tests/clients/typescript/package-lock.json \
  tests/clients/typescript/tsconfig.json tests/clients/typescript/play.ts "$ts/"
(cd "$ts" && npm ci --silent --no-audit --no-fund >/dev/null 2>&1 || npm ci --no-audit --no-fund)
(cd "$ts" && npx --no-install openapi-typescript "$root/openapi/warlog.openapi.json" -o warlog.d.ts >/dev/null \
  && npx --no-install tsc --noEmit -p tsconfig.json)
echo "TypeScript client generated and play.ts type-checked"

# --- a server on a throw-away database
. tests/serve.sh
start_server clients "$work/server.log"
gm=$(./target/debug/warlog token create --role gm --name gamemaster 2>/dev/null | tail -n 1)
# Each seated player's own token: a game its master played alone is not rated.
players=""
for handle in ann bob cat dan eve; do
  players="$players $handle=$(./target/debug/warlog token create --role player --name "$handle" 2>/dev/null | tail -n 1)"
done

PYTHONPATH="$work/pythonpath" "$venv/bin/python" tests/clients/play.py \
  "$base" "$admin" "$gm" "$work/game.ndjson" $players
./target/debug/warlog audit "$work/game.ndjson" >"$work/audit.txt"
echo "the exported game passes warlog audit"
