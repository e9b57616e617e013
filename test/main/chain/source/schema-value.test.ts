// The schema table is evidence too (file format §2.6: sqlite_schema is a table b-tree rooted at page
// 1; its `sql` values overflow like any other). A schema row whose `sql` claims hundreds of
// megabytes over an overflow chain that comes back on itself is loaded whole by SQLite when it reads
// the schema (every connection, before any query). Every command must answer or refuse in one line,
// promptly, on both readers.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { Rng, scratchDir } from '../../reliability/chainkit'
import { ensureBuilt, expectPromptAnswers } from '../../testing/cli'
import { KEY_HEX, SMALL, writeChainFolder } from '../../testing/exact-chains'
import { loopOneValue } from '../../testing/looped-cells'

const scratch = scratchDir('schema-value')
afterAll(() => scratch.cleanup())

const BOUND_MS = 6000

describe('a schema row whose sql claims hundreds of megabytes over a looping chain', () => {
  let base = ''
  beforeAll(() => {
    ensureBuilt()
    base = writeChainFolder(join(scratch.dir, 'base'), { ...SMALL, rows: 20, pageSize: 1024 })
    // Tables with long CREATE statements: the schema b-tree grows leaves past page 1, and their
    // `sql` values overflow.
    const db = new Database(base)
    try {
      for (let i = 0; i < 6; i++) db.exec(`CREATE TABLE side${i} (x /* ${'c'.repeat(3000)} */)`)
    } finally {
      db.close()
    }
  })

  const rng = new Rng(4242)
  for (let k = 0; k < 3; k++) {
    const bytes = Math.floor(200_000_000 + rng.next() * 300_000_000)
    it(`schema sql of ${bytes} bytes`, () => {
      const dir = join(scratch.dir, `case-${k}`)
      mkdirSync(dir)
      const path = join(dir, 'chain.db')
      writeFileSync(path, loopOneValue(base, 'sqlite_schema', 4, k, bytes))
      expectPromptAnswers(
        path,
        [['verify', '--secret-hex', KEY_HEX, '--no-recover'], ['stats'], ['inspect', '3']],
        BOUND_MS,
      )
    }, 240_000)
  }
})
