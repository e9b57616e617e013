// `inspect ID` given a key (round 10): trace_id and span_id are outside the MAC (reference §3.3), so a
// row found by its span_id is only the row whose column says so. An insider writes the span_id of a
// span under audit onto an earlier, harmless row; `inspect <span_id>` shows that row and "Row
// VERIFIES." — true of the row's body, read as true of the span. Generated chains with span_ids
// drawn from a small pool (repeats on purpose): the verification must say the ids are not sealed and
// how many rows carry the span_id, and a lookup by seq must say the ids are not sealed.
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { run } from '../../../src/main/cli/commands/inspect'
import { scratchDir, spanRow, writeChain, type RowSpec } from '../reliability/chainkit'
import { memoryIO } from '../testing/cli-io'
import { mulberry32 } from '../testing/prng'

const scratch = scratchDir('inspect-span-id')
afterAll(() => scratch.cleanup())

const KEY = Buffer.from('5a'.repeat(32), 'hex')
const POOL = ['00000000000000a1', '00000000000000b2', '00000000000000c3', '00000000000000d4']

async function inspect(db: string, id: string, withKey: boolean): Promise<{ code: number; out: string }> {
  const io = memoryIO()
  const code = await run(['--db', db, id, ...(withKey ? ['--secret-hex', KEY.toString('hex')] : [])], io)
  return { code, out: io.stdout }
}

describe('inspect by span_id says the ids are not sealed', () => {
  it('counts the rows carrying the span_id and names the ids as unsealed (generated)', async () => {
    const rnd = mulberry32(1603)
    for (let c = 0; c < 16; c++) {
      const n = 3 + Math.floor(rnd() * 12)
      const ids = Array.from({ length: n }, () => POOL[Math.floor(rnd() * POOL.length)]!)
      const rows: RowSpec[] = ids.map((span_id, i) => ({
        ...spanRow({
          timestamp_ns: 1_764_000_000_000_000_000n + BigInt(i) * 1_000_000_000n,
          attributes: { i },
        }),
        span_id,
      }))
      const db = join(scratch.dir, `chain-${c}.db`)
      writeChain(db, KEY, rows)
      const id = ids[Math.floor(rnd() * n)]!
      const carrying = ids.filter((x) => x === id).length
      const first = ids.indexOf(id) + 1
      const keyed = await inspect(db, id, true)
      expect(keyed.code).toBe(0)
      expect(keyed.out).toContain(`seq:                 ${first}\n`)
      expect(keyed.out).toContain('ids:        NOT SEALED (trace_id and span_id are outside the MAC')
      expect(keyed.out).toContain(
        `found by span_id ${id}: the first of ${carrying} row${carrying === 1 ? '' : 's'} carrying it`,
      )
      expect(keyed.out.trimEnd().split('\n').at(-1)).toBe('Row VERIFIES.')
      const bySeq = await inspect(db, String(first), true)
      expect(bySeq.out).toContain('ids:        NOT SEALED')
      expect(bySeq.out).not.toContain('found by span_id')
      // Without a key no verification is printed: the reference's layout, unchanged.
      expect((await inspect(db, id, false)).out).not.toContain('NOT SEALED')
    }
  })
})
