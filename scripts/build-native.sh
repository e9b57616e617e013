#!/usr/bin/env bash
# Builds the optional native row prover (native/, a Node-API addon: the per-row proof of a clean row
# and the page walks; its SHA-256 and HMAC are OpenSSL's, found at run time, never its own code).
# Node-API is ABI-stable: the same build loads in Node and in Electron. Without it (no compiler, another platform) everything still works, slower:
# this script then warns and exits 0, unless BIJOTEL_REQUIRE_NATIVE=1 (the test command sets it).
set -uo pipefail
cd "$(dirname "$0")/../native"

out=build/Release/bijotel_native.node
if [ -f "$out" ] && [ -z "$(find src binding.gyp -newer "$out" -print -quit)" ]; then
  exit 0 # up to date
fi

# Build against the headers of the Node that runs this (a Debian/Homebrew Node ships them under
# <prefix>/include/node); otherwise node-gyp fetches them itself.
args=()
prefix="$(dirname "$(dirname "$(node -p 'process.execPath')")")"
[ -f "$prefix/include/node/node_api.h" ] && args+=("--nodedir=$prefix")

echo "setup: building the native row prover (node-gyp)"
if ! ../node_modules/.bin/node-gyp rebuild "${args[@]}" >build.log 2>&1; then
  tail -n 20 build.log >&2
  if [ "${BIJOTEL_REQUIRE_NATIVE:-}" = "1" ]; then
    echo "setup: the native row prover did not build (native/build.log)" >&2
    exit 1
  fi
  echo "setup: the native row prover did not build (native/build.log); verification runs in JavaScript" >&2
fi
exit 0
