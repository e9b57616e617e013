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

/**
 * The literal text of member `name` of the top-level object in valid JSON `text` (its first
 * occurrence), or null when the object has no such member. JSON.parse gives `1.0`, `1e0` and
 * `1.0000000000000001` the one value 1; the literal says what was written (RFC 8259 §6: int and
 * frac are separate parts of a number).
 */
export function memberLiteral(text: string, name: string): string | null {
  let depth = 0
  let wantKey = false
  let take = false
  const n = text.length
  let i = 0
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      const start = i
      i = stringEnd(text, i)
      if (depth === 1 && wantKey) {
        take = (JSON.parse(text.slice(start, i)) as string) === name
        wantKey = false
      } else if (depth === 1 && take) return text.slice(start, i)
      continue
    }
    if (depth === 1 && take && c !== 0x3a && c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) {
      // A number, true, false, null, or an object/array: its text up to the member's end.
      let d = 0
      let j = i
      for (; j < n; j++) {
        const x = text.charCodeAt(j)
        if (x === 0x22) {
          j = stringEnd(text, j) - 1
          continue
        }
        if (x === 0x7b || x === 0x5b) d++
        else if (x === 0x7d || x === 0x5d) {
          if (d === 0) break
          if (--d === 0) {
            j++
            break
          }
        } else if (d === 0 && (x === 0x2c || x === 0x20 || x === 0x09 || x === 0x0a || x === 0x0d)) break
      }
      return text.slice(i, j)
    }
    if (c === 0x7b || c === 0x5b) {
      depth++
      if (depth === 1) wantKey = c === 0x7b
    } else if (c === 0x7d || c === 0x5d) depth--
    else if (c === 0x2c && depth === 1) wantKey = true
    i++
  }
  return null
}
