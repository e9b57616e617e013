// @vitest-environment jsdom
import { describe, expect, it } from 'vitest'
import { PageCache } from '../../../../src/renderer/src/lib/page-cache'

function source(total: number) {
  const requests: [number, number][] = []
  const pending: (() => void)[] = []
  const fetch = (offset: number, limit: number) => {
    requests.push([offset, limit])
    return new Promise<{ total: number; rows: number[] }>((resolve) => {
      pending.push(() => {
        const rows: number[] = []
        for (let i = offset; i < Math.min(total, offset + limit); i++) rows.push(i)
        resolve({ total, rows })
      })
    })
  }
  const flush = async (): Promise<void> => {
    while (pending.length > 0) {
      pending.shift()!()
      await Promise.resolve()
      await Promise.resolve()
    }
    await new Promise((r) => setTimeout(r, 0))
  }
  return { fetch, requests, flush, pending }
}

describe('PageCache', () => {
  it('fetches the pages of the wanted range and serves rows from them', async () => {
    const s = source(1_000_000)
    const c = new PageCache(s.fetch, { pageSize: 100, concurrency: 4 })
    expect(c.total).toBeNull()
    c.want(0, 150)
    expect(s.requests).toEqual([
      [0, 100],
      [100, 100],
    ])
    await s.flush()
    expect(c.total).toBe(1_000_000)
    expect(c.get(0)).toBe(0)
    expect(c.get(149)).toBe(149)
    expect(c.get(200)).toBeUndefined()
  })

  it('never fetches a page twice, nor pages no longer wanted', async () => {
    const s = source(1_000_000)
    const c = new PageCache(s.fetch, { pageSize: 100, concurrency: 1 })
    c.want(0, 50)
    c.want(0, 50)
    expect(s.requests.length).toBe(1)
    // A fast scroll: many ranges while the first request is in flight.
    for (let i = 1; i < 500; i++) c.want(i * 1000, i * 1000 + 30)
    expect(s.requests.length).toBe(1)
    await s.flush()
    // Only the last wanted range was fetched after the first.
    expect(s.requests).toEqual([
      [0, 100],
      [499_000, 100],
    ])
    expect(c.get(499_010)).toBe(499_010)
  })

  it('evicts least recently used pages beyond maxPages, keeping the wanted ones', async () => {
    const s = source(100_000)
    const c = new PageCache(s.fetch, { pageSize: 10, maxPages: 3, concurrency: 8 })
    for (const start of [0, 100, 200, 300, 400]) {
      c.want(start, start + 5)
      await s.flush()
    }
    expect([0, 100, 200, 300, 400].filter((i) => c.has(i))).toEqual([200, 300, 400])
    expect(c.has(400)).toBe(true)
    expect(c.has(0)).toBe(false)
  })

  it('notifies subscribers and bumps its version on change', async () => {
    const s = source(10)
    const c = new PageCache(s.fetch, { pageSize: 5 })
    let n = 0
    c.subscribe(() => n++)
    const v0 = c.version
    c.want(0, 10)
    await s.flush()
    expect(n).toBeGreaterThan(0)
    expect(c.version).toBeGreaterThan(v0)
    // Nothing past the total is requested.
    c.want(0, 1000)
    expect(s.requests.length).toBe(2)
  })

  it('keeps the error and retries on the next want', async () => {
    let fail = true
    const c = new PageCache<number>(
      async (offset) => {
        if (fail) throw new Error('boom')
        return { total: 3, rows: [offset, offset + 1, offset + 2] }
      },
      { pageSize: 3 },
    )
    c.want(0, 3)
    await new Promise((r) => setTimeout(r, 0))
    expect(c.error).toBe('boom')
    fail = false
    c.want(0, 3)
    await new Promise((r) => setTimeout(r, 0))
    expect(c.error).toBeNull()
    expect(c.get(2)).toBe(2)
  })

  it('load() resolves one row even outside the wanted range', async () => {
    const s = source(1000)
    const c = new PageCache(s.fetch, { pageSize: 100 })
    const p = c.load(777)
    await s.flush()
    expect(await p).toBe(777)
  })

  it('ignores answers after dispose', async () => {
    const s = source(1000)
    const c = new PageCache(s.fetch, { pageSize: 100 })
    c.want(0, 10)
    c.dispose()
    await s.flush()
    expect(c.get(0)).toBeUndefined()
  })
})
