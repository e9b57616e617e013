// Where the search looks for three hashes whose record is lost (src/main/recovery/orphan-hashes.ts):
// on pages carved whole that no live row holds — free, superseded, journal and older WAL images.
// Not in a live leaf's free space, which holds hex of the rows moved out of it, nor on a page that is
// no b-tree page: a live row's overflow page holds that row's own hashes (with bodies past a 1 KiB
// page every row's), which cost a 100k-row verify 0.7 s and 63 MB and filled the search's bound with
// live rows' triples before any cut row's. Honest append-only chains (rollback journal, no free page)
// keep no triple; a cut tail's rows are still found by their hashes (orphan-hashes.test.ts).
import { describe, expect, it } from 'vitest'
import { CHAIN_COLUMNS } from '../../../src/main/chain/table'
import { Carver } from '../../../src/main/recovery/carve'
import { closeEvidence } from '../../../src/main/recovery/files'
import { recordLayout, recordLayouts } from '../../../src/main/recovery/layout'
import { openPages } from '../../../src/main/recovery/pages'
import { openRecoveryEvidence } from '../testing/recovery-files'
import { generateClaims } from './claims-generator'

/** The hash triples the carver keeps of the file at `path` (the reference's columns). */
function triplesKept(path: string, pageSize: number): { kept: number; freePages: number } {
  const files = openRecoveryEvidence(path)
  try {
    const store = openPages(files, pageSize)
    const columns = new Map(CHAIN_COLUMNS.map((c, i) => [c, i]))
    const layouts = recordLayouts(recordLayout(columns, columns.size, 0))
    const reserved = store.current(1)![20]!
    const out = new Carver(store, layouts, pageSize - reserved, store.filePages).run()
    return { kept: out.orphans.size, freePages: out.scanned.freelist_pages }
  } finally {
    closeEvidence(files)
  }
}

describe('hash triples are looked for where no live row is', () => {
  let n = 0
  for (const pageSize of [512, 1024, 4096])
    for (let k = 0; k < 3; k++) {
      const seed = 0x5c0e + n++
      it(`an honest append-only chain, p${pageSize}, seed ${seed}: no triple kept`, () => {
        const g = generateClaims(
          {
            name: `scope-${seed}`,
            pageSize,
            journal: 'delete',
            history: 'appends-checkpoints',
            attack: 'none',
            foreign: 'none',
            rows: 40 + ((seed * 7) % 40),
          },
          seed,
        )
        try {
          const { kept, freePages } = triplesKept(g.db, pageSize)
          expect(freePages).toBe(0)
          expect(kept).toBe(0)
        } finally {
          g.cleanup()
        }
      })
    }
})
