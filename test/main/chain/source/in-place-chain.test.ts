// InPlaceChain (src/main/chain/source/in-place-chain.ts): the direct reader on the evidence itself,
// its record hashed once; a page the reader declines mid-pass hands the chain over to a private
// copy (the answer then comes from SQLite), while an AuditError is an answer and hands nothing over.
import { createHash } from 'node:crypto'
import { readFileSync, realpathSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { AuditError } from '../../../../src/main/base/errors'
import { openDirect } from '../../../../src/main/chain/direct/open'
import { DirectSource } from '../../../../src/main/chain/source/direct-source'
import type { HeldChain } from '../../../../src/main/chain/source/held-chain'
import { InPlaceChain } from '../../../../src/main/chain/source/in-place-chain'
import { OpenedChain } from '../../../../src/main/chain/source/opened-chain'
import type { RowSource } from '../../../../src/main/chain/source/row-source'
import { dbPath, fingerprintFolder } from '../../testing/fixtures'

const held: HeldChain[] = []
afterEach(() => {
  for (const c of held.splice(0)) c.close()
})

function inPlace(name: string): { chain: InPlaceChain; copies: string[] } {
  const copies: string[] = []
  const chain = new InPlaceChain(DirectSource.owning(openDirect(dbPath(name))), {
    toCopy: async (because) => {
      copies.push(because)
      const c = await OpenedChain.open(dbPath(name), { because })
      held.push(c)
      return c
    },
  })
  held.push(chain)
  return { chain, copies }
}

const count = (s: RowSource): number => s.count()

describe('InPlaceChain', () => {
  for (const name of ['clean', 'wal-tail', 'rows-swapped'])
    it(`${name}: hashes once to the files' SHA-256; reads in place; not known yet is ''`, async () => {
      const before = fingerprintFolder()
      const { chain, copies } = inPlace(name)
      expect(chain.evidence().db.sha256).toBe('')
      expect(chain.evidence().unchanged_after_copy).toBe(false)
      const ev = await chain.hashed()
      expect(ev.db.sha256).toBe(
        createHash('sha256')
          .update(readFileSync(dbPath(name)))
          .digest('hex'),
      )
      expect(ev.unchanged_after_copy).toBe(true)
      expect(await chain.read((s) => s.kind)).toBe('direct')
      expect(chain.readNow(count)).toBeGreaterThan(0)
      expect(copies).toEqual([])
      expect(chain.readPath).toBe(chain.files.db.real)
      // Recovery searches the evidence's own descriptors, the live rows read from the evidence too.
      expect(chain.searchTarget()).toEqual({ files: chain.files, dbPath: chain.files.db.real })
      expect(fingerprintFolder()).toEqual(before)
    })

  it('a decline mid-pass: the call is answered from a private copy, and every later one', async () => {
    const { chain, copies } = inPlace('clean')
    const rows = chain.readNow(count)
    // The reader meets a shape it did not foresee (any error that is not an AuditError).
    const kind = await chain.read((s) => {
      if (s.kind === 'direct') throw new Error('unforeseen page')
      return s.kind
    })
    expect(kind).toBe('sqlite-copy')
    expect(copies).toHaveLength(1)
    expect(chain.evidence().method).toMatch(
      /^read through a private copy because the direct file reader declined a page mid-pass \(unforeseen page\)/,
    )
    expect(chain.readPath).not.toBe(chain.files.db.real)
    // Handed over: the search still reads the evidence's descriptors (never the copy, whose WAL
    // SQLite recovered into it); only the live rows come from the copy.
    const target = chain.searchTarget()
    expect(target.files).toBe(chain.files)
    expect(target.files.db.real).toBe(realpathSync(dbPath('clean')))
    expect(target.dbPath).toBe(chain.readPath)
    expect(chain.readNow(count)).toBe(rows)
    expect(await chain.read((s) => s.kind)).not.toBe('direct')
  })

  it('a synchronous read that meets a decline asks again; the copy then answers', async () => {
    const { chain, copies } = inPlace('clean')
    expect(() =>
      chain.readNow((s) => {
        if (s.kind === 'direct') throw new Error('unforeseen page')
        return 1
      }),
    ).toThrow(/being read through a private copy; ask again/)
    await expect.poll(() => copies.length).toBe(1)
    await expect.poll(() => chain.readPath !== chain.files.db.real).toBe(true)
    // The copy answers (read by the direct reader on the copy, where it takes it).
    expect(chain.readNow((s) => s.facts().evidence.method)).toMatch(/^copied into a private temporary folder/)
  })

  it('an AuditError is an answer: no copy is made', async () => {
    const { chain, copies } = inPlace('clean')
    await expect(
      chain.read(() => {
        throw new AuditError('cancelled', 'cancelled')
      }),
    ).rejects.toThrow('cancelled')
    expect(() =>
      chain.readNow(() => {
        throw new AuditError('corrupt', 'a row the detectors refuse')
      }),
    ).toThrow('a row the detectors refuse')
    expect(copies).toEqual([])
    expect(await chain.read((s) => s.kind)).toBe('direct')
  })

  it('closed: every read is a one-line cancel, never a read of closed descriptors', async () => {
    const { chain } = inPlace('clean')
    chain.close()
    await expect(chain.read(count)).rejects.toThrow(/closed meanwhile/)
    expect(() => chain.readNow(count)).toThrow(/closed meanwhile/)
    await expect(chain.hashed()).rejects.toThrow(/closed meanwhile/)
  })
})
