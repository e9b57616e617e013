// Issue 38: the page shows a report's values as text, never as markup. Every value of a real report
// (every leaf, down the whole tree) replaced by a string of markup: the drawn page, outside its
// embedded JSON, holds it only escaped. (The seq strip wrote chain.first_seq/last_seq and the
// integrity window's seqs raw into its SVG: a crafted report drew its own heading there.)
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AuditReport } from '../../../../src/shared/report-types'
import { EMBED_ID, renderReportHtml } from '../../../../src/main/custody/html/render'
import { scratchDir } from '../../reliability/chainkit'
import { ensureBuilt, fixtureReport } from '../../testing/cli'

const scratch = scratchDir('render-markup')
let report: Record<string, unknown>
beforeAll(() => {
  ensureBuilt()
  const out = join(scratch.dir, 'r.json')
  report = fixtureReport('body-edit', [8], out)
})
afterAll(() => scratch.cleanup())

function leaves(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(v)) return v.slice(0, 3).flatMap((x, i) => leaves(x, [...at, i]))
  if (typeof v === 'object' && v !== null) return Object.entries(v).flatMap(([k, x]) => leaves(x, [...at, k]))
  return [at]
}

describe('values are drawn as text', () => {
  it('markup in any value of a report is escaped on the page', () => {
    const MARK = '<h1 id="injected">VALID</h1>'
    let drawn = 0
    for (const path of leaves(report)) {
      const doc = structuredClone(report) as Record<string | number, unknown>
      let o = doc
      for (const k of path.slice(0, -1)) o = o[k] as Record<string | number, unknown>
      o[path[path.length - 1]!] = MARK
      let page: string
      try {
        page = renderReportHtml(doc as unknown as AuditReport)
      } catch {
        continue // a value of another kind where a number or list is drawn: report-file refuses the page
      }
      const visible = page.slice(0, page.indexOf(`<script type="application/json" id="${EMBED_ID}">`))
      expect(visible, path.join('.')).not.toContain('id="injected"')
      drawn++
    }
    expect(drawn).toBeGreaterThan(100)
  })
})
