// The integrity monitor: the six detectors of reference §5.3 over the last N rows (window mode) or
// over the whole chain (--all), read through any row source as compact columns (./columns-pass.ts),
// then (with keys) the rotation detector over the same seq range.
import type { IntegrityOptions, IntegrityRun, IntegrityThresholds } from '../../shared/integrity-types'
import type { VerifyVerdict } from '../../shared/verify-types'
import { endWorkers, extractAllColumns, startColumnWorkers } from '../chain/columns/parallel'
import { INTEGRITY_COLUMNS } from '../chain/columns/types'
import { WHOLE, type RowSource } from '../chain/source/row-source'
import type { KeyMaterial } from '../chain/keys'
import { detect } from './columns-pass'
import type { IntegrityHooks } from './ordered-pass'
import { assembleReport, type DetectorResults } from './report'
import { detectRotation } from './rotation'
import { checkWindow, DEFAULT_WINDOW, resolveThresholds } from './thresholds'

export type { IntegrityHooks, IntegrityProgress } from './ordered-pass'

export interface RunIntegrityOptions extends IntegrityOptions, IntegrityHooks {
  /** Candidate keys: with them the rotation detector verifies the analysed range. */
  keys?: KeyMaterial[]
  /** A verdict over the whole chain, reused by --all for the rotation detector instead of re-verifying. */
  wholeChainVerdict?: VerifyVerdict
}

/** --all: every row's columns (on workers for a large chain), every row confirmed seen. */
async function allRows(
  source: RowSource,
  thresholds: IntegrityThresholds,
  hooks: IntegrityHooks,
): Promise<DetectorResults> {
  // Workers load their code while the leaves are listed.
  const early = startColumnWorkers(source, INTEGRITY_COLUMNS)
  try {
    const { place, estimate } = source.place(WHOLE)
    hooks.onProgress?.(0, estimate, 'integrity')
    const parts = await extractAllColumns(
      source,
      place,
      estimate,
      {
        onProgress: (d, t) => hooks.onProgress?.(d, t, 'integrity'),
        ...(hooks.signal ? { signal: hooks.signal } : {}),
      },
      INTEGRITY_COLUMNS,
      early,
    )
    source.confirmSeen(
      WHOLE,
      parts.reduce((n, p) => n + p.rows, 0),
    )
    return detect(parts, source, thresholds, hooks)
  } finally {
    endWorkers(early) // those not given work, when an error came first
  }
}

/** The full run: detectors, then (with keys) the rotation detector over the same seq range. */
export async function runIntegrity(source: RowSource, opts: RunIntegrityOptions = {}): Promise<IntegrityRun> {
  const thresholds = resolveThresholds(opts.thresholds)
  const mode = opts.all ? 'all' : 'window'
  const hooks: IntegrityHooks = {
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  }
  const window = mode === 'window' ? checkWindow(opts.window ?? DEFAULT_WINDOW) : null
  const results =
    window === null
      ? await allRows(source, thresholds, hooks)
      : detect([source.lastColumns(window, INTEGRITY_COLUMNS)], source, thresholds, {})
  source.assertUnchanged()
  const keys = opts.keys ?? []
  const progress = opts.onProgress
  const rotation = await detectRotation(
    // Loaded only with keys: a keyless run (a cron job's) does not pay for verify's code at start-up.
    async (k, o) => (await import('../verify/verify')).verifyRows(source, k, o),
    keys,
    results.first_seq,
    results.last_seq,
    {
      ...(progress ? { onProgress: (d: number, t: number) => progress(d, t, 'rotation') } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(mode === 'all' && opts.wholeChainVerdict ? { verdict: opts.wholeChainVerdict } : {}),
    },
  )
  results.rotation_boundaries = rotation.boundaries
  return {
    report: assembleReport(results),
    mode,
    thresholds,
    rotation_note: rotation.note,
    rotation_checked: keys.length > 0 && results.first_seq !== null,
    ...(window !== null ? { window_requested: window } : {}),
  }
}
