// `bijotel verify`: verifies every row and prints the verdict. Loaded only when the command runs.
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
import type { Run } from '../command'
import { keyLabel, plural, seqSpan, toJson } from '../format'
import { throttle } from '../io'
import { nativeProverActive } from '../../native/row-prover'
import { EXIT } from './verify-info'
import { recoveryBlock } from './recovered-text'

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
  lines.push(...recoveryBlock(v.recovery, v.recovered ?? [], keys))
  return { out: lines.join('\n') + '\n', err }
}

export const run: Run = async (argv, io) => {
  const { values } = parse(argv, {
    db: { type: 'string' },
    json: { type: 'boolean' },
    prior: { type: 'string' },
    'no-recover': { type: 'boolean' },
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
    recover: values['no-recover'] !== true,
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
}
