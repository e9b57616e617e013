// Which of the table's columns are shown and how wide, remembered in localStorage per column set
// (the ids of the columns the table has: a set that changes starts from its defaults, so a stored
// layout never hides a column it did not know of). Never chain content. A column the auditor has
// neither shown nor hidden is shown when the pane has room for it (`fitColumns`), in priority
// order, as Wireshark and DB Browser fit their default columns to the window: the default layout
// never scrolls sideways; a column shown on purpose stays, and the table scrolls (seq sticky).
import { useCallback, useState } from 'react'
import { CELL_GAP, COLUMNS, FLAGS_WIDTH, MAX_WIDTH, MIN_WIDTH, ROW_PADDING, type Column } from './columns'

export interface ColumnPrefs {
  /** Hidden on purpose (or hidden by default). */
  hidden: string[]
  /** Shown on purpose: kept even when the pane has no room for it. */
  shown: string[]
  widths: Record<string, number>
}

const PREFIX = 'bijotel.table-columns:'

export function columnSetKey(cols: readonly Column[] = COLUMNS): string {
  return PREFIX + cols.map((c) => c.id).join(',')
}

export function defaultPrefs(cols: readonly Column[] = COLUMNS): ColumnPrefs {
  return { hidden: cols.filter((c) => c.hidden).map((c) => c.id), shown: [], widths: {} }
}

export function clampWidth(w: number): number {
  return Math.round(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, w)))
}

/** What was stored, checked: unknown ids and bad widths are dropped; anything unreadable gives the defaults. */
export function parsePrefs(text: string | null, cols: readonly Column[] = COLUMNS): ColumnPrefs {
  if (text === null) return defaultPrefs(cols)
  try {
    const v = JSON.parse(text) as unknown
    if (typeof v !== 'object' || v === null) return defaultPrefs(cols)
    const o = v as Record<string, unknown>
    const ids = new Set(cols.map((c) => c.id))
    const hidden = Array.isArray(o['hidden'])
      ? o['hidden'].filter((x): x is string => typeof x === 'string' && ids.has(x))
      : defaultPrefs(cols).hidden
    const shown = Array.isArray(o['shown'])
      ? o['shown'].filter((x): x is string => typeof x === 'string' && ids.has(x) && !hidden.includes(x))
      : []
    const widths: Record<string, number> = {}
    const w = o['widths']
    if (typeof w === 'object' && w !== null)
      for (const [k, n] of Object.entries(w as Record<string, unknown>))
        if (ids.has(k) && typeof n === 'number' && Number.isFinite(n)) widths[k] = clampWidth(n)
    return { hidden: [...new Set(hidden)], shown: [...new Set(shown)], widths }
  } catch {
    return defaultPrefs(cols)
  }
}

export function loadPrefs(cols: readonly Column[] = COLUMNS): ColumnPrefs {
  try {
    return parsePrefs(localStorage.getItem(columnSetKey(cols)), cols)
  } catch {
    return defaultPrefs(cols)
  }
}

export function savePrefs(p: ColumnPrefs, cols: readonly Column[] = COLUMNS): void {
  try {
    localStorage.setItem(columnSetKey(cols), JSON.stringify(p))
  } catch {
    // storage unavailable: the layout holds for this page only
  }
}

export function widthOf(p: ColumnPrefs, c: Column): number {
  return p.widths[c.id] ?? c.width
}

/** The columns not hidden, in order (what a pane wide enough shows). */
export function shownColumns(p: ColumnPrefs, cols: readonly Column[] = COLUMNS): Column[] {
  return cols.filter((c) => !p.hidden.includes(c.id))
}

/** The width a row of these columns takes: padding, the gaps between cells, the flags column. */
export function rowWidth(widths: readonly number[]): number {
  return 2 * ROW_PADDING + widths.reduce((a, w) => a + w + CELL_GAP, 0) + FLAGS_WIDTH
}

/**
 * The columns the table shows in a pane `avail` px wide (null: not measured yet, all not hidden),
 * in table order: the fixed columns and those shown on purpose always; then the others, most
 * important first (`priority`), while the row still fits. A column that does not fit leaves room
 * for a narrower one of lower priority only if none before it was left out (the order stays the
 * auditor's priority, not a packing puzzle).
 */
export function fitColumns(
  p: ColumnPrefs,
  avail: number | null,
  cols: readonly Column[] = COLUMNS,
): Column[] {
  const candidates = shownColumns(p, cols)
  if (avail === null) return candidates
  const kept = new Set(candidates.filter((c) => c.fixed || p.shown.includes(c.id)).map((c) => c.id))
  let used = rowWidth(candidates.filter((c) => kept.has(c.id)).map((c) => widthOf(p, c)))
  const rest = candidates
    .filter((c) => !kept.has(c.id))
    .sort((a, b) => (a.priority ?? 99) - (b.priority ?? 99))
  for (const c of rest) {
    const w = widthOf(p, c) + CELL_GAP
    if (used + w > avail) break
    kept.add(c.id)
    used += w
  }
  return candidates.filter((c) => kept.has(c.id))
}

/** Hide (or show, on purpose) one column. */
export function withHidden(p: ColumnPrefs, id: string, hide: boolean): ColumnPrefs {
  const hidden = p.hidden.filter((x) => x !== id)
  const shown = p.shown.filter((x) => x !== id)
  return { ...p, hidden: hide ? [...hidden, id] : hidden, shown: hide ? shown : [...shown, id] }
}

/** A width set by hand: the column is then kept on screen (a column widened must not vanish for want of room). */
export function withWidth(p: ColumnPrefs, id: string, width: number): ColumnPrefs {
  const shown = p.hidden.includes(id) || p.shown.includes(id) ? p.shown : [...p.shown, id]
  return { ...p, shown, widths: { ...p.widths, [id]: clampWidth(width) } }
}

/** The prefs, and a setter that stores them. */
export function useColumnPrefs(): [ColumnPrefs, (next: ColumnPrefs) => void] {
  const [prefs, setPrefs] = useState(loadPrefs)
  const set = useCallback((next: ColumnPrefs) => {
    setPrefs(next)
    savePrefs(next)
  }, [])
  return [prefs, set]
}
