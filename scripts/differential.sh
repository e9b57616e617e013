#!/usr/bin/env bash
# Long differential run (issue 23): the direct reader against SQLite on seeded mutants of generated
# chain folders, with many more cases than the suite's short run; on every third mutant, recovery's
# reading of the live pages (its carving path) against SQLite's rows too (issue 33).
#
#   scripts/differential.sh 5000            # 5000 cases, seed from the clock
#   DIFF_SEED=7 scripts/differential.sh 20000
#   DIFF_ONLY=record.type,page.header scripts/differential.sh 2000   # some mutations alone
#
# Prints the counts per mutation (same rows, declined, refused, SQLite errors, verdict pairs) and
# fails, listing the cases, if any mutant was read differently without a decline, any verdict said
# VALID over fewer rows than SQLite sees, or recovery read a live record or cell list otherwise than
# SQLite. A case is reproduced with its seed and number.
set -euo pipefail
cd "$(dirname "$0")/.."

CASES="${1:-5000}"
SEED="${DIFF_SEED:-$(date +%s)}"
echo "differential: $CASES cases, seed $SEED" >&2
BIJOTEL_DIFF_ONLY="${DIFF_ONLY:-}" BIJOTEL_DIFF_CASES="$CASES" BIJOTEL_DIFF_SEED="$SEED" BIJOTEL_DIFF_BUDGET_MS=$((CASES * 2000)) \
  npx vitest run test/main/chain/direct/differential.test.ts --reporter=verbose
