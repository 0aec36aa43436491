#!/usr/bin/env bash
# The first hour, checked: a fresh clone of this repository, in a network namespace of its
# own (no network, nothing on 5432) with only a PostgreSQL install, follows the README's
# "Run it" literally (follow_readme.py says how) and checks every answer.
#
# What differs from a newcomer's machine, and why:
# - XDG_DATA_HOME points into a scratch directory, so the private cluster it creates is
#   this run's and not the machine's (the README names that variable);
# - CARGO_INSTALL_ROOT likewise, with its bin/ first on PATH, as ~/.cargo/bin is;
# - the release profile is built at opt-level 0 into target/newcomer: a real release build
#   takes ten minutes more of CI; the README's build time was measured apart
#   (docs/benchmarks.md, "The first build");
# - cargo is offline: the namespace has no network, and the crates are in cargo's cache.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)

if [ "$(id -u)" != 0 ]; then
  echo "tests/newcomer/run.sh needs root: a network namespace (unshare --net), and the" \
       "private cluster run as the postgres user, as for a newcomer working as root" >&2
  exit 2
fi
for tool in unshare ip git python3 curl; do
  command -v "$tool" >/dev/null || { echo "tests/newcomer/run.sh needs $tool" >&2; exit 2; }
done

work=$(mktemp -d /tmp/warlog-newcomer.XXXXXX)
# The cluster runs as postgres, which must reach its directory.
chmod 755 "$work"
stop_leftovers() {
  local pid_file="$work/data/warlog/pg/postmaster.pid"
  if [ -f "$pid_file" ]; then
    pg_ctl_bin=$(command -v pg_ctl || ls /usr/lib/postgresql/*/bin/pg_ctl | tail -n 1)
    runuser -u postgres -- "$pg_ctl_bin" -D "$work/data/warlog/pg" -m immediate stop || true
  fi
  rm -rf "$work"
}
trap stop_leftovers EXIT

git clone -q "$repo" "$work/warlog"
echo "newcomer: a fresh clone of $(git -C "$work/warlog" rev-parse --short HEAD) in $work/warlog"

export XDG_DATA_HOME="$work/data"
export CARGO_INSTALL_ROOT="$work/cargo"
export PATH="$work/cargo/bin:$PATH"
export CARGO_TARGET_DIR="${WARLOG_NEWCOMER_TARGET:-$repo/target/newcomer}"
export CARGO_NET_OFFLINE=true
export CARGO_PROFILE_RELEASE_OPT_LEVEL=0
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=256
unset DATABASE_URL WARLOG_DATA_DIR WARLOG_BIND

unshare --net -- bash -c 'ip link set lo up && exec python3 "$@"' _ \
  "$repo/tests/newcomer/follow_readme.py" "$work/warlog" "$work"
