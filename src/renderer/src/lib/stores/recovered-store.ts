// What the files of one chain remember, as the app shows it: the recovered rows of the last verdict
// (verify searches the files by default) or of a `startRecover` job (everything found, proven or not,
// with the rows seen only in uncommitted WAL frames), and the recovered row selected in the panel.
// Owned by the chain's WorkspaceStore, which hands it every verdict: a verdict replaces what was
// shown, and no verdict (new keys: every proof may change) clears it.
import type { ApiClient } from '../../../../shared/contract'
import type { RecoveredRow, RecoveryResult, RecoverySummary } from '../../../../shared/recovery-types'
import type { Finding, VerifyVerdict } from '../../../../shared/verify-types'
import { rowKey } from '../recovered'
import { JobRunner } from './job-runner'
import { Store } from './store'

export interface RecoveredState {
  /** Where the rows shown come from (null: nothing searched yet). */
  origin: 'verify' | 'recover' | null
  summary: RecoverySummary | null
  rows: RecoveredRow[]
  /** Only from a recover job: rows seen only in WAL frames after the last commit (never findings). */
  uncommitted: RecoveredRow[]
  /** Seqs the verdict found rewritten (its `rewritten` findings). */
  rewritten: ReadonlySet<number>
  /** rowKey of the row shown in the panel. */
  selected: string | null
  /** The verdict's `truncated` findings: the rows they cover are called "truncated" (src/shared/recovery-words.ts). */
  truncated: readonly Finding[]
}

const EMPTY: RecoveredState = {
  origin: null,
  summary: null,
  rows: [],
  uncommitted: [],
  rewritten: new Set(),
  selected: null,
  truncated: [],
}

function rewrittenSeqs(v: VerifyVerdict): Set<number> {
  const out = new Set<number>()
  for (const f of v.findings)
    if (f.kind === 'rewritten') for (let s = f.from_seq; s <= f.to_seq && out.size < 100_000; s++) out.add(s)
  return out
}

export class RecoveredStore extends Store<RecoveredState> {
  readonly job: JobRunner<RecoveryResult>
  private verdict: VerifyVerdict | null = null
  // Bumped when the keys change (no verdict): a recover job started before then is not shown.
  private generation = 0

  constructor(private readonly api: ApiClient) {
    super(EMPTY)
    this.job = new JobRunner(api)
  }

  /** A verdict (or none) of this chain: its recovered rows replace those shown. */
  fromVerdict(v: VerifyVerdict | null): void {
    if (v === this.verdict) return
    this.verdict = v
    if (v === null) {
      this.generation++
      this.update(EMPTY)
      return
    }
    if (v.cancelled) return
    this.update({
      origin: v.recovery ? 'verify' : null,
      summary: v.recovery ?? null,
      rows: v.recovered ?? [],
      uncommitted: [],
      rewritten: rewrittenSeqs(v),
      selected: null,
      truncated: v.findings.filter((f) => f.kind === 'truncated'),
    })
  }

  /** Search the files for everything they remember (a job: progress, cancel). */
  readonly recover = async (): Promise<void> => {
    if (this.job.running) return
    const generation = this.generation
    const r = await this.job.run(() => this.api.startRecover())
    if (!r || generation !== this.generation) return
    this.update((s) => ({
      origin: 'recover',
      summary: r.summary,
      rows: r.rows,
      uncommitted: r.uncommitted,
      // Without a verdict, a proven earlier version of a live seq is what a rewritten finding says.
      rewritten:
        this.verdict !== null
          ? s.rewritten
          : new Set(
              r.rows
                .filter((x) => x.status === 'superseded' && x.key_index !== null && x.seq !== null)
                .map((x) => x.seq!),
            ),
      selected: null,
    }))
  }

  readonly select = (key: string | null): void => this.update({ selected: key })

  /** The recovered versions of a seq (earlier versions of a live row, or the deleted row). */
  versionsAt(seq: number): RecoveredRow[] {
    return this.getState().rows.filter((r) => r.seq === seq)
  }

  /** The rowKey of the first recovered row placed at a seq (by its links), or null. */
  placedKeyAt(seq: number): string | null {
    const r = this.getState().rows.find((x) => x.seq === seq && x.status !== 'unplaced')
    return r ? rowKey(r) : null
  }

  selectedRow(): RecoveredRow | null {
    const { selected, rows, uncommitted } = this.getState()
    if (selected === null) return null
    return rows.find((r) => rowKey(r) === selected) ?? uncommitted.find((r) => rowKey(r) === selected) ?? null
  }

  dispose(): void {
    this.job.dispose()
  }
}
