#!/usr/bin/env bash
# The browser tests drive Debian's Chromium (Playwright's own browser download is not possible here).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "setup: installing Debian chromium for the browser tests"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  echo "setup: /usr/bin/chromium is missing; install it (apt-get install chromium) to run the browser tests" >&2
  exit 1
fi
