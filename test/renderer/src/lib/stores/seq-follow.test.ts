// A seq selected before what is known of it arrives (issue 35: a deep link opened before the verdict):
// the view follows what the engine later says — the gaps (its neighbours) and the verdict's recovered
// rows (the Recovered tab at its row) — in whichever order they arrive, unless the auditor has moved
// on (another seq, another tab: nothing is yanked). Real answers: seqGaps of an opened session on the
// shared rec-* fixtures and the library's verdicts; only their timing is held back. And the gap store
// stitches seqGaps' pages, so a gap past the first page is known missing like the first.
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ChainOverview, SeqGaps } from '../../../../../src/shared/chain-types'
import type { VerifyVerdict } from '../../../../../src/shared/verify-types'
import { perTest } from '../../../../main/testing/per-test'
import { createHandlers } from '../../../../../src/main/handlers/table'
import { seqGaps } from '../../../../../src/main/chain/seq-facts'
import { WorkspaceStore } from '../../../../../src/renderer/src/lib/stores/workspace-store'
import { rowKey } from '../../../../../src/renderer/src/lib/recovered'
import { fakeApi } from '../../test/fake-api'
import { verdictOf } from '../../test/recovered-kit'
import { dbPath } from '../../../../main/testing/fixtures'
import { gapsOf, gappySeqs, writeGappyChain } from '../../../../main/testing/gappy-chain'
import { mulberry32 } from '../../../../main/testing/prng'

const ctx = { transport: 'http', trusted: true } as const
const per = perTest()

/** A promise and its resolver: an answer the test lets through when it chooses. */
function held<T>(): { promise: Promise<T>; release: (v: T) => void } {
  let release!: (v: T) => void
  const promise = new Promise<T>((r) => (release = r))
  return { promise, release }
}

async function heldWorkspace(name: string) {
  const session = per.session()
  const h = createHandlers(session)
  const overview = (await session.open(dbPath(name))) as ChainOverview
  const gaps = held<SeqGaps>()
  const verdict = held<VerifyVerdict | null>()
  const { api } = fakeApi({
    overrides: {
      seqGaps: () => gaps.promise,
      lastVerdict: () => verdict.promise,
      keylessVerdict: async () => null,
    },
  })
  const ws = new WorkspaceStore({ open_id: 1, path: dbPath(name), sha256: null }, api, overview, {
    hasDialogs: false,
    notify: () => undefined,
  })
  ws.load()
  return {
    ws,
    gaps: async () => gaps.release(await h.seqGaps(undefined, ctx)),
    verdict: (v: VerifyVerdict) => verdict.release(v),
  }
}

/**
 * The fixtures whose files give back deleted rows placed by their links: in the middle, and past the
 * live head (rec-deleted-tail's rows are unplaced without a prior, rec-vacuumed's are gone: no seq
 * to follow there).
 */
const CASES = ['rec-deleted-middle', 'rec-live-truncate']

async function deletedSeqs(v: VerifyVerdict): Promise<number[]> {
  return (v.recovered ?? [])
    .filter((r) => r.status === 'deleted' && r.seq !== null)
    .map((r) => r.seq!)
    .filter((s, i, a) => a.indexOf(s) === i)
}

