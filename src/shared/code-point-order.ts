// Strings ordered by code point, as Python's `sorted()` orders str (JavaScript's sort compares UTF-16
// code units, which put an astral character before U+E000–U+FFFF). Here, below both processes, so
// the renderer's lists and the main process's (python/pyformat.ts re-exports it) sort alike.

/** Compare strings by code point, as Python's `sorted()` on str does (JS sorts by UTF-16 unit). */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]()
  const ib = b[Symbol.iterator]()
  for (;;) {
    const x = ia.next()
    const y = ib.next()
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1
    const cx = x.value.codePointAt(0)!
    const cy = y.value.codePointAt(0)!
    if (cx !== cy) return cx - cy
  }
}
