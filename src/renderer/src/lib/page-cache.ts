// Pages of a long listing, fetched on demand. The table says which rows it needs (`want`); only
// pages of the latest wanted range are fetched (nearest first, a few at a time), so a fast scroll
// over a million rows never queues thousands of requests. Least-recently-used pages are evicted.

export interface Page<T> {
  total: number
  rows: T[]
}

export type FetchPage<T> = (offset: number, limit: number) => Promise<Page<T>>

export interface PageCacheOptions {
  pageSize?: number
  maxPages?: number
  concurrency?: number
}

export class PageCache<T> {
  readonly pageSize: number
  private readonly maxPages: number
  private readonly concurrency: number
  private readonly pages = new Map<number, T[]>()
  private readonly inFlight = new Set<number>()
  private readonly listeners = new Set<() => void>()
  private wanted: [number, number] = [0, 0]
  private disposed = false
  private _total: number | null = null
  private _error: string | null = null
  /** Bumped on every change, so React can subscribe with useSyncExternalStore. */
  private _version = 0

  constructor(
    private readonly fetchPage: FetchPage<T>,
    opts: PageCacheOptions = {},
  ) {
    this.pageSize = opts.pageSize ?? 200
    this.maxPages = Math.max(2, opts.maxPages ?? 100)
    this.concurrency = Math.max(1, opts.concurrency ?? 2)
  }

  /** Total rows of the listing (null until the first page arrived). */
  get total(): number | null {
    return this._total
  }

  get error(): string | null {
    return this._error
  }

  get version(): number {
    return this._version
  }

  /** The row at `index`, or undefined when its page is not loaded (yet). */
  get(index: number): T | undefined {
    const p = Math.floor(index / this.pageSize)
    const page = this.pages.get(p)
    if (!page) return undefined
    // Refresh LRU order.
    this.pages.delete(p)
    this.pages.set(p, page)
    return page[index - p * this.pageSize]
  }

  has(index: number): boolean {
    return this.pages.has(Math.floor(index / this.pageSize))
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Ask for rows [start, end) to be loaded; replaces the previously wanted range. */
  want(start: number, end: number): void {
    if (this.disposed) return
    const s = Math.max(0, Math.floor(start))
    const e = Math.max(s, Math.ceil(end))
    this.wanted = [s, e === s ? s + 1 : e]
    this.pump()
  }

  /** Fetch the page holding `index` and resolve its row (used for Enter on a row not loaded yet). */
  async load(index: number): Promise<T | undefined> {
    const p = Math.floor(index / this.pageSize)
    if (!this.pages.has(p)) await this.fetch(p)
    return this.get(index)
  }

  dispose(): void {
    this.disposed = true
    this.listeners.clear()
    this.pages.clear()
  }

  private missingPages(): number[] {
    const [s, e] = this.wanted
    const first = Math.floor(s / this.pageSize)
    let last = Math.floor((e - 1) / this.pageSize)
    if (this._total !== null) last = Math.min(last, Math.max(0, Math.ceil(this._total / this.pageSize) - 1))
    const mid = (first + last) / 2
    const out: number[] = []
    for (let p = first; p <= last; p++) if (!this.pages.has(p) && !this.inFlight.has(p)) out.push(p)
    return out.sort((a, b) => Math.abs(a - mid) - Math.abs(b - mid))
  }

  private pump(): void {
    if (this.disposed) return
    for (const p of this.missingPages()) {
      if (this.inFlight.size >= this.concurrency) break
      void this.fetch(p)
    }
  }

  private async fetch(p: number): Promise<void> {
    if (this.inFlight.has(p)) {
      // Someone else is fetching it: wait for the next change.
      await new Promise<void>((resolve) => {
        const off = this.subscribe(() => {
          if (!this.inFlight.has(p)) {
            off()
            resolve()
          }
        })
      })
      return
    }
    this.inFlight.add(p)
    try {
      const page = await this.fetchPage(p * this.pageSize, this.pageSize)
      if (this.disposed) return
      this._total = page.total
      this._error = null
      this.pages.set(p, page.rows)
      this.evict()
    } catch (e) {
      if (this.disposed) return
      this._error = e instanceof Error ? e.message : String(e)
    } finally {
      this.inFlight.delete(p)
      if (!this.disposed) {
        this.changed()
        if (this._error === null) this.pump()
      }
    }
  }

  private evict(): void {
    if (this.pages.size <= this.maxPages) return
    const [s, e] = this.wanted
    const keepFrom = Math.floor(s / this.pageSize)
    const keepTo = Math.floor((e - 1) / this.pageSize)
    for (const p of this.pages.keys()) {
      if (this.pages.size <= this.maxPages) break
      if (p >= keepFrom && p <= keepTo) continue
      this.pages.delete(p)
    }
  }

  private changed(): void {
    this._version++
    for (const l of [...this.listeners]) l()
  }
}
