#!/usr/bin/env bash
# All the tests, from a fresh machine: set-up, type check, lint, format, unit/integration tests
# (vitest, on real SQLite files and the shared fixtures), then the browser tests (Playwright in
# Debian Chromium against `bijotel serve`). Ends with one summary line: "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
# The native row prover must build here, and its tests must run, not skip.
export BIJOTEL_REQUIRE_NATIVE=1
bash scripts/setup.sh || exit 1
bash scripts/ensure-chromium.sh || exit 1
mkdir -p .test-reports
status=0

echo "== typecheck"; npx tsc --noEmit -p tsconfig.json || status=1
echo "== lint"; npx eslint . || status=1
echo "== format"; npx prettier --check . >/dev/null || { echo "prettier: files need formatting (npm run format)"; status=1; }

echo "== unit and integration tests (vitest)"
npx vitest run --reporter=default --reporter=json --outputFile.json=.test-reports/vitest.json || status=1

echo "== browser tests (playwright, Debian chromium)"
PLAYWRIGHT_JSON_OUTPUT_NAME=.test-reports/playwright.json npx playwright test --reporter=list,json 2>&1 | tee .test-reports/playwright.log
[ "${PIPESTATUS[0]}" = "0" ] || status=1

node scripts/summarize-tests.cjs .test-reports/vitest.json .test-reports/playwright.json || status=1
exit $status
