#!/usr/bin/env bash
# The second half of `npm start` (after set-up and the build): the desktop app where it can run.
# Set-up never downloads Electron (so `npm test` and CI need no network but the npm registry); here,
# when the Electron binary is missing, it is installed once with Electron's own installer
# (node_modules/electron/install.js, which downloads it). Only when that fails (no network, a proxy,
# ELECTRON_SKIP_BINARY_DOWNLOAD set) or no window can be opened (no display) does it fall back,
# saying why in one line: the CLI on the bundled sample chain, then the same UI in web mode
# (BIJOTEL_NO_SERVE=1 stops after the CLI).
set -euo pipefail
cd "$(dirname "$0")/.."

SAMPLE=resources/sample-chain.db
SECRET_FILE=resources/sample-chain.secret.txt

# Whether the electron package finds its binary (its index.js reads path.txt, written by install.js).
electron_binary() {
  node -e "const p = require('electron'); process.exit(require('fs').existsSync(p) ? 0 : 1)" 2>/dev/null
}

# The installer's error in one line: its message, not its stack.
one_line() {
  grep -v '^[[:space:]]*at ' "$1" | grep -m1 -v '^[[:space:]]*$' | tr -d '\r' | cut -c1-200 || true
}

reason=""
if ! electron_binary; then
  if [ -n "${ELECTRON_SKIP_BINARY_DOWNLOAD:-}" ]; then
    reason="no Electron binary, and ELECTRON_SKIP_BINARY_DOWNLOAD is set"
  else
    version=$(node -p "require('electron/package.json').version")
    echo "start: installing the Electron binary $version (once; Electron's installer downloads it)"
    log=$(mktemp)
    limit="${BIJOTEL_ELECTRON_DOWNLOAD_TIMEOUT:-900}"
    status=0
    if command -v timeout >/dev/null; then
      timeout "$limit" node node_modules/electron/install.js >"$log" 2>&1 || status=$?
    else
      node node_modules/electron/install.js >"$log" 2>&1 || status=$?
    fi
    if [ "$status" = "0" ] && electron_binary; then
      echo "start: Electron installed"
    elif [ "$status" = "124" ]; then
      reason="the Electron download did not finish within ${limit}s"
    else
      why=$(one_line "$log")
      reason="the Electron download failed: ${why:-installer exit status $status}"
    fi
    rm -f "$log"
  fi
fi

if [ -z "$reason" ] && [ "$(uname -s)" = "Linux" ] && [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  reason="no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset)"
fi

if [ -z "$reason" ]; then
  # Chromium refuses to start as root with its sandbox on; the app's renderer sandbox stays on.
  if [ "$(id -u)" = "0" ]; then exec npx electron . --no-sandbox "$@"; fi
  exec npx electron . "$@"
fi

echo "start: desktop app not started ($reason); running the CLI and web mode instead."
echo
SECRET=$(cat "$SECRET_FILE" 2>/dev/null || true)
echo "\$ bin/bijotel verify --db $SAMPLE --secret-hex <sample secret>"
bin/bijotel verify --db "$SAMPLE" --secret-hex "$SECRET" || true
echo
echo "\$ bin/bijotel integrity --db $SAMPLE"
bin/bijotel integrity --db "$SAMPLE" || true
echo
if [ "${BIJOTEL_NO_SERVE:-}" = "1" ]; then exit 0; fi
echo "Serving the auditor UI (web mode); open the URL below in a browser, Ctrl+C to stop."
exec bin/bijotel serve --db "$SAMPLE" --port "${PORT:-8080}" --open-root "$(pwd)/resources"
