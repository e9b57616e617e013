import { readFileSync } from 'node:fs'
import type { PriorHead, VerifyVerdict } from '../../../shared/verify-types'
import { AuditError } from '../../errors'
import { describeFinding, headlineReason } from '../../verify/describe'
import { keyInfo, parseSecrets } from '../../verify/secrets'
import { verifyFile } from '../../verify/file'
import {
  parse,
  RANGE_OPTIONS,
  rangeFrom,
  requireString,
  SECRET_OPTIONS,
  secretInputsFrom,
  UsageError,
} from '../args'
import type { Command } from '../command'
import { keyLabel, plural, seqSpan, toJson } from '../format'
import { throttle } from '../io'
import { nativeProverActive } from '../../native/row-prover'

export const EXIT = { valid: 0, unreadable: 1, usage: 2, broken: 3 } as const

const HELP = `usage: bijotel verify --db PATH (--secret-hex HEX | --secret-text TEXT)... [options]

Verify every row of a BIJOTEL chain.db: body hash, link to the previous row, HMAC under the candidate
keys, seq contiguity, and the unsealed columns against the sealed span body. Every finding is reported,
merged into ranges. The chain file is read in place, read-only, by the direct file reader (files it
declines are read by SQLite on a verified private copy); it is never modified.

options:
  --db PATH            chain.db to verify (its -wal file, if any, is read too)
  --secret-hex HEX     candidate key as hex (Python BIJOTEL); repeat for rotated keys
  --secret-text TEXT   candidate key as raw UTF-8 bytes (the Go collector's non-hex fallback); repeatable
                       (without either flag, BIJOTEL_HMAC_SECRET is read as hex)
  --range A:B          verify seq A..B (either side may be empty: 5:, :9)
  --last N             verify the last N rows
  --since YYYY-MM-DD   first row whose timestamp_ns is on or after that UTC day
  --until YYYY-MM-DD   last row whose timestamp_ns is on or before the end of that UTC day
  --prior FILE         an earlier verdict (this command's --json): fail if its head is gone (truncation)
  --json               print the verdict as JSON
  -h, --help           show this help

exit codes: 0 valid, 1 DB missing or not a readable chain, 2 argument or secret error, 3 broken`

function readPrior(path: string): PriorHead {
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'))
  } catch (e) {
    throw new UsageError(
      `--prior ${path}: cannot read a JSON verdict (${(e as Error).message.split('\n')[0]})`,
    )
  }
  const o = raw as { last_seq?: unknown; head_hmac?: unknown }
  if (
    typeof o?.last_seq !== 'number' ||
    !Number.isSafeInteger(o.last_seq) ||
    typeof o.head_hmac !== 'string'
  ) {
    throw new UsageError(`--prior ${path}: not a verdict (needs integer last_seq and string head_hmac)`)
  }
  return { last_seq: o.last_seq, head_hmac: o.head_hmac }
}

