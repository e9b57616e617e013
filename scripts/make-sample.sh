#!/usr/bin/env bash
# Regenerate the bundled sample chain and its replay samples (deterministic: same seed, same rows):
#   resources/sample-chain.db           300 rows sealed with the public demo secret
#   resources/sample-chain.secret.txt   that secret, hex (demo only — never use it for real chains)
#   resources/sample-replay-*.txt       replayed outputs for some rows (match, mismatch, drift, CRLF,
#   resources/sample-replay.json        no metadata) and what each one is expected to give
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f out/main/cli.js ] || npm run build
COUNT="${COUNT:-300}"
SEED="${SEED:-bijotel-demo}"
# The demo secret is the 32 ASCII bytes "bijotel-demo-secret-not-for-prod".
SECRET=62696a6f74656c2d64656d6f2d7365637265742d6e6f742d666f722d70726f64
mkdir -p resources
rm -f resources/sample-replay-*.txt resources/sample-replay.json
bin/bijotel demo --db resources/sample-chain.db --count "$COUNT" --seed "$SEED" --secret-hex "$SECRET" \
  --replay-samples resources --force
printf '%s\n' "$SECRET" > resources/sample-chain.secret.txt
bin/bijotel verify --db resources/sample-chain.db --secret-hex "$SECRET"
