// @vitest-environment jsdom
import { describe, expect, it } from 'vitest'
import {
  contentHeight,
  MAX_CONTENT_HEIGHT,
  navigate,
  pageRows,
  scrollToIndex,
  scrollTopFor,
  virtualTop,
  visibleWindow,
  type ListGeometry,
} from '../../../../src/renderer/src/lib/windowing'

const g = (count: number, viewportHeight = 260, rowHeight = 26): ListGeometry => ({
  count,
  rowHeight,
  viewportHeight,
})

describe('visibleWindow', () => {
  it('renders only the rows in view plus overscan', () => {
    const w = visibleWindow(g(1000), 0, 4)
    expect(w.firstVisible).toBe(0)
    expect(w.lastVisible).toBe(9)
    expect(w.start).toBe(0)
    expect(w.end).toBe(14)
    expect(w.offsetTop).toBe(0)
    expect(w.contentHeight).toBe(26_000)
  })

  it('follows the scroll position', () => {
    const w = visibleWindow(g(1000), 26 * 100 + 13, 4)
    expect(w.firstVisible).toBe(100)
    expect(w.lastVisible).toBe(110)
    expect(w.start).toBe(96)
    expect(w.end).toBe(115)
    expect(w.offsetTop).toBe(96 * 26)
  })

  it('clamps at the end and for empty lists', () => {
    const w = visibleWindow(g(50), 1e9, 4)
    expect(w.lastVisible).toBe(49)
    expect(w.end).toBe(50)
    expect(visibleWindow(g(0), 0)).toMatchObject({ start: 0, end: 0, lastVisible: -1 })
    const short = visibleWindow(g(3), 0, 4)
    expect(short).toMatchObject({ start: 0, end: 3, firstVisible: 0, lastVisible: 2 })
  })

  it('scales a million rows into a bounded scroll height and reaches the last row', () => {
    const geo = g(1_000_000)
    expect(contentHeight(geo)).toBe(MAX_CONTENT_HEIGHT)
    const maxScroll = MAX_CONTENT_HEIGHT - geo.viewportHeight
    const end = visibleWindow(geo, maxScroll, 2)
    expect(end.lastVisible).toBe(999_999)
    expect(end.end).toBe(1_000_000)
    expect(end.end - end.start).toBeLessThan(20)
    // The rows drawn at the bottom are inside the content box.
    expect(end.offsetTop + (end.end - end.start) * 26).toBeLessThanOrEqual(MAX_CONTENT_HEIGHT + 26 * 3)
    const mid = visibleWindow(geo, maxScroll / 2, 0)
    expect(Math.abs(mid.firstVisible - 499_995)).toBeLessThan(10)
  })

  it('maps scrollTop and real offsets both ways', () => {
    const geo = g(1_000_000)
    for (const off of [0, 123_456, 13_000_000, 25_999_740]) {
      expect(virtualTop(geo, scrollTopFor(geo, off))).toBeCloseTo(off, 3)
    }
    const small = g(100)
    expect(scrollTopFor(small, 520)).toBe(520)
    expect(virtualTop(small, 520)).toBe(520)
  })
})

describe('scrollToIndex', () => {
  it('does nothing when the row is visible, scrolls minimally otherwise', () => {
    const geo = g(1000)
    expect(scrollToIndex(geo, 0, 5)).toBeNull()
    expect(scrollToIndex(geo, 0, 10)).toBe(26)
    expect(scrollToIndex(geo, 2600, 50)).toBe(1300)
  })
  it('centres a located row', () => {
    const geo = g(1000)
    expect(scrollToIndex(geo, 0, 500, 'center')).toBe(500 * 26 - (260 - 26) / 2)
  })
  it('reaches rows of a scaled list', () => {
    const geo = g(1_000_000)
    const top = scrollToIndex(geo, 0, 999_999)
    expect(top).not.toBeNull()
    const w = visibleWindow(geo, top!, 0)
    expect(w.lastVisible).toBe(999_999)
  })
})

describe('keyboard navigation', () => {
  it('moves the cursor within bounds', () => {
    expect(navigate('ArrowDown', -1, 10, 5)).toBe(0)
    expect(navigate('ArrowDown', 9, 10, 5)).toBe(9)
    expect(navigate('ArrowUp', 0, 10, 5)).toBe(0)
    expect(navigate('ArrowUp', 4, 10, 5)).toBe(3)
    expect(navigate('PageDown', 0, 10, 5)).toBe(5)
    expect(navigate('PageDown', 8, 10, 5)).toBe(9)
    expect(navigate('PageUp', 3, 10, 5)).toBe(0)
    expect(navigate('Home', 7, 10, 5)).toBe(0)
    expect(navigate('End', 0, 1_000_000, 5)).toBe(999_999)
    expect(navigate('End', 0, 0, 5)).toBe(-1)
  })
  it('pages by the rows that fit', () => {
    expect(pageRows(g(100, 260))).toBe(10)
    expect(pageRows(g(100, 10))).toBe(1)
  })
})
