// Test helper: table leaf cells re-encoded with one field's varint (payload size, rowid, record
// header size, serial types) at a chosen length from 1 to 9 bytes (file format §1.3 allows any;
// writers use the shortest). Written independently of the decoders under test, for the generators
// that hold the direct reader to SQLite on such cells (../chain/sqlite/cell-varints.test.ts, the
// differential harness's `cell.varint` mutation).

export type CellField = 'payload' | 'rowid' | 'header' | 'type'
export const CELL_FIELDS: CellField[] = ['payload', 'rowid', 'header', 'type']

/** `v` (≥ 0) as a varint of exactly `len` bytes (§1.3), or null when it does not fit. */
export function varintOfLength(v: bigint, len: number): Buffer | null {
  if (len === 9) {
    if (v >> 64n !== 0n) return null
    const out = Buffer.alloc(9)
    out[8] = Number(v & 0xffn)
    let u = v >> 8n
    for (let i = 7; i >= 0; i--) {
      out[i] = Number(u & 0x7fn) | 0x80
      u >>= 7n
    }
    return u === 0n ? out : null
  }
  if (v >> BigInt(7 * len) !== 0n) return null
  const out = Buffer.alloc(len)
  let u = v
  for (let i = len - 1; i >= 0; i--) {
    out[i] = Number(u & 0x7fn) | (i === len - 1 ? 0 : 0x80)
    u >>= 7n
  }
  return out
}

/** A varint read independently of the decoder under test: [value, length]. */
function readVarintHere(b: Buffer, o: number): [bigint, number] {
  let v = 0n
  for (let i = 0; i < 8; i++) {
    v = (v << 7n) | BigInt(b[o + i]! & 0x7f)
    if (!(b[o + i]! & 0x80)) return [v, i + 1]
  }
  return [(v << 8n) | BigInt(b[o + 8]!), 9]
}

/** Local payload bytes of a table leaf cell (§1.6). */
function localBytes(p: number, u: number): number {
  const x = u - 35
  if (p <= x) return p
  const m = Math.floor(((u - 12) * 32) / 255) - 23
  const k = m + ((p - m) % (u - 4))
  return k <= x ? k : m
}

/** The cell at `at`, with `field` written as a varint of `len` bytes; null when it cannot be. */
function recode(page: Buffer, at: number, usable: number, field: CellField, len: number): Buffer | null {
  const [size, n1] = readVarintHere(page, at)
  const [rowid, n2] = readVarintHere(page, at + n1)
  const body = at + n1 + n2
  const local = localBytes(Number(size), usable)
  const enc = (v: bigint): Buffer | null => varintOfLength(v, len)
  if (field === 'payload' || field === 'rowid') {
    const rest = page.subarray(body, body + local + (local < Number(size) ? 4 : 0))
    const a = field === 'payload' ? enc(size) : page.subarray(at, at + n1)
    const b = field === 'rowid' ? enc(rowid) : page.subarray(at + n1, body)
    return a && b ? Buffer.concat([a, b, rest]) : null
  }
  // Record header fields: only for a record wholly on the page (a longer header moves the overflow).
  if (local < Number(size)) return null
  const [hs, n3] = readVarintHere(page, body)
  const types: bigint[] = []
  for (let p = body + n3; p < body + Number(hs);) {
    const [t, n] = readVarintHere(page, p)
    types.push(t)
    p += n
  }
  const data = page.subarray(body + Number(hs), body + Number(size))
  const typeBytes = Buffer.concat(
    types.map(
      (t) => (field === 'type' ? varintOfLength(t, Math.max(len, 1)) : null) ?? varintOfLength(t, 9)!,
    ),
  )
  const plain = Buffer.concat(types.map((t) => minimal(t)))
  const head = field === 'type' ? typeBytes : plain
  const hsBytes = field === 'header' ? enc(BigInt(len + head.length)) : minimal(BigInt(1 + head.length))
  if (!hsBytes || (field === 'type' && typeBytes.length !== types.length * len)) return null
  if (field !== 'header' && hsBytes.length !== 1) return null
  const record = Buffer.concat([hsBytes, head, data])
  return Buffer.concat([minimal(BigInt(record.length)), minimal(rowid), record])
}

function minimal(v: bigint): Buffer {
  for (let len = 1; len <= 9; len++) {
    const b = varintOfLength(v, len)
    if (b) return b
  }
  throw new Error('no varint')
}

/** Leaf `n` of `file` rebuilt with every cell recoded; false when a cell cannot be, or they do not fit. */
export function rebuildLeaf(
  file: Buffer,
  pageSize: number,
  n: number,
  field: CellField,
  len: number,
): boolean {
  return rewriteLeaf(file, pageSize, n, (page, at, usable) => recode(page, at, usable, field, len))
}

