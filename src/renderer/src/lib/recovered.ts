// What the Recovered panel, the timeline and the entry panel say about recovered rows: labels of
// where a row was found, its proof, its link, its body as text, and the page history of a seq (the
// page images that hold each version, in the order the files were written). Pure, unit-tested.
import type { LivePlace, RecoveredRow, RecoverySource } from '../../../shared/recovery-types'
import type { RecoveredMark } from './chart-data'
import { keyLabel } from './key-notes'
import { SOURCE_KIND_WORDS } from '../../../shared/recovery-words'

/** One recovered version: seq and hmac_hash (a seq may have several earlier versions). */
export function rowKey(r: Pick<RecoveredRow, 'seq' | 'hmac_hash'>): string {
  return `${r.seq ?? '?'}:${r.hmac_hash}`
}

export function seqLabel(r: Pick<RecoveredRow, 'seq' | 'seq_exact'>): string {
  return r.seq_exact ?? (r.seq === null ? '?' : String(r.seq))
}

export function proofLabel(r: RecoveredRow): string {
  return r.key_index === null ? 'unproven' : `proven · ${keyLabel(r.key_index)}`
}

export function bodyLabel(r: RecoveredRow): string {
  return r.body_ok === null ? 'body lost' : r.body_ok ? 'body hash ✓' : 'body hash ✗'
}

export function linkLabel(r: RecoveredRow): string {
  const l = r.links_to
  switch (l.to) {
    case 'genesis':
      return 'GENESIS'
    case 'live':
      return `live seq ${l.seq ?? '?'}`
    case 'recovered':
      return `recovered seq ${l.seq ?? '?'}`
    default:
      return 'nothing known'
  }
}

const KIND_LABELS = SOURCE_KIND_WORDS

/** Where a record was found, in one line: file, kind, page, offset and, for WAL frames, frame and salt. */
export function sourceLabel(s: RecoverySource): string {
  const where =
    s.kind === 'wal_frame'
      ? `-wal frame ${s.frame ?? '?'} (page ${s.page}, salt ${s.salt ?? '?'}${
          s.generation !== undefined ? `, generation ${s.generation}` : ''
        }${s.committed === false ? ', uncommitted' : ''})`
      : `${s.file === 'journal' ? '-journal' : 'db'} page ${s.page} · ${KIND_LABELS[s.kind]}${
          s.file === 'db' && s.committed === false ? ' (rolled back)' : ''
        }`
  return `${where} @ ${s.offset}`
}

/** A short name of the place (page image) a source was read from, for the page history. */
export function placeLabel(s: RecoverySource): string {
  if (s.kind === 'wal_frame') return `WAL frame ${s.frame ?? '?'}`
  if (s.kind === 'journal_page') return `-journal image of page ${s.page}`
  return s.kind === 'superseded_page'
    ? `db page ${s.page} (before the WAL)`
    : `db page ${s.page} (${KIND_LABELS[s.kind]})`
}

/** The recovered body as text: pretty-printed like the entry panel's live body when it is JSON. */
export function bodyText(r: RecoveredRow): { text: string; note: string | null } {
  if (r.body_b64 === undefined) return { text: '', note: 'the body did not survive' }
  const bin = atob(r.body_b64)
  const bytes = new Uint8Array(bin.length)
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i)
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return { text: new TextDecoder('utf-8').decode(bytes), note: 'the body is not valid UTF-8' }
  }
  try {
    return { text: JSON.stringify(JSON.parse(text), null, 2), note: null }
  } catch {
    return { text, note: 'the body is not JSON' }
  }
}

/** One page image in a row's history and the version of the row it holds. */
export interface HistoryStep {
  /** The version it holds: 'live', or the index (0-based) of a recovered version at that seq. */
  version: 'live' | number
  place: string
  detail: string
  /** The page image SQLite reads the live row from now. */
  now: boolean
}

/**
 * The order the files were written in: frames of earlier WAL generations (oldest first), then the
 * database file (what checkpoints left there, before the current WAL's transactions), then the
 * current generation's frames in file order (file-format §4: a WAL only grows until it restarts).
 */
function rank(s: RecoverySource): [number, number, number] {
  if (s.file === 'wal') {
    const g = s.generation ?? 0
    return g < 0 ? [0, g, s.frame ?? 0] : [2, 0, s.frame ?? 0]
  }
  return [1, 0, s.offset]
}

function before(a: [number, number, number], b: [number, number, number]): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2]
}

export interface PageHistory {
  steps: HistoryStep[]
  /** Where the row changed to its live version: between these two places (null when not seen). */
  change: { from: string; to: string } | null
}

/**
 * The page history of a seq: the places that hold each recovered version (`versions`) and, for a
 * seq that is still live, those that hold the live version (`live_sources`) and where it is now
 * (`live_at`). Several records of one page image count once.
 */
export function pageHistory(versions: RecoveredRow[]): PageHistory {
  const items: { r: [number, number, number]; step: HistoryStep }[] = []
  const seen = new Set<string>()
  const add = (s: RecoverySource, version: 'live' | number): void => {
    const k = `${version}|${s.file}|${s.frame ?? s.page}`
    if (seen.has(k)) return
    seen.add(k)
    items.push({ r: rank(s), step: { version, place: placeLabel(s), detail: sourceLabel(s), now: false } })
  }
  versions.forEach((v, i) => v.sources.forEach((s) => add(s, i)))
  const live = versions.find((v) => v.status === 'superseded')
  for (const s of live?.live_sources ?? []) add(s, 'live')
  const at: LivePlace | undefined = live?.live_at
  if (at) {
    const s: RecoverySource =
      at.frame === null
        ? { file: 'db', kind: 'superseded_page', page: at.page, offset: Number.MAX_SAFE_INTEGER }
        : { file: 'wal', kind: 'wal_frame', page: at.page, offset: 0, frame: at.frame, generation: 0 }
    items.push({
      r: at.frame === null ? [3, 0, 0] : rank(s),
      step: {
        version: 'live',
        place: at.frame === null ? `db page ${at.page}` : `WAL frame ${at.frame}`,
        detail:
          at.frame === null
            ? `db page ${at.page}: the live row, read from the database file`
            : `-wal frame ${at.frame} (page ${at.page}, salt ${at.salt ?? '?'}): the page image SQLite reads now`,
        now: true,
      },
    })
  }
  items.sort((a, b) => before(a.r, b.r))
  const steps = items.map((x) => x.step)
  let change: PageHistory['change'] = null
  const firstLive = steps.findIndex((s) => s.version === 'live')
  if (firstLive > 0 && steps[firstLive - 1]!.version !== 'live')
    change = { from: steps[firstLive - 1]!.place, to: steps[firstLive]!.place }
  return { steps, change }
}

/** The timeline's marks of recovered rows: those whose (unsealed) timestamp survived. */
export function recoveredMarks(rows: RecoveredRow[]): RecoveredMark[] {
  const out: RecoveredMark[] = []
  for (const r of rows)
    if (r.timestamp_ns !== null)
      out.push({
        key: rowKey(r),
        seq: r.seq,
        ns: r.timestamp_ns,
        status: r.status,
        proven: r.key_index !== null,
      })
  return out
}
