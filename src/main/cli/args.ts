// Argument parsing shared by the commands: node:util parseArgs in strict mode, so an unknown flag is
// an error (exit 2, like argparse), plus the reference's option families (secrets, ranges, dates).
import { parseArgs, type ParseArgsConfig } from 'node:util'
import type { VerifyRangeOptions } from '../../shared/verify-types'
import { utcInstantMs } from '../base/calendar'
import { AuditError } from '../base/errors'
import { pyInt } from '../python/py-int'

export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

export type Options = NonNullable<ParseArgsConfig['options']>

export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>

/**
 * argparse's `_negative_number_matcher`: such a word is a value (no option here looks like one).
 * Python's `\d` on text is any Unicode decimal digit, so `-٣` is a negative number too, and its `$`
 * also matches before a final newline (`-3\n`).
 */
const NEGATIVE_NUMBER = /^-\p{Nd}+\n?$|^-\p{Nd}*\.\p{Nd}+\n?$/u

/**
 * Whether a word after a value-taking option is an option itself, as argparse's `_parse_optional`
 * decides it (then "expected one argument"): it begins with '-', is longer than '-', is not a
 * negative number and holds no space. So `--seq -1` and `--output "- a bullet"` are values, and
 * `--range -5:` or `--output -x` are refused as the reference refuses them (issue 36: a typo must
 * not pass for a whole-chain check).
 */
function looksLikeOption(word: string, shorts: ReadonlySet<string>): boolean {
  if (shorts.has(word) || word === '--') return true
  return word.startsWith('-') && word.length > 1 && !NEGATIVE_NUMBER.test(word) && !word.includes(' ')
}

/**
 * Join every value-taking option with the word after it (`--output X` → `--output=X`). node:util's
 * parseArgs refuses a separate value that begins with '-' as "ambiguous", where argparse (the
 * reference's parser, reference §4) takes a negative number (`--seq -1`) or a word with a space
 * (`--output "- a bullet"`, a Markdown list) as the value. Here a word is the value unless argparse
 * would read it as an option (`--db --json`, `--range -5:`: "expected one argument"); `--opt=-x`
 * gives any value. Words after `--` are left alone.
 */
export function joinOptionValues(argv: string[], options: Options): string[] {
  const takesValue = new Map<string, string>()
  const shorts = new Set<string>(['-h'])
  for (const [name, o] of Object.entries(options)) {
    if (o.type === 'string') takesValue.set(`--${name}`, name)
    if (o.short) {
      shorts.add(`-${o.short}`)
      if (o.type === 'string') takesValue.set(`-${o.short}`, name)
    }
  }
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!
    if (word === '--') {
      out.push(...argv.slice(i))
      break
    }
    const name = takesValue.get(word)
    if (name === undefined) {
      out.push(word)
      continue
    }
    const value = argv[i + 1]
    if (value === undefined || looksLikeOption(value, shorts))
      throw new UsageError(`argument ${word}: expected one argument`)
    out.push(`--${name}=${value}`)
    i++
  }
  return out
}

export function parse(
  argv: string[],
  options: Options,
  allowPositionals = false,
): { values: Values; positionals: string[] } {
  const all: Options = { ...options, help: { type: 'boolean', short: 'h' } }
  const args = joinOptionValues(argv, all)
  try {
    return parseArgs({ args, options: all, strict: true, allowPositionals })
  } catch (e) {
    throw new UsageError((e as Error).message.split('\n')[0] ?? 'bad arguments')
  }
}

/**
 * An option of argparse's `type=int` (reference §4): Python's `int()` of its text (../python/py-int.ts:
 * `' 7'`, `'+7'`, `'1_000'`, `'١٠'` are ints), else argparse's own words, exit 2.
 */
export function intArgument(flag: string, v: string): bigint {
  const n = pyInt(v)
  if (n === null) throw new UsageError(`argument ${flag}: invalid int value: '${v}'`)
  return n
}

/** The int clamped to the doubles' exact range, for options whose valid values lie well inside it. */
export function clampedInt(n: bigint): number {
  const max = BigInt(Number.MAX_SAFE_INTEGER)
  return Number(n > max ? max : n < -max ? -max : n)
}

