// @vitest-environment jsdom
// A replay batch adds one check per line to the session's list, and the replay tab drew every one
// (a JSONL of a million short lines: a million table rows). The list now shows the newest
// REPLAY_LISTED and counts the rest. Checks made by the engine (checkReplayBatch through the real
// handler table on a chain written for the test), in batches of generated sizes around the bound.
import { join } from 'node:path'
import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { ReplayCheck } from '../../../../src/shared/replay-types'
import { ReplayList, REPLAY_LISTED } from '../../../../src/renderer/src/components/ReplayList'
import { createHandlers } from '../../../../src/main/handlers/table'
import { perTest } from '../../../main/testing/per-test'
import { SMALL, writeChainFolder } from '../../../main/testing/exact-chains'

afterEach(cleanup)
const per = perTest()
const ctx = { transport: 'ipc', trusted: true } as const

describe('the replay list shows a bounded number of checks, newest first, and counts the rest', () => {
  for (const lines of [3, REPLAY_LISTED, REPLAY_LISTED + 1, 2 * REPLAY_LISTED + 7])
    it(`${lines} checks`, async () => {
      const path = writeChainFolder(join(per.scratch('bijotel-replay-list-'), 'a'), { ...SMALL, rows: 30 })
      const h = createHandlers(per.session())
      await h.openChain({ path }, ctx)
      const jsonl = Array.from({ length: lines }, (_, i) =>
        JSON.stringify({ seq: 1 + (i % 30), output: `o${i}` }),
      ).join('\n')
      await h.checkReplayBatch({ jsonl }, ctx)
      const checks = (await h.listReplayChecks({}, ctx)) as ReplayCheck[]
      expect(checks.length).toBe(lines)
      render(<ReplayList checks={checks} onSelectSeq={() => undefined} />)
      const rows = screen.getAllByTestId('replay-list-row')
      expect(rows.length).toBe(Math.min(lines, REPLAY_LISTED))
      // Newest first: the first row is the last check made.
      expect(rows[0]!.querySelector('button')!.textContent).toBe(String(checks.at(-1)!.seq))
      const more = screen.queryByTestId('replay-list-more')
      if (lines > REPLAY_LISTED)
        expect(more?.textContent).toContain(
          `${(lines - REPLAY_LISTED).toLocaleString('en-US')} earlier check`,
        )
      else expect(more).toBeNull()
    }, 60_000)
})
