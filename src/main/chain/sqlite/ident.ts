// How SQLite matches a table's or a column's name: without regard to case, but folding ASCII letters
// only (util.c sqlite3StrICmp through sqlite3UpperToLower; lang_keywords.html: identifiers are
// case-insensitive; the NOCASE collation "only understands upper/lower case for ASCII"). So
// `SELECT span_kind FROM chain` — the reference's and every other tool's query — reads a column
// declared `Span_Kind` of a table stored as `CHAIN`, and never a column `span_\u212Aind` (KELVIN
// SIGN, which String.prototype.toLowerCase would fold to "k"). A reader that compares names
// exactly reads such a column as absent where SQLite reads its values.

/** `name` as SQLite compares it: ASCII A–Z folded to a–z, every other character as it is. */
export function identKey(name: string): string {
  return name.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32))
}

/** Whether SQLite takes `a` and `b` for the same identifier. */
export function sameIdent(a: unknown, b: string): boolean {
  return typeof a === 'string' && identKey(a) === identKey(b)
}

/** `name` quoted as an SQL identifier, read back by SQLite as exactly `name` (lang_keywords.html). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}
