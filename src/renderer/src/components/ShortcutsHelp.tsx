// The keyboard shortcuts, shown with `?`.
export const SHORTCUTS: [string, string][] = [
  ['Ctrl/⌘ + O', 'open a chain (dialog, or the path box in web mode)'],
  ['Ctrl/⌘ + Shift + V', 'verify the chain'],
  ['Ctrl/⌘ + E', 'export the report'],
  ['Ctrl/⌘ + Shift + E', 'copy the report as JSON'],
  ['Ctrl/⌘ + G', 'go to seq'],
  ['↑ ↓  PgUp PgDn  Home End', 'move in the entries table'],
  ['Enter', 'open the row under the cursor'],
  ['[  ]', 'previous / next entry'],
  ['Esc', 'reset the timeline zoom'],
  ['?', 'this help'],
]

export function ShortcutsHelp({ onClose }: { onClose: () => void }) {
  return (
    <div className="modal-backdrop" onClick={onClose} data-testid="shortcuts-help">
      <div
        className="modal"
        role="dialog"
        aria-label="keyboard shortcuts"
        onClick={(e) => e.stopPropagation()}
      >
        <header className="section-head">
          <h2>Keyboard shortcuts</h2>
          <button type="button" className="btn small" onClick={onClose}>
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
