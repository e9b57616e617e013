// The two columns the integrity monitor sorts on every worker (epoch seconds and hash
// fingerprints, a value a row), faster than Float64Array.prototype.sort for what they hold:
// seconds are almost always in order already (a chain is written in time order), and fingerprints
// are random integers below 2^52, which spread evenly over buckets.

/** Values below 2^52 are bucketed by their top 16 bits: 2^36 apart. */
const BUCKET_WIDTH = 2 ** 36
const BUCKETS = 1 << 16
/** A bucket this small is put in order by insertion; a larger one (skewed input) by the built-in sort. */
const SMALL = 48

/** Ascending with every NaN at the end: the order `Float64Array.prototype.sort` gives. */
function inOrder(a: Float64Array): boolean {
  let i = 1
  const n = a.length
  for (; i < n; i++) {
    const x = a[i]!
    if (!(x >= a[i - 1]!)) break
  }
  if (i === n) return true
  // Only NaNs may follow, from the first one on.
  if (!Number.isNaN(a[i]!)) return false
  for (; i < n; i++) if (!Number.isNaN(a[i]!)) return false
  return true
}

/** Whether every value is NaN or an integer in [0, 2^52). */
function bucketable(a: Float64Array): boolean {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    if (!(x >= 0 && x < 2 ** 52 && Math.floor(x) === x) && !Number.isNaN(x)) return false
  }
  return true
}

/**
 * Integers below 2^52 (NaNs moved to the end) into a new array: one pass counts the values per
 * bucket of their top 16 bits, one places them; each bucket (a few values for random
 * fingerprints) is then sorted where it lies.
 */
function bucketSorted(a: Float64Array): Float64Array {
  const starts = new Int32Array(BUCKETS + 1)
  let n = 0
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    if (Number.isNaN(x)) continue
    starts[Math.floor(x / BUCKET_WIDTH) + 1]!++
    n++
  }
  for (let k = 0; k < BUCKETS; k++) starts[k + 1]! += starts[k]!
  const next = starts.slice(0, BUCKETS)
  const out = new Float64Array(a.length)
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    if (!Number.isNaN(x)) out[next[Math.floor(x / BUCKET_WIDTH)]!++] = x
  }
  for (let k = 0; k < BUCKETS; k++) {
    const from = starts[k]!
    const to = starts[k + 1]!
    if (to - from > SMALL) {
      out.subarray(from, to).sort()
      continue
    }
    for (let i = from + 1; i < to; i++) {
      const x = out[i]!
      let j = i - 1
      while (j >= from && out[j]! > x) {
        out[j + 1] = out[j]!
        j--
      }
      out[j + 1] = x
    }
  }
  out.fill(NaN, n)
  return out
}

/**
 * `a` in the order `a.slice().sort()` gives: `a` itself when it is in that order already, else a
 * sorted copy (bucketed for the inputs the monitor meets, see above). Neither may be written to.
 */
export function ascending(a: Float64Array): Float64Array {
  if (inOrder(a)) return a
  // The buckets' own walk and memory pay off only for large arrays (a window's are small).
  if (a.length >= BUCKETS && bucketable(a)) return bucketSorted(a)
  return a.slice().sort()
}
