#!/usr/bin/env bash
# The native addon's tests under AddressSanitizer and UndefinedBehaviorSanitizer: builds a sanitized
# addon in place of the release one (restored on exit), then runs the native tests and the
# hostile-input suites with the sanitizer runtimes preloaded. Any sanitizer report fails the run.
#
#   bash scripts/sanitize.sh                     # native tests, hostile, tamper and fuzz suites
#   bash scripts/sanitize.sh test/main/chain/addon     # just these test paths
#
# Linux with gcc and libasan/libubsan; not part of `npm test` (≈3× slower, and the CLI suites it
# runs drop their address-space limit, which ASan's shadow memory cannot live under).
set -euo pipefail
cd "$(dirname "$0")/.."
release=native/build/Release/bijotel_native.node
[ -f "$release" ] || bash scripts/build-native.sh
backup=$(mktemp)
cp "$release" "$backup"
restore() { cp "$backup" "$release"; rm -f "$backup"; }
trap restore EXIT

include="$(dirname "$(dirname "$(node -p 'process.execPath')")")/include/node"
gcc -shared -fPIC -O1 -g -std=c11 -DNAPI_VERSION=8 -fsanitize=address,undefined -fno-sanitize-recover=undefined \
  -fno-omit-frame-pointer -I"$include" native/src/*.c -o "$release"

paths=("$@")
[ ${#paths[@]} -gt 0 ] || paths=(test/main/chain/addon test/main/reliability/hostile.test.ts test/main/reliability/tamper.test.ts test/main/reliability/fuzz.test.ts)
log=$(mktemp)
LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)" \
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  BIJOTEL_SANITIZE=1 npx vitest run "${paths[@]}" --pool=forks 2>&1 | tee "$log" | grep -E "Test Files|Tests " || true
status=${PIPESTATUS[0]}
if grep -qE "runtime error|ERROR: AddressSanitizer" "$log"; then
  grep -E -A12 "runtime error|ERROR: AddressSanitizer" "$log" | head -60
  status=1
fi
rm -f "$log"
exit "$status"
