// String order as SQLite's BINARY collation gives it for TEXT (memcmp of the UTF-8 bytes: SQLite's
// datatype3 §7.1): UTF-8 byte order is code point order, which JavaScript's `<` (UTF-16 code units)
// breaks only between a surrogate (U+D800–DFFF, a code point above U+FFFF) and U+E000–U+FFFF.

/** A code unit moved so that UTF-16 unit order becomes code point order. */
function unit(c: number): number {
  if (c < 0xd800) return c
  return c < 0xe000 ? c + 0x2000 : c - 0x800
}

export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x !== y) return unit(x) - unit(y)
  }
  return a.length - b.length
}
