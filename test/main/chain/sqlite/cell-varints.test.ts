// Leaf cells whose varints take more bytes than they need (file format §1.3 allows any length up to
// nine; no writer makes them, an attacker may). SQLite does not read every varint of a cell with the
// same decoder: btree.c btreeParseCellPtr reads a table leaf's payload size as a 32-bit value seven
// bits a byte over all nine bytes, where sqlite3GetVarint (rowids, record headers) takes the ninth
// byte whole. A generator re-encodes every cell of a leaf with one field (payload size, rowid, record
// header size, serial types) at every length from 1 to 9 bytes, and the direct reader (TypeScript and
// the native prover verify uses) must read each mutant as SQLite does or decline it: never rows, and
// never a verdict, where SQLite reads other rows or calls the file malformed.
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { verifyFile } from '../../../../src/main/audit/verify-file'
import { nativeAddon } from '../../../../src/main/chain/addon/row-prover'
import { openDirect } from '../../../../src/main/chain/direct/open'
import { RowScanner } from '../../../../src/main/chain/direct/scan'
import { parseSecrets } from '../../../../src/main/chain/keys'
import { layoutOf } from '../../../../src/main/chain/source/direct-source'
import { Rng } from '../../reliability/chainkit'
import { KEY_HEX, SMALL, writeChainFolder, type ChainShape } from '../../testing/exact-chains'
import { basePages } from '../../testing/mutations'
import { CELL_FIELDS, rebuildLeaf } from '../../testing/cell-recode'
import { directReading, sqliteReading } from '../../testing/readings'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-cell-varints-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const keys = parseSecrets([{ encoding: 'hex', value: KEY_HEX }])

const addon = nativeAddon()

/** The first cell of leaf `n` of the chain at `path`: its rowid and prev_hash. */
function firstCell(path: string, n: number): { rowid: number; link: string } {
  const chain = openDirect(path)
  const s = new RowScanner(layoutOf(chain))
  try {
    const page = s.pager.page(n)
    s.cell.read(page, page.readUInt16BE(8))
    return { rowid: s.cell.rowid, link: s.cell.text(s.col('prev_hash'))! }
  } finally {
    s.close()
    chain.close()
  }
}

/**
 * Leaf `n` of the mutant at `path` offered to the native prover verify uses (proveLeaf) as a run
 * from `start`, and to CellReader: cells proven there, and cells CellReader reads before it declines.
 */
function nativeAgainstReader(
  path: string,
  n: number,
  start: { rowid: number; link: string },
): [number, number] {
  const a = addon!
  const chain = openDirect(path)
  const s = new RowScanner(layoutOf(chain))
  try {
    const page = Buffer.from(s.pager.page(n))
    const count = page.readUInt16BE(3)
    let read = 0
    try {
      for (; read < count; read++) s.cell.read(page, page.readUInt16BE(8 + 2 * read))
    } catch {
      // declined from this cell on
    }
    const order = Int32Array.from(
      [
        'canonical_body',
        'canonical_hash',
        'prev_hash',
        'hmac_hash',
        'timestamp_ns',
        'span_name',
        'span_kind',
      ],
      (c) => s.col(c),
    )
    const { ncols, usable, minFields } = s.pageLayout
    a.startRun(a.hmacKey(keys[0]!.bytes), Buffer.from(start.link, 'latin1'), order)
    const proven = a.proveLeaf(
      page,
      0,
      0,
      start.rowid,
      Number.MAX_SAFE_INTEGER,
      Int32Array.of(ncols, usable, minFields),
    )
    return [proven, read]
  } finally {
    s.close()
    chain.close()
  }
}

const SHAPES: [string, ChainShape][] = [
  ['4k', { ...SMALL, rows: 40 }],
  ['1k-overflow', { ...SMALL, rows: 30, pageSize: 1024, bodyBytes: 1500 }],
]

describe('leaf cells with varints longer than they need', () => {
  it('are read as SQLite reads them, or declined, by the reader and by verify', async () => {
    const rng = new Rng(8)
    const failures: string[] = []
    let cases = 0
    let same = 0
    let proved = 0
    for (const [name, shape] of SHAPES) {
      const base = join(root, name)
      writeChainFolder(base, shape)
      const probe = join(root, `${name}-probe`)
      cpSync(base, probe, { recursive: true })
      const pages = basePages(join(probe, 'chain.db'))
      const leaf = rng.pick(pages.leaf.filter((n) => n > 1))
      for (const field of CELL_FIELDS)
        for (let len = 1; len <= 9; len++) {
          const dir = join(root, `${name}-${field}-${len}`)
          cpSync(base, dir, { recursive: true })
          const path = join(dir, 'chain.db')
          const file = readFileSync(path)
          if (!rebuildLeaf(file, pages.pageSize, leaf, field, len)) continue
          writeFileSync(path, file)
          cases++
          const label = `${name}: leaf ${leaf}, ${field} in ${len} bytes`
          if (addon !== null) {
            const [proven, read] = nativeAgainstReader(path, leaf, firstCell(join(probe, 'chain.db'), leaf))
            if (proven > 0) proved++
            if (proven > read)
              failures.push(`${label}: the native prover proved ${proven} cells, CellReader reads ${read}`)
          }
          const direct = directReading(path)
          const oracle = sqliteReading(path, root)
          const seen = oracle.kind === 'rows' ? oracle.rows.length : -1
          if (direct.kind === 'rows') {
            if (oracle.kind === 'rows' && isDeepStrictEqual(direct.rows, oracle.rows)) same++
            else
              failures.push(
                `${label}: direct read ${direct.rows.length} rows, SQLite: ${JSON.stringify(oracle)}`,
              )
          }
          for (const env of [{}, { BIJOTEL_READER: 'sqlite' }]) {
            const v = await verifyFile(path, keys, { env }).then(
              (r) => r.verdict,
              () => null,
            )
            if (v?.valid && v.entries !== seen)
              failures.push(`${label}: ${JSON.stringify(env)} VALID over ${v.entries} rows, SQLite ${seen}`)
          }
          rmSync(dir, { recursive: true, force: true })
        }
    }
    expect(failures).toEqual([])
    // Ground covered: mutants read alike (the short forms), and each field at several lengths.
    expect(cases).toBeGreaterThan(40)
    expect(same).toBeGreaterThan(10)
    if (addon !== null) expect(proved).toBeGreaterThan(10)
  }, 120_000)
})
