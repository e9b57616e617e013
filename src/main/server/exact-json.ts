// JSON bodies whose integers must stay exact: JSON.parse reads every number as a double (RFC 8259
// §6 leaves the precision to the implementation), so an ns timestamp beyond 2^53 sent as a JSON
// integer would silently change. Such literals are kept as their decimal text instead.

import { stringEnd } from '../base/json-keys'

const DIGIT_OR_SIGN = /[0-9.eE+-]/
const LONG_INTEGER = /^-?\d{16,}$/

/**
 * `text` with every integer literal outside the safe integers (±(2^53 − 1)) written as a JSON string
 * of its digits. `text` must already be valid JSON (call after JSON.parse accepted it): strings are
 * skipped by their escapes, and outside strings only numbers start with `-` or a digit.
 */
export function quoteUnsafeIntegers(text: string): string {
  let out = ''
  let last = 0
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      i = stringEnd(text, i) // a string: skipped whole
      continue
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const start = i++
      while (i < n && DIGIT_OR_SIGN.test(text[i]!)) i++
      const token = text.slice(start, i)
      if (LONG_INTEGER.test(token) && !Number.isSafeInteger(Number(token))) {
        out += `${text.slice(last, start)}"${token}"`
        last = i
      }
      continue
    }
    i++
  }
  return last === 0 ? text : out + text.slice(last)
}

/** The parsed value of valid JSON `text`, with unsafe integers as decimal strings. */
export function parseExactIntegers(text: string, parsed: unknown): unknown {
  const quoted = quoteUnsafeIntegers(text)
  return quoted === text ? parsed : (JSON.parse(quoted) as unknown)
}
