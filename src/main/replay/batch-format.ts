// A replay batch as it is printed: each line's verdict as the single-entry command prints it
// (./format.ts) under a header naming the line, and the summary. The JSON objects are what
// `bijotel replay --batch --json` prints and `POST /replay/verify-batch` streams, one a line.
import type { ReplayBatchItem, ReplayBatchStatus, ReplayBatchSummary } from '../../shared/replay-types'
import { replayJson, replayText } from './format'
import { BATCH_STATUSES } from './batch'
import { printable } from '../../shared/printable'

/** The line's object: where it came from and its status, then the single-entry JSON of its verdict. */
export function batchItemJson(item: ReplayBatchItem, keysGiven: boolean): Record<string, unknown> {
  const head: Record<string, unknown> = {
    line: item.line,
    name: item.name,
    seq: item.seq,
    status: item.status,
  }
  if (item.check === null) return { ...head, error: item.reason }
  const c = item.check
  return {
    ...head,
    ...replayJson(c, { row: keysGiven, prompt: c.prompt_detail !== null || c.prompt_match !== null }),
    source_sha256: c.source.sha256_of_bytes,
    source_bytes: c.source.bytes,
    source_mode: c.source.mode,
  }
}

export function batchItemText(item: ReplayBatchItem, keysGiven: boolean, raw: boolean): string {
  // The line's name (a client's file name) and a bad line's reason (quoting its text) as printable.
  const head = `--- line ${item.line}: ${printable(item.name)} ---\n`
  if (item.check === null)
    return `${head}${item.status === 'seq_missing' ? 'SEQ MISSING' : 'BAD LINE'}: ${printable(item.reason ?? '')}\n`
  const c = item.check
  const prompt = c.prompt_detail !== null || c.prompt_match !== null
  return head + replayText(c, { row: keysGiven, prompt, raw: raw && c.source.kind === 'file' })
}

const WORDS: Record<ReplayBatchStatus, string> = {
  matched: 'matched',
  mismatch_seeded: 'mismatched, seed recorded (deterministic)',
  mismatch_unseeded: 'mismatched, no seed recorded (drift expected)',
  no_metadata: 'no replay metadata',
  row_not_verified: 'row does not verify',
  prompt_differs: 'output matched, prompt differs',
  seq_missing: 'seq missing from the chain',
  bad_line: 'bad line (not checked)',
}

export function summaryJson(s: ReplayBatchSummary): Record<string, unknown> {
  return { summary: { lines: s.lines, ...s.counts }, models: s.models, exit: s.exit }
}

export function summaryText(s: ReplayBatchSummary): string {
  const width = Math.max(...BATCH_STATUSES.map((k) => WORDS[k].length)) + 2
  const lines = [`=== Replay batch: ${s.lines} line${s.lines === 1 ? '' : 's'} ===`]
  for (const k of BATCH_STATUSES) lines.push(`  ${(WORDS[k] + ':').padEnd(width)}${s.counts[k]}`)
  const models = Object.keys(s.models)
  if (models.length > 0) {
    lines.push('  per model (sealed model_version):')
    for (const m of models) {
      const parts = BATCH_STATUSES.filter((k) => (s.models[m]![k] ?? 0) > 0).map(
        (k) => `${s.models[m]![k]} ${k}`,
      )
      // A sealed model_version holding a newline printed its own `Result:` line under the real one.
      lines.push(`    ${printable(m)}: ${parts.join(', ')}`)
    }
  }
  lines.push(
    s.exit === 0
      ? 'Result: every deterministic entry matched (exit 0)'
      : s.exit === 3
        ? 'Result: FAILED — a seeded mismatch, an entry without replay metadata, a row that does not verify or a differing prompt (exit 3)'
        : 'Result: some lines could not be checked (exit 1)',
  )
  return lines.join('\n') + '\n'
}
