// A JSON object with the same name twice is ambiguous: RFC 8259 §4 says names SHOULD be unique and
// that receivers then differ — JSON.parse keeps the last, other parsers the first or both. A body
// or a batch line a client sends, `{"seq": 1, "output": "…", "seq": 2}`, would be read one way by
// whoever reviews it and another by the tool; it is refused instead, naming the key.

/**
 * The index past the JSON string whose opening quote is at `start` in valid JSON `text`: its
 * closing quote, a backslash escaping the character after it (RFC 8259 §7).
 */
export function stringEnd(text: string, start: number): number {
  let i = start + 1
  while (i < text.length) {
    const d = text.charCodeAt(i)
    if (d === 0x5c) i += 2
    else {
      i++
      if (d === 0x22) break
    }
  }
  return i
}

/**
 * The first name that appears twice in one object of `text`, or null. `text` must already be
 * valid JSON (call after JSON.parse accepted it). Names are compared decoded (`"a"` and `"\u0061"`
 * are the same name).
 */
export function duplicateKey(text: string): string | null {
  const stack: { keys: Set<string> | null; wantKey: boolean }[] = []
  const n = text.length
  let i = 0
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      const start = i
      i = stringEnd(text, i)
      const top = stack[stack.length - 1]
      if (top?.keys && top.wantKey) {
        const key = JSON.parse(text.slice(start, i)) as string
        if (top.keys.has(key)) return key
        top.keys.add(key)
        top.wantKey = false
      }
      continue
    }
    if (c === 0x7b) stack.push({ keys: new Set(), wantKey: true })
    else if (c === 0x5b) stack.push({ keys: null, wantKey: false })
    else if (c === 0x7d || c === 0x5d) stack.pop()
    else if (c === 0x2c) {
      const top = stack[stack.length - 1]
      if (top?.keys) top.wantKey = true
    }
    i++
  }
  return null
}
