// @vitest-environment jsdom
// A chain whose every other row's body no longer hashes to its sealed canonical_hash has a finding
// per such row (findings merge only adjacent seqs), and the verdict's findings table drew a row for
// each (10^6 in a 2M-row file). It now lists the first FINDINGS_LISTED in seq order and counts the
// rest after the last one listed. Verdicts made by the engine (verifyFile) on chains written for the
// test, around the bound.
import { join } from 'node:path'
import { cleanup, render, screen } from '@testing-library/react'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { FINDINGS_LISTED, VerdictView } from '../../../../src/renderer/src/components/VerdictView'
import { parseSecrets } from '../../../../src/main/chain/keys'
import { verifyFile } from '../../../../src/main/audit/verify-file'
import { scratchDir, sha256, spanRows, writeChain } from '../../../main/reliability/chainkit'

const scratch = scratchDir('verdict-findings')
afterAll(() => scratch.cleanup())
afterEach(cleanup)
const KEY = Buffer.alloc(32, 4)

describe('the findings table lists a bounded number of findings and counts the rest', () => {
  for (const rows of [2 * FINDINGS_LISTED - 10, 2 * FINDINGS_LISTED + 3, 3000])
    it(`every other body edited over ${rows} rows`, async () => {
      const path = join(scratch.dir, `gaps-${rows}.db`)
      // Every other row sealed over a hash its body does not have (a body edited after sealing).
      const specs = spanRows(rows).map((r, i) =>
        i % 2 === 1 ? { ...r, canonical_hash: sha256(`edited ${i}`) } : r,
      )
      writeChain(path, KEY, specs)
      const { verdict } = await verifyFile(
        path,
        parseSecrets([{ encoding: 'hex', value: KEY.toString('hex') }]),
        {
          workers: 1,
        },
      )
      const n = verdict.findings.length
      expect(n).toBeGreaterThan(FINDINGS_LISTED - 20)
      render(<VerdictView verdict={verdict} />)
      const drawn = screen.getAllByTestId('finding-row')
      expect(drawn.length).toBe(Math.min(n, FINDINGS_LISTED))
      const more = screen.queryByTestId('findings-more')
      if (n > FINDINGS_LISTED) {
        expect(more?.textContent).toContain(`+${(n - FINDINGS_LISTED).toLocaleString('en-US')} more`)
        expect(more?.textContent).toContain(`after seq ${verdict.findings[FINDINGS_LISTED - 1]!.to_seq}`)
      } else expect(more).toBeNull()
    }, 120_000)
})
