// Where the chain's seq-ordered listing skips seqs (issue 35): the engine's seqGaps, asked once per
// stage of the chain's open, page after page until the last gap (no cap: a gap past the first
// 100,000 has its row where it lies), and what a seq no live row holds is part of (its gap, or the
// seqs past an edge the evidence names). Owned by the chain's WorkspaceStore.
import type { ChainOverview, SeqGap, SeqGaps } from '../../../../shared/chain-types'
import type { ApiClient } from '../../../../shared/contract'
import type { RecoveredRow } from '../../../../shared/recovery-types'
import type { VerifyVerdict } from '../../../../shared/verify-types'
import { errorMessage } from '../format'
import { edgeSpans, liveness, spanAround, type GapSpan } from '../gap-rows'
import { Store } from './store'

export interface GapState {
  /**
   * null until the engine answered; `truncated` while later pages are still being asked (a seq past
   * the last gap listed is not known yet, never called live).
   */
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
    void this.pages(n)
  }

  private async pages(n: number): Promise<void> {
    const gaps: SeqGap[] = []
    let from = 0
    for (;;) {
      let page: SeqGaps
      try {
        page = await this.api.seqGaps(from > 0 ? { from_index: from } : undefined)
      } catch (e) {
        if (n === this.asked) this.update({ error: errorMessage(e) })
        return
      }
      if (n !== this.asked) return
      for (const g of page.gaps) gaps.push(g)
      const last = page.gaps[page.gaps.length - 1]
      // A page that says more follow but lists none cannot move on: stop, saying the list is short.
      const more = page.truncated && last !== undefined
      // Each page's rows are shown as they come (later gaps only add rows after the last one) — but
      // an ask again (the open's final stage) never shows fewer gaps than the list it replaces while
      // its later pages are on their way: rows past its first page would vanish and the table under
      // the auditor's selection shift, then come back. It shows its list once it is as long, or ends.
      const shown = this.getState().gaps?.gaps.length ?? 0
      if (!more || gaps.length >= shown)
        this.update({ gaps: { gaps: more ? gaps.slice() : gaps, truncated: page.truncated }, error: null })
      if (!more) return
      from = last.index + 1
    }
  }

  /** Whether a live row holds `seq` (null: not known yet). */
  isLive(seq: number, overview: ChainOverview): boolean | null {
    return liveness(seq, overview.first_seq, overview.last_seq, this.getState().gaps)
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
