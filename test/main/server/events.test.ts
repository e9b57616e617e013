// The SSE cadence, exactly, with fake timers: a progress event at least every 250 ms (every
// PROGRESS_MS), the final event within one tick of the job's end, then the stream closes.
import { EventEmitter } from 'node:events'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { JobStatus } from '../../../src/shared/job-types'
import type { JobRegistry } from '../../../src/main/session/jobs'
import { HttpError } from '../../../src/main/server/http'
import { PROGRESS_MS, streamJob, type EventStreams } from '../../../src/main/server/events'

function fakeJob(): { jobs: JobRegistry; set: (patch: Partial<JobStatus>) => void } {
  let s: JobStatus = {
    id: 'j1',
    kind: 'verify',
    state: 'running',
    progress: { done: 0, total: 100, phase: 'verifying' },
    started_at: new Date().toISOString(),
    result: null,
    error: null,
  }
  const jobs = {
    status: (id: string) => {
      if (id !== 'j1') throw new Error('no job')
      return { ...s, progress: { ...s.progress } }
    },
  } as unknown as JobRegistry
  return { jobs, set: (patch) => (s = { ...s, ...patch }) }
}

function fakeHttp(): {
  req: IncomingMessage
  res: ServerResponse
  writes: { at: number; text: string }[]
  ended: () => boolean
} {
  const req = Object.assign(new EventEmitter(), { method: 'GET' }) as unknown as IncomingMessage
  const writes: { at: number; text: string }[] = []
  let ended = false
  const res = {
    setHeader: () => undefined,
    writeHead: () => res,
    flushHeaders: () => undefined,
    write: (t: string) => {
      writes.push({ at: Date.now(), text: t })
      return true
    },
    end: () => {
      ended = true
    },
  } as unknown as ServerResponse
  return { req, res, writes, ended: () => ended }
}

const events = (writes: { at: number; text: string }[]) => writes.filter((w) => w.text.startsWith('event: '))

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('streamJob', () => {
  it(`sends progress every ${PROGRESS_MS} ms (under 250) and the end within one tick`, () => {
    const { jobs, set } = fakeJob()
    const { req, res, writes, ended } = fakeHttp()
    const streams: EventStreams = { open: new Set() }
    streamJob(jobs, 'j1', req, res, streams)
    expect(writes[0]!.text).toBe('retry: 1000\n\n')
    for (let t = 0; t < 2000; t += 5) {
      set({ progress: { done: Math.floor(t / 20), total: 100, phase: 'verifying' } })
      vi.advanceTimersByTime(5)
    }
    const progress = events(writes)
    expect(progress.length).toBeGreaterThanOrEqual(Math.floor(2000 / 250))
    const gaps = progress.slice(1).map((w, i) => w.at - progress[i]!.at)
    expect(Math.max(...gaps)).toBeLessThanOrEqual(250)
    expect(progress.every((w) => w.text.startsWith('event: progress\ndata: '))).toBe(true)
    const endAt = Date.now()
    set({ state: 'cancelled', error: 'cancelled' })
    vi.advanceTimersByTime(100)
    const last = events(writes).pop()!
    expect(last.text.startsWith('event: done\ndata: ')).toBe(true)
    expect(JSON.parse(last.text.split('data: ')[1]!)).toMatchObject({ id: 'j1', state: 'cancelled' })
    expect(last.at - endAt).toBeLessThanOrEqual(25)
    expect(ended()).toBe(true)
    expect(streams.open.size).toBe(0)
    const n = writes.length
    vi.advanceTimersByTime(1000)
    expect(writes.length).toBe(n) // nothing after the end
  })

  it('progress events never carry a result; the final one does', () => {
    const { jobs, set } = fakeJob()
    const { req, res, writes } = fakeHttp()
    streamJob(jobs, 'j1', req, res, { open: new Set() })
    vi.advanceTimersByTime(400)
    set({ state: 'done', result: { valid: true } })
    vi.advanceTimersByTime(50)
    const all = events(writes).map((w) => JSON.parse(w.text.split('data: ')[1]!) as JobStatus)
    expect(all.slice(0, -1).every((s) => s.result === null && s.state === 'running')).toBe(true)
    expect(all[all.length - 1]).toMatchObject({ state: 'done', result: { valid: true } })
  })

  it('stops when the client goes away, and refuses unknown jobs and other methods', () => {
    const { jobs } = fakeJob()
    const { req, res, writes, ended } = fakeHttp()
    const streams: EventStreams = { open: new Set() }
    streamJob(jobs, 'j1', req, res, streams)
    expect(streams.open.size).toBe(1)
    req.emit('close')
    expect(ended()).toBe(true)
    expect(streams.open.size).toBe(0)
    const n = writes.length
    vi.advanceTimersByTime(1000)
    expect(writes.length).toBe(n)

    const other = fakeHttp()
    expect(() => streamJob(jobs, 'nope', other.req, other.res, streams)).toThrow(HttpError)
    const post = fakeHttp()
    ;(post.req as { method: string }).method = 'POST'
    expect(() => streamJob(jobs, 'j1', post.req, post.res, streams)).toThrow(/GET/)
  })
})
