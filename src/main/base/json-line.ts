// One JSON Lines record (https://jsonlines.org): JSON.stringify escapes every C0 control, but writes
// NEL (U+0085) and the line and paragraph separators (U+2028, U+2029) as they are, and Python's
// str.splitlines() — and editors, and JavaScript's own line terminators — break a line there: a
// provider name holding one would split one record into two broken ones (or forge a second) for
// such a reader. They are written as \u escapes instead, which every JSON parser reads back the same.
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u0085\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}
