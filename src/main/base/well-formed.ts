// A report is read back as I-JSON (RFC 7493 §2.1: strings MUST NOT hold lone surrogates) and signed
// in its RFC 8785 form, which is defined on UTF-8 and so has no encoding for one (§3.2.2.2). Text the
// report quotes from the chain — a provider's name as a body's `json.loads` reads it (a `"\ud800"`
// escape is a lone surrogate there too), a model version, an anomaly's detail — is the audited
// party's: one lone surrogate in a provider name made a signed report of a VALID chain unwritable
// ("cannot be canonicalized") and an unsigned one unreadable by report verify and verify --prior,
// its own checkers. So every string of a report, member names included, is written with each lone
// surrogate as the number printable() shows for it (`<U+D800>`), at writing and at checking alike:
// what is signed is what a person reads, and well-formed text (every honest value) is unchanged.
import { AuditError } from './errors'

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g
const HAS_LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** `text` with each lone surrogate written as `<U+XXXX>` (printable()'s form for it). */
export function wellFormedText(text: string): string {
  if (!HAS_LONE.test(text)) return text
  return text.replace(LONE, (c) => `<U+${c.charCodeAt(0).toString(16).toUpperCase()}>`)
}

/**
 * `value` (a JSON value) with every string and member name made well-formed by wellFormedText; the
 * same value (not a copy) when nothing changes. Two member names of one object that become the same
 * name (`"\ud800"` beside a literal `"<U+D800>"`) cannot both be written: refused in one line rather
 * than one of them dropped (`where` names the document).
 */
export function wellFormedJson<T>(value: T, where: string): T {
  return wellFormedValue(value, where, '') as T
}

function wellFormedValue(v: unknown, where: string, path: string): unknown {
  if (typeof v === 'string') return wellFormedText(v)
  if (v === null || typeof v !== 'object') return v
  if (Array.isArray(v)) {
    let out: unknown[] | null = null
    for (let i = 0; i < v.length; i++) {
      const w = wellFormedValue(v[i], where, `${path}[${i}]`)
      if (w !== v[i] && out === null) out = v.slice()
      if (out !== null) out[i] = w
    }
    return out ?? v
  }
  if (!isPlain(v)) return v
  const o = v as Record<string, unknown>
  const keys = Object.keys(o)
  let changed = false
  const pairs: [string, unknown][] = []
  for (const k of keys) {
    const name = wellFormedText(k)
    const w = wellFormedValue(o[k], where, `${path}.${name}`)
    if (name !== k || w !== o[k]) changed = true
    pairs.push([name, w])
  }
  if (!changed) return v
  const out: Record<string, unknown> = {}
  for (const [name, w] of pairs) {
    if (Object.hasOwn(out, name))
      throw new AuditError(
        'bad_argument',
        `${where}: two member names of ${path.slice(1) || 'the document'} are both written ${JSON.stringify(name)} once their lone surrogates are written as numbers: the report cannot hold both`,
      )
    // defineProperty: a member called `__proto__` stays an ordinary member.
    Object.defineProperty(out, name, { value: w, enumerable: true, writable: true, configurable: true })
  }
  return out
}

function isPlain(v: object): boolean {
  const proto: unknown = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}
