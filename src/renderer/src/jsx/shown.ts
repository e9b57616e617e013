// Every string the renderer draws passes through here: JSX compiles each element to a call of this
// folder's jsx-runtime (tsconfig `jsxImportSource`, the renderer's and the tests' alias), which hands
// its text children and its read-out attributes to shownProps(). A chain's text (a model, provider,
// span name, attribute, id, a path) is the insider's: a bidi override or isolate (UAX #9 §2: U+202E
// shows `fdp.db` as `bd.pdf`), a zero-width space, a line separator or a control would make what
// the auditor reads differ from what the chain holds. printable() (src/shared/printable.ts) writes
// each such code point as `<U+XXXX>` — at the one place every view goes through, so no view, present
// or future, can draw one by forgetting to call it. Values a control holds (`value`) are left as
// they are: they are sent back as typed, and shown by the browser's own field.
import { printable } from '../../../shared/printable'

/** Attributes the browser shows (tooltips, placeholders) or reads out (assistive technology). */
const SHOWN_ATTRIBUTES = [
  'title',
  'alt',
  'placeholder',
  'aria-label',
  'aria-description',
  'aria-valuetext',
  'aria-roledescription',
]

/** A <pre>'s own line breaks and tabs are its layout (a pretty-printed body); in a tooltip, its lines. */
const LAYOUT: Record<string, string> = { pre: '\n\t', textarea: '\n\t' }
const TITLE_LAYOUT = '\n'

function shownChildren(children: unknown, keep: string): unknown {
  if (typeof children === 'string') return printable(children, keep)
  if (Array.isArray(children)) {
    let changed = false
    const out = children.map((c) => {
      const s = shownChildren(c, keep)
      if (s !== c) changed = true
      return s
    })
    return changed ? out : children
  }
  return children
}

/** `props` with its text children and shown attributes as printable() writes them (the same object when nothing changes). */
export function shownProps<P>(type: unknown, props: P): P {
  if (props === null || typeof props !== 'object') return props
  const p = props as Record<string, unknown>
  let out: Record<string, unknown> | null = null
  const set = (k: string, v: unknown): void => {
    if (v === p[k]) return
    out ??= { ...p }
    out[k] = v
  }
  const keep = typeof type === 'string' ? (LAYOUT[type] ?? '') : ''
  if ('children' in p) set('children', shownChildren(p['children'], keep))
  for (const a of SHOWN_ATTRIBUTES) {
    const v = p[a]
    if (typeof v === 'string') set(a, printable(v, a === 'title' ? TITLE_LAYOUT : ''))
  }
  return (out ?? p) as P
}
