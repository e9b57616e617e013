// The keyboard shortcuts, shown with `?`: a modal that takes the focus (its Close button), keeps Tab
// inside and gives it back when closed. Every shortcut App.tsx handles is listed here.
import { useEffect, useRef } from 'react'
import { trapTab } from './ConfirmDialog'
import './dialog.css'
export const SHORTCUTS: [string, string][] = [
  ['Ctrl/⌘ + O', 'open a chain (dialog, or the path box in web mode)'],
  ['Ctrl/⌘ + Shift + V', 'verify the chain'],
  ['Ctrl/⌘ + E', 'export the report'],
  ['Ctrl/⌘ + Shift + E', 'copy the report as JSON'],
  ['Ctrl/⌘ + G', 'go to seq'],
  ['Ctrl/⌘ + I', 'run the integrity monitor again'],
  ['Tab (first)', 'skip link: straight to the entries table'],
  ['↑ ↓  PgUp PgDn  Home End', 'move in the entries table'],
  ['Enter', 'open the row under the cursor'],
  ['← →', 'choose the cell in the entries table (what Copy cell copies)'],
  ['Shift + F10  or the Menu key', "the row's menu: copy cell, row, hashes, seq; filter by its values"],
  ['Ctrl/⌘ + C', 'copy the row under the cursor (TSV)'],
  ['[  ]', 'previous / next entry'],
  ['Esc', 'reset the timeline zoom; close this help or a dialog'],
  ['?', 'this help'],
]

export function ShortcutsHelp({ onClose }: { onClose: () => void }) {
  const box = useRef<HTMLDivElement | null>(null)
  const close = useRef<HTMLButtonElement | null>(null)
  useEffect(() => {
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null
    close.current?.focus()
    return () => before?.focus()
  }, [])
  return (
    <div className="modal-backdrop" onClick={onClose} data-testid="shortcuts-help">
      <div
        ref={box}
        className="modal"
        role="dialog"
        aria-modal="true"
        aria-label="keyboard shortcuts"
        onClick={(e) => e.stopPropagation()}
        onKeyDown={(e) => {
          if (e.key === 'Tab') trapTab(e, box.current)
        }}
      >
        <header className="section-head">
          <h2>Keyboard shortcuts</h2>
          <button type="button" className="btn small" onClick={onClose} ref={close} data-testid="help-close">
            Close
          </button>
        </header>
        <table className="grid compact">
          <tbody>
            {SHORTCUTS.map(([k, d]) => (
              <tr key={k}>
                <td>
                  <kbd>{k}</kbd>
                </td>
                <td>{d}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="muted small">
          Drop a chain.db on the window to open it (desktop app); drop a replay file on a row, on the entry
          panel, or anywhere once an entry is selected.
        </p>
      </div>
    </div>
  )
}
