// A column value as the entries table shows it.

/** A column value as text (TEXT as is, BLOB as UTF-8, anything else stringified); null stays null. */
export function text(v: unknown): string | null {
  if (v === null || v === undefined) return null
  if (typeof v === 'string') return v
  if (Buffer.isBuffer(v)) return v.toString('utf8')
  return String(v)
}
