// @vitest-environment jsdom
import { act, cleanup, renderHook, waitFor } from '@testing-library/react'
import type { ReactNode } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import type { JobStatus } from '../../../../src/shared/job-types'
import { fakeApi } from '../test/fake-api'
import { ApiProvider } from '../../../../src/renderer/src/app/api-context'
import { useJobRunner } from '../../../../src/renderer/src/app/use-job'

afterEach(cleanup)

const job = (state: JobStatus['state']): JobStatus => ({
  id: 'j7',
  kind: 'verify',
  state,
  progress: { done: 0, total: 10, phase: 'verifying' },
  started_at: '',
  result: state === 'done' ? { verdict: 'finished anyway' } : null,
  error: null,
})

describe('useJobRunner', () => {
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
    const wrapper = ({ children }: { children: ReactNode }) => <ApiProvider api={api}>{children}</ApiProvider>
    const { result } = renderHook(() => useJobRunner<unknown>(), { wrapper })
    // The engine answers the start only later (a staged open's copy still being made).
    let release!: (s: JobStatus) => void
    const started = new Promise<JobStatus>((r) => (release = r))
    let outcome: Promise<unknown> = Promise.resolve()
    act(() => {
      outcome = result.current.run(() => started)
    })
    expect(result.current.running).toBe(true)
    act(() => result.current.cancel())
    expect(calls.some((c) => c.name === 'cancelJob')).toBe(false)
    await act(async () => {
      release(job('running'))
      expect(await outcome).toBeNull()
    })
    expect(calls.find((c) => c.name === 'cancelJob')?.req).toEqual({ id: 'j7' })
    await waitFor(() => expect(result.current.error).toBe('cancelled'))
    expect(result.current.running).toBe(false)
  })
})
