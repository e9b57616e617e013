// Python's `json.dumps(value, indent=2)` layout (reference §9.1 writes exports with it; `inspect`
// prints a body with it and `ensure_ascii=False`), for output that must equal Python BIJOTEL's byte
// for byte. With an indent Python separates items with ',' and keys with ': ', puts each item on its
// own line, and writes an empty list or object as `[]` / `{}`.
import { PyFloat, pyFloatRepr, pyJsonString, pyJsonStringUnicode, type PyValue } from './pyformat'

/** Characters `json.dumps` writes as they are with ensure_ascii: ' '..'~' but '"' and '\\'. */
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/

/** `pyJsonString` with a fast path for the common plain string (hashes, ids, names). */
export function pyJsonStringFast(s: string): string {
  return PLAIN_ASCII.test(s) ? `"${s}"` : pyJsonString(s)
}

function floatText(x: number): string {
  if (Number.isNaN(x)) return 'NaN'
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity'
  return pyFloatRepr(x)
}

/**
 * `json.dumps(value, indent=indent, ensure_ascii=ascii)`; `level` is the depth `value` sits at (its
 * nested lines are indented one step more). Plain numbers are Python ints, PyFloat floats.
 */
export function pyJsonIndented(
  value: PyValue,
  opts: { indent?: number; ascii?: boolean; level?: number } = {},
): string {
  const step = opts.indent ?? 2
  // `inspect` prints this with ensure_ascii=False; a lone surrogate (only a `\ud800` escape in the
  // body makes one) stays in the text, where CPython's print() would raise UnicodeEncodeError and
  // stop with a traceback: the auditor prints the rest instead (stdout shows U+FFFD for it).
  const str = opts.ascii === false ? pyJsonStringUnicode : pyJsonString
  const dump = (v: PyValue, level: number): string => {
    if (v === null) return 'null'
    if (v === true) return 'true'
    if (v === false) return 'false'
    if (typeof v === 'string') return str(v)
    if (typeof v === 'bigint') return v.toString()
    if (typeof v === 'number') {
      if (!Number.isInteger(v))
        throw new TypeError(`pyJsonIndented: ${v} is not an int; wrap floats in PyFloat`)
      return BigInt(v).toString()
    }
    if (v instanceof PyFloat) return floatText(v.value)
    const inner = ' '.repeat(step * (level + 1))
    const outer = ' '.repeat(step * level)
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]'
      return `[\n${v.map((x) => inner + dump(x, level + 1)).join(',\n')}\n${outer}]`
    }
    const entries = v instanceof Map ? [...v.entries()] : Object.entries(v)
    if (entries.length === 0) return '{}'
    return `{\n${entries.map(([k, x]) => `${inner}${str(k)}: ${dump(x, level + 1)}`).join(',\n')}\n${outer}}`
  }
  return dump(value, opts.level ?? 0)
}

/**
 * A chain column's value (as the readers give it) in an export entry: what `json.dumps` makes of
 * what Python's sqlite3 returns for it. A BLOB in a text column is what json.dumps refuses; the
 * reference's export then fails with its TypeError, and so does this one, in its words.
 */
export function pyColumnValue(v: unknown): PyValue {
  if (v === null || v === undefined) return null
  if (typeof v === 'string' || typeof v === 'bigint') return v
  // The readers give integers as BigInt: a number is a REAL, which Python prints as a float (2.0).
  if (typeof v === 'number') return new PyFloat(v)
  if (Buffer.isBuffer(v)) throw new TypeError('Object of type bytes is not JSON serializable')
  throw new TypeError(`Object of type ${typeof v} is not JSON serializable`)
}
