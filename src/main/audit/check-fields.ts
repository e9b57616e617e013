// Field-by-field comparison of a report with what the evidence gives now (`bijotel report verify`).
import type { FieldCheck } from '../../shared/custody-types'
import { canonicalize } from '../chain/jcs'
import { hasLoneSurrogate } from '../python/pyformat'
import { printable } from '../../shared/printable'
import { wellFormedJson } from '../base/well-formed'

/**
 * Deep equality of two JSON values, independent of key order: whether their RFC 8785 forms are the
 * same text. Compared value by value (a report's 390,000 findings were two 40 MB texts built piece by
 * piece for one comparison, and again an item at a time for the first difference); what is not a
 * plain JSON value is compared by its canonical text as before (and is unequal when it has none).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  return sameValue(a === undefined ? null : a, b === undefined ? null : b, 0)
}

function sameValue(a: unknown, b: unknown, depth: number): boolean {
  if (a === b && (typeof a !== 'object' || a === null) && typeof a !== 'bigint') {
    // Equal primitives: the same text, unless they have none (NaN, ±Infinity, a lone surrogate).
    if (typeof a === 'number') return Number.isFinite(a)
    if (typeof a === 'string') return !hasLoneSurrogate(a)
    return typeof a === 'boolean' || a === null
  }
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null && depth < 1000) {
    if (Array.isArray(a) !== Array.isArray(b)) return false
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length !== b.length) return false
      // An array's undefined is written null (canonicalize, as JSON.stringify).
      for (let i = 0; i < a.length; i++) if (!sameValue(a[i] ?? null, b[i] ?? null, depth + 1)) return false
      return true
    }
    if (isPlain(a) && isPlain(b)) {
      const x = a as Record<string, unknown>
      const y = b as Record<string, unknown>
      // A member holding undefined is left out of the canonical text.
      let n = 0
      for (const k of Object.keys(x)) {
        if (x[k] === undefined) continue
        n++
        if (!Object.hasOwn(y, k) || !sameValue(x[k], y[k], depth + 1)) return false
      }
      for (const k of Object.keys(y)) if (y[k] !== undefined) n--
      return n === 0
    }
  } else if (typeof a !== 'bigint' && typeof b !== 'bigint') return false
  try {
    return canonicalize(a) === canonicalize(b)
  } catch {
    return false
  }
}

function isPlain(v: object): boolean {
  const p: unknown = Object.getPrototypeOf(v)
  return p === Object.prototype || p === null
}

/** A value in a few words: arrays by length (and their first item), long text shortened. */
export function brief(v: unknown, max = 72): string {
  if (v === undefined) return '(absent)'
  if (Array.isArray(v)) {
    if (v.length === 0) return '[] (none)'
    const first = brief(v[0], Math.max(24, max - 20))
    return `${v.length} item${v.length === 1 ? '' : 's'}, first ${first}`
  }
  let s: string
  try {
    s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v))
  } catch {
    s = String(v)
  }
  // Shown by the CLI, the app and --json alike: the report's text as data (base/visible-text.ts).
  s = printable(s)
  return s.length > max ? `${s.slice(0, max - 1)}\u2026` : s
}

/** Where two arrays first differ, in words (`item 3` / `length 4 vs 5`). */
function firstDifference(a: unknown, b: unknown): string | undefined {
  if (!Array.isArray(a) || !Array.isArray(b)) return undefined
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    if (!sameJson(a[i], b[i]))
      return `first difference at item ${i}: report ${brief(a[i], 60)}, now ${brief(b[i], 60)}`
  }
  return a.length !== b.length ? `the report lists ${a.length}, now ${b.length}` : undefined
}

export class FieldList {
  readonly fields: FieldCheck[] = []

  /** Compare `reported` with `now` under `field`. */
  compare(field: string, reported: unknown, found: unknown, note?: string): void {
    // What the evidence gives now, in the form a report writes it (../base/well-formed.ts).
    const now = wellFormedJson(found, 'the chain')
    const same = sameJson(reported, now)
    const where = same ? undefined : firstDifference(reported, now)
    const n = note ?? where
    this.fields.push({
      field,
      status: same ? 'reproduces' : 'differs',
      reported: brief(reported),
      now: brief(now),
      ...(n !== undefined ? { note: n } : {}),
    })
  }

  /** Each member of two objects, as `prefix.key`; members in either are compared. */
  compareMembers(prefix: string, reported: unknown, now: unknown, keys?: readonly string[]): void {
    // Own members of a plain object only: a report's `[]` in place of an object would otherwise
    // yield Array.prototype's `entries` (a function) as the reported value.
    const plain = (v: unknown): Record<string, unknown> =>
      typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {}
    const r = plain(reported)
    const w = plain(now)
    const own = (o: Record<string, unknown>, k: string): unknown => (Object.hasOwn(o, k) ? o[k] : undefined)
    const names = keys ?? [...new Set([...Object.keys(r), ...Object.keys(w)])]
    for (const k of names) this.compare(`${prefix}.${k}`, own(r, k), own(w, k))
  }

  /** A field that could not be checked: counts against the result unless `informational`. */
  notChecked(field: string, reported: unknown, note: string, informational = false): void {
    this.fields.push({
      field,
      status: 'not_checked',
      reported: brief(reported),
      now: '',
      note,
      ...(informational ? { informational: true } : {}),
    })
  }

  get failing(): FieldCheck[] {
    return this.fields.filter((f) => f.status !== 'reproduces' && !f.informational)
  }
}
