// Nanosecond timestamps (the chain's `timestamp_ns`) as text.

/** ns since epoch → ISO-8601 UTC with nanoseconds (`2025-11-24T16:03:04.869127950Z`). */
export function nsToIso(ns: bigint): string {
  const ms = ns / 1_000_000n - (ns % 1_000_000n < 0n ? 1n : 0n)
  const frac = ns - ms * 1_000_000n
  const d = new Date(Number(ms))
  if (Number.isNaN(d.getTime())) return `(out of range: ${ns} ns)`
  const base = d.toISOString().slice(0, 19)
  const nanos = (BigInt(d.getUTCMilliseconds()) * 1_000_000n + frac).toString().padStart(9, '0')
  return `${base}.${nanos}Z`
}