describe('a seq selected before the verdict follows it to the Recovered tab', () => {
  for (const name of CASES)
    for (const order of ['gaps, then verdict', 'verdict, then gaps'] as const)
      it(`${name}: ${order}`, async () => {
        const v = await verdictOf(name)
        const seqs = await deletedSeqs(v)
        expect(seqs.length, `${name} gives back deleted rows`).toBeGreaterThan(0)
        const rnd = mulberry32(name.length * 31 + order.length)
        const seq = seqs[Math.floor(rnd() * seqs.length)]!
        const { ws, gaps, verdict } = await heldWorkspace(name)
        ws.select(seq)
        // Nothing known yet: the entry panel, never a guess.
        expect(ws.getState().detailTab).toBe('entry')
        if (order === 'gaps, then verdict') {
          await gaps()
          await expect.poll(() => ws.gaps.getState().gaps).not.toBeNull()
          expect(ws.getState().detailTab).toBe('entry')
          verdict(v)
        } else {
          verdict(v)
          await expect.poll(() => ws.getState().verdict).toBe(v)
          // Inside the live chain's span only the gaps can say the seq is not live; past its head
          // the verdict alone places the row there.
          const { first_seq, last_seq } = ws.getState().overview
          if (seq > first_seq! && seq < last_seq!) expect(ws.getState().detailTab).toBe('entry')
          else expect(ws.getState().detailTab).toBe('recovered')
          await gaps()
        }
        await expect.poll(() => ws.getState().detailTab).toBe('recovered')
        const row = ws.recovered.selectedRow()
        expect(row?.seq).toBe(seq)
        expect(ws.recovered.getState().selected).toBe(rowKey(ws.recovered.versionsAt(seq)[0]!))
        expect(ws.getState().selected?.seq).toBe(seq)
        // Its neighbours are the live rows around it.
        const span = ws.missingSpan(seq)!
        expect(ws.getState().neighbours).toEqual({ prev: span.after, next: span.before })
        ws.dispose()
      })

  const MOVES = {
    'another seq selected': (ws: WorkspaceStore) => ws.select(1),
    'the Replays tab opened': (ws: WorkspaceStore) => ws.setDetailTab('replays'),
    'a recovered row chosen': (ws: WorkspaceStore) => ws.showRecovered('elsewhere'),
  }
  for (const [move, act] of Object.entries(MOVES))
    it(`the auditor moved on (${move}): nothing is yanked when the verdict lands`, async () => {
      const v = await verdictOf('rec-deleted-middle')
      const seq = (await deletedSeqs(v))[0]!
      const { ws, gaps, verdict } = await heldWorkspace('rec-deleted-middle')
      ws.select(seq)
      await gaps()
      await expect.poll(() => ws.gaps.getState().gaps).not.toBeNull()
      act(ws)
      const before = { selected: ws.getState().selected, tab: ws.getState().detailTab }
      const rowBefore = ws.recovered.getState().selected
      verdict(v)
      await expect.poll(() => ws.getState().verdict).toBe(v)
      expect(ws.getState().selected).toEqual(before.selected)
      expect(ws.getState().detailTab).toBe(before.tab)
      // The verdict replaced the recovered rows (and their selection); nothing chose this seq's.
      expect(
        ws.recovered.getState().selected === null || ws.recovered.getState().selected === rowBefore,
      ).toBe(true)
      ws.dispose()
    })

  it('a live seq stays an entry when the verdict lands (an earlier version of it is not a deleted row)', async () => {
    const v = await verdictOf('rec-live-rewrite')
    const superseded = (v.recovered ?? []).find((r) => r.status === 'superseded' && r.seq !== null)
    const { ws, gaps, verdict } = await heldWorkspace('rec-live-rewrite')
    const seq = superseded?.seq ?? 1
    ws.select(seq)
    verdict(v)
    await gaps()
    await expect.poll(() => ws.gaps.getState().gaps).not.toBeNull()
    await expect.poll(() => ws.getState().verdict).toBe(v)
    expect(ws.getState().detailTab).toBe('entry')
    expect(ws.missingSpan(seq)).toBeNull()
    ws.dispose()
  })
})

describe('the gap store asks page after page', () => {
  it('a gap on a later page is known missing, with the live rows around it, as on the first', async () => {
    const dir = per.scratch('bijotel-gap-store-')
    const p = join(dir, 'chain.db')
    const seqs = gappySeqs('mixed', 3000, 77)
    writeGappyChain(p, seqs)
    const want = gapsOf(seqs)
    const session = per.session()
    const overview = (await session.open(p)) as ChainOverview
    const idx = (await session.entrySource()).index
    const rnd = mulberry32(12)
    // Small pages of the engine's own function: the store must stitch them whatever their size.
    const size = 1 + Math.floor(rnd() * 97)
    let asked = 0
    const { api } = fakeApi({
      overrides: {
        seqGaps: async (req) => {
          asked++
          return seqGaps(idx, (req as { from_index?: number } | undefined)?.from_index ?? 0, size)
        },
        lastVerdict: async () => null,
        keylessVerdict: async () => null,
      },
    })
    const ws = new WorkspaceStore({ open_id: 1, path: p, sha256: null }, api, overview, {
      hasDialogs: false,
      notify: () => undefined,
    })
    ws.load()
    await expect.poll(() => ws.gaps.getState().gaps?.truncated, { timeout: 20_000 }).toBe(false)
    expect(ws.gaps.getState().gaps!.gaps).toEqual(want)
    expect(asked).toBe(Math.ceil(want.length / size) + (want.length % size === 0 ? 1 : 0))
    for (let k = 0; k < 20; k++) {
      const g = want[Math.floor(rnd() * want.length)]!
      const s = g.after_seq + 1 + Math.floor(rnd() * (g.before_seq - g.after_seq - 1))
      expect(ws.missingSpan(s)).toEqual({
        from: g.after_seq + 1,
        to: g.before_seq - 1,
        after: g.after_seq,
        before: g.before_seq,
      })
    }
    // Live seqs of every page are live.
    for (let k = 0; k < 20; k++) expect(ws.missingSpan(seqs[Math.floor(rnd() * seqs.length)]!)).toBeNull()
    // Asked again (a staged open's final stage): while its later pages are on their way, the list
    // shown never gets shorter — a gap past the first page keeps its row, the table does not shift.
    const firstAsks = asked
    const shown: number[] = []
    const off = ws.gaps.subscribe(() => shown.push(ws.gaps.getState().gaps?.gaps.length ?? 0))
    ws.setOverview(overview)
    await expect.poll(() => asked, { timeout: 20_000 }).toBe(2 * firstAsks)
    await expect.poll(() => ws.gaps.getState().gaps?.truncated, { timeout: 20_000 }).toBe(false)
    expect(shown.length).toBeGreaterThan(0)
    for (const n of shown) expect(n).toBe(want.length)
    expect(ws.gaps.getState().gaps!.gaps).toEqual(want)
    const late = want[want.length - 1]!
    expect(ws.missingSpan(late.after_seq + 1)?.after).toBe(late.after_seq)
    off()
    ws.dispose()
  })
})
