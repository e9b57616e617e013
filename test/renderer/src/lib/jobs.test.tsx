// @vitest-environment jsdom
import { describe, expect, it } from 'vitest'
import type { JobStatus } from '../../../../src/shared/job-types'
import { jobFraction, pollJob } from '../../../../src/renderer/src/lib/jobs'

const status = (state: JobStatus['state'], done: number, total = 100): JobStatus => ({
  id: 'j1',
  kind: 'verify',
  state,
  progress: { done, total, phase: 'verifying' },
  started_at: '',
  result: state === 'done' ? { ok: true } : null,
  error: null,
})

describe('pollJob', () => {
  it('polls until the job ends and reports every status', async () => {
    const seq = [status('running', 30), status('running', 60), status('done', 100)]
    let calls = 0
    const seen: number[] = []
    const last = await pollJob(
      {
        jobStatus: async ({ id }) => {
          expect(id).toBe('j1')
          return seq[calls++]!
        },
      },
      status('running', 0),
      { intervalMs: 1, onUpdate: (s) => seen.push(s.progress.done) },
    )
    expect(last.state).toBe('done')
    expect(seen).toEqual([0, 30, 60, 100])
    expect(calls).toBe(3)
  })

  it('returns at once for a finished job and stops on abort', async () => {
    let calls = 0
    const api = { jobStatus: async () => (calls++, status('running', 1)) }
    expect((await pollJob(api, status('failed', 0))).state).toBe('failed')
    const ac = new AbortController()
    const p = pollJob(api, status('running', 0), { intervalMs: 5, signal: ac.signal })
    setTimeout(() => ac.abort(), 20)
    const s = await p
    expect(s.state).toBe('running')
    expect(calls).toBeLessThan(10)
  })

  it('computes the fraction done', () => {
    expect(jobFraction(null)).toBeNull()
    expect(jobFraction(status('running', 0, 0))).toBeNull()
    expect(jobFraction(status('running', 25))).toBe(0.25)
    expect(jobFraction(status('running', 250))).toBe(1)
  })
})
