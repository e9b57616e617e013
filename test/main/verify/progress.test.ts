// Issue 35: verify progress read "74,787 / 201,979" on a 200,000-row chain — the denominator was
// the source's estimate (the copy's seq span, the direct reader's sample of leaves), not the rows
// verified. Generated chains with seq gaps (a span far larger than the rows) and uneven leaves: the
// total of every progress report is the rows the verdict verified — the caller's exact count when it
// has one (the app's index), else the source's count once the range is placed — on both readers.
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseSecrets } from '../../../src/main/chain/keys'
import { verifyRows } from '../../../src/main/verify/verify'
import { scratchDir, spanRow, writeChain, type RowSpec } from '../reliability/chainkit'
import { fingerprintFolder, SECRETS } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'
import { READERS, withSource } from '../testing/sources'

const before = fingerprintFolder()
const scratch = scratchDir('verify-progress')
afterAll(() => {
  scratch.cleanup()
  expect(fingerprintFolder()).toEqual(before)
})
const KEY = SECRETS['primary']!
const keys = parseSecrets([{ encoding: 'hex', value: KEY }])

/** A chain whose seqs jump: runs of rows separated by gaps of thousands of seq numbers. */
function gapChain(seed: number): { path: string; rows: number } {
  const rnd = mulberry32(seed)
  const rows: RowSpec[] = []
  let seq = 1
  const n = 300 + Math.floor(rnd() * 900)
  for (let i = 0; i < n; i++) {
    if (rnd() < 0.01) seq += 1000 + Math.floor(rnd() * 50_000)
    // Bodies of uneven size: leaves hold very different numbers of rows, so a sample misjudges.
    const pad = 'x'.repeat(rnd() < 0.2 ? 1500 : 20)
    rows.push({
      ...spanRow({ timestamp_ns: 1_764_000_000_000_000_000n + BigInt(i) * 1_000_000n, attributes: { pad } }),
      seq: seq++,
    })
  }
  const path = join(scratch.dir, `gap-${seed}.db`)
  writeChain(path, Buffer.from(KEY, 'hex'), rows)
  return { path, rows: n }
}

describe('verify progress counts against the rows verified', () => {
  for (const seed of [1, 2, 3]) {
    const chain = gapChain(seed)
    for (const reader of READERS) {
      it(`seed ${seed}, ${reader}: the caller's exact count is the denominator of every report`, async () => {
        const totals = new Set<number>()
        const v = await withSource(chain.path, reader, (src) =>
          verifyRows(src, keys, {
            workers: 1,
            rowsKnown: chain.rows,
            onProgress: (done, total) => {
              expect(done).toBeLessThanOrEqual(total)
              totals.add(total)
            },
          }),
        )
        expect(v.entries).toBe(chain.rows)
        expect([...totals]).toEqual([chain.rows])
      })

      it(`seed ${seed}, ${reader}: a range's reports count against the rows of the range`, async () => {
        const totals: number[] = []
        const v = await withSource(chain.path, reader, (src) =>
          verifyRows(src, keys, {
            workers: 1,
            range: { seq_start: 1 },
            onProgress: (_done, total) => totals.push(total),
          }),
        )
        expect(totals.length).toBeGreaterThan(0)
        // Not the seq span (here far larger than the rows): the rows the verdict verified.
        expect(new Set(totals)).toEqual(new Set([v.entries]))
        expect(v.entries).toBe(chain.rows)
      })
    }
  }
})
