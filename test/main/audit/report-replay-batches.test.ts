// A replay batch past the bound (round 11): the session keeps the first 20,000 checks of a batch and
// counts the rest, and the app and the HTTP summary say so — but the report built afterwards listed
// the kept checks without saying others were made. The report now carries each batch's record
// (where its kept checks are, and how many it made and did not keep), the HTML page shows it, and
// `report verify` holds each record to the checks the report lists: a re-signed report that inflates
// the count, points a record past or across the checks, or removes the record of a full batch does
// not read OK. Generated: batch sizes around the bound, single checks between them, through the
// app's handlers; the records are compared with the sizes given, and the crafted reports are signed
// with a fresh Ed25519 pair (node:crypto) whose public key is given, so only the fields can fail.
import { generateKeyPairSync } from 'node:crypto'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { ReplayBatchResult } from '../../../src/shared/replay-types'
import { REPLAY_BATCH_KEEP, type AuditReport } from '../../../src/shared/report-types'
import { checkReport } from '../../../src/main/audit/check-report'
import { FieldList } from '../../../src/main/audit/check-fields'
import { checkReplayBatches } from '../../../src/main/audit/check-replay-batches'
import { renderReportHtml } from '../../../src/main/custody/html/render'
import { parseReportText } from '../../../src/main/custody/report-file'
import { signReport } from '../../../src/main/custody/sign'
import { AuditSession } from '../../../src/main/session/session'
import { createHandlers } from '../../../src/main/handlers/table'
import { dbPath, fingerprintFolder } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'

const before = fingerprintFolder()
afterAll(() => expect(fingerprintFolder()).toEqual(before))
let session: AuditSession | null = null
afterEach(() => session?.dispose())
const ctx = { transport: 'ipc' as const, trusted: true }
const DB = dbPath('clean')
const { privateKey, publicKey } = generateKeyPairSync('ed25519')

/** `n` checkable lines (seqs of the clean fixture's 240 rows). */
function batchText(rnd: () => number, n: number): string {
  const out: string[] = []
  for (let i = 0; i < n; i++)
    out.push(JSON.stringify({ seq: 1 + Math.floor(rnd() * 240), output: rnd() < 0.5 ? 'x' : 'hello world' }))
  return out.join('\n') + '\n'
}

type Doc = Record<string, unknown>
async function verifyDoc(doc: Doc) {
  const read = parseReportText(JSON.stringify(signReport(doc as unknown as AuditReport, privateKey)), 'r')
  return checkReport({ read, reportPath: 'r', dbPath: DB, keys: [], publicKey })
}
const failing = (r: Awaited<ReturnType<typeof verifyDoc>>): string[] =>
  r.fields.filter((x) => x.status !== 'reproduces' && !x.informational).map((x) => x.field)

/**
 * The fields of `doc`'s replay_batches that do not reproduce (./check-replay-batches.ts alone, on the
 * document as parsed; the whole of report verify, signature and parse included, runs below).
 */
function batchFailures(doc: Doc): string[] {
  const f = new FieldList()
  checkReplayBatches(f, doc)
  return f.failing.map((x) => x.field)
}

describe('report: replay batches past the bound', () => {
  // Two sessions, each with two batches around the bound (a report of more is past its 64 MiB).
  const plans = [
    [REPLAY_BATCH_KEEP - 1, 'small', REPLAY_BATCH_KEEP + 1],
    ['small', REPLAY_BATCH_KEEP, 'over'],
  ] as const
  it.each([0, 1])(
    'says how many checks each batch made and did not keep, and report verify holds it (plan %i)',
    async (t) => {
      const rnd = mulberry32(2525 + t)
      session = new AuditSession()
      const h = createHandlers(session)
      await session.open(DB)
      const sizes = plans[t]!.map((n) =>
        n === 'small'
          ? 1 + Math.floor(rnd() * 30)
          : n === 'over'
            ? REPLAY_BATCH_KEEP + 2 + Math.floor(rnd() * 40)
            : n,
      )
      const singles = 1 + Math.floor(rnd() * 2)
      const want: { first: number; kept: number; not_kept: number }[] = []
      let listed = 0
      for (let s = 0; s < singles; s++) {
        await h.checkReplay({ seq: 1 + s, text: 'x' }, ctx)
        listed++
      }
      for (const n of sizes) {
        const r = (await h.checkReplayBatch({ jsonl: batchText(rnd, n) }, ctx)) as ReplayBatchResult
        const kept = Math.min(n, REPLAY_BATCH_KEEP)
        expect(r.checks_not_kept ?? 0).toBe(n - kept)
        want.push({ first: listed, kept, not_kept: n - kept })
        listed += kept
      }
      const report = (await h.buildReport({}, ctx)) as AuditReport
      const said = `plan ${t}: sizes ${sizes.join()} singles=${singles}`
      expect(report.replay_checks, said).toHaveLength(listed)
      expect(report.replay_batches, said).toEqual(want)
      const page = renderReportHtml(report)
      for (const [i, b] of want.entries())
        expect(page, said).toContain(
          `<span data-field="replay_batches.${i}.not_kept" data-value="${b.not_kept}">${b.not_kept}</span> more made and not kept`,
        )
      const doc = structuredClone(report) as unknown as Doc
      const honest = await verifyDoc(doc)
      expect(failing(honest), said).toEqual([])
      expect(honest.ok, said).toBe(true)
      // The page embeds the same records, which report verify reads back from it.
      expect(parseReportText(page, 'r').doc['replay_batches'], said).toEqual(want)

      const full = want.findIndex((b) => b.kept === REPLAY_BATCH_KEEP)
      const part = want.findIndex((b) => b.kept < REPLAY_BATCH_KEEP)
      const records = (d: Doc): Doc[] => d['replay_batches'] as Doc[]
      const crafted: [string, (d: Doc) => void][] = [
        // Inflated: checks said not kept beside a batch that kept fewer than the bound.
        ['inflated', (d) => (records(d)[part]!['not_kept'] = 1 + Math.floor(rnd() * 5000))],
        // A record pointing past the checks listed.
        ['past', (d) => (records(d)[part]!['first'] = listed)],
        // The full batch's record removed: its checks then look like single checks.
        ['removed', (d) => records(d).splice(full, 1)],
        // Written as an older report, without records.
        [
          'older',
          (d) => {
            delete d['replay_batches']
            d['schema_version'] = '1.2.0'
          },
        ],
        // Two records over the same checks.
        ['across', (d) => (records(d)[1]!['first'] = want[0]!.first + want[0]!.kept - 1)],
      ]
      for (const [what, edit] of crafted) {
        const d = structuredClone(doc)
        edit(d)
        expect(batchFailures(d).length, `${said} ${what}`).toBeGreaterThan(0)
      }
      // One crafted report through the whole of report verify: signature valid, the count DIFFERS.
      const inflated = structuredClone(doc)
      crafted[0]![1](inflated)
      const r = await verifyDoc(inflated)
      expect(r.signature.status, said).toBe('valid')
      expect(r.ok, said).toBe(false)
      // (With its record refused, the checks it held may also be more than a batch keeps unaccounted.)
      expect(failing(r), said).toContain(`replay_batches[${part}]`)
      expect(
        failing(r).every((x) => x.startsWith('replay_batches')),
        said,
      ).toBe(true)
    },
    300_000,
  )
})
