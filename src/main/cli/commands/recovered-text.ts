// Text lines for recovered rows, shared by `verify` (after its findings) and `recover`.
import type { RecoveredRow, RecoverySource, RecoverySummary } from '../../../shared/recovery-types'
import type { KeyInfo } from '../../../shared/verify-types'
import { keyLabel } from '../format'
import type { Finding } from '../../../shared/verify-types'
import {
  recoveredStatusWord,
  seqFromShort,
  TRUNCATED_MEANING,
  unplacedMeaning,
} from '../../../shared/recovery-words'

const KIND_WORDS: Record<RecoverySource['kind'], string> = {
  wal_frame: 'old image of page',
  // Not "superseded": that word is a row status only (src/shared/recovery-words.ts).
  superseded_page: 'older image of page',
  freelist: 'freelist page',
  freeblock: 'freeblock of page',
  unallocated: 'unallocated space of page',
  journal_page: 'journal image of page',
}

export function sourceText(s: RecoverySource): string {
  const frame = s.frame !== undefined ? ` in WAL frame ${s.frame} (salt ${s.salt}${generationText(s)})` : ''
  const rolledBack = s.file === 'db' && s.committed === false ? ' (rolled back by the hot journal)' : ''
  return `${s.file}: ${KIND_WORDS[s.kind]} ${s.page}${frame}${rolledBack} @ byte ${s.offset}`
}

function generationText(s: RecoverySource): string {
  if (s.generation === undefined) return ', generation unknown'
  const gen = s.generation === 0 ? 'current generation' : `${-s.generation} checkpoint(s) before`
  return s.committed === false ? `, ${gen}, uncommitted` : `, ${gen}`
}

function linkText(r: RecoveredRow): string {
  switch (r.links_to.to) {
    case 'genesis':
      return 'links to GENESIS'
    case 'live':
      return `links to live seq ${r.links_to.seq}`
    case 'recovered':
      return `links to recovered seq ${r.links_to.seq ?? '?'}`
    default:
      return 'links to no known row'
  }
}

function keyText(r: RecoveredRow, keys: KeyInfo[]): string {
  return r.key_index === null
    ? 'UNPROVEN'
    : `proven by ${keyLabel(keys[r.key_index], r.key_index).replace(/ \(.*\)$/, '')}`
}

function seqText(r: RecoveredRow): string {
  if (r.seq === null) return 'seq ?'
  // Placed by its sealed links, whatever its rowid (src/shared/recovery-words.ts seqFromShort).
  return `seq ${r.seq_exact ?? r.seq} (${seqFromShort(r)})`
}

/** What the row's status means, where the word alone does not say it. */
function statusText(r: RecoveredRow, word: string): string {
  if (word === 'truncated') return `; ${TRUNCATED_MEANING}`
  if (r.status === 'superseded' && r.original)
    return `; the ORIGINAL: the live row's ${(r.changed ?? []).join(', ')} changed without the key`
  if (r.status === 'before_live') return '; stood before the live chain (archived or deleted)'
  if (r.status === 'archived') return '; in an archive segment given'
  return ''
}

/** One line per recovered row; a run of unplaced rows linked to each other is one line. */
export function recoveredLines(
  rows: RecoveredRow[],
  keys: KeyInfo[],
  findings: readonly Finding[] = [],
): string[] {
  const out: string[] = []
  const runs = new Map<number, RecoveredRow[]>()
  for (const r of rows) {
    if (r.status === 'unplaced' && r.run !== undefined) {
      const list = runs.get(r.run)
      if (list) list.push(r)
      else runs.set(r.run, [r])
      continue
    }
    const body = r.body_ok === null ? 'body lost' : r.body_ok ? 'body ok' : 'body damaged'
    const more = r.sources.length > 1 ? ` (+${r.sources.length - 1} more)` : ''
    const word = recoveredStatusWord(r, findings)
    out.push(
      `  ${seqText(r).padEnd(12)} ${word.padEnd(10)} ${keyText(r, keys)}, ${body}, ${linkText(r)}${statusText(r, word)}; hmac ${r.hmac_hash.slice(0, 16)}...; ${sourceText(r.source)}${more}`,
    )
  }
  for (const [run, list] of runs) {
    const provers = [...new Set(list.map((r) => keyText(r, keys)))].join(' / ')
    const n = list.length
    out.push(
      `  run #${run} ${'unplaced'.padEnd(10)} ${n} row${n === 1 ? '' : 's'} ${provers}${n > 1 ? ', linked to each other' : ''}, ` +
        `${unplacedMeaning(list.some((r) => r.key_index !== null))}: not a finding; ` +
        `first at ${sourceText(list[0]!.source)}`,
    )
  }
  return out
}
/** The block `verify` prints after its findings (nothing when the search found nothing). */
export function recoveryBlock(
  summary: RecoverySummary | undefined,
  rows: RecoveredRow[],
  keys: KeyInfo[],
  findings: readonly Finding[] = [],
): string[] {
  if (!summary) return []
  if (!summary.searched) return [`Recovery: ${summary.note}`]
  if (rows.length === 0) return []
  return [
    `Recovered rows (${rows.length}):`,
    ...recoveredLines(rows, keys, findings),
    `Recovery: ${summary.note}`,
  ]
}
