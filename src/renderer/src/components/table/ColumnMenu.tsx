// The table's column chooser: show or hide each column, and set its width from the keyboard (the
// header edges are dragged with a pointer). A disclosure (button + panel); Escape closes it.
import { useEffect, useId, useRef, useState } from 'react'
import { COLUMNS } from './columns'
import { defaultPrefs, widthOf, withHidden, withWidth, type ColumnPrefs } from './column-prefs'

interface Props {
  prefs: ColumnPrefs
  onChange: (next: ColumnPrefs) => void
}

export function ColumnMenu({ prefs, onChange }: Props) {
  const [open, setOpen] = useState(false)
  const panelId = useId()
  const button = useRef<HTMLButtonElement | null>(null)
  const panel = useRef<HTMLDivElement | null>(null)
  useEffect(() => {
    if (!open) return
    panel.current?.querySelector<HTMLElement>('input')?.focus()
    const away = (e: PointerEvent): void => {
      const t = e.target as Node
      if (!panel.current?.contains(t) && !button.current?.contains(t)) setOpen(false)
    }
    document.addEventListener('pointerdown', away, true)
    return () => document.removeEventListener('pointerdown', away, true)
  }, [open])
  const shown = COLUMNS.filter((c) => !prefs.hidden.includes(c.id)).length
  return (
    <div className="column-menu">
      <button
        ref={button}
        type="button"
        className="btn small"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((o) => !o)}
        data-testid="columns-button"
      >
        Columns
      </button>
      {open ? (
        <div
          ref={panel}
          id={panelId}
          className="column-menu-panel"
          role="group"
          aria-label="table columns"
          data-testid="columns-panel"
          onKeyDown={(e) => {
            if (e.key !== 'Escape') return
            e.stopPropagation()
            setOpen(false)
            button.current?.focus()
          }}
        >
          {COLUMNS.map((c) => {
            const visible = !prefs.hidden.includes(c.id)
            return (
              <div key={c.id} className="column-menu-row">
                <label title={c.title}>
                  <input
                    type="checkbox"
                    checked={visible}
                    // The last shown column stays: a table of no columns shows nothing to act on.
                    disabled={visible && shown === 1}
                    onChange={(e) => onChange(withHidden(prefs, c.id, !e.target.checked))}
                    data-testid={`column-toggle-${c.id}`}
                  />{' '}
                  {c.label}
                </label>
                <input
                  type="number"
                  className="input num"
                  min={36}
                  max={800}
                  step={8}
                  value={widthOf(prefs, c)}
                  aria-label={`${c.label} column width in pixels`}
                  onChange={(e) => {
                    const n = Number(e.target.value)
                    if (Number.isFinite(n) && n > 0) onChange(withWidth(prefs, c.id, n))
                  }}
                  data-testid={`column-width-${c.id}`}
                />
              </div>
            )
          })}
          <button type="button" className="btn small" onClick={() => onChange(defaultPrefs())}>
            Reset columns
          </button>
        </div>
      ) : null}
    </div>
  )
}