export function verdictText(
  v: VerifyVerdict,
  keys: ReturnType<typeof keyInfo>[],
): { out: string; err: string } {
  const lines: string[] = []
  let err = ''
  const ranged = v.range !== undefined
  if (v.valid) {
    if (ranged) {
      const span = v.first_seq === null ? 'seq None-None' : `seq ${v.first_seq}-${v.last_seq}`
      lines.push(`Chain segment VALID: ${span} (${v.entries} entries of ${v.range!.total_in_chain} total).`)
    } else {
      lines.push(`Chain VALID (${v.entries} entries).`)
    }
  } else {
    err = `Chain BROKEN at seq=${v.first_bad_seq}: ${headlineReason(v)}\n`
    lines.push(
      `Chain BROKEN: ${plural(v.findings.length, 'finding')} in ${plural(v.entries, 'entry', 'entries')}, first at seq=${v.first_bad_seq}.`,
    )
    lines.push('Findings:')
    for (const f of v.findings) {
      const extra = f.missing !== undefined ? `, ${f.missing} missing` : ''
      lines.push(
        `  ${f.kind.padEnd(19)} ${seqSpan(f.from_seq, f.to_seq)} (${plural(f.count, 'row')}${extra}): ${describeFinding(f)}`,
      )
    }
  }
  if (v.boundary && v.first_seq !== null && v.first_seq > 1) {
    const anchor =
      v.boundary.kind === 'predecessor'
        ? 'matches predecessor in same DB'
        : 'boundary — predecessor not in this DB (use verify-continuity to confirm cross-segment)'
    lines.push(
      `Boundary: prev_hash at seq=${v.boundary.seq} = ${v.boundary.prev_hash.slice(0, 16)}... (${anchor})`,
    )
  }
  if (v.prior_check) lines.push(`Prior head: ${v.prior_check.detail}`)
  const multiKey = keys.length > 1 || v.key_segments.length > 1
  if (multiKey && v.key_segments.length > 0) {
    lines.push('Key segments:')
    for (const s of v.key_segments) {
      lines.push(
        `  ${keyLabel(keys[s.key_index], s.key_index)} sealed ${seqSpan(s.from_seq, s.to_seq)} (${plural(s.count, 'row')})`,
      )
    }
    for (let i = 1; i < v.key_segments.length; i++) {
      const a = v.key_segments[i - 1]!
      const b = v.key_segments[i]!
      if (a.key_index !== b.key_index) {
        lines.push(
          `  rotation boundary at seq=${b.from_seq}: key #${a.key_index + 1} -> key #${b.key_index + 1}`,
        )
      }
    }
  }
  if (v.entries > 0 && keys.length > 0 && v.key_segments.length === 0) {
    lines.push('No candidate key reproduces any HMAC in this range: wrong secret, or every row resealed.')
  }
  return { out: lines.join('\n') + '\n', err }
}

export const verifyCommand: Command = {
  name: 'verify',
  summary: 'verify every row of a chain (hash, link, HMAC, seq, columns)',
  help: HELP,
  chainFileExit: EXIT.unreadable,
  async run(argv, io) {
    const { values } = parse(argv, {
      db: { type: 'string' },
      json: { type: 'boolean' },
      prior: { type: 'string' },
      ...SECRET_OPTIONS,
      ...RANGE_OPTIONS,
    })
    const db = requireString(values, 'db')
    const inputs = secretInputsFrom(values, io.env)
    if (inputs.length === 0) {
      throw new AuditError(
        'no_secret',
        'HMAC secret required. Provide via BIJOTEL_HMAC_SECRET env var or --secret-hex flag (or --secret-text for a raw secret).',
      )
    }
    const keys = parseSecrets(inputs)
    const range = rangeFrom(values)
    const prior = typeof values['prior'] === 'string' ? readPrior(values['prior']) : undefined
    const t0 = performance.now()
    const { verdict, reader, openMs } = await verifyFile(db, keys, {
      ...(range ? { range } : {}),
      ...(prior ? { prior } : {}),
      env: io.env,
      copy: {
        onProgress: throttle(250, (d, t) =>
          io.progress(`copying evidence ${Math.floor((100 * d) / Math.max(t, 1))}%`),
        ),
      },
      onProgress: throttle(250, (d, t) =>
        io.progress(`verifying ${Math.floor((100 * d) / Math.max(t, 1))}% (${d}/${t} rows)`),
      ),
    })
    io.progress(null)
    if (io.env['BIJOTEL_TIMING']) {
      const total = performance.now() - t0
      io.err(
        `timing: reader ${reader}, open ${openMs.toFixed(0)} ms, verify ${(total - openMs).toFixed(0)} ms, ` +
          `prover ${reader === 'direct' && nativeProverActive(io.env) ? 'native' : 'javascript'}\n`,
      )
    }
    if (values['json']) {
      io.out(toJson(verdict) + '\n')
    } else {
      const text = verdictText(verdict, keys.map(keyInfo))
      if (text.err) io.err(text.err)
      io.out(text.out)
    }
    return verdict.valid ? EXIT.valid : EXIT.broken
  },
}
