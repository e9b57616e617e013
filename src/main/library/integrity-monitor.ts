// `analyzeChainIntegrity(path, { window, thresholds })` and `ChainIntegrityMonitor`: Python
// BIJOTEL's integrity monitor (reference §5) — the six structural detectors over the last N rows or
// the whole chain — with the report in Python's `to_dict()` shape (`reportJson` gives the exact line
// of its `integrity --json`). Read in place by the direct reader, or through SQLite on a verified
// private copy for files it declines.
import type { IntegrityReport, IntegrityRun, IntegrityThresholds } from '../../shared/integrity-types'
import { readChain } from '../chain/source/open-source'
import { AuditError } from '../base/errors'
import { runIntegrity } from '../integrity/analyze'
import { keyMaterial, type ChainSecrets } from './secrets'

export interface IntegrityOptions {
  /** The last N rows by seq, 2..10000 (default 100, Python's default). Ignored when `all` is set. */
  window?: number
  /** The whole chain in one streaming pass. */
  all?: boolean
  /** Overrides of Python's thresholds (burst_threshold 10, large_gap_sec 3600, …). */
  thresholds?: Partial<IntegrityThresholds>
  /**
   * Candidate keys: with them the rotation detector is real (every seq where the sealing key
   * changes); without them `rotation_boundaries` is empty, as in Python, where it is a stub.
   */
  secrets?: ChainSecrets
  /** Rows done / total; `phase` is 'integrity' for the detectors, 'rotation' for the key check. */
  onProgress?: (done: number, total: number, phase?: string) => void
  signal?: { aborted: boolean }
}

/**
 * The full run: the report plus the mode, the thresholds used and why `rotation_boundaries` is what
 * it is. `integrityText(run)` formats it as `bijotel integrity` prints it.
 */
export async function runChainIntegrity(path: string, options: IntegrityOptions = {}): Promise<IntegrityRun> {
  const opts = {
    ...(options.window !== undefined ? { window: options.window } : {}),
    ...(options.all ? { all: true } : {}),
    ...(options.thresholds ? { thresholds: options.thresholds } : {}),
    keys: keyMaterial(options.secrets),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  }
  try {
    return await readChain(path, (source) => runIntegrity(source, opts))
  } catch (e) {
    // Python's wording for a missing file (reference §5.2).
    if (e instanceof AuditError && e.code === 'db_missing')
      throw new AuditError('db_missing', `chain DB not found: ${path}`)
    throw e
  }
}

/** Python's `analyze_chain_integrity(db_path, window=...)`: the report of the six detectors. */
export async function analyzeChainIntegrity(
  path: string,
  options: IntegrityOptions = {},
): Promise<IntegrityReport> {
  return (await runChainIntegrity(path, options)).report
}

/**
 * Python's `ChainIntegrityMonitor(db_path, window=...)`: one chain and one set of options, analysed
 * again at each `analyze()` (a cron job or a service's health check keeps one and calls it).
 */
export class ChainIntegrityMonitor {
  readonly path: string
  readonly options: Readonly<IntegrityOptions>

  constructor(path: string, options: IntegrityOptions = {}) {
    this.path = path
    this.options = { ...options }
  }

  /** The report of the six detectors over the chain as it is now. */
  async analyze(): Promise<IntegrityReport> {
    return analyzeChainIntegrity(this.path, this.options)
  }

  /** The report with how it was produced (mode, thresholds, rotation note). */
  async run(): Promise<IntegrityRun> {
    return runChainIntegrity(this.path, this.options)
  }
}
