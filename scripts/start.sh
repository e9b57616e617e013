#!/usr/bin/env bash
# `npm start`: set-up and the build (scripts/setup.sh, which never downloads Electron), then the
# desktop app — installing the Electron binary first when it is missing — or, where it cannot run,
# the CLI and web mode, with the reason on one line (scripts/open-app.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec bash scripts/open-app.sh "$@"
