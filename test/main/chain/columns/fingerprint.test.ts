// The hash fingerprint read straight from a cell's bytes must be the fingerprint of the row's hash
// key as a string, for every kind of stored value, and must tell real hashes apart.
import { randomBytes } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { fingerprint, hashFingerprint, hashKey } from '../../../../src/main/chain/columns/fingerprint'
import { BASE_TS, bodyFor, SEC, TempChains, type SynthRow } from '../../integrity/testchain'
import { openDirect } from '../../../../src/main/chain/direct/open'
import { RowScanner } from '../../../../src/main/chain/direct/scan'
import { layoutOf } from '../../../../src/main/chain/source/direct-source'
import { WHOLE } from '../../../../src/main/chain/source/row-source'
import { READERS, withSource } from '../../testing/sources'

const chains = new TempChains()
afterAll(() => chains.dispose())

function hashes(): SynthRow['hash'][] {
  const out: SynthRow['hash'][] = [null, '', 0, 7, -3, 2.5, Buffer.alloc(0), Buffer.from([0, 255, 7])]
  for (let len = 1; len <= 70; len++) {
    out.push('a'.repeat(len - 1) + String.fromCharCode(33 + (len % 90)))
    out.push('é'.repeat(len % 5) + 'x'.repeat(len))
    out.push('x'.repeat(len) + '\u{1F600}')
  }
  for (let i = 0; i < 2000; i++) out.push(randomBytes(32).toString('hex'))
  return out
}

describe('hashFingerprint', () => {
  it('equals fingerprint(hashKey(value)) for text of every length, non-ASCII, blobs, numbers, null', () => {
    const values = hashes()
    const rows: SynthRow[] = values.map((hash, i) => ({
      seq: i + 1,
      ts: BASE_TS + BigInt(i) * SEC,
      body: bodyFor('p'),
      hash,
    }))
    const direct = openDirect(chains.write(rows))
    const scanner = new RowScanner(layoutOf(direct))
    try {
      const ch = scanner.col('canonical_hash')
      const got: number[] = []
      scanner.scan(0, direct.leaves.pages.length, (c) => {
        const key = hashKey(c.valueBig(ch))
        const want = key === null ? NaN : fingerprint(key)
        expect(Object.is(hashFingerprint(c, ch), want), String(key)).toBe(true)
        got.push(want)
      })
      expect(got).toHaveLength(values.length)
      // Real hashes (the last 2000, random 64-hex keys) all get different fingerprints.
      expect(new Set(got.slice(-2000)).size).toBe(2000)
    } finally {
      scanner.close()
    }
  })

  it('is the same whichever source reads the row (record bytes, or SQLite values)', async () => {
    const rows: SynthRow[] = hashes().map((hash, i) => ({
      seq: i + 1,
      ts: BASE_TS + BigInt(i) * SEC,
      body: bodyFor('p'),
      hash,
    }))
    const path = chains.write(rows)
    const [direct, sqlite] = await Promise.all(
      READERS.map((r) =>
        withSource(path, r, (source) => {
          const ch = source.col('canonical_hash')
          const out: number[] = []
          source.scan(source.place(WHOLE).place, WHOLE, (c) => {
            out.push(hashFingerprint(c, ch))
          })
          return out
        }),
      ),
    )
    expect(direct!.length).toBe(rows.length)
    expect(direct).toEqual(sqlite)
  })
})
