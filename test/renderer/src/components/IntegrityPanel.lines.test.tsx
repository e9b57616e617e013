// @vitest-environment jsdom
// A whole-chain integrity run lists as many sequence gaps as a chain has rows (a gap at every other
// seq) and the panel drew each as a line: 1,000,000 gaps, a million list items in the page. Every
// category now lists at most 200 lines and counts the rest on a last line; the category's summary
// keeps the whole count. Runs made by the engine (runIntegrity, all rows) on generated gap chains
// of each class and size, rendered as the app renders them.
import { join } from 'node:path'
import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { IntegrityRun } from '../../../../src/shared/integrity-types'
import { IntegrityPanel } from '../../../../src/renderer/src/components/IntegrityPanel'
import { createHandlers } from '../../../../src/main/handlers/table'
import { perTest } from '../../../main/testing/per-test'
import { GAP_CLASSES, gappySeqs, writeGappyChain } from '../../../main/testing/gappy-chain'

afterEach(cleanup)
const per = perTest()
const ctx = { transport: 'ipc', trusted: true } as const

describe('the integrity panel lists a bounded number of lines per category', () => {
  for (const cls of GAP_CLASSES)
    for (const rows of [150, 1200])
      it(`${cls}, ${rows} rows`, async () => {
        const seqs = gappySeqs(cls, rows, rows)
        const path = join(per.scratch('bijotel-integrity-lines-'), 'gappy.db')
        writeGappyChain(path, seqs)
        const h = createHandlers(per.session())
        await h.openChain({ path }, ctx)
        const run = (await h.runIntegrity({ all: true }, ctx)) as IntegrityRun
        const gaps = run.report.sequence_gaps.length
        expect(gaps).toBeGreaterThan(0)
        render(
          <IntegrityPanel
            run={run}
            options={{ all: true }}
            busy={false}
            status={null}
            error={null}
            onRun={() => undefined}
            onCancel={() => undefined}
            onSelectSeq={() => undefined}
            totalRows={seqs.length}
          />,
        )
        const list = screen.getByTestId('sequence-gap-lines')
        const items = list.querySelectorAll('li')
        expect(items.length).toBe(Math.min(gaps, 200) + (gaps > 200 ? 1 : 0))
        if (gaps > 200)
          expect(items[items.length - 1]!.textContent).toContain(
            `+${(gaps - 200).toLocaleString('en-US')} more`,
          )
        expect(screen.getByTestId('cat-sequence').textContent).toContain(`${gaps} gap(s)`)
      }, 60_000)
})
