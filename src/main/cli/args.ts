// Argument parsing shared by the commands: node:util parseArgs in strict mode, so an unknown flag is
// an error (exit 2, like argparse), plus the reference's option families (secrets, ranges, dates).
import { parseArgs, type ParseArgsConfig } from 'node:util'
import type { SecretInput } from '../../shared/contract'
import type { VerifyRangeOptions } from '../../shared/verify-types'
import { AuditError } from '../errors'

export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

export type Options = NonNullable<ParseArgsConfig['options']>

export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>

export function parse(
  argv: string[],
  options: Options,
  allowPositionals = false,
): { values: Values; positionals: string[] } {
  try {
    return parseArgs({
      args: argv,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals,
    })
  } catch (e) {
    throw new UsageError((e as Error).message.split('\n')[0] ?? 'bad arguments')
  }
}

export const SECRET_OPTIONS: Options = {
  'secret-hex': { type: 'string', multiple: true },
  'secret-text': { type: 'string', multiple: true },
}

export const RANGE_OPTIONS: Options = {
  since: { type: 'string' },
  until: { type: 'string' },
  range: { type: 'string' },
  last: { type: 'string' },
}

function strings(v: unknown): string[] {
  if (v === undefined) return []
  return (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string')
}

/**
 * Candidate keys in the order given: every --secret-hex, then every --secret-text. BIJOTEL_HMAC_SECRET
 * (hex, as Python reads it) is used only when no flag gave a secret, as in the reference.
 */
export function secretInputsFrom(values: Values, env: Record<string, string | undefined>): SecretInput[] {
  const out: SecretInput[] = [
    ...strings(values['secret-hex']).map((value) => ({ encoding: 'hex' as const, value })),
    ...strings(values['secret-text']).map((value) => ({ encoding: 'text' as const, value })),
  ]
  for (const s of out)
    if (s.value === '') throw new AuditError('no_secret', `an empty --secret-${s.encoding} was given`)
  if (out.length === 0 && env['BIJOTEL_HMAC_SECRET'])
    out.push({ encoding: 'hex', value: env['BIJOTEL_HMAC_SECRET'] })
  return out
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/** `YYYY-MM-DD` → ns of UTC midnight; a full ISO-8601 instant is accepted too. */
export function parseInstantNs(flag: string, v: string, endOfDay: boolean): bigint {
  const m = DATE.exec(v)
  if (m) {
    const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
    const d = new Date(ms)
    if (Number.isNaN(ms) || d.getUTCDate() !== Number(m[3]))
      throw new UsageError(`${flag} must be YYYY-MM-DD, got '${v}'`)
    // --until is inclusive of its whole day, to the last nanosecond (the reference loses ~1 µs, §11.11).
    return BigInt(ms) * 1_000_000n + (endOfDay ? 86_400_000_000_000n - 1n : 0n)
  }
  const iso = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(v)
  if (iso) {
    const ms = Date.parse(`${iso[1]}${iso[3]}`)
    if (!Number.isNaN(ms)) return BigInt(ms) * 1_000_000n + BigInt((iso[2] ?? '').padEnd(9, '0') || '0')
  }
  throw new UsageError(`${flag} must be YYYY-MM-DD, got '${v}'`)
}

function parseSeqBound(v: string, whole: string): number | undefined {
  if (v === '') return undefined
  if (!/^-?\d+$/.test(v) || !Number.isSafeInteger(Number(v)))
    throw new UsageError(`--range must be A:B, got '${whole}'`)
  return Number(v)
}

export function rangeFrom(values: Values): VerifyRangeOptions | undefined {
  const r: VerifyRangeOptions = {}
  const since = values['since']
  const until = values['until']
  const range = values['range']
  const last = values['last']
  if (typeof since === 'string') r.since_ns = parseInstantNs('--since', since, false).toString()
  if (typeof until === 'string') r.until_ns = parseInstantNs('--until', until, true).toString()
  if (typeof range === 'string') {
    const i = range.indexOf(':')
    if (i < 0) throw new UsageError(`--range must be A:B, got '${range}'`)
    const a = parseSeqBound(range.slice(0, i), range)
    const b = parseSeqBound(range.slice(i + 1), range)
    if (a !== undefined) r.seq_start = a
    if (b !== undefined) r.seq_end = b
  }
  if (typeof last === 'string') {
    if (!/^\d+$/.test(last) || Number(last) < 1)
      throw new UsageError(`--last must be a positive integer, got '${last}'`)
    r.last_n = Number(last)
  }
  return Object.keys(r).length > 0 ? r : undefined
}

export function requireString(values: Values, name: string): string {
  const v = values[name]
  if (typeof v !== 'string' || v === '')
    throw new UsageError(`the following arguments are required: --${name}`)
  return v
}
