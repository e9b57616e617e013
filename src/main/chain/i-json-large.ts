// The integer literals past 2^53 an I-JSON document may hold when a reader asks for them
// (IJsonLimits.largeIntegers, ./i-json.ts), matched to their places in the tree JSON.parse builds.

/**
 * The exact text of the integer literals a double cannot hold (`largeIntegers`), by the object or
 * array holding them and the member's name: JSON.parse rounds `timestamp_ns` (~1.7e18) to the
 * nearest double, so two times 1 ns apart read alike, and a check comparing them with a sealed body
 * would take an edited one. Kept beside the value (a WeakMap: the tree itself is left as JSON.parse
 * builds it), or not at all when the literals cannot be matched to their places.
 */
const exactIntegers = new WeakMap<object, Map<string, string>>()

/** The literal `holder[key]` was read from, when it is an integer past 15 digits. */
export function exactIntegerText(holder: object, key: string | number): string | undefined {
  return exactIntegers.get(holder)?.get(String(key))
}

const INDEX_KEY = /^(?:0|[1-9][0-9]*)$/

/**
 * JSON.parse with each large literal matched to its place. The reviver visits values in document
 * order except in an object with index-like member names, which JavaScript enumerates first: there
 * the order is unknown, so nothing is kept and readers fall back to the doubles.
 */
export function parseKeepingLarge(text: string, large: string[]): unknown {
  const found: [object, string, string][] = []
  let next = 0
  let inOrder = true
  const doc = JSON.parse(text, function (this: object, key: string, value: unknown) {
    if (!Array.isArray(this) && INDEX_KEY.test(key)) inOrder = false
    if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
      const literal = large[next++]
      if (literal === undefined || Number(literal) !== value) inOrder = false
      else found.push([this, key, literal])
    }
    return value
  }) as unknown
  if (inOrder && next === large.length)
    for (const [holder, key, literal] of found) {
      let m = exactIntegers.get(holder)
      if (!m) exactIntegers.set(holder, (m = new Map()))
      m.set(key, literal)
    }
  return doc
}
