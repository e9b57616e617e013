// A question the page asks before something every tab would feel (issue 34: a deep link that
// would swap the chain the engine holds). Modal: it takes focus, keeps Tab inside, Esc answers no.
import { useEffect, useRef, type ReactNode } from 'react'
import './dialog.css'

interface Props {
  title: string
  children: ReactNode
  yes: string
  no: string
  onYes: () => void
  onNo: () => void
  testId: string
}

export function ConfirmDialog({ title, children, yes, no, onYes, onNo, testId }: Props) {
  const box = useRef<HTMLDivElement | null>(null)
  const noButton = useRef<HTMLButtonElement | null>(null)
  useEffect(() => {
    // The safe answer has the focus: Enter does not drop the chain held by accident.
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null
    noButton.current?.focus()
    return () => before?.focus()
  }, [])
  const onKey = (e: React.KeyboardEvent): void => {
    if (e.key === 'Escape') {
      e.stopPropagation()
      onNo()
    } else if (e.key === 'Tab') trapTab(e, box.current)
  }
  return (
    <div className="modal-backdrop" data-testid={testId}>
      <div
        ref={box}
        className="modal confirm"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby={`${testId}-title`}
        aria-describedby={`${testId}-body`}
        onKeyDown={onKey}
      >
        <h2 id={`${testId}-title`}>{title}</h2>
        <div id={`${testId}-body`}>{children}</div>
        <div className="row gap confirm-actions">
          <button type="button" className="btn primary" onClick={onYes} data-testid={`${testId}-yes`}>
            {yes}
          </button>
          <button type="button" className="btn" ref={noButton} onClick={onNo} data-testid={`${testId}-no`}>
            {no}
          </button>
        </div>
      </div>
    </div>
  )
}

/** Keep Tab and Shift+Tab inside `box` (a modal). */
export function trapTab(e: React.KeyboardEvent, box: HTMLElement | null): void {
  if (!box) return
  const items = Array.from(
    box.querySelectorAll<HTMLElement>(
      'button:not([disabled]), [href], input:not([disabled]), [tabindex="0"]',
    ),
  )
  if (items.length === 0) return
  const first = items[0]!
  const last = items[items.length - 1]!
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault()
    last.focus()
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault()
    first.focus()
  }
}
