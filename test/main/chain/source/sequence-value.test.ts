// sqlite_sequence is evidence too (reference §1.1: AUTOINCREMENT keeps the chain's largest seq
// there), and an auto-vacuum file's plain view copies its chain row (../../../../src/main/chain/
// plain-view.ts). A sqlite_sequence row whose name claims hundreds of megabytes over an overflow
// chain that comes back on itself must not be loaded whole: every command answers or refuses in one
// line, promptly, on both readers.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { appendRows, CHAIN_SCHEMA, GENESIS, Rng, scratchDir } from '../../reliability/chainkit'
import { ensureBuilt, expectPromptAnswers } from '../../testing/cli'
import { KEY, KEY_HEX, rowsOf } from '../../testing/exact-chains'
import { loopOneValue } from '../../testing/looped-cells'

const scratch = scratchDir('sequence-value')
afterAll(() => scratch.cleanup())

const BOUND_MS = 6000

describe('a sqlite_sequence name claiming hundreds of megabytes over a looping chain, auto-vacuum', () => {
  let base = ''
  beforeAll(() => {
    ensureBuilt()
    base = join(scratch.dir, 'base.db')
    const db = new Database(base)
    try {
      db.pragma('page_size = 1024')
      db.pragma('auto_vacuum = FULL')
      db.exec(CHAIN_SCHEMA)
      appendRows(db, KEY, rowsOf(20, 0), GENESIS)
      // AUTOINCREMENT tables with long names: their sqlite_sequence rows overflow.
      for (let i = 0; i < 4; i++) {
        const name = `t${i}_${'n'.repeat(2000)}`
        db.exec(`CREATE TABLE ${name} (id INTEGER PRIMARY KEY AUTOINCREMENT, x)`)
        db.exec(`INSERT INTO ${name} (x) VALUES (1)`)
      }
    } finally {
      db.close()
    }
  })

  const rng = new Rng(4343)
  for (let k = 0; k < 3; k++) {
    const bytes = Math.floor(200_000_000 + rng.next() * 300_000_000)
    it(`sqlite_sequence name of ${bytes} bytes`, () => {
      const dir = join(scratch.dir, `case-${k}`)
      mkdirSync(dir)
      const path = join(dir, 'chain.db')
      writeFileSync(path, loopOneValue(base, 'sqlite_sequence', 0, k, bytes))
      expectPromptAnswers(
        path,
        [
          ['verify', '--secret-hex', KEY_HEX, '--no-recover'],
          ['verify', '--secret-hex', KEY_HEX],
          ['stats'],
          ['inspect', '3'],
        ],
        BOUND_MS,
      )
    }, 240_000)
  }
})

// The chain's own row, its seq value made long and looped: recovery's plain view of the auto-vacuum
// copy wrote it whole into the view (8 s and 400 MB of disk at 400 MB on the old code).
describe("the chain's sqlite_sequence seq claiming hundreds of megabytes over a looping chain, auto-vacuum", () => {
  let base = ''
  beforeAll(() => {
    ensureBuilt()
    base = join(scratch.dir, 'base-seq.db')
    const db = new Database(base)
    try {
      db.pragma('page_size = 1024')
      db.pragma('auto_vacuum = FULL')
      db.exec(CHAIN_SCHEMA)
      appendRows(db, KEY, rowsOf(20, 0), GENESIS)
      db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'chain'").run('9'.repeat(3000))
    } finally {
      db.close()
    }
  })

  const rng = new Rng(4344)
  for (let k = 0; k < 2; k++) {
    const bytes = Math.floor(400_000_000 + rng.next() * 300_000_000)
    it(`sqlite_sequence seq of ${bytes} bytes`, () => {
      const dir = join(scratch.dir, `seq-case-${k}`)
      mkdirSync(dir)
      const path = join(dir, 'chain.db')
      writeFileSync(path, loopOneValue(base, 'sqlite_sequence', 1, k, bytes))
      expectPromptAnswers(path, [['verify', '--secret-hex', KEY_HEX]], BOUND_MS)
    }, 240_000)
  }
})
