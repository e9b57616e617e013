// Where the chain's seq-ordered listing skips seqs (issue 35): the engine's seqGaps, asked once per
// stage of the chain's open, and what a seq no live row holds is part of (its gap, or the seqs past
// an edge the evidence names). Owned by the chain's WorkspaceStore.
import type { ChainOverview, SeqGaps } from '../../../../shared/chain-types'
import type { ApiClient } from '../../../../shared/contract'
import type { RecoveredRow } from '../../../../shared/recovery-types'
import type { VerifyVerdict } from '../../../../shared/verify-types'
import { errorMessage } from '../format'
import { edgeSpans, liveness, spanAround, type GapSpan } from '../gap-rows'
import { Store } from './store'

export interface GapState {
  /** null until the engine answered. */
  gaps: SeqGaps | null
  error: string | null
}

export class GapStore extends Store<GapState> {
  private asked = 0

  constructor(private readonly api: ApiClient) {
    super({ gaps: null, error: null })
  }

  /** Ask (again: a staged open's final stage may read rows the first pass did not). */
  load(): void {
    const n = ++this.asked
    this.api.seqGaps().then(
      (gaps) => {
        if (n === this.asked) this.update({ gaps, error: null })
      },
      (e: unknown) => {
        if (n === this.asked) this.update({ error: errorMessage(e) })
      },
    )
  }

  /**
   * The seqs around `seq` that no live row holds, when it is one of them; null when a live row holds
   * it or that is not known yet. `verdict` and `recovered` name seqs beyond the live chain's ends.
   */
  missingSpan(
    seq: number,
    overview: ChainOverview,
    verdict: VerifyVerdict | null,
    recovered: readonly RecoveredRow[],
  ): GapSpan | null {
    const { first_seq: first, last_seq: last } = overview
    if (liveness(seq, first, last, this.getState().gaps) !== false) return null
    return spanAround(
      seq,
      first,
      last,
      this.getState().gaps?.gaps ?? [],
      edgeSpans(first, last, verdict, recovered),
    )
  }
}
