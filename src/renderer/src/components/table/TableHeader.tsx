// The entries grid's header row: a sort button per sortable column (click: ascending; again:
// descending; aria-sort on the column header) and an edge to drag for the column's width (the
// column menu sets widths from the keyboard).
import type { PointerEvent as ReactPointerEvent } from 'react'
import type { EntrySort, EntrySortColumn } from '../../../../shared/chain-types'
import { sortParts } from '../../../../shared/entry-sorts'
import { FLAGS_WIDTH, type Column } from './columns'
import { clampWidth } from './column-prefs'
// The table's column, header and menu rules; loaded after ../EntriesTable.css, which they refine.
import './table.css'

interface Props {
  columns: Column[]
  widths: number[]
  sort: EntrySort
  zoneLabel: string
  onSortBy: (column: EntrySortColumn) => void
  onResize: (id: string, width: number) => void
}

/** The grid's column template for these widths (the flags column last). */
export function gridTemplate(widths: number[]): string {
  // The flags column takes what the pane leaves, so its tags sit at the right edge.
  return [...widths.map((w) => `${w}px`), `minmax(${FLAGS_WIDTH}px, 1fr)`].join(' ')
}

export function TableHeader({ columns, widths, sort, zoneLabel, onSortBy, onResize }: Props) {
  const { column: sorted, desc } = sortParts(sort)
  const drag = (e: ReactPointerEvent<HTMLSpanElement>, c: Column, start: number): void => {
    e.preventDefault()
    e.stopPropagation()
    const x0 = e.clientX
    const el = e.currentTarget
    el.setPointerCapture?.(e.pointerId)
    const move = (m: PointerEvent): void => onResize(c.id, clampWidth(start + m.clientX - x0))
    const up = (): void => {
      el.removeEventListener('pointermove', move)
      el.removeEventListener('pointerup', up)
      el.removeEventListener('pointercancel', up)
    }
    el.addEventListener('pointermove', move)
    el.addEventListener('pointerup', up)
    el.addEventListener('pointercancel', up)
  }
  return (
    <div className="thead" role="row" aria-rowindex={1} data-testid="entries-head">
      {columns.map((c, i) => {
        const on = c.sort !== null && c.sort === sorted
        const label = c.id === 'time' ? `time (${zoneLabel})` : c.label
        return (
          <span
            key={c.id}
            className={`cell c-${c.id}${c.numeric ? ' num' : ''}`}
            role="columnheader"
            aria-sort={on ? (desc ? 'descending' : 'ascending') : undefined}
            title={c.title}
            data-col={c.id}
          >
            {c.sort !== null ? (
              <button
                type="button"
                className="th sortable"
                onClick={() => onSortBy(c.sort!)}
                data-testid={`sort-${c.id}`}
              >
                {label}
                {on ? (desc ? ' ▼' : ' ▲') : ''}
              </button>
            ) : (
              <span className="th">{label}</span>
            )}
            <span
              className="col-resize"
              aria-hidden="true"
              onPointerDown={(e) => drag(e, c, widths[i]!)}
              data-testid={`resize-${c.id}`}
            />
          </span>
        )
      })}
      <span className="cell c-flags th" role="columnheader">
        <span className="sr-only">flags</span>
      </span>
    </div>
  )
}
