#!/usr/bin/env bash
# The page test's browser (pages.mjs), with axe-core and playwright-core at the versions
# package-lock.json pins: installed here by `npm ci` on the first run, and again only when
# the lock file changes. No install script runs and no browser is downloaded: pages.mjs
# drives the Chromium given as the first argument.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
stamp=node_modules/.installed-from
# Two page tests start at once: one installs, the other waits for it.
exec 9<package-lock.json
flock 9
lock="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$lock" ]; then
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2
  echo "$lock" >"$stamp"
fi
flock -u 9
exec node pages.mjs "$@"
