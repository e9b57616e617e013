// @vitest-environment jsdom
// "Not known yet" is never shown as "changed" (issue 35): every combination of what the engine may
// hand over mid-open — the hash known or not, the re-check passed or not, the index pending or not —
// and what the evidence panel must say of it. The browser test (e2e/screen.spec.ts) watches a real
// staged open; this one holds the rendering itself, whatever the race between hash and index.
import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { ChainOverview } from '../../../../src/shared/chain-types'
import { EvidencePanel } from '../../../../src/renderer/src/components/EvidencePanel'

afterEach(cleanup)

const SHA = 'ab'.repeat(32)

function overview(sha: string, unchanged: boolean, pending: boolean, models: number): ChainOverview {
  return {
    evidence: {
      db: { path: '/evidence/chain.db', size: 4096, sha256: sha, mtime: '2026-12-06T09:00:00.000Z' },
      wal:
        sha === ''
          ? { path: '/evidence/chain.db-wal', size: 0, sha256: '', mtime: '2026-12-06T09:00:00.000Z' }
          : null,
      side_files: [],
      method: 'read in place',
      unchanged_after_copy: unchanged,
    },
    entries: 3,
    first_seq: 1,
    last_seq: 3,
    first_timestamp_ns: '1764000000000000000',
    last_timestamp_ns: '1764000002000000000',
    first_time: '2025-11-24T16:00:00.000Z',
    last_time: '2025-11-24T16:00:02.000Z',
    providers: [{ name: 'openai', count: 3 }],
    models: Array.from({ length: models }, (_, i) => ({ name: `m${i}`, count: 1 })),
    columns: [],
    journal_mode: 'delete',
    pending,
  }
}

describe('EvidencePanel: unknown is shown as unknown', () => {
  for (const sha of ['', SHA])
    for (const unchanged of [false, true])
      for (const pending of [false, true])
        for (const models of [0, 2])
          it(`hash ${sha === '' ? 'not known' : 'known'}, re-check ${unchanged}, pending ${pending}, ${models} models`, () => {
            render(<EvidencePanel overview={overview(sha, unchanged, pending, models)} />)
            const text = screen.getByTestId('evidence').textContent ?? ''
            if (sha === '') {
              // Not hashed yet: "checking…", never CHANGED and never "unchanged".
              expect(screen.getByTestId('evidence-checking')).toBeTruthy()
              expect(screen.getByTestId('evidence-db-sha256-pending').textContent).toBe('hashing…')
              expect(text).not.toContain('CHANGED')
              expect(text).not.toContain('unchanged')
            } else {
              expect(screen.queryByTestId('evidence-checking')).toBeNull()
              // Known: CHANGED exactly when the re-check after the hash failed.
              expect(text.includes('CHANGED')).toBe(!unchanged)
              expect(text.includes('unchanged')).toBe(unchanged)
            }
            const state = screen.queryByTestId('overview-models-state')?.textContent ?? null
            // No models yet while the index is pending reads "indexing…", not "none recorded".
            if (models > 0) expect(state).toBeNull()
            else expect(state).toBe(pending ? 'indexing…' : 'none recorded')
          })
})

describe('EvidencePanel: a chain naming as many providers as rows draws a bounded panel', () => {
  for (const n of [1, 8, 9, 70_000])
    it(`${n} providers: at most 8 chips until more are asked for, and the rest counted`, () => {
      const o = overview(SHA, true, false, 0)
      o.providers = Array.from({ length: n }, (_, i) => ({ name: `p${i}`, count: n - i }))
      render(<EvidencePanel overview={o} />)
      const box = screen.getByTestId('overview-providers')
      expect(box.querySelectorAll('button.chip').length).toBe(Math.min(n, 8))
      const more = screen.queryByTestId('overview-providers-more')
      if (n > 8) expect(more?.textContent).toBe(`+${n - 8} more`)
      else expect(more).toBeNull()
    })
})