export const RANGE_OPTIONS: Options = {
  since: { type: 'string' },
  until: { type: 'string' },
  range: { type: 'string' },
  last: { type: 'string' },
}

/**
 * `YYYY-MM-DD` as Python's `strptime(v, "%Y-%m-%d")` reads it: a four-digit year, a month and a day
 * of one or two digits (`2023-1-5` is 5 January), and a date that exists (`2023-13-01`, `2023-00-10`,
 * `2023-02-30` and year 0 are refused, reference §4).
 */
const DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/

/** ms of UTC midnight of a calendar date, or null when it does not exist. */
function utcMidnightMs(year: number, month: number, day: number): number | null {
  return year < 1 ? null : utcInstantMs(year, month, day)
}

function badDate(flag: string, v: string): AuditError {
  return new AuditError('bad_argument', `${flag} must be YYYY-MM-DD, got '${v}'`)
}

/** `YYYY-MM-DD` → ns of UTC midnight; a full ISO-8601 instant is accepted too. */
export function parseInstantNs(flag: string, v: string, endOfDay: boolean): bigint {
  const m = DATE.exec(v)
  if (m) {
    const ms = utcMidnightMs(Number(m[1]), Number(m[2]), Number(m[3]))
    if (ms === null) throw badDate(flag, v)
    // --until is inclusive of its whole day, to the last nanosecond (the reference loses ~1 µs, §11.11).
    return BigInt(ms) * 1_000_000n + (endOfDay ? 86_400_000_000_000n - 1n : 0n)
  }
  const iso = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(v)
  if (iso) {
    const [, y, mo, d, h, mi, sec, frac, zone] = iso
    const midnight = utcMidnightMs(Number(y), Number(mo), Number(d))
    // Date.parse would roll 2023-02-30 over to March; the calendar date is checked first.
    const ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${sec}${zone}`)
    if (midnight !== null && Number(h) < 24 && Number(mi) < 60 && Number(sec) < 60 && !Number.isNaN(ms))
      return BigInt(ms) * 1_000_000n + BigInt((frac ?? '').padEnd(9, '0') || '0')
  }
  throw badDate(flag, v)
}

function parseSeqBound(v: string, whole: string): number | undefined {
  if (v === '') return undefined
  if (!/^-?\d+$/.test(v) || !Number.isSafeInteger(Number(v)))
    throw new AuditError('bad_argument', `--range must be A:B, got '${whole}'`)
  return Number(v)
}

/** Whether any of the range flags was given (`--range :` included: it still prints a segment line). */
export function rangeFlagsGiven(values: Values): boolean {
  return ['since', 'until', 'range', 'last'].some((k) => typeof values[k] === 'string')
}

/**
 * The range flags as VerifyRangeOptions, resolved as the reference's `verify_chain` does (§3.3):
 * `--last N` takes precedence over `--range A:B` (which is then ignored); `--since`/`--until` still
 * narrow it.
 */
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
    if (i < 0) throw new AuditError('bad_argument', `--range must be A:B, got '${range}'`)
    const a = parseSeqBound(range.slice(0, i), range)
    const b = parseSeqBound(range.slice(i + 1), range)
    if (typeof last !== 'string') {
      if (a !== undefined) r.seq_start = a
      if (b !== undefined) r.seq_end = b
    }
  }
  if (typeof last === 'string') {
    // argparse's type=int words for what is not an integer; our own for what is out of range.
    const big = intArgument('--last', last)
    const n = Number(big)
    if (big < 1n || big > BigInt(Number.MAX_SAFE_INTEGER))
      throw new AuditError('bad_argument', `--last must be a positive integer, got '${last}'`)
    r.last_n = n
  }
  return Object.keys(r).length > 0 ? r : undefined
}

export function requireString(values: Values, name: string): string {
  const v = values[name]
  if (typeof v !== 'string' || v === '')
    throw new UsageError(`the following arguments are required: --${name}`)
  return v
}
