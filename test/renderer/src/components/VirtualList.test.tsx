// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react'
import { useState } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { VirtualList } from '../../../../src/renderer/src/components/VirtualList'

afterEach(cleanup)

function Harness({
  count,
  onEnter,
  onRange,
}: {
  count: number
  onEnter?: (i: number) => void
  onRange?: (s: number, e: number) => void
}) {
  const [active, setActive] = useState(-1)
  return (
    <VirtualList
      count={count}
      rowHeight={20}
      overscan={2}
      initialViewportHeight={200}
      activeIndex={active}
      onActiveChange={setActive}
      onEnter={onEnter}
      onRangeChange={onRange}
      ariaLabel="rows"
      testId="list"
      renderRow={(i, style, isActive) => (
        <div key={i} style={style} data-testid="row" data-index={i} data-active={isActive}>
          row {i}
        </div>
      )}
    />
  )
}

const rows = () => screen.getAllByTestId('row').map((r) => Number(r.getAttribute('data-index')))

describe('VirtualList', () => {
  it('renders only the visible rows of a million', () => {
    const onRange = vi.fn()
    render(<Harness count={1_000_000} onRange={onRange} />)
    expect(rows()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
    expect(onRange).toHaveBeenLastCalledWith(0, 12)
    const spacer = screen.getByTestId('list').firstElementChild as HTMLElement
    expect(parseFloat(spacer.style.height)).toBeLessThanOrEqual(12_000_000)
    expect(screen.getByTestId('list').getAttribute('aria-rowcount')).toBe('1000000')
  })

  it('moves the cursor with the keyboard and keeps it in view', () => {
    const onEnter = vi.fn()
    render(<Harness count={1_000_000} onEnter={onEnter} />)
    const list = screen.getByTestId('list')
    fireEvent.keyDown(list, { key: 'ArrowDown' })
    fireEvent.keyDown(list, { key: 'ArrowDown' })
    expect(
      screen
        .getAllByTestId('row')
        .find((r) => r.getAttribute('data-active') === 'true')
        ?.getAttribute('data-index'),
    ).toBe('1')
    fireEvent.keyDown(list, { key: 'Enter' })
    expect(onEnter).toHaveBeenCalledWith(1)
    fireEvent.keyDown(list, { key: 'PageDown' })
    fireEvent.keyDown(list, { key: 'Enter' })
    expect(onEnter).toHaveBeenLastCalledWith(10)
    act(() => {
      fireEvent.keyDown(list, { key: 'End' })
    })
    expect(rows()).toContain(999_999)
    expect(rows().length).toBeLessThan(20)
    fireEvent.keyDown(list, { key: 'Enter' })
    expect(onEnter).toHaveBeenLastCalledWith(999_999)
    act(() => {
      fireEvent.keyDown(list, { key: 'Home' })
    })
    expect(rows()[0]).toBe(0)
    fireEvent.keyDown(list, { key: 'ArrowUp' })
    fireEvent.keyDown(list, { key: 'Enter' })
    expect(onEnter).toHaveBeenLastCalledWith(0)
  })

  it('follows the scroll position', async () => {
    render(<Harness count={1000} />)
    const list = screen.getByTestId('list')
    list.scrollTop = 20 * 500
    fireEvent.scroll(list)
    await act(() => new Promise((r) => requestAnimationFrame(() => r(undefined))))
    expect(rows()[0]).toBe(498)
    expect(rows()).toContain(509)
  })

  it('renders nothing for an empty list and ignores keys', () => {
    const onEnter = vi.fn()
    render(<Harness count={0} onEnter={onEnter} />)
    expect(screen.queryAllByTestId('row')).toEqual([])
    fireEvent.keyDown(screen.getByTestId('list'), { key: 'ArrowDown' })
    fireEvent.keyDown(screen.getByTestId('list'), { key: 'Enter' })
    expect(onEnter).not.toHaveBeenCalled()
  })
})
