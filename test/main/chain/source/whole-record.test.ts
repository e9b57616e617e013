// A record whose fields do not fill its payload (file format §2.1: the header's serial types give
// every field's size, and those sizes add up to the payload) is corrupt to SQLite — but SQLite only
// checks it once it has parsed the whole record header (vdbe.c OP_Column), so a query reading the
// first columns alone reads the row cleanly where a full read (`SELECT *`, the reference's reader
// of every column) is "database disk image is malformed". The copy path read verify's columns only
// and said Chain VALID over such rows (the differential harness's "VALID where a full read is
// malformed"). The generator claims one payload byte more than the record holds in cells all over
// a chain's leaves: SQLite's full read fails, its partial read does not, and neither reader may say
// VALID (the direct reader declines, the copy refuses as corrupt).
import { copyFileSync, openSync, closeSync, readSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readVarint, varint } from '../../../../src/main/chain/sqlite/varint'
import { scratchDir } from '../../reliability/chainkit'
import { withSqliteCopy } from '../../testing/fixtures'
import { mulberry32 } from '../../testing/prng'
import { bijotel, ensureBuilt } from '../../testing/cli'
import { chainRoot, PAGE, SECRET, smallPageChain } from './divider-kit'
import { leafCells } from './rowid-kit'

const ROWS = 300

const scratch = scratchDir('whole-record')
afterAll(() => scratch.cleanup())

/** The payload size of the cell at file offset `cell` one more, at the same length; false if it cannot be. */
function claimOneMore(path: string, cell: number): boolean {
  const fd = openSync(path, 'r+')
  try {
    const head = Buffer.alloc(18)
    readSync(fd, head, 0, 18, cell)
    const n = readVarint(head, 0)
    const size = varint.value
    const r = readVarint(head, n)
    // Two-byte sizes below the local maximum (no overflow either way): the last 7 bits grow by one;
    // and the cell must not end at the page's end (one byte more would run past it).
    const end = (cell % PAGE) + n + r + size + 1
    if (n !== 2 || (size & 0x7f) === 0x7f || size + 1 > PAGE - 35 || end > PAGE) return false
    writeSync(fd, Buffer.from([head[1]! + 1]), 0, 1, cell + 1)
    return true
  } finally {
    closeSync(fd)
  }
}

describe('a record whose fields do not fill its payload', () => {
  let base = ''
  beforeAll(() => {
    ensureBuilt()
    base = smallPageChain(scratch.dir, 'base.db', ROWS)
  })

  it('is malformed to a full read, clean to a partial one, and never VALID (generated places)', () => {
    const cells = leafCells(base, chainRoot(base))
    const rnd = mulberry32(2301)
    let checked = 0
    for (let k = 0; k < 60 && checked < 6; k++) {
      const i = 128 + Math.floor(rnd() * (cells.length - 128))
      const path = join(scratch.dir, `m-${k}.db`)
      copyFileSync(base, path)
      if (!claimOneMore(path, cells[i]!.cell)) continue
      // The hazard is real in this file: SQLite reads verify's columns, not the whole row.
      const oracle = withSqliteCopy(path, (db: Database.Database) => {
        const partial = db.prepare('SELECT seq, canonical_body, prev_hash, hmac_hash FROM chain').all().length
        let full: string | null = null
        try {
          db.prepare('SELECT * FROM chain').all()
        } catch (e) {
          full = (e as Error).message
        }
        return { partial, full }
      })
      if (oracle.full === null) continue
      expect(oracle.partial).toBe(ROWS)
      expect(oracle.full).toMatch(/malformed/)
      for (const env of [{}, { BIJOTEL_READER: 'sqlite' }] as Record<string, string>[]) {
        const r = bijotel(['verify', '--db', path, '--secret-hex', SECRET, '--json'], env)
        const what = `cell ${i} ${JSON.stringify(env)}: ${r.stdout.slice(0, 200)} ${r.stderr}`
        expect(r.stdout, what).not.toMatch(/"valid":\s*true/)
        expect(r.code, what).toBe(1)
        expect(r.stderr.trim().split('\n'), what).toHaveLength(1)
      }
      checked++
    }
    expect(checked).toBe(6)
  })
})
