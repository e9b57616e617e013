// `bijotel regression` as the command table sees it; the code is in ./regression, loaded on use.
import type { CommandInfo } from '../command'
import { KEY_SOURCE_OPTIONS } from '../secret-help'

export const EXIT = { clean: 0, anomalies: 1, usage: 2, notVerified: 3 } as const

const HELP = `usage: bijotel regression --db PATH [--dimension DIM] [--model M] [--window 100] [--z-threshold 3.0] [--json]
                          [--secret-hex HEX | --secret-file PATH | ...]

F12 payload drift, as Python BIJOTEL's regression computes it: the rows of the last 50 seq numbers
scored against a baseline of the --window values before them (fewer than 5: no baseline, no
anomaly), by z-score (|z| >= --z-threshold) and IQR (outside Tukey's fences at 1.5 x IQR); a value
is an anomaly when both fire. Dimensions: input_tokens, output_tokens, cost (from the dated price
table), cache_ratio, reasoning_ratio, ttfc_ms. Nothing is verified (see bijotel verify).
Where no value of a dimension could have been flagged (no baseline, no value evaluated, a baseline
without spread, a z threshold of nan or inf), stdout still reads "no anomalies detected" as the
reference prints it, and a "note: [<dim>] not judged: <why>" line on stderr says so. The rows
whose values are used are checked (body hash, link to the previous row, and the HMAC when candidate
keys are given): when one does not hold, a note on stderr names it and the exit code is 3.

options:
  --db PATH            chain.db (read in place, read-only)
  --dimension DIM      one dimension (default: all six)
  --model M            only rows whose gen_ai.request.model is M (baseline and evaluated rows)
  --window N           baseline values per dimension (default 100)
  --z-threshold Z      z-score threshold (default 3.0)
  --json               the result as JSON (baselines, evaluated counts, anomaly records)
  --secret-hex HEX     candidate key as hex; repeatable (BIJOTEL_HMAC_SECRET is not read here)
  --secret-text TEXT   candidate key as raw UTF-8 bytes; repeatable
${KEY_SOURCE_OPTIONS}
  -h, --help           show this help

exit codes: 0 no anomalies, 1 anomalies, 2 DB missing or not a readable chain, or an argument
or key error (a bad dimension included), 3 a row whose value was used does not verify`

export const regressionInfo: CommandInfo = {
  name: 'regression',
  summary: 'F12 payload drift: z-score and IQR anomalies per dimension (tokens, cost, ratios, ttfc)',
  help: HELP,
  chainFileExit: EXIT.usage,
}
