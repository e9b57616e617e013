// The entries table's gap row (issue 35, Wireshark-style): one row for seqs no live row holds, saying
// what is known of them in one line (the verdict's findings, recovered rows) with a link to the
// recovered row. The table hands it its place; useGapRows lays the gap rows among the live ones.
import { useMemo, type CSSProperties, type ReactNode } from 'react'
import type { SeqGap } from '../../../shared/chain-types'
import type { EntrySort } from '../../../shared/chain-types'
import { gapSummary, type GapKnowledge } from '../lib/gap-facts'
import { GapLayout, spanTitle, type DisplayRow, type GapSpan } from '../lib/gap-rows'
import { rowKey } from '../lib/recovered'
import './gap-row.css'

/** Where a gap row sits in the table, as the table renders it. */
export interface GapRowPlace {
  key: number
  id: string
  style: CSSProperties
  rowIndex: number
  active: boolean
  /** The selected seq is one of the row's. */
  selected: boolean
}

/** Gap rows for a seq-ordered, unfiltered listing (the table shows none otherwise). */
export interface GapRowsModel {
  gaps: readonly SeqGap[]
  edges: { lead: GapSpan | null; trail: GapSpan | null }
  render: (span: GapSpan, place: GapRowPlace) => ReactNode
  /** Enter or a click on the gap row. */
  onOpen: (span: GapSpan) => void
}

/** The table's rows: its live rows, with the gap rows laid among them when there are any. */
export interface TableRows {
  count: number
  row: (d: number) => DisplayRow | null
  displayOf: (i: number) => number
  liveNear: (d: number) => number
  gapOf: (seq: number) => { row: number; span: GapSpan } | null
}

export function useGapRows(
  model: GapRowsModel | null | undefined,
  total: number | null,
  sort: EntrySort,
): TableRows {
  return useMemo((): TableRows => {
    const live = total ?? 0
    const lastGap = model?.gaps[model.gaps.length - 1]
    const usable =
      model &&
      total !== null &&
      (sort === 'seq_asc' || sort === 'seq_desc') &&
      (lastGap === undefined || lastGap.index < live)
    if (!usable)
      return {
        count: live,
        row: (d) => (d >= 0 && d < live ? { kind: 'live', index: d } : null),
        displayOf: (i) => i,
        liveNear: (d) => d,
        gapOf: () => null,
      }
    const layout = new GapLayout(live, model.gaps, model.edges, sort === 'seq_desc')
    return {
      count: layout.count,
      row: (d) => layout.row(d),
      displayOf: (i) => layout.displayOf(i),
      liveNear: (d) => layout.liveNear(d),
      gapOf: (seq) => layout.gapOf(seq),
    }
  }, [model, total, sort])
}

function between(s: GapSpan): string {
  if (s.after !== null && s.before !== null) return `between seq ${s.after} and ${s.before}`
  if (s.after !== null) return `after the last live row, seq ${s.after}`
  return s.before !== null ? `before the first live row, seq ${s.before}` : ''
}

export function GapRow({
  span,
  knowledge,
  place,
  onSelect,
  onShowRecovered,
}: {
  span: GapSpan
  knowledge: GapKnowledge
  place: GapRowPlace
  onSelect: () => void
  onShowRecovered: (key: string) => void
}) {
  const first = knowledge.recovered[0]
  return (
    <div
      key={place.key}
      id={place.id}
      className={`trow gap-row${place.active ? ' active' : ''}${place.selected ? ' selected' : ''}${
        knowledge.verdict === null ? ' unverified' : ''
      }`}
      style={place.style}
      role="row"
      aria-rowindex={place.rowIndex}
      aria-selected={place.selected}
      data-testid="gap-row"
      data-from={span.from}
      data-to={span.to}
      onClick={onSelect}
    >
      <span
        className="gap-cell"
        role="gridcell"
        title={`${spanTitle(span)} ${between(span)}: ${gapSummary(knowledge)}`}
      >
        <span className="gap-title" data-testid="gap-title">
          {spanTitle(span)}
        </span>
        <span className="gap-between">{between(span)}</span>
        <span className="gap-known" data-testid="gap-summary">
          {gapSummary(knowledge)}
        </span>
        {first ? (
          <button
            type="button"
            className="link small"
            data-testid="gap-open-recovered"
            onClick={(e) => {
              e.stopPropagation()
              onShowRecovered(rowKey(first))
            }}
          >
            open in Recovered
          </button>
        ) : null}
      </span>
    </div>
  )
}
