// Run one job at a time: start it, poll its status (~150 ms), cancel it (even before it has an id),
// stop polling on unmount.
import { useCallback, useEffect, useRef, useState } from 'react'
import type { JobStatus } from '../../../shared/job-types'
import { errorMessage } from '../lib/format'
import { pollJob } from '../lib/jobs'
import { useApi } from './api-context'

export interface JobRunner<R> {
  status: JobStatus | null
  running: boolean
  error: string | null
  /** Resolves the job's result, or null when it was cancelled, failed or superseded. */
  run: (start: () => Promise<JobStatus<R>>) => Promise<R | null>
  cancel: () => void
}

export function useJobRunner<R>(): JobRunner<R> {
  const api = useApi()
  const [status, setStatus] = useState<JobStatus | null>(null)
  const [error, setError] = useState<string | null>(null)
  const abortRef = useRef<AbortController | null>(null)
  const idRef = useRef<string | null>(null)
  // A cancel asked for before the engine gave the job an id (its start can wait, e.g. for a staged
  // open's verified copy) is sent as soon as the id arrives.
  const cancelAsked = useRef(false)

  useEffect(
    () => () => {
      abortRef.current?.abort()
    },
    [],
  )

  const run = useCallback(
    async (start: () => Promise<JobStatus<R>>): Promise<R | null> => {
      abortRef.current?.abort()
      const ac = new AbortController()
      abortRef.current = ac
      cancelAsked.current = false
      setError(null)
      setStatus({
        id: '',
        kind: '',
        state: 'running',
        progress: { done: 0, total: 0, phase: 'starting' },
        started_at: '',
        result: null,
        error: null,
      })
      try {
        const first = await start()
        idRef.current = first.id
        if (cancelAsked.current && !ac.signal.aborted)
          void api.cancelJob({ id: first.id }).catch(() => undefined)
        const last = await pollJob(api, first, {
          signal: ac.signal,
          onUpdate: (s) => {
            if (!ac.signal.aborted) setStatus(s)
          },
        })
        if (ac.signal.aborted) return null
        setStatus(null)
        if (last.state === 'failed') {
          setError(last.error ?? 'the job failed')
          return null
        }
        if (last.state === 'cancelled') {
          setError('cancelled')
          return null
        }
        return last.result as R | null
      } catch (e) {
        if (!ac.signal.aborted) {
          setStatus(null)
          setError(errorMessage(e))
        }
        return null
      } finally {
        if (abortRef.current === ac) {
          abortRef.current = null
          idRef.current = null
        }
      }
    },
    [api],
  )

  const cancel = useCallback(() => {
    const id = idRef.current
    if (id) void api.cancelJob({ id }).catch(() => undefined)
    else if (abortRef.current) cancelAsked.current = true
  }, [api])

  return { status, running: status !== null, error, run, cancel }
}
