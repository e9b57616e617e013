// A small side-by-side diff of two texts (a recovered earlier body and the live one, pretty-printed):
// lines matched by a longest common subsequence (Hunt–McIlroy's problem, solved by the textbook
// dynamic programme after trimming the common prefix and suffix), and inside each pair of changed
// lines the words that differ. Bounded: past MAX_CELLS the middle is shown as wholly changed rather
// than compared, so a huge body cannot stall the page. Pure; the renderer shows the parts as text.

export type OpKind = 'same' | 'del' | 'add'

export interface Op<T> {
  kind: OpKind
  value: T
}

/** The dynamic programme's largest table (cells); above it the middle is marked changed. */
export const MAX_CELLS = 4_000_000

/** An edit script turning `a` into `b` (same / del from a / add from b), in order. */
export function diffSequences<T>(a: readonly T[], b: readonly T[]): Op<T>[] {
  let pre = 0
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++
  let suf = 0
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf])
    suf++
  const out: Op<T>[] = []
  for (let i = 0; i < pre; i++) out.push({ kind: 'same', value: a[i]! })
  const am = a.slice(pre, a.length - suf)
  const bm = b.slice(pre, b.length - suf)
  const n = am.length
  const m = bm.length
  if (n > 0 && m > 0 && (n + 1) * (m + 1) <= MAX_CELLS) {
    // len[i][j]: LCS length of am[i..] and bm[j..], row-major in one typed array.
    const w = m + 1
    const len = new Uint32Array((n + 1) * w)
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        len[i * w + j] =
          am[i] === bm[j]
            ? len[(i + 1) * w + j + 1]! + 1
            : Math.max(len[(i + 1) * w + j]!, len[i * w + j + 1]!)
    let i = 0
    let j = 0
    while (i < n && j < m) {
      if (am[i] === bm[j]) {
        out.push({ kind: 'same', value: am[i]! })
        i++
        j++
      } else if (len[(i + 1) * w + j]! >= len[i * w + j + 1]!) out.push({ kind: 'del', value: am[i++]! })
      else out.push({ kind: 'add', value: bm[j++]! })
    }
    while (i < n) out.push({ kind: 'del', value: am[i++]! })
    while (j < m) out.push({ kind: 'add', value: bm[j++]! })
  } else {
    for (const v of am) out.push({ kind: 'del', value: v })
    for (const v of bm) out.push({ kind: 'add', value: v })
  }
  for (let i = a.length - suf; i < a.length; i++) out.push({ kind: 'same', value: a[i]! })
  return out
}

/** A run of text on one side, changed or not. */
export interface Part {
  text: string
  changed: boolean
}

export interface SideCell {
  /** 1-based line number on its side. */
  line: number
  parts: Part[]
}

export interface SideRow {
  left: SideCell | null
  right: SideCell | null
  changed: boolean
}

/** Words, runs of spaces and single punctuation marks: the units a changed line is compared in. */
export function tokens(line: string): string[] {
  return line.match(/[\p{L}\p{N}_]+|\s+|[^\p{L}\p{N}_\s]/gu) ?? []
}

function joinParts(ops: Op<string>[], keep: OpKind): Part[] {
  const parts: Part[] = []
  for (const o of ops) {
    if (o.kind !== 'same' && o.kind !== keep) continue
    const changed = o.kind !== 'same'
    const last = parts[parts.length - 1]
    if (last && last.changed === changed) last.text += o.value
    else parts.push({ text: o.value, changed })
  }
  return parts
}

/** The words of a pair of changed lines: what the left lost and what the right gained. */
export function wordDiff(left: string, right: string): { left: Part[]; right: Part[] } {
  const ops = diffSequences(tokens(left), tokens(right))
  return { left: joinParts(ops, 'del'), right: joinParts(ops, 'add') }
}

/** `a` (left) against `b` (right), line by line, changed lines paired in order within each hunk. */
export function sideBySide(a: string, b: string): SideRow[] {
  const ops = diffSequences(a.split('\n'), b.split('\n'))
  const rows: SideRow[] = []
  let la = 0
  let lb = 0
  let dels: string[] = []
  let adds: string[] = []
  const flush = (): void => {
    for (let k = 0; k < Math.max(dels.length, adds.length); k++) {
      const d = dels[k]
      const p = adds[k]
      const words = d !== undefined && p !== undefined ? wordDiff(d, p) : null
      rows.push({
        left:
          d === undefined ? null : { line: ++la, parts: words ? words.left : [{ text: d, changed: true }] },
        right:
          p === undefined ? null : { line: ++lb, parts: words ? words.right : [{ text: p, changed: true }] },
        changed: true,
      })
    }
    dels = []
    adds = []
  }
  for (const o of ops) {
    if (o.kind === 'del') dels.push(o.value)
    else if (o.kind === 'add') adds.push(o.value)
    else {
      flush()
      const part = [{ text: o.value, changed: false }]
      rows.push({ left: { line: ++la, parts: part }, right: { line: ++lb, parts: part }, changed: false })
    }
  }
  flush()
  return rows
}
