// Export of what the table shows (issue 26): the rows in view, in the view's order, as JSON Lines
// (one object per line, https://jsonlines.org) or CSV (RFC 4180: CRLF line ends, fields with a
// comma, quote or line break quoted, quotes doubled), with seq, time, provider, model, the three
// hashes and the verdict marks naming the row. Rows are read in slices of seqs through the session's
// chain (in place, or its verified private copy), each found by seq in the scan's rowids (never by
// seeking on a divider key); a file is written beside its target and renamed into place.
import { refuseInputTarget } from '../base/inputs'
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { tempBeside } from '../base/temp-name'
import type { ViewExportFormat } from '../../shared/tools-types'
import type { ChainIndex } from '../chain/chain-index'
import { NO_MODEL } from '../chain/columns/types'
import type { HeldChain } from '../chain/source/held-chain'
import { nsToIso, text } from '../chain/views'
import { AuditError, oneLine } from '../base/errors'
import { csvCell } from '../base/csv'
import { jsonLine } from '../base/json-line'

export const VIEW_COLUMNS = [
  'seq',
  'timestamp_ns',
  'time',
  'provider',
  'model',
  'canonical_hash',
  'prev_hash',
  'hmac_hash',
  'marks',
] as const

export interface ViewRow {
  seq: number
  timestamp_ns: string | null
  time: string | null
  provider: string
  model: string | null
  canonical_hash: string | null
  prev_hash: string | null
  hmac_hash: string | null
  marks: string[]
}

const SLICE = 500
const HASHES = ['canonical_hash', 'prev_hash', 'hmac_hash']

/** The rows at `positions` of the index, in that order, a slice at a time. */
export function* viewRows(
  chain: HeldChain,
  idx: ChainIndex,
  positions: Int32Array,
  marks: ReadonlyMap<number, string[]>,
): Generator<ViewRow[]> {
  for (let at = 0; at < positions.length; at += SLICE) {
    const part = positions.subarray(at, Math.min(positions.length, at + SLICE))
    const seqs = Array.from(part, (p) => idx.seq[p]!)
    const hashes = chain.readNow((source) => {
      const cols = HASHES.map((n) => source.col(n))
      const out = new Map<number, unknown[]>()
      for (const seq of seqs)
        source.find(
          BigInt(seq),
          (c) =>
            out.set(
              seq,
              cols.map((i) => (i < 0 ? null : c.value(i))),
            ),
          HASHES,
        )
      return out
    })
    yield Array.from(part, (p, k) => {
      const seq = seqs[k]!
      const h = hashes.get(seq)
      const model = idx.modelNames[idx.model[p]!]!
      const ts = idx.tsValid[p] ? idx.ts[p]! : null
      return {
        seq,
        timestamp_ns: ts === null ? null : ts.toString(),
        time: ts === null ? null : nsToIso(ts),
        provider: idx.providerNames[idx.provider[p]!]!,
        model: model === NO_MODEL ? null : model,
        canonical_hash: text(h?.[0]),
        prev_hash: text(h?.[1]),
        hmac_hash: text(h?.[2]),
        marks: marks.get(seq) ?? [],
      }
    })
  }
}

export function headerText(format: Exclude<ViewExportFormat, 'reference'>): string {
  return format === 'csv' ? VIEW_COLUMNS.join(',') + '\r\n' : ''
}

export function rowsText(format: Exclude<ViewExportFormat, 'reference'>, rows: ViewRow[]): string {
  if (format === 'jsonl') return rows.map((r) => jsonLine(r) + '\n').join('')
  return rows
    .map(
      (r) =>
        VIEW_COLUMNS.map((c) => {
          const v = r[c]
          return csvCell(Array.isArray(v) ? v.join(';') : v === null ? '' : String(v))
        }).join(',') + '\r\n',
    )
    .join('')
}

/** Streams `parts` into `target` through a temporary file beside it, renamed into place. */
export function writeParts(target: string, parts: Iterable<string>): number {
  const tmp = tempBeside(target, randomBytes(6).toString('hex'))
  let fd: number
  try {
    fd = openSync(tmp, 'wx', 0o644)
  } catch (e) {
    throw new AuditError('io', `cannot write ${target}: ${oneLine(e)}`)
  }
  let size = 0
  try {
    for (const p of parts) {
      const b = Buffer.from(p, 'utf8')
      let off = 0
      while (off < b.length) off += writeSync(fd, b, off)
      size += b.length
    }
    closeSync(fd)
    // The target checked again at the rename (base/inputs.ts): no input of this run, no device.
    refuseInputTarget(target, target, 'the export')
    renameSync(tmp, target)
    return size
  } catch (e) {
    try {
      closeSync(fd)
    } catch {
      // already closed
    }
    rmSync(tmp, { force: true })
    if (e instanceof AuditError) throw e
    throw new AuditError('io', `cannot write ${target}: ${oneLine(e)}`)
  }
}
