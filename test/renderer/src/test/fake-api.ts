// A fake ApiClient for component tests: a synthetic chain of `rows` entries, every call recorded.
import type { ApiClient, ApiName, AppInfo } from '../../../../src/shared/contract'
import type { ChainOverview, EntryDetail, EntrySummary } from '../../../../src/shared/chain-types'

export type Calls = { name: ApiName; req: unknown }[]

const BASE_NS = 1_764_000_000_000_000_000n

export function summary(seq: number): EntrySummary {
  const ns = BASE_NS + BigInt(seq) * 60_000_000_000n
  return {
    seq,
    timestamp_ns: ns.toString(),
    time: new Date(Number(ns / 1_000_000n)).toISOString(),
    span_name: 'chat gpt-4o-mini',
    span_kind: 'CLIENT',
    provider: seq % 2 === 0 ? 'openai' : 'anthropic',
    model: 'm',
    canonical_hash: seq.toString(16).padStart(64, '0'),
    has_replay: seq % 7 === 1,
  }
}

export function overviewOf(rows: number, path = '/evidence/chain.db'): ChainOverview {
  return {
    evidence: {
      db: { path, size: 466944, sha256: 'a'.repeat(64), mtime: '2025-11-24T16:03:04.000Z' },
      wal: null,
      side_files: [],
      method: 'private copy',
      unchanged_after_copy: true,
    },
    entries: rows,
    first_seq: rows > 0 ? 1 : null,
    last_seq: rows > 0 ? rows : null,
    first_timestamp_ns: summary(1).timestamp_ns,
    last_timestamp_ns: summary(rows).timestamp_ns,
    first_time: summary(1).time,
    last_time: summary(rows).time,
    providers: [
      { name: 'anthropic', count: Math.ceil(rows / 2) },
      { name: 'openai', count: Math.floor(rows / 2) },
    ],
    models: [{ name: 'm', count: rows }],
    columns: [],
    journal_mode: 'delete',
  }
}

export interface FakeOptions {
  rows?: number
  info?: Partial<AppInfo>
  /** Override single calls. */
  overrides?: Partial<ApiClient>
  /** Delay of listEntries in ms (0: resolve on the next microtask). */
  delayMs?: number
}

export function fakeApi(opts: FakeOptions = {}): { api: ApiClient; calls: Calls } {
  const rows = opts.rows ?? 240
  const calls: Calls = []
  const info: AppInfo = {
    name: 'bijotel-auditor',
    version: '0.0.0-test',
    transport: 'http',
    can_open_paths: true,
    has_dialogs: false,
    initial_path: null,
    sample_path: null,
    recent_paths: [],
    open_roots: ['/evidence'],
    ...opts.info,
  }
  const wait = (): Promise<void> => new Promise((r) => setTimeout(r, opts.delayMs ?? 0))
  // The engine's chain, as the fake holds it: the last successful open (or pick), none after close.
  let opens = 0
  let held: ChainOverview | null = null
  const overrides = (opts.overrides ?? {}) as Record<string, ((r: unknown) => Promise<unknown>) | undefined>
  const call = (name: string, req: unknown): Promise<unknown> => {
    const f = overrides[name] ?? base[name]
    return f ? f(req) : unavailable()
  }
  const unavailable = (): Promise<never> =>
    Promise.reject(Object.assign(new Error('not in the fake'), { code: 'unavailable' }))
  const base: Record<string, (req: unknown) => Promise<unknown>> = {
    appInfo: async () => info,
    overview: async () => held,
    openChain: async () => overviewOf(rows),
    closeChain: async () => ((held = null), null),
    // Identity and overview together, as the engine answers them: the overview is whatever
    // `overview` (possibly overridden) says the engine holds now.
    currentChain: async () => {
      const ov = (await call('overview', undefined)) as ChainOverview | null
      if (!ov) return null
      const db = ov.evidence.db
      return { chain: { open_id: opens, path: db.path, sha256: db.sha256 || null }, overview: ov }
    },
    listEntries: async (req) => {
      const { offset, limit, sort } = req as { offset: number; limit: number; sort?: string }
      await wait()
      const out: EntrySummary[] = []
      for (let i = offset; i < Math.min(rows, offset + limit); i++)
        out.push(summary(sort === 'seq_desc' || sort === 'time_desc' ? rows - i : i + 1))
      return { total: rows, offset, rows: out }
    },
    locateEntry: async (req) => {
      const { seq } = req as { seq: number }
      return { index: seq >= 1 && seq <= rows ? seq - 1 : null }
    },
    getEntry: async (req) => {
      const { seq } = req as { seq: number }
      const s = summary(seq)
      const d: EntryDetail = {
        ...s,
        trace_id: null,
        span_id: null,
        prev_hash: '0'.repeat(64),
        hmac_hash: 'f'.repeat(64),
        semantic_body_hash: null,
        body_bytes: 40,
        body_pretty: '{\n  "name": "<script>alert(1)</script>"\n}',
        body_text: null,
        body_error: null,
        prev_seq: seq > 1 ? seq - 1 : null,
        next_seq: seq < rows ? seq + 1 : null,
        replay: null,
      }
      return d
    },
    checkRow: async (req) => ({
      seq: (req as { seq: number }).seq,
      body_hash_ok: true,
      link_ok: true,
      hmac_ok: null,
      key_index: null,
      columns_ok: null,
      column_mismatches: [],
      computed_canonical_hash: summary((req as { seq: number }).seq).canonical_hash,
      expected_prev_hash: '0'.repeat(64),
    }),
    timeline: async () => ({ from_ns: '0', to_ns: '0', bucket_ns: '0', buckets: [], providers: [] }),
    listKeys: async () => [],
    lastVerdict: async () => null,
    listReplayChecks: async () => [],
    runIntegrity: unavailable,
  }
  const api = new Proxy({} as ApiClient, {
    get(_t, name: string) {
      return (req: unknown) => {
        calls.push({ name: name as ApiName, req })
        const answer = call(name, req)
        if (name === 'openChain' || name === 'pickAndOpenChain')
          void answer.then(
            (ov) => {
              if (ov) {
                opens++
                held = ov as ChainOverview
              }
            },
            () => undefined,
          )
        return answer
      }
    },
  })
  return { api, calls }
}
