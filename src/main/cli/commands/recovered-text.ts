// Text lines for recovered rows, shared by `verify` (after its findings) and `recover`.
import type { RecoveredRow, RecoverySource, RecoverySummary } from '../../../shared/recovery-types'
import type { KeyInfo } from '../../../shared/verify-types'
import { keyLabel } from '../format'

const KIND_WORDS: Record<RecoverySource['kind'], string> = {
  wal_frame: 'old image of page',
  superseded_page: 'superseded page',
  freelist: 'freelist page',
  freeblock: 'freeblock of page',
  unallocated: 'unallocated space of page',
}

export function sourceText(s: RecoverySource): string {
  const frame = s.frame !== undefined ? ` in WAL frame ${s.frame} (salt ${s.salt}${generationText(s)})` : ''
  return `${s.file === 'db' ? 'db' : 'wal'}: ${KIND_WORDS[s.kind]} ${s.page}${frame} @ byte ${s.offset}`
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

/** One line per recovered row. */
export function recoveredLines(rows: RecoveredRow[], keys: KeyInfo[]): string[] {
  return rows.map((r) => {
    const seq =
      r.seq === null ? 'seq ?' : `seq ${r.seq_exact ?? r.seq}${r.seq_origin === 'chain' ? ' (by links)' : ''}`
    const proof =
      r.key_index === null
        ? 'UNPROVEN'
        : `proven by ${keyLabel(keys[r.key_index], r.key_index).replace(/ \(.*\)$/, '')}`
    const body = r.body_ok === null ? 'body lost' : r.body_ok ? 'body ok' : 'body damaged'
    const more = r.sources.length > 1 ? ` (+${r.sources.length - 1} more)` : ''
    return `  ${seq.padEnd(12)} ${r.status.padEnd(10)} ${proof}, ${body}, ${linkText(r)}; hmac ${r.hmac_hash.slice(0, 16)}...; ${sourceText(r.source)}${more}`
  })
}

/** The block `verify` prints after its findings (nothing when the search found nothing). */
export function recoveryBlock(
  summary: RecoverySummary | undefined,
  rows: RecoveredRow[],
  keys: KeyInfo[],
): string[] {
  if (!summary) return []
  if (!summary.searched) return [`Recovery: ${summary.note}`]
  if (rows.length === 0) return []
  return [`Recovered rows (${rows.length}):`, ...recoveredLines(rows, keys), `Recovery: ${summary.note}`]
}
