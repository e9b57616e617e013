// The arithmetic of a fixed-row-height virtual list. Browsers cap an element's height (Chromium at
// ~33.5M px, Firefox at ~17.9M px), so past MAX_CONTENT_HEIGHT the scrollbar is scaled: the scroll
// position maps linearly onto the real row offset. Pure functions, unit-tested in windowing.test.ts.

export const MAX_CONTENT_HEIGHT = 12_000_000

export interface ListGeometry {
  count: number
  rowHeight: number
  viewportHeight: number
}

export interface VisibleWindow {
  /** First row to render (inclusive). */
  start: number
  /** One past the last row to render. */
  end: number
  /** Top of row `start` inside the scroll content, in px. */
  offsetTop: number
  /** Height of the scroll content (the spacer), in px. */
  contentHeight: number
  /** Rows fully or partly visible in the viewport (without overscan). */
  firstVisible: number
  lastVisible: number
}

/** Real height of all rows. */
export function realHeight(g: ListGeometry): number {
  return Math.max(0, g.count) * g.rowHeight
}

/** Height given to the scroll content (capped). */
export function contentHeight(g: ListGeometry): number {
  return Math.min(realHeight(g), MAX_CONTENT_HEIGHT)
}

/** Largest scrollTop the browser allows for this geometry. */
export function maxScrollTop(g: ListGeometry): number {
  return Math.max(0, contentHeight(g) - g.viewportHeight)
}

/** Real row offset (px from the first row's top) shown at the viewport's top for a scrollTop. */
export function virtualTop(g: ListGeometry, scrollTop: number): number {
  const maxReal = Math.max(0, realHeight(g) - g.viewportHeight)
  const maxScroll = maxScrollTop(g)
  const st = Math.min(Math.max(0, scrollTop), maxScroll)
  if (maxScroll <= 0) return 0
  if (maxReal === maxScroll) return st
  return (st / maxScroll) * maxReal
}

/** The inverse of virtualTop: the scrollTop that shows a real offset at the viewport's top. */
export function scrollTopFor(g: ListGeometry, realOffset: number): number {
  const maxReal = Math.max(0, realHeight(g) - g.viewportHeight)
  const maxScroll = maxScrollTop(g)
  const off = Math.min(Math.max(0, realOffset), maxReal)
  if (maxReal <= 0) return 0
  if (maxReal === maxScroll) return off
  return (off / maxReal) * maxScroll
}

/** Which rows to render for a scroll position, with `overscan` extra rows on each side. */
export function visibleWindow(g: ListGeometry, scrollTop: number, overscan = 4): VisibleWindow {
  const ch = contentHeight(g)
  if (g.count <= 0 || g.rowHeight <= 0) {
    return { start: 0, end: 0, offsetTop: 0, contentHeight: ch, firstVisible: 0, lastVisible: -1 }
  }
  const st = Math.min(Math.max(0, scrollTop), maxScrollTop(g))
  const vt = virtualTop(g, st)
  const firstVisible = Math.min(g.count - 1, Math.floor(vt / g.rowHeight))
  const lastVisible = Math.min(
    g.count - 1,
    Math.max(firstVisible, Math.ceil((vt + g.viewportHeight) / g.rowHeight) - 1),
  )
  const start = Math.max(0, firstVisible - overscan)
  const end = Math.min(g.count, lastVisible + 1 + overscan)
  // Row i sits at (i*rowHeight - vt) below the viewport top, and the viewport top is at st.
  const offsetTop = st + (start * g.rowHeight - vt)
  return { start, end, offsetTop, contentHeight: ch, firstVisible, lastVisible }
}

/** Rows that fit fully in the viewport (the page-up/page-down step), at least 1. */
export function pageRows(g: ListGeometry): number {
  return Math.max(1, Math.floor(g.viewportHeight / g.rowHeight))
}

/**
 * The scrollTop that brings row `index` into view with the least movement (`null` = already
 * visible). `align: 'center'` centres it instead (used when jumping to a located seq).
 */
export function scrollToIndex(
  g: ListGeometry,
  scrollTop: number,
  index: number,
  align: 'nearest' | 'center' = 'nearest',
): number | null {
  if (g.count <= 0) return null
  const i = Math.min(Math.max(0, index), g.count - 1)
  const rowTop = i * g.rowHeight
  const rowBottom = rowTop + g.rowHeight
  if (align === 'center') {
    const target = scrollTopFor(g, rowTop - (g.viewportHeight - g.rowHeight) / 2)
    return Math.abs(target - scrollTop) < 0.5 ? null : target
  }
  const vt = virtualTop(g, scrollTop)
  if (rowTop >= vt && rowBottom <= vt + g.viewportHeight) return null
  const want = rowTop < vt ? rowTop : rowBottom - g.viewportHeight
  return scrollTopFor(g, want)
}

export type NavKey = 'ArrowUp' | 'ArrowDown' | 'PageUp' | 'PageDown' | 'Home' | 'End'

/** The row index a navigation key moves to from `current` (-1 = nothing selected yet). */
export function navigate(key: NavKey, current: number, count: number, page: number): number {
  if (count <= 0) return -1
  const last = count - 1
  const from = current < 0 ? -1 : Math.min(current, last)
  switch (key) {
    case 'ArrowUp':
      return from <= 0 ? 0 : from - 1
    case 'ArrowDown':
      return from < 0 ? 0 : Math.min(last, from + 1)
    case 'PageUp':
      return Math.max(0, (from < 0 ? 0 : from) - page)
    case 'PageDown':
      return Math.min(last, (from < 0 ? 0 : from) + page)
    case 'Home':
      return 0
    case 'End':
      return last
  }
}

export function isNavKey(key: string): key is NavKey {
  return (
    key === 'ArrowUp' ||
    key === 'ArrowDown' ||
    key === 'PageUp' ||
    key === 'PageDown' ||
    key === 'Home' ||
    key === 'End'
  )
}
