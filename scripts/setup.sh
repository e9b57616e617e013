#!/usr/bin/env bash
# Everything a fresh machine needs before the app, the CLI or the tests can run: dependencies
# (better-sqlite3 built from source for this Node; no Electron/Playwright downloads) and the build.
# Idempotent: a second run only rebuilds.
set -euo pipefail
cd "$(dirname "$0")/.."

export ELECTRON_SKIP_BINARY_DOWNLOAD=1
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

if [ ! -d node_modules ] || [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing dependencies (npm ci; better-sqlite3 builds from source, ~1-2 min)"
  npm ci --no-audit --no-fund
fi

# package.json's allowScripts approves better-sqlite3's install script; if a previous install
# skipped it anyway, build it now.
if ! node -e "new (require('better-sqlite3'))(':memory:').close()" 2>/dev/null; then
  echo "setup: building better-sqlite3 for $(node --version)"
  npm rebuild better-sqlite3
fi

bash scripts/build-native.sh || exit 1

echo "setup: building (electron-vite: main + CLI + workers, preload, renderer)"
npx electron-vite build >/dev/null
echo "setup: done"
