// Issue 38, what a reader sees is what is checked: every part of a report that its page shows
// (../../../src/main/custody/html/sections.ts) and that the chain can reproduce is compared by
// `report verify`. A report re-signed by its own signer after an edit of such a part, a claim the
// page would show as fact, must not read "every checked field reproduces". Generated: each edit of
// the shown, reproducible parts of a signed report with replay checks, of a VALID and a BROKEN chain.
import { describe, expect, it } from 'vitest'
import { checkReport } from '../../../src/main/audit/check-report'
import { parseSecrets } from '../../../src/main/chain/keys'
import { secretInputs } from '../testing/fixtures'
import { fixtureReports, type Doc } from './resigned-reports'

const { reports, resignedCheck } = fixtureReports('check-report-shown', [1, 8])

/** Edits of parts the page shows; each names the field that must then differ. */
function shownEdits(doc: Doc): [string, RegExp, (d: Doc) => void][] {
  const out: [string, RegExp, (d: Doc) => void][] = []
  const details = [
    'row does NOT verify: HMAC not reproduced',
    'row verifies: body hash ok, prev_hash links to the previous row, HMAC reproduced by key #2',
    '',
  ]
  doc['replay_checks'].forEach((_c: unknown, i: number) =>
    details.forEach((t) =>
      out.push([
        `replay ${i} row_detail "${t}"`,
        new RegExp(`replay_checks\\[${i}\\]\\.row_detail`),
        (d) => {
          d['replay_checks'][i].row_detail = t
        },
      ]),
    ),
  )
  const line = doc['coverage'].line as string
  for (const [a, b] of [
    ['sha256=', 'sha256=0'],
    ['entries=', 'entries=1'],
    ['keys=', 'keys=ffff,'],
    ['; wal=none', ''],
  ] as const)
    out.push([`coverage.line ${a}→${b}`, /coverage\.line/, (d) => (d['coverage'].line = line.replace(a, b))])
  out.push(['coverage.line appended', /coverage\.line/, (d) => (d['coverage'].line = line + ' VALID')])
  const blocks = doc['coverage'].rows.blocks as Doc[]
  for (let i = 0; i < blocks.length; i += Math.max(1, Math.floor(blocks.length / 5))) {
    out.push([
      `block ${i} digest`,
      /coverage\.rows\.blocks/,
      (d) => (d['coverage'].rows.blocks[i].digest = '0'.repeat(16)),
    ])
    out.push([`block ${i} rows`, /coverage\.rows\.blocks/, (d) => (d['coverage'].rows.blocks[i].rows += 1)])
    out.push([`block ${i} dropped`, /coverage\.rows\.blocks/, (d) => d['coverage'].rows.blocks.splice(i, 1)])
  }
  out.push(['block_size', /coverage\.rows\.block_size/, (d) => (d['coverage'].rows.block_size *= 2)])
  const fake = { seq: 3, status: 'deleted', hmac_hash: 'cd'.repeat(32), body_ok: true, key_index: 0 }
  out.push([
    'recovered rows under a search that did not happen',
    /recovery\.rows/,
    (d) => {
      d['recovery'].summary.searched = false
      d['recovery'].rows = [fake]
    },
  ])
  out.push([
    'uncommitted rows under a search that did not happen',
    /recovery\.uncommitted/,
    (d) => {
      d['recovery'].summary.searched = false
      d['recovery'].rows = []
      d['recovery'].uncommitted = [fake]
    },
  ])
  return out
}

describe('report verify compares what the page shows', () => {
  it('what the page shows but nothing re-runs (side files, how the file was read) is listed as not checked', async () => {
    const { db, doc } = reports[0]!
    const d = structuredClone(doc)
    d['evidence'].side_files = [
      { path: '/x/chain.db-journal', size: 5, sha256: 'ab'.repeat(32), mtime: 'then' },
    ]
    d['evidence'].method = 'notarised'
    const keys = parseSecrets(secretInputs(['primary']))
    const r = await checkReport({ read: { doc: d, format: 'json' }, reportPath: 'r', dbPath: db, keys })
    const listed = (name: string): unknown => r.fields.find((x) => x.field === name)
    expect(listed('evidence.side_files[0]')).toMatchObject({ status: 'not_checked', informational: true })
    expect(listed('evidence.method')).toMatchObject({ status: 'not_checked', reported: 'notarised' })
    d['evidence'].side_files = 'none'
    const bad = await checkReport({ read: { doc: d, format: 'json' }, reportPath: 'r', dbPath: db, keys })
    expect(bad.ok).toBe(false)
    expect(bad.summary).toMatch(/evidence\.side_files/)
  })

  it('every generated edit of a shown part, re-signed by the same signer, fails naming the field', async () => {
    let cases = 0
    for (const { db, doc } of reports) {
      const check = (d: Doc): Promise<{ ok: boolean; summary: string }> => resignedCheck(db, d)
      // The honest report, signed, reproduces.
      const honest = await check(structuredClone(doc))
      expect(honest.ok, honest.summary).toBe(true)
      for (const [what, field, edit] of shownEdits(doc)) {
        const d = structuredClone(doc)
        edit(d)
        const r = await check(d)
        expect(r.ok, what).toBe(false)
        expect(r.summary, what).toMatch(field)
        cases++
      }
    }
    expect(cases).toBeGreaterThan(40)
  }, 300_000)
})
