// checkRow (the app's and web mode's row check, `inspect N`'s verdict lines) on a source opened fresh
// for each row, through both readers: the row and the row before it are looked up one after the
// other, each reading pages — the body hashed must be the row's own, not bytes a later read left in
// the reader's page buffer (a body held as a view of it hashed wrong: body_hash_ok false on honest
// rows, when the row was read before its predecessor). Generated chains of small pages (many
// leaves), rows sampled across them; one body edited.
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { checkRow } from '../../../src/main/verify/row'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { scratchDir } from '../reliability/chainkit'
import { READERS, withSource } from '../testing/sources'
import { mulberry32 } from '../testing/prng'
import { KEY, smallPageChain } from '../chain/source/divider-kit'

const scratch = scratchDir('row-check')
afterAll(() => scratch.cleanup())
const keys: KeyMaterial[] = [{ index: 0, encoding: 'hex', bytes: KEY }]

describe('checkRow hashes the row it read, whatever it reads after', () => {
  for (const [rows, page, seed] of [
    [300, 1024, 1],
    [900, 512, 2],
    [600, 4096, 3],
  ] as const) {
    const path = smallPageChain(scratch.dir, `c-${seed}.db`, rows, page)
    const r = mulberry32(seed)
    const seqs = [1, 2, rows, ...Array.from({ length: 12 }, () => 1 + Math.floor(r() * rows))]
    for (const reader of READERS)
      it(`${rows} rows, ${page}-byte pages, through ${reader}: every sampled row checks`, async () => {
        for (const seq of seqs) {
          const got = await withSource(path, reader, (src) => checkRow(src, keys, seq))
          expect(got, `seq ${seq}`).toMatchObject({ seq, body_hash_ok: true, link_ok: true, hmac_ok: true })
        }
      })
  }

  it('an edited body is found on its row and no other', async () => {
    const path = smallPageChain(scratch.dir, 'edited.db', 500, 1024)
    const db = new Database(path)
    db.prepare(
      "UPDATE chain SET canonical_body = CAST(CAST(canonical_body AS TEXT) || ' ' AS BLOB) WHERE seq = 250",
    ).run()
    db.close()
    for (const reader of READERS)
      for (const seq of [249, 250, 251, 499]) {
        const got = await withSource(path, reader, (src) => checkRow(src, keys, seq))
        expect(got.body_hash_ok, `${reader} seq ${seq}`).toBe(seq !== 250)
      }
  })
})
