// The carver fed by the evidence hash's reads (issue 36, src/main/recovery/fed-carving.ts): verify
// with its statement and the search on reads the database file once for both. What it finds must be
// what the carver finds reading the file itself — rows, sources, counts — on generated chains of
// every page size and journal mode with deleted and rewritten rows. The feeder is adversarial too:
// pieces of random whole-page lengths, a feed that stops at any page and leaves the rest to the
// carver, pieces that do not follow on (never from the hash), a feed that ends before a byte.
import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import type { VerifyVerdict } from '../../../src/shared/verify-types'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { openDirect } from '../../../src/main/chain/direct/open'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { startRecovery, type Searched } from '../../../src/main/recovery/verdict'
import { generate, type GenCase, type Generated } from './generator'
import { mulberry32 } from '../testing/prng'

const made: Generated[] = []
afterAll(() => made.forEach((g) => g.cleanup()))

function cases(): GenCase[] {
  const out: GenCase[] = []
  const base = { rows: 40, firstSeq: 1n }
  for (const pageSize of [512, 1024, 4096, 65536]) {
    const pad = pageSize <= 1024 ? 1300 : 300
    out.push(
      {
        ...base,
        pageSize,
        pad,
        journal: 'delete',
        live: false,
        name: `rollback middle-delete p${pageSize}`,
        scenario: { kind: 'middle-delete', at: 15, count: 6 },
      },
      {
        ...base,
        pageSize,
        pad,
        journal: 'wal',
        live: true,
        name: `wal live rewrite p${pageSize}`,
        scenario: { kind: 'rewrite', count: 3 },
      },
      {
        ...base,
        pageSize,
        pad,
        journal: 'wal',
        live: false,
        name: `wal closed tail-delete p${pageSize}`,
        scenario: { kind: 'tail-delete', count: 5 },
      },
    )
  }
  // Larger than two of the hash's jobs (2 MB): the carver is fed several pieces.
  out.push({
    ...base,
    rows: 1500,
    pageSize: 4096,
    pad: 3000,
    journal: 'delete',
    live: false,
    name: 'rollback middle-delete, 1500 one-page rows (6 MB)',
    scenario: { kind: 'middle-delete', at: 700, count: 40 },
  })
  return out
}

/** The verdict without what only the statement adds. */
const bare = (v: VerifyVerdict): VerifyVerdict => {
  const { statement: _s, ...rest } = v as VerifyVerdict & { statement?: unknown }
  return rest as VerifyVerdict
}

/** The search of `db` fed by `feed` (which ends the tap), or reading by itself when feed is null. */
async function search(
  db: string,
  keys: KeyMaterial[],
  feed: ((tap: NonNullable<ReturnType<typeof startRecovery>['tap']>) => void) | null,
): Promise<Searched> {
  const chain = openDirect(db)
  try {
    const s = startRecovery(chain, keys, feed ? { fed: true } : {})
    if (feed) {
      expect(s.tap).toBeDefined()
      feed(s.tap!)
    } else expect(s.tap).toBeUndefined()
    return await s.done()
  } finally {
    chain.close()
  }
}

describe('the carver fed by the evidence hash finds what it finds reading the file itself', () => {
  for (const [i, c] of cases().entries()) {
    it(
      c.name,
      async () => {
        const g = generate(c, 0x36fed + i)
        made.push(g)
        const keys: KeyMaterial[] = [{ index: 0, encoding: 'hex', bytes: g.key }]
        const alone = await verifyFile(g.db, keys, { recover: true, workers: 1 })
        expect(alone.verdict.recovery?.searched).toBe(true)
        // The statement on: the search is fed by the hash where the addon hashes (else reads itself).
        const fed = await verifyFile(g.db, keys, { recover: true, workers: 1, statement: true })
        expect(fed.statement).toBeDefined()
        expect(bare(fed.verdict)).toEqual(bare(alone.verdict))

        const reference = await search(g.db, keys, null)
        expect(reference.result.rows.length).toBe(alone.verdict.recovered?.length ?? 0)
        const bytes = readFileSync(g.db)
        const pageSize = bytes.readUInt16BE(16) === 1 ? 65536 : bytes.readUInt16BE(16)
        const pages = Math.floor(bytes.length / pageSize)
        const rnd = mulberry32(0x36 + i)
        for (let trial = 0; trial < 6; trial++) {
          // Pieces of 1..9 pages; the feed stops after a random page (the carver reads the rest).
          const stopAt = trial === 0 ? pages : Math.floor(rnd() * (pages + 1))
          const got = await search(g.db, keys, (tap) => {
            let pos = 0
            while (pos < stopAt * pageSize) {
              const n = Math.min((1 + Math.floor(rnd() * 9)) * pageSize, bytes.length - pos)
              tap.bytes(pos, bytes.subarray(pos, pos + n))
              pos += n
            }
            tap.end(pos)
          })
          expect({ trial, stopAt, ...got }).toEqual({ trial, stopAt, ...reference })
        }
        // A piece that does not follow on (a gap, an overlap, half a page): the carver reads from the
        // last page it carved; a feed that ends at once leaves the whole file to it.
        for (const skew of [pageSize, -pageSize, pageSize / 2]) {
          const got = await search(g.db, keys, (tap) => {
            tap.bytes(0, bytes.subarray(0, pageSize))
            tap.bytes(pageSize + skew, bytes.subarray(pageSize + skew, 3 * pageSize))
            tap.bytes(3 * pageSize, bytes.subarray(3 * pageSize))
            tap.end(bytes.length)
          })
          expect({ skew, ...got }).toEqual({ skew, ...reference })
        }
        expect(await search(g.db, keys, (tap) => tap.end(0))).toEqual(reference)
      },
      120_000,
    )
  }
})
