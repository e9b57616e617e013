// The rows digest (issue 25 item 1): block sizes, and findings located to the blocks that differ.
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { blockSizeFor, MAX_BLOCKS, priorRowFindings, RowsDigester } from '../../../src/main/chain/rows-digest'

function digest(rows: [number, string][], blockSize: number): ReturnType<RowsDigester['finish']> {
  const d = new RowsDigester(blockSize)
  for (const [s, h] of rows) d.push(s, String(s), h)
  return d.finish()
}

const chain = (n: number, mac = (s: number) => `h${s}`): [number, string][] =>
  Array.from({ length: n }, (_, i) => [i + 1, mac(i + 1)])

describe('rows digest', () => {
  it('block sizes: one seq per block up to MAX_BLOCKS, then powers of two', () => {
    expect(blockSizeFor(1, MAX_BLOCKS)).toBe(1)
    expect(blockSizeFor(1, MAX_BLOCKS + 1)).toBe(2)
    expect(blockSizeFor(1, 1_000_000)).toBe(1024)
    expect(blockSizeFor(null, null)).toBe(1)
  })

  it('the same rows give the same digest; the digest is over seq:hmac lines', () => {
    const a = digest(chain(10), 4)
    expect(digest(chain(10), 4)).toEqual(a)
    expect(a).toMatchObject({ first_seq: 1, last_seq: 10, count: 10, head_hmac: 'h10', block_size: 4 })
    // Block k holds seqs 4k..4k+3: 1-3, 4-7, 8-10.
    expect(a.blocks.map((b) => [b.from_seq, b.to_seq, b.rows])).toEqual([
      [0, 3, 3],
      [4, 7, 4],
      [8, 11, 3],
    ])
    expect(priorRowFindings(a, digest(chain(10), 4))).toEqual([])
  })

  it('a changed row is located to its block; a missing one is deleted; a cut is left to the head check', () => {
    const prior = digest(chain(10), 4)
    expect(
      priorRowFindings(
        prior,
        digest(
          chain(10, (s) => (s === 5 ? 'x' : `h${s}`)),
          4,
        ),
      ),
    ).toEqual([{ kind: 'rewritten', from_seq: 4, to_seq: 7, count: 4 }])
    expect(
      priorRowFindings(
        prior,
        digest(
          chain(10).filter(([s]) => s !== 9),
          4,
        ),
      ),
    ).toEqual([{ kind: 'deleted', from_seq: 8, to_seq: 10, count: 1 }])
    // Cut after 6: blocks past (and across) the cut are the truncation.
    expect(priorRowFindings(prior, digest(chain(6), 4))).toEqual([])
    // Cut after 6 and row 2 changed: still found.
    expect(
      priorRowFindings(
        prior,
        digest(
          chain(6, (s) => (s === 2 ? 'y' : `h${s}`)),
          4,
        ),
      ),
    ).toEqual([{ kind: 'rewritten', from_seq: 1, to_seq: 3, count: 3 }])
  })

  it('adjacent changed blocks merge; a row where the prior had none is a rewrite', () => {
    const prior = digest(chain(8), 2)
    const now = digest(
      chain(8, (s) => (s >= 3 ? `z${s}` : `h${s}`)),
      2,
    )
    // Blocks of 2 hold seqs 2-3, 4-5, 6-7, 8-9: the change at 3 is located to the block 2-3.
    expect(priorRowFindings(prior, now)).toEqual([{ kind: 'rewritten', from_seq: 2, to_seq: 8, count: 7 }])
    const gappy = digest(
      chain(8).filter(([s]) => s !== 4),
      1,
    )
    expect(priorRowFindings(gappy, digest(chain(8), 1))).toEqual([
      { kind: 'rewritten', from_seq: 4, to_seq: 4, count: 1 },
    ])
  })

  it('each value is written as JSON: a NULL, a blob, a number or text holding a newline cannot pass for another', () => {
    const one = (v: unknown): string => {
      const d = new RowsDigester(1)
      d.push(1, '1', v)
      return d.finish().digest
    }
    const values = [null, 'null', Buffer.from('ab'), '{"blob":"6162"}', 5, '5', 'a\n2:b', 'a']
    expect(new Set(values.map(one)).size).toBe(values.length)
    // Text is its JSON string: the line of seq 7 holding "ab" is `7:"ab"\n`.
    const d = new RowsDigester(1)
    d.push(7, '7', 'ab')
    expect(d.finish().digest).toBe(createHash('sha256').update('7:"ab"\n').digest('hex'))
  })
})
