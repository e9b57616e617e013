// The member names of one open object, for I-JSON's duplicate check (RFC 7493 §2.3: names compared
// after unescaping). A name is held as the bytes of its UTF-8 form (RFC 8259 §8.3: names compare
// equal when their code units are; the scan has refused invalid UTF-8 and lone surrogates, so one
// string has one UTF-8 form): a name without escapes as its range in the document itself, one with
// escapes as the UTF-8 of its decoded text. No string is made for a name and no set for an object
// (a document of 10^6 small objects made a string a name and a Set an object): an object's first
// SMALL_OBJECT names are compared with each other byte by byte; past that, an open-addressing table
// of their FNV-1a hashes (linear probing) holds their places, so a 10^6-member object costs one
// probe a name, in typed arrays rebuilt as they double. FNV-1a is not keyed: a document can hold
// names that all share one hash (Joux's multicollisions: colliding blocks from one state, chained,
// give 2^k names), so a probe run longer than MAX_PROBES hands the object to a Set of the names'
// bytes as latin1 strings, hashed by V8 with its per-process seed, and the check stays linear.

/** Names compared pairwise before the table is built. */
export const SMALL_OBJECT = 8
/** The longest probe run taken before the object's names move to a Set (see the header). */
export const MAX_PROBES = 64

/** Whether a[as..ae) and c[cs..ce) hold the same bytes. */
function sameBytes(a: Buffer, as: number, ae: number, c: Buffer, cs: number, ce: number): boolean {
  const n = ae - as
  if (n !== ce - cs) return false
  if (n > 32) return a.compare(c, cs, ce, as, ae) === 0
  for (let k = 0; k < n; k++) if (a[as + k] !== c[cs + k]) return false
  return true
}

/** 32-bit FNV-1a of buf[s..e), as a signed 32-bit integer. */
function fnv1a(buf: Buffer, s: number, e: number): number {
  let h = 0x811c9dc5
  for (let k = s; k < e; k++) h = Math.imul(h ^ buf[k]!, 0x01000193)
  return h
}

export class MemberNames {
  private readonly bufs: Buffer[] = []
  private starts = new Int32Array(SMALL_OBJECT + 1)
  private ends = new Int32Array(SMALL_OBJECT + 1)
  private hashes = new Int32Array(SMALL_OBJECT + 1)
  private count = 0
  /** Entry index + 1 at each slot (0: empty), once the object has more than SMALL_OBJECT names. */
  private table: Int32Array | null = null
  /** The names as latin1 strings of their bytes, once a probe run was too long. */
  private set: Set<string> | null = null

  /** Made ready for another object (the scan reuses one per depth). */
  reset(): void {
    this.count = 0
    this.table = null
    this.set = null
  }

  /** Adds the name whose UTF-8 bytes are buf[s..e); false when the object already has it. */
  add(buf: Buffer, s: number, e: number): boolean {
    if (this.set !== null) {
      const key = buf.toString('latin1', s, e)
      if (this.set.has(key)) return false
      this.set.add(key)
      return true
    }
    if (this.table === null) {
      for (let i = 0; i < this.count; i++)
        if (sameBytes(this.bufs[i]!, this.starts[i]!, this.ends[i]!, buf, s, e)) return false
      this.push(buf, s, e, 0)
      if (this.count > SMALL_OBJECT) this.rebuild(64)
      return true
    }
    const h = fnv1a(buf, s, e)
    const table = this.table
    const mask = table.length - 1
    let probes = 0
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const at = table[slot]! - 1
      if (at < 0) break
      if (this.hashes[at] === h && sameBytes(this.bufs[at]!, this.starts[at]!, this.ends[at]!, buf, s, e))
        return false
      if (++probes > MAX_PROBES) return this.toSet(buf, s, e)
    }
    this.push(buf, s, e, h)
    if (this.count * 2 > table.length) this.rebuild(table.length * 2)
    else if (!this.place(table, this.count - 1)) this.spill()
    return true
  }

  /** The names so far into a Set, then this one added unless it is among them (the run was cut short). */
  private toSet(buf: Buffer, s: number, e: number): boolean {
    const set = this.spill()
    const key = buf.toString('latin1', s, e)
    if (set.has(key)) return false
    set.add(key)
    return true
  }

  /** Every name so far moved into a Set: the table is dropped. */
  private spill(): Set<string> {
    const set = new Set<string>()
    for (let i = 0; i < this.count; i++)
      set.add(this.bufs[i]!.toString('latin1', this.starts[i]!, this.ends[i]!))
    this.set = set
    this.table = null
    return set
  }

  private push(buf: Buffer, s: number, e: number, h: number): void {
    const i = this.count++
    if (i === this.starts.length) {
      const grow = (a: Int32Array): Int32Array<ArrayBuffer> => {
        const b = new Int32Array(a.length * 2)
        b.set(a)
        return b
      }
      this.starts = grow(this.starts)
      this.ends = grow(this.ends)
      this.hashes = grow(this.hashes)
    }
    this.bufs[i] = buf
    this.starts[i] = s
    this.ends[i] = e
    this.hashes[i] = h
  }

  /**
   * Puts name i in its slot; false when the run there is longer than MAX_PROBES. A rebuild places
   * every name again at twice the slots, where names can meet that were apart: its runs are held to
   * the same bound as a lookup's, so no step of the check is ever longer.
   */
  private place(table: Int32Array, i: number): boolean {
    const mask = table.length - 1
    let slot = this.hashes[i]! & mask
    for (let probes = 0; table[slot] !== 0; slot = (slot + 1) & mask) if (++probes > MAX_PROBES) return false
    table[slot] = i + 1
    return true
  }

  /** The table at `size` slots (a power of two, more than twice the names) with every name placed. */
  private rebuild(size: number): void {
    const table = new Int32Array(size)
    if (this.table === null)
      for (let i = 0; i < this.count; i++)
        this.hashes[i] = fnv1a(this.bufs[i]!, this.starts[i]!, this.ends[i]!)
    for (let i = 0; i < this.count; i++)
      if (!this.place(table, i)) {
        this.spill()
        return
      }
    this.table = table
  }
}
