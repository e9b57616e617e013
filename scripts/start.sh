#!/usr/bin/env bash
# Open the app. Where the Electron binary cannot be installed (as on this project's build machines),
# run the CLI on the bundled sample chain and serve the same UI in web mode instead.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

SAMPLE=resources/sample-chain.db
SECRET_FILE=resources/sample-chain.secret.txt
if [ -x node_modules/electron/dist/electron ] || [ -d node_modules/electron/dist/Electron.app ]; then
  exec npx electron . "$@"
fi

echo "Electron binary not installed (ELECTRON_SKIP_BINARY_DOWNLOAD): running the CLI and web mode."
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
