#!/usr/bin/env bash
# Long reliability run: the CLI fuzzer (and optionally the tamper corpus) with many more cases than CI.
#
#   FUZZ_CASES=5000 scripts/fuzz.sh                 # 5000 fuzz cases, split over FUZZ_JOBS processes
#   FUZZ_CASES=20000 FUZZ_JOBS=4 FUZZ_SEED=7 scripts/fuzz.sh
#   TAMPER_CASES=3000 FUZZ_CASES=0 scripts/fuzz.sh  # only the tamper corpus
#
# Writes test-results/fuzz-long-summary.json (merged counts: tried, verdicts, clean errors, crashes)
# and, with TAMPER_CASES, test-results/tamper-summary.json. Crashing inputs are kept in
# test-results/fuzz-crashes/ for reproduction. Exit status is non-zero if any case crashed or a
# tamper case was missed or mislocated.
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_CASES="${FUZZ_CASES:-5000}"
FUZZ_JOBS="${FUZZ_JOBS:-$(node -e 'console.log(Math.max(1, require("os").availableParallelism()))')}"
FUZZ_SEED="${FUZZ_SEED:-$(date +%s)}"
TAMPER_CASES="${TAMPER_CASES:-0}"
TAMPER_SEED="${TAMPER_SEED:-$FUZZ_SEED}"

if [ ! -f out/main/cli.js ]; then
  echo "out/main/cli.js missing: building the CLI (npm run build)…" >&2
  npm run build >/dev/null
fi
mkdir -p test-results

status=0
if [ "$TAMPER_CASES" -gt 0 ]; then
  echo "tamper corpus: $TAMPER_CASES cases, seed $TAMPER_SEED" >&2
  TAMPER_CASES="$TAMPER_CASES" TAMPER_SEED="$TAMPER_SEED" \
    npx vitest run test/main/reliability/tamper.test.ts -t "seeded cases" --reporter=dot >test-results/tamper-long.log 2>&1 || status=1
  grep -h 'TAMPER-SUMMARY' test-results/tamper-long.log || { tail -40 test-results/tamper-long.log >&2; status=1; }
fi

if [ "$FUZZ_CASES" -gt 0 ]; then
  per=$(( (FUZZ_CASES + FUZZ_JOBS - 1) / FUZZ_JOBS ))
  echo "fuzz: $FUZZ_CASES cases in $FUZZ_JOBS job(s) of $per, base seed $FUZZ_SEED" >&2
  pids=()
  for j in $(seq 0 $((FUZZ_JOBS - 1))); do
    FUZZ_CASES="$per" FUZZ_SEED=$((FUZZ_SEED + j)) FUZZ_SUMMARY="test-results/fuzz-long-$j.json" \
      npx vitest run test/main/reliability/fuzz.test.ts --reporter=dot >"test-results/fuzz-long-$j.log" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || status=1; done
  node - "$FUZZ_JOBS" <<'EOF' || status=1
const fs = require('node:fs')
const jobs = Number(process.argv[2])
const keys = ['tried', 'verdicts', 'valid', 'broken', 'clean_errors', 'crashes']
const total = Object.fromEntries(keys.map((k) => [k, 0]))
const by = {}
const errors = {}
const crashes = []
const seeds = []
let maxMs = 0
let ms = 0
for (let j = 0; j < jobs; j++) {
  const f = `test-results/fuzz-long-${j}.json`
  if (!fs.existsSync(f)) {
    console.error(`job ${j} wrote no summary; see test-results/fuzz-long-${j}.log`)
    process.exitCode = 1
    continue
  }
  const s = JSON.parse(fs.readFileSync(f, 'utf8'))
  seeds.push(s.seed)
  for (const k of keys) total[k] += s[k]
  for (const [m, t] of Object.entries(s.by_mutation)) {
    by[m] ??= Object.fromEntries(keys.map((k) => [k, 0]))
    for (const k of keys) by[m][k] += t[k]
  }
  for (const [e, n] of Object.entries(s.errors)) errors[e] = (errors[e] ?? 0) + n
  crashes.push(...s.crash_samples)
  maxMs = Math.max(maxMs, s.max_case_ms)
  ms = Math.max(ms, s.duration_ms)
}
const line = `FUZZ-SUMMARY tried=${total.tried} verdicts=${total.verdicts} (valid=${total.valid} broken=${total.broken}) clean_errors=${total.clean_errors} crashes=${total.crashes} seeds=${seeds.join(',')} max_case_ms=${maxMs} ms=${ms}`
fs.writeFileSync('test-results/fuzz-long-summary.json', JSON.stringify({ line, ...total, seeds, by_mutation: by, errors, crash_samples: crashes, max_case_ms: maxMs, wall_ms: ms }, null, 2) + '\n')
console.log(line)
if (total.crashes > 0) process.exitCode = 1
EOF
fi
exit "$status"
