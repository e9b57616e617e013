// `bijotel verify`: verifies every row and prints the verdict. Loaded only when the command runs.
import { printable } from '../../../shared/printable'
import { existsSync } from 'node:fs'
import type { PriorHead, VerifyBoundary, VerifyVerdict } from '../../../shared/verify-types'
import { priorFrom, readReportFile } from '../../custody/report-file'
import { evidenceLine } from '../../chain/statement'
import { AuditError } from '../../base/errors'
import { describeFinding, headlineReason } from '../../verify/describe'
import { keyInfo, parseSecrets } from '../../chain/keys'
import { verifyFile } from '../../audit/verify-file'
import { keysSentence } from '../../../shared/key-words'
import { readSegments } from '../../audit/segments'
import { parse, RANGE_OPTIONS, rangeFlagsGiven, rangeFrom, requireString, UsageError } from '../args'
import { HintedError, type Run } from '../command'
import { SECRET_OPTIONS, secretInputsFrom } from '../secret-sources'
import { keyLabel, plural, seqSpan, toJson } from '../format'
import { throttle } from '../io'
import { nativeCryptoSource, nativeProverActive } from '../../chain/addon/row-prover'
import { EXIT } from './verify-info'
import { recoveryBlock } from './recovered-text'
import { refusingOtherChain } from './prior-refusal'

/** An earlier verdict (`--json`) or an exported report, JSON or HTML (issue 25). */
function readPrior(path: string): PriorHead {
  const label = `--prior ${path}`
  try {
    return priorFrom(readReportFile(path, label), label)
  } catch (e) {
    if (e instanceof AuditError) throw new UsageError(e.message)
    throw e
  }
}

/** The reference's no-secret sentence (§4.1), word for word; our hint goes on the next line. */
export const NO_SECRET = 'HMAC secret required. Provide via BIJOTEL_HMAC_SECRET env var or --secret-hex flag.'
export const NO_SECRET_HINT =
  '(or --secret-text for a raw secret; --secret-file PATH or --secret-stdin keep it out of the process list and shell history)'

/**
 * The reference's `Boundary:` line (§4.1): the first row's stored prev_hash and what it was checked
 * against. Where it does not equal the predecessor's hmac_hash (a row deleted between them), the
 * line says so instead of the reference's "matches".
 */
export function boundaryLine(b: VerifyBoundary): string {
  const head = `Boundary: prev_hash at seq=${b.seq} = ${b.prev_hash.slice(0, 16)}...`
  if (b.kind !== 'predecessor')
    return `${head} (boundary — predecessor not in this DB (use verify-continuity to confirm cross-segment))`
  const p = b.predecessor
  if (!p || p.hmac_hash === b.prev_hash) return `${head} (matches predecessor in same DB)`
  return `${head} (does NOT match predecessor seq=${p.seq} in same DB, whose hmac_hash is ${p.hmac_hash.slice(0, 16)}...)`
}

/** The `Keys:` line (issue 39): a wrong key, or a rotated key missing from a seq on. */
export function keysLines(v: VerifyVerdict, keys: ReturnType<typeof keyInfo>[]): string[] {
  const s = keysSentence(
    v,
    keys.map((k) => k.fingerprint),
  )
  return s === null ? [] : [`Keys: ${s}`]
}

/**
 * `ranged`: a range flag was given, even one that selects the whole chain (`--range :`): the
 * reference then prints the segment line.
 */
export function verdictText(
  v: VerifyVerdict,
  keys: ReturnType<typeof keyInfo>[],
  ranged = v.range !== undefined,
): { out: string; err: string } {
  const lines: string[] = []
  let err = ''
  if (v.valid) {
    if (ranged) {
      const span = v.first_seq === null ? 'seq None-None' : `seq ${v.first_seq}-${v.last_seq}`
      // No range left after resolving (`--range :`): the whole chain was verified.
      const total = v.range?.total_in_chain ?? v.entries
      lines.push(`Chain segment VALID: ${span} (${v.entries} entries of ${total} total).`)
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
  if (v.boundary && v.first_seq !== null && v.first_seq > 1) lines.push(boundaryLine(v.boundary))
  if (v.prior_check) {
    lines.push(`Prior head: ${v.prior_check.detail}`)
    if (v.prior_check.rows_detail) lines.push(`Prior rows: ${v.prior_check.rows_detail}`)
  }
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
  lines.push(...keysLines(v, keys))
  if (v.segments)
    lines.push(`Segments: ${printable(v.segments.join(', '))} (recovered rows found in them are archived)`)
  for (const n of v.notices ?? []) lines.push(`Notice: ${n}`)
  lines.push(...recoveryBlock(v.recovery, v.recovered ?? [], keys, v.findings))
  return { out: lines.join('\n') + '\n', err }
}

export const run: Run = async (argv, io) => {
  const { values } = parse(argv, {
    db: { type: 'string' },
    json: { type: 'boolean' },
    prior: { type: 'string' },
    keyless: { type: 'boolean' },
    'no-recover': { type: 'boolean' },
    segment: { type: 'string', multiple: true },
    ...SECRET_OPTIONS,
    ...RANGE_OPTIONS,
  })
  const db = requireString(values, 'db')
  // The reference's order (§4.1): the DB first, then the secret, then the range flags.
  if (!existsSync(db)) throw new AuditError('db_missing', `DB not found: ${db}`)
  if (values['keyless'] === true)
    return (await import('./verify-keyless')).runKeyless(db, values, io, { readPrior, verdictText })
  const inputs = await secretInputsFrom(values, io, { useEnv: true })
  if (inputs.length === 0) throw new HintedError('no_secret', NO_SECRET, NO_SECRET_HINT)
  const keys = parseSecrets(inputs)
  const ranged = rangeFlagsGiven(values)
  const range = rangeFrom(values)
  const prior = typeof values['prior'] === 'string' ? readPrior(values['prior']) : undefined
  const segmentPaths = Array.isArray(values['segment']) ? values['segment'].map(String) : []
  const segments = segmentPaths.length > 0 ? await readSegments(segmentPaths, io.env) : undefined
  const t0 = performance.now()
  const run = verifyFile(db, keys, {
    statement: true,
    ...(range ? { range } : {}),
    ...(prior ? { prior } : {}),
    ...(segments ? { segments } : {}),
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
  const { verdict, reader, openMs, statement } = await refusingOtherChain(values, run)
  io.progress(null)
  if (io.env['BIJOTEL_TIMING']) {
    const total = performance.now() - t0
    io.err(
      `timing: reader ${reader}, open ${openMs.toFixed(0)} ms, verify ${(total - openMs).toFixed(0)} ms, ` +
        `prover ${nativeProverActive(io.env) ? `native (OpenSSL: ${nativeCryptoSource(io.env)})` : 'javascript'}\n`,
    )
  }
  // What was judged goes after the verdict: the reference's first lines stay as scripts parse them.
  if (values['json']) {
    io.out(toJson(statement ? { ...verdict, evidence: statement } : verdict) + '\n')
  } else {
    const text = verdictText(verdict, keys.map(keyInfo), ranged)
    if (text.err) io.err(text.err)
    io.out(text.out + (statement ? `${evidenceLine(statement)}\n` : ''))
  }
  return verdict.valid ? EXIT.valid : EXIT.broken
}
