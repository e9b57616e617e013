// The entries table's context menu (right-click, Shift+F10, the Menu key): a WAI-ARIA menu
// (APG "Menu Button" keyboard model) — focus on its first item, ↑ ↓ Home End move, Enter/Space
// choose, Escape or Tab close it and give focus back to the table.
import { useEffect, useRef, type KeyboardEvent } from 'react'

export interface MenuItem {
  label: string
  onSelect: () => void
  testId?: string
}

interface Props {
  x: number
  y: number
  label: string
  items: MenuItem[]
  onClose: () => void
}

export function RowMenu({ x, y, label, items, onClose }: Props) {
  const ref = useRef<HTMLDivElement | null>(null)
  useEffect(() => {
    ref.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus()
    const away = (e: PointerEvent): void => {
      if (ref.current && !ref.current.contains(e.target as Node)) onClose()
    }
    document.addEventListener('pointerdown', away, true)
    return () => document.removeEventListener('pointerdown', away, true)
  }, [onClose])

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    const all = Array.from(ref.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])
    const at = all.indexOf(document.activeElement as HTMLElement)
    const go = (i: number): void => all[(i + all.length) % all.length]?.focus()
    if (e.key === 'ArrowDown') go(at + 1)
    else if (e.key === 'ArrowUp') go(at - 1)
    else if (e.key === 'Home') go(0)
    else if (e.key === 'End') go(all.length - 1)
    else if (e.key === 'Escape' || e.key === 'Tab') onClose()
    else return
    e.preventDefault()
    e.stopPropagation()
  }

  // Kept inside the window: the menu opens up or left of the pointer near an edge.
  const style = {
    left: Math.max(4, Math.min(x, window.innerWidth - 280)),
    top: Math.max(4, Math.min(y, window.innerHeight - 32 * items.length - 12)),
  }
  return (
    <div
      ref={ref}
      className="row-menu"
      role="menu"
      aria-label={label}
      style={style}
      onKeyDown={onKeyDown}
      data-testid="row-menu"
    >
      {items.map((it) => (
        <button
          key={it.label}
          type="button"
          role="menuitem"
          tabIndex={-1}
          className="row-menu-item"
          data-testid={it.testId}
          onClick={() => {
            onClose()
            it.onSelect()
          }}
        >
          {it.label}
        </button>
      ))}
    </div>
  )
}
