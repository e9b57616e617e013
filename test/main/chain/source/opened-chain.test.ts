// A pass the direct reader cannot finish — a shape it leaves to SQLite, met in the middle of the
// rows — is redone through SQLite on the verified copy, whichever way the chain was opened; an
// AuditError (an answer, not a refusal) is not.
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { readChain } from '../../../../src/main/chain/source/open-source'
import { OpenedChain } from '../../../../src/main/chain/source/opened-chain'
import type { ReaderKind } from '../../../../src/main/chain/source/row-source'
import { runIntegrity } from '../../../../src/main/integrity/analyze'
import { seeded, TempChains } from '../../integrity/testchain'

const chains = new TempChains()
afterAll(() => chains.dispose())

/** 300 rows, one of whose bodies is a REAL: SQLite writes its text, the direct reader declines it. */
function realBodyChain(): string {
  const path = chains.write(seeded(300))
  const db = new Database(path)
  try {
    db.prepare('UPDATE chain SET canonical_body = 2.5 WHERE seq = 250').run()
  } finally {
    db.close()
  }
  return path
}

describe('a direct pass that declines midway is redone through SQLite', () => {
  it('OpenedChain.read: the copy answers, and answers from then on', async () => {
    const chain = await OpenedChain.open(realBodyChain())
    try {
      const readers: ReaderKind[] = []
      const run = await chain.read((source) => {
        readers.push(source.kind)
        return runIntegrity(source, { all: true })
      })
      expect(readers).toEqual(['direct', 'sqlite-copy'])
      expect(run).toEqual(await runIntegrity(chain.copy, { all: true }))
      expect(run.report.window).toBe(300)
      const again: ReaderKind[] = []
      await chain.read((source) => again.push(source.kind))
      expect(again).toEqual(['sqlite-copy'])
    } finally {
      chain.close()
    }
  })

  it('readChain: the same, and an AuditError passes through without a second pass', async () => {
    const path = realBodyChain()
    const readers: ReaderKind[] = []
    const run = await readChain(path, (source) => {
      readers.push(source.kind)
      return runIntegrity(source, { window: 100 })
    })
    expect(readers).toEqual(['direct', 'sqlite-copy'])
    expect(run.report.window).toBe(100)
    const tried: ReaderKind[] = []
    await expect(
      readChain(path, (source) => {
        tried.push(source.kind)
        return runIntegrity(source, { window: 1 })
      }),
    ).rejects.toMatchObject({ code: 'bad_argument' })
    expect(tried).toEqual(['direct'])
  })
})
