// An insider's cut tail that reads like a rolled-back batch: the last rows deleted and
// sqlite_sequence lowered to the new head, in rollback-journal mode, so the cut rows lie only on
// free pages past the seq sqlite_sequence records — exactly what a batch that spilled and rolled
// back leaves. Nothing in the file tells the two apart, so the rows are withheld from findings
// (docs/recovery.md); what the tool may NOT do is say what happened: `recover` must list them as
// not known to have been committed, never as "a transaction rolled back", and verify's notice
// must name the cut tail as well. Generated over page sizes, chain lengths and cut lengths.
import { copyFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { bijotel, ensureBuilt } from '../testing/cli'
import { Rng } from '../reliability/chainkit'
import { caseFolder, CHAIN_DDL, insert, openWriter, version } from '../testing/sealed-writer'
import { GENESIS } from '../../../src/main/chain/schema'

interface Cut {
  pageSize: number
  rows: number
  cut: number
}

function cutTail(c: Cut, seed: number): { db: string; key: Buffer; cleanup: () => void } {
  const rng = new Rng(seed)
  const key = Buffer.from(rng.hex(32), 'hex')
  const f = caseFolder('bijotel-cut-tail-')
  const db = openWriter(f.work, { pageSize: c.pageSize, journal: 'delete' })
  db.exec(CHAIN_DDL)
  let prev = GENESIS
  db.transaction(() => {
    for (let s = 1n; s <= BigInt(c.rows); s++) {
      const v = version(rng, key, s, prev, 600, `row ${s}`)
      insert(db, v)
      prev = v.hmac
    }
  })()
  const head = c.rows - c.cut
  db.prepare('DELETE FROM chain WHERE seq > ?').run(head)
  db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'chain'").run(head)
  db.close()
  copyFileSync(f.work, f.evidence)
  return { db: f.evidence, key, cleanup: f.cleanup }
}

describe('a cut tail with sqlite_sequence lowered: withheld, and never called a rollback', () => {
  ensureBuilt()
  // Where the cut rows land depends on the layout: past the head on free pages only (withheld, the
  // case of interest), also in a live page's free space (a `truncated` finding the file proves), or
  // past a lost first row (unplaced). Every case must word what it says as below; the withheld case
  // must occur (the test fails if no layout reaches it).
  const cases: Cut[] = []
  for (const pageSize of [1024, 4096, 8192])
    for (const [rows, cut] of [
      [120, 30],
      [80, 25],
      [200, 60],
    ] as const)
      cases.push({ pageSize, rows, cut })
  it('every layout: the list of withheld rows and the notice say what is not known', () => {
    let withheld = 0
    for (const [i, c] of cases.entries()) {
      const g = cutTail(c, 0xc07 + i)
      try {
        const key = ['--secret-hex', g.key.toString('hex')]
        const v = bijotel(['verify', '--db', g.db, ...key])
        const r = bijotel(['recover', '--db', g.db, ...key])
        const heading = r.stdout.split('\n').find((l) => /^Rows .*\(\d+\):$/.test(l))
        const notice = v.stdout.split('\n').find((l) => /lie only on free pages.*, past the seq/.test(l))
        expect(heading === undefined, `case ${JSON.stringify(c)}`).toBe(notice === undefined)
        if (heading === undefined) continue
        withheld++
        expect(heading).toMatch(/^Rows not known to have been committed/)
        expect(heading).toMatch(/the notices say what else could/)
        expect(notice).toMatch(/cut tail if sqlite_sequence was lowered by hand/)
      } finally {
        g.cleanup()
      }
    }
    expect(withheld).toBeGreaterThan(0)
  })
})
