// The state behind the contract: the opened chain (one at a time), the candidate keys (in this
// process's memory only, never written or returned), the last verdict and integrity run, and the
// replay checks made in this session.
import { realpathSync } from 'node:fs'
import { resolve, sep } from 'node:path'
import type { ChainOverview, EntryFilter, EntrySort } from '../../shared/chain-types'
import type { IntegrityRun } from '../../shared/integrity-types'
import type { ReplayCheck } from '../../shared/replay-types'
import type { VerifyVerdict } from '../../shared/verify-types'
import { buildChainIndex, type ChainIndex } from '../chain/index'
import { ChainFile } from '../chain/reader'
import { buildOverview, selectPositions } from '../chain/views'
import { AuditError } from '../errors'
import type { KeyMaterial } from '../verify/secrets'
import { JobRegistry } from './jobs'

export interface SessionOptions {
  samplePath?: string | null
  initialPath?: string | null
  /** Folders whose files a web client may open by path (the served --db is always allowed). */
  openRoots?: string[]
  recent?: string[]
  onRecent?: (paths: string[]) => void
}

interface Opened {
  chain: ChainFile
  index: ChainIndex
  overview: ChainOverview
}

const MAX_FLAGGED = 1_000_000
const MAX_RECENT = 10

export class AuditSession {
  readonly jobs = new JobRegistry()
  readonly options: SessionOptions
  keys: KeyMaterial[] = []
  verdict: VerifyVerdict | null = null
  integrity: IntegrityRun | null = null
  replayChecks: ReplayCheck[] = []
  recent: string[]
  private opened: Opened | null = null
  private positionsCache = new Map<string, Int32Array>()
  private opening: Promise<ChainOverview> | null = null

  constructor(options: SessionOptions = {}) {
    this.options = options
    this.recent = [...(options.recent ?? [])]
  }

  get chain(): Opened | null {
    return this.opened
  }

  require(): Opened {
    if (!this.opened) throw new AuditError('no_chain', 'no chain is open')
    return this.opened
  }

  /** Whether a web client may open `path`: inside an --open-root, or the served chain itself. */
  mayOpen(path: string): boolean {
    let real: string
    try {
      real = realpathSync(path)
    } catch {
      return false
    }
    const allowed = [this.options.initialPath, this.options.samplePath].filter((p): p is string => !!p)
    for (const p of allowed) {
      try {
        if (realpathSync(p) === real) return true
      } catch {
        // not there
      }
    }
    for (const root of this.options.openRoots ?? []) {
      let r: string
      try {
        r = realpathSync(root)
      } catch {
        continue
      }
      if (real.startsWith(r.endsWith(sep) ? r : r + sep)) return true
    }
    return false
  }

  async open(path: string, onProgress?: (done: number, total: number) => void): Promise<ChainOverview> {
    // One open at a time: a second request waits for the first, then replaces it.
    while (this.opening) await this.opening.catch(() => undefined)
    const work = (async () => {
      const chain = await ChainFile.open(path)
      try {
        const index = await buildChainIndex(chain, onProgress)
        const overview = buildOverview(chain, index)
        this.close()
        this.opened = { chain, index, overview }
        this.addRecent(resolve(path))
        return overview
      } catch (e) {
        chain.close()
        throw e
      }
    })()
    this.opening = work
    try {
      return await work
    } finally {
      this.opening = null
    }
  }

  close(): void {
    this.jobs.cancelAll()
    this.opened?.chain.close()
    this.opened = null
    this.verdict = null
    this.integrity = null
    this.replayChecks = []
    this.positionsCache.clear()
  }

  private addRecent(path: string): void {
    this.recent = [path, ...this.recent.filter((p) => p !== path)].slice(0, MAX_RECENT)
    this.options.onRecent?.(this.recent)
  }

  setVerdict(v: VerifyVerdict | null): void {
    this.verdict = v
    this.positionsCache.clear()
  }

  setIntegrity(r: IntegrityRun | null): void {
    this.integrity = r
    this.positionsCache.clear()
  }

  /** Seqs inside a verify finding or named by an integrity anomaly. */
  flaggedSeqs(): Set<number> {
    const out = new Set<number>()
    for (const f of this.verdict?.findings ?? []) {
      if (f.kind === 'truncated') continue
      for (let s = f.from_seq; s <= f.to_seq && out.size < MAX_FLAGGED; s++) out.add(s)
    }
    const r = this.integrity?.report
    if (r) {
      for (const g of r.sequence_gaps) out.add(g.before_seq)
      for (const t of r.timestamp_anomalies) if (t.seq > 0) out.add(t.seq)
      for (const h of r.hash_anomalies) out.add(h.seq)
      for (const b of r.rotation_boundaries) out.add(b.seq)
    }
    return out
  }

  positions(filter: EntryFilter | undefined, sort: EntrySort): Int32Array {
    const o = this.require()
    const key = JSON.stringify([filter ?? {}, sort])
    let p = this.positionsCache.get(key)
    if (!p) {
      p = selectPositions(o.index, filter, sort, filter?.flagged_only ? this.flaggedSeqs() : null)
      if (this.positionsCache.size > 16) this.positionsCache.clear()
      this.positionsCache.set(key, p)
    }
    return p
  }

  dispose(): void {
    this.close()
    this.keys = []
  }
}