/**
 * Leaf `n` (from 2) of `file` rebuilt from its cells, each as `cell` returns it (the cell at `at`,
 * the `i`-th); false when one returns null or they do not fit.
 */
export function rewriteLeaf(
  file: Buffer,
  pageSize: number,
  n: number,
  cell: (page: Buffer, at: number, usable: number, i: number) => Buffer | null,
): boolean {
  const page = file.subarray((n - 1) * pageSize, n * pageSize)
  const usable = pageSize - file[20]!
  const count = page.readUInt16BE(3)
  const cells: Buffer[] = []
  for (let i = 0; i < count; i++) {
    const c = cell(page, page.readUInt16BE(8 + 2 * i), usable, i)
    if (c === null) return false
    cells.push(Buffer.from(c))
  }
  let content = usable
  const at = cells.map((c) => (content -= c.length))
  if (content < 8 + 2 * count) return false
  page.fill(0, 0, usable)
  page[0] = 0x0d
  page.writeUInt16BE(count, 3)
  page.writeUInt16BE(content, 5)
  cells.forEach((c, i) => {
    c.copy(page, at[i]!)
    page.writeUInt16BE(at[i]!, 8 + 2 * i)
  })
  return true
}

/** The cell at `at` as stored: its payload size, and its first overflow page (0 for none). */
export function cellAt(
  page: Buffer,
  at: number,
  usable: number,
): { bytes: Buffer; size: number; overflow: number } {
  const [size, n1] = readVarintHere(page, at)
  const [, n2] = readVarintHere(page, at + n1)
  const local = localBytes(Number(size), usable)
  const end = at + n1 + n2 + local
  const overflow = local < Number(size) ? page.readUInt32BE(end) : 0
  return { bytes: page.subarray(at, end + (overflow ? 4 : 0)), size: Number(size), overflow }
}

/**
 * The overflowing cell at `at` claiming a payload of `size` bytes: its local part (§1.6) the start of
 * the stored payload, padded with zeros, then its own first overflow page.
 */
export function withPayloadSize(page: Buffer, at: number, usable: number, size: number): Buffer {
  const [, n1] = readVarintHere(page, at)
  const [rowid, n2] = readVarintHere(page, at + n1)
  const c = cellAt(page, at, usable)
  const local = localBytes(size, usable)
  const payload = Buffer.alloc(local)
  page.copy(payload, 0, at + n1 + n2, Math.min(at + c.bytes.length - 4, at + n1 + n2 + local))
  const ptr = Buffer.alloc(4)
  ptr.writeUInt32BE(c.overflow)
  return Buffer.concat([minimal(BigInt(size)), minimal(rowid), payload, ptr])
}

/**
 * The overflowing cell at `at` with column `column`'s serial type raised to claim a TEXT value of
 * `bytes` bytes, the record header and payload size agreeing with it (so SQLite reads the row as
 * well formed, file format §2.1), its local part rebuilt from the new header and the data stored
 * on the page, and its first overflow page kept. Pointing that chain back on itself makes SQLite
 * read the value through the same pages again and again. Null for a cell that does not overflow.
 */
export function withValueSize(
  page: Buffer,
  at: number,
  usable: number,
  column: number,
  bytes: number,
): Buffer | null {
  const c = cellAt(page, at, usable)
  if (c.overflow === 0) return null
  const [, n1] = readVarintHere(page, at)
  const [rowid, n2] = readVarintHere(page, at + n1)
  const record = at + n1 + n2
  const [hs, n3] = readVarintHere(page, record)
  const types: bigint[] = []
  for (let p = record + n3; p < record + Number(hs);) {
    const [t, n] = readVarintHere(page, p)
    types.push(t)
    p += n
  }
  if (column >= types.length) return null
  types[column] = BigInt(2 * bytes + 13)
  const typeBytes = Buffer.concat(types.map(minimal))
  let header = Buffer.concat([minimal(BigInt(1 + typeBytes.length)), typeBytes])
  if (header.length !== 1 + typeBytes.length)
    header = Buffer.concat([minimal(BigInt(2 + typeBytes.length)), typeBytes])
  const fixed = [0, 1, 2, 3, 4, 6, 8, 8, 0, 0]
  const size = types.reduce(
    (s, t) => s + (t >= 12n ? Number((t - 12n) / 2n) : fixed[Number(t)]!),
    header.length,
  )
  const local = localBytes(size, usable)
  const data = page.subarray(record + Number(hs), at + c.bytes.length - 4)
  const part = Buffer.concat([header, data, Buffer.alloc(local)]).subarray(0, local)
  const ptr = Buffer.alloc(4)
  ptr.writeUInt32BE(c.overflow)
  return Buffer.concat([minimal(BigInt(size)), minimal(rowid), part, ptr])
}
