// Test kit: a small deterministic PRNG (mulberry32), so a generated case that fails can be replayed
// from its seed.
export function mulberry32(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** `size` bytes drawn from mulberry32(seed): the same bytes for the same seed. */
export function randomBytes(size: number, seed: number): Buffer {
  const rnd = mulberry32(seed)
  const bytes = Buffer.allocUnsafe(size)
  for (let i = 0; i < size; i++) bytes[i] = (rnd() * 256) | 0
  return bytes
}
