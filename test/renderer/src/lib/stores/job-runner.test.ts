import { describe, expect, it } from 'vitest'
import type { JobStatus } from '../../../../../src/shared/job-types'
import { fakeApi } from '../../test/fake-api'
import { JobRunner } from '../../../../../src/renderer/src/lib/stores/job-runner'

const job = (state: JobStatus['state']): JobStatus => ({
  id: 'j7',
  kind: 'verify',
  state,
  progress: { done: 0, total: 10, phase: 'verifying' },
  started_at: '',
  result: state === 'done' ? { verdict: 'finished anyway' } : null,
  error: null,
})

describe('JobRunner', () => {
  it('a cancel asked while the job is still starting is sent once the job has an id', async () => {
    let cancelled = false
    let polls = 0
    const { api, calls } = fakeApi({
      overrides: {
        cancelJob: async () => ((cancelled = true), job('cancelled')),
        // Without the cancel, the job finishes after a few polls.
        jobStatus: async () => job(cancelled ? 'cancelled' : ++polls > 3 ? 'done' : 'running'),
      },
    })
    const runner = new JobRunner<unknown>(api)
    const seen: (JobStatus | null)[] = []
    runner.subscribe(() => seen.push(runner.getState().status))
    // The engine answers the start only later (a staged open's copy still being made).
    let release!: (s: JobStatus) => void
    const started = new Promise<JobStatus>((r) => (release = r))
    const outcome = runner.run(() => started)
    expect(runner.running).toBe(true)
    runner.cancel()
    expect(calls.some((c) => c.name === 'cancelJob')).toBe(false)
    release(job('running'))
    expect(await outcome).toBeNull()
    expect(calls.find((c) => c.name === 'cancelJob')?.req).toEqual({ id: 'j7' })
    expect(runner.getState().error).toBe('cancelled')
    expect(runner.running).toBe(false)
    expect(seen.length).toBeGreaterThan(1)
  })

  it('after dispose it stops following the job and reports nothing more', async () => {
    const { api } = fakeApi({ overrides: { jobStatus: async () => job('running') } })
    const runner = new JobRunner<unknown>(api)
    const outcome = runner.run(async () => job('running'))
    runner.dispose()
    expect(await outcome).toBeNull()
    expect(runner.getState().error).toBeNull()
  })
})
