// Which of the table's columns are shown and how wide, remembered in localStorage per column set
// (the ids of the columns the table has: a set that changes starts from its defaults, so a stored
// layout never hides a column it did not know of). Never chain content.
import { useCallback, useState } from 'react'
import { COLUMNS, MAX_WIDTH, MIN_WIDTH, type Column } from './columns'

export interface ColumnPrefs {
  hidden: string[]
  widths: Record<string, number>
}

const PREFIX = 'bijotel.table-columns:'

export function columnSetKey(cols: readonly Column[] = COLUMNS): string {
  return PREFIX + cols.map((c) => c.id).join(',')
}

export function defaultPrefs(cols: readonly Column[] = COLUMNS): ColumnPrefs {
  return { hidden: cols.filter((c) => c.hidden).map((c) => c.id), widths: {} }
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
    const widths: Record<string, number> = {}
    const w = o['widths']
    if (typeof w === 'object' && w !== null)
      for (const [k, n] of Object.entries(w as Record<string, unknown>))
        if (ids.has(k) && typeof n === 'number' && Number.isFinite(n)) widths[k] = clampWidth(n)
    return { hidden: [...new Set(hidden)], widths }
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

/** The columns shown, in order. */
export function shownColumns(p: ColumnPrefs, cols: readonly Column[] = COLUMNS): Column[] {
  return cols.filter((c) => !p.hidden.includes(c.id))
}

export function withHidden(p: ColumnPrefs, id: string, hide: boolean): ColumnPrefs {
  const hidden = p.hidden.filter((x) => x !== id)
  return { ...p, hidden: hide ? [...hidden, id] : hidden }
}

export function withWidth(p: ColumnPrefs, id: string, width: number): ColumnPrefs {
  return { ...p, widths: { ...p.widths, [id]: clampWidth(width) } }
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
