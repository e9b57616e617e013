// The evidence statement (issue 25 item 2): the same on the direct reader and on SQLite's verified
// copy, hashes of the bytes judged, and one pasteable line.
import { describe, expect, it } from 'vitest'
import { evidenceLine } from '../../../src/main/chain/statement'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { keyInfo, parseSecrets } from '../../../src/main/chain/keys'
import { expectStatementOf } from '../testing/evidence'
import { dbPath, secretInputs } from '../testing/fixtures'

const keys = parseSecrets(secretInputs(['primary']))

describe('evidence statement', () => {
  for (const name of ['clean', 'wal-tail', 'row-deleted']) {
    it(`${name}: direct reader and SQLite copy state the same evidence`, async () => {
      const direct = await verifyFile(dbPath(name), keys, { statement: true, workers: 1 })
      const copy = await verifyFile(dbPath(name), keys, {
        statement: true,
        workers: 1,
        env: { BIJOTEL_READER: 'sqlite' },
      })
      expect(direct.reader).toBe('direct')
      expect(copy.reader).toBe('sqlite-copy')
      expect(direct.statement).toEqual(copy.statement)
      const v = direct.verdict
      expectStatementOf(direct.statement!, dbPath(name), {
        entries: v.entries,
        first_seq: v.first_seq,
        last_seq: v.last_seq,
      })
      expect(direct.statement!.first_timestamp_ns).toMatch(/^\d{19}$/)
      expect(direct.statement!.key_fingerprints).toEqual(keys.map((k) => keyInfo(k).fingerprint))
    })
  }

  it('a range states its own rows', async () => {
    const r = await verifyFile(dbPath('clean'), keys, {
      statement: true,
      range: { seq_start: 11, seq_end: 20 },
    })
    expect(r.statement).toMatchObject({ entries: 10, first_seq: 11, last_seq: 20 })
  })

  it('is not computed unless asked for', async () => {
    expect((await verifyFile(dbPath('clean'), keys, {})).statement).toBeUndefined()
  })

  it('one line; a path with a space or = is quoted', () => {
    const s = {
      db: { path: '/case 7/chain=db', size: 10, sha256: 'a'.repeat(64) },
      wal: null,
      entries: 2,
      first_seq: 1,
      last_seq: 2,
      first_timestamp_ns: '1700000000000000001',
      last_timestamp_ns: null,
      key_fingerprints: ['0011aabb', 'ccdd2233'],
    }
    expect(evidenceLine(s)).toBe(
      `Evidence: db="/case 7/chain=db" size=10 sha256=${'a'.repeat(64)}; wal=none; seq=1-2 entries=2; ` +
        'first_time=2023-11-14T22:13:20.000000001Z last_time=none; keys=0011aabb,ccdd2233',
    )
  })
})
