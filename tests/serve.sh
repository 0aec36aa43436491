# Sourced by the scripts that test a running server (tests/conformance/run.sh,
# tests/clients/run.sh): builds warlog, makes an admin token, starts `warlog serve` on a
# free port over a throw-away database, waits until it is ready, and stops it and drops the
# database on exit. Sets $port, $base and $admin; the caller may run more `warlog` commands
# against the same database ($WARLOG_DATABASE) before or after.
# Usage: start_server NAME LOGFILE
start_server() {
  local name="$1" log="$2"
  cargo build --quiet -p warlog
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  base="http://127.0.0.1:$port"
  database="warlog_${name}_$$"
  export WARLOG_DATABASE="$database" WARLOG_BIND="127.0.0.1:$port"
  admin=$(./target/debug/warlog token create --role admin --name "$name" 2>/dev/null | tail -n 1)
  ./target/debug/warlog serve >"$log" 2>&1 &
  server=$!
  trap stop_server EXIT
  for _ in $(seq 1 100); do
    if curl -fsS "$base/readyz" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  echo "warlog did not become ready; its log:"; cat "$log"; return 1
}

stop_server() {
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  psql -h 127.0.0.1 -U postgres -q -c "DROP DATABASE IF EXISTS $database WITH (FORCE)" postgres \
    >/dev/null 2>&1 || true
}
