// The archive segments an auditor gives with `verify --segment PATH` (issue 39): each segment's rows
// as sealed values (prev_hash, canonical_hash, hmac_hash), so that a row recovered from the live
// file's free space that is one of them is named `archived`, never a finding. A segment is read like
// any chain (in place, or through a verified private copy), and never written.
import { existsSync } from 'node:fs'
import { AuditError, oneLine } from '../base/errors'
import { readChain } from '../chain/source/open-source'
import { streamRows } from '../chain/source/stream'
import type { OpenPolicy } from '../chain/evidence-files'
import type { ArchiveSegments, SegmentIndex, SegmentRow } from '../recovery/findings'
import { SegmentRows } from '../recovery/segment-rows'

/** Read the sealed values of every row of each segment; one clear line for a file that is not one. */
export async function readSegments(
  paths: string[],
  env?: Record<string, string | undefined>,
  policy?: OpenPolicy,
): Promise<ArchiveSegments> {
  const stores: SegmentRows[] = []
  for (const path of paths) {
    const store = new SegmentRows(path)
    // Under a policy the open step alone answers (by name, this would tell whether a file that a
    // link swapped in since the request's check leads to exists outside the folders served).
    if (!policy && !existsSync(path))
      throw new AuditError('bad_argument', `--segment ${path}: file not found`)
    try {
      await readChain(
        path,
        async (source) => {
          const cols = ['canonical_hash', 'prev_hash', 'hmac_hash'] as const
          const [ch, prev, mac] = cols.map((c) => source.col(c))
          await streamRows(source, { columns: cols }, (r) => {
            const h = r.text(mac!)
            const p = r.text(prev!)
            const c = r.text(ch!)
            if (h === null || p === null || c === null) return
            store.add(h, p, c)
          })
        },
        { ...(env ? { env } : {}), ...(policy ? { policy } : {}) },
      )
    } catch (e) {
      if (e instanceof AuditError && e.code === 'cancelled') throw e
      throw new AuditError('bad_argument', `--segment ${path}: not a readable chain (${oneLine(e)})`)
    }
    stores.push(store)
  }
  const rows: SegmentIndex = {
    size: stores.reduce((n, s) => n + s.size, 0),
    after: (prev) => stores.flatMap((s) => s.after(prev)),
    *[Symbol.iterator](): Iterator<SegmentRow> {
      for (const s of stores) yield* s
    },
  }
  return { paths, seals: { has: (seal) => stores.some((s) => s.has(seal)) }, rows }
}
