// Two texts side by side, the lines and words that differ highlighted (lib/text-diff.ts). Every part
// is a text node: a body can hold markup, and it is never interpreted.
import { useMemo, useState } from 'react'
import { sideBySide, type SideCell } from '../lib/text-diff'
import './recovered.css'

interface Props {
  left: string
  right: string
  leftTitle: string
  rightTitle: string
  testId?: string
}

function Cell({ cell, side }: { cell: SideCell | null; side: 'left' | 'right' }) {
  if (!cell) return <td className={`diff-cell empty ${side}`} colSpan={2} />
  const changed = cell.parts.some((p) => p.changed)
  return (
    <>
      <td className="diff-no muted">{cell.line}</td>
      <td className={`diff-cell ${side}${changed ? ' changed' : ''}`} data-testid={`diff-${side}`}>
        {cell.parts.map((p, i) =>
          p.changed ? (
            <mark key={i} data-testid="diff-changed">
              {p.text}
            </mark>
          ) : (
            <span key={i}>{p.text}</span>
          ),
        )}
      </td>
    </>
  )
}

export function SideBySideDiff({ left, right, leftTitle, rightTitle, testId = 'body-diff' }: Props) {
  const rows = useMemo(() => sideBySide(left, right), [left, right])
  const changed = rows.filter((r) => r.changed).length
  // The entry panel is narrow: the wide view lays the two bodies over the window (Esc closes it).
  const [wide, setWide] = useState(false)
  return (
    <div
      className={`diff${wide ? ' wide' : ''}`}
      data-testid={testId}
      data-changed={changed}
      onKeyDown={(e) => {
        if (wide && e.key === 'Escape') {
          e.stopPropagation()
          setWide(false)
        }
      }}
    >
      <div className="diff-bar">
        <button
          type="button"
          className="btn small"
          onClick={() => setWide(!wide)}
          aria-pressed={wide}
          data-testid="diff-wide"
        >
          {wide ? 'close wide view' : 'wide view'}
        </button>
      </div>
      <table className="diff-table">
        <colgroup>
          <col className="diff-no-col" />
          <col />
          <col className="diff-no-col" />
          <col />
        </colgroup>
        <thead>
          <tr>
            <th colSpan={2}>{leftTitle}</th>
            <th colSpan={2}>{rightTitle}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i} className={r.changed ? 'changed' : ''}>
              <Cell cell={r.left} side="left" />
              <Cell cell={r.right} side="right" />
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted small" data-testid="diff-summary">
        {changed === 0 ? 'the two bodies are identical' : `${changed} line${changed === 1 ? '' : 's'} differ`}
      </p>
    </div>
  )
}
