// `bijotel verify-continuity`: the segments' verdicts and their joins, in Python BIJOTEL's layout.
import type { ContinuityResult, ContinuitySegment } from '../../../shared/verify-types'
import { verifyContinuity } from '../../audit/continuity'
import { parseSecrets } from '../../chain/keys'
import { parse, UsageError } from '../args'
import type { Run } from '../command'
import { SECRET_OPTIONS, secretInputsFrom } from '../secret-sources'
import { toJson } from '../format'
import { printable } from '../../../shared/printable'
import { EXIT } from './verify-continuity-info'

/** Python prints None for what it does not know. */
const py = (v: number | string | null): string => (v === null ? 'None' : String(v))

function segmentLine(s: ContinuitySegment): string {
  // Paths and reasons as the client gave them, escaped: a newline in one cannot print a line of ours.
  const head = `  ${printable(s.db_path)} — ${py(s.count)} entries, seq ${py(s.first_seq)}-${py(s.last_seq)} — `
  return head + (s.valid ? 'VALID' : `INVALID (${printable(String(s.reason))})`)
}

export function continuityText(r: ContinuityResult): { out: string; err: string } {
  const lines = ['Segments:', ...r.segments.map(segmentLine), '', 'Boundaries:']
  for (const b of r.boundaries) {
    lines.push(`  ${printable(b.from_db)} → ${printable(b.to_db)}: ${b.matches ? 'OK' : 'BREAK'}`)
    const o = b.overlap
    if (b.matches) {
      if (o) lines.push(`    overlap: both hold seqs ${o.from_seq}-${o.to_seq}, the same rows (counted once)`)
      continue
    }
    if (o) lines.push(`    expected (prev segment's hmac at seq ${o.from_seq - 1}): ${py(b.expected)}`)
    else lines.push(`    expected (prev segment's last hmac): ${py(b.expected)}`)
    lines.push(`    actual   (next segment's first prev):  ${py(b.actual)}`)
    if (b.reason) lines.push(`    reason: ${printable(b.reason)}`)
  }
  lines.push('')
  if (!r.hmac_checked) lines.push('HMACs not checked (no secret given): hashes, links and seqs only.')
  if (r.valid) {
    // Seqs two segments both hold are one row each (their boundary found the same rows).
    const shared = r.boundaries.reduce(
      (n, b) => n + (b.overlap ? b.overlap.to_seq - b.overlap.from_seq + 1 : 0),
      0,
    )
    const total = r.segments.reduce((n, s) => n + (s.count ?? 0), 0) - shared
    lines.push(`Full chain: ${total} entries across ${r.segments.length} segments, CONTINUOUS.`)
  }
  return {
    out: lines.join('\n') + '\n',
    err: r.valid ? '' : 'Continuity verification FAILED — at least one segment or boundary is invalid.\n',
  }
}

export const run: Run = async (argv, io) => {
  const { values, positionals } = parse(argv, { json: { type: 'boolean' }, ...SECRET_OPTIONS }, true)
  if (positionals.length === 0) throw new UsageError('give one or more chain DBs, oldest segment first')
  const keys = parseSecrets(await secretInputsFrom(values, io, { useEnv: true }))
  const result = await verifyContinuity(positionals, keys, {
    env: io.env,
    onSegment: (i, n) => io.progress(`verifying segment ${i + 1} of ${n}`),
  })
  io.progress(null)
  if (values['json']) io.out(toJson(result) + '\n')
  else {
    const text = continuityText(result)
    io.out(text.out)
    if (text.err) io.err(text.err)
  }
  return result.valid ? EXIT.continuous : EXIT.broken
}
