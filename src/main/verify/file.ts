// Verifying a chain.db given by path: read directly from the file when the direct reader takes it
// (the common case: a reference-schema chain, WAL or not), else through SQLite on a verified
// private copy. BIJOTEL_READER=sqlite forces the copy path (for comparisons).
import type { VerifyVerdict } from '../../shared/verify-types'
import { withDirect } from '../chain/direct/open'
import { ChainFile } from '../chain/reader'
import type { SnapshotOptions } from '../chain/snapshot'
import { searchEvidence, startRecovery, verdictWith } from '../recovery/verdict'
import { verifyDirect } from './direct'
import type { KeyMaterial } from './secrets'
import { verifyChain, type VerifyOptions } from './verify'

export type ReaderKind = 'direct' | 'sqlite-copy'

export interface FileVerifyResult {
  verdict: VerifyVerdict
  reader: ReaderKind
  /** Milliseconds spent opening (and, on the copy path, copying and hashing) the evidence. */
  openMs: number
}

export async function verifyFile(
  path: string,
  keys: KeyMaterial[],
  opts: VerifyOptions & {
    copy?: SnapshotOptions
    env?: Record<string, string | undefined>
    /** Search the files for deleted and earlier rows and add what they prove (../recovery). */
    recover?: boolean
  } = {},
): Promise<FileVerifyResult> {
  const t0 = performance.now()
  const recover = opts.recover ? { ...(opts.signal ? { signal: opts.signal } : {}) } : null
  const direct = await withDirect(
    path,
    async (chain) => {
      const openMs = performance.now() - t0
      // The files are searched while the rows are verified (see startRecovery).
      const search = recover ? startRecovery(chain, keys, recover) : null
      try {
        let verdict = await verifyDirect(chain, keys, opts)
        if (search) verdict = verdictWith(verdict, await search.done())
        return { verdict, reader: 'direct' as const, openMs }
      } catch (e) {
        search?.abort()
        throw e
      }
    },
    opts.env,
  )
  if (direct) return direct
  const t1 = performance.now()
  const chain = await ChainFile.open(path, opts.copy ?? {})
  const openMs = performance.now() - t1
  try {
    let verdict = await verifyChain(chain, keys, opts)
    // The evidence through the descriptors the copy was made from (the copy's WAL is recovered).
    if (recover && !verdict.cancelled)
      verdict = verdictWith(verdict, await searchEvidence(chain.snapshot, keys, recover))
    return { verdict, reader: 'sqlite-copy', openMs }
  } finally {
    chain.close()
  }
}

/**
 * Verify a chain already opened through its verified private copy: the direct reader on the copy
 * (the same bytes SQLite sees, read several times faster), else SQLite.
 */
export async function verifyOpened(
  chain: ChainFile,
  keys: KeyMaterial[],
  opts: VerifyOptions & { recover?: boolean } = {},
): Promise<VerifyVerdict> {
  const verdict =
    (await withDirect(chain.snapshot.dbPath, (d) => verifyDirect(d, keys, opts))) ??
    (await verifyChain(chain, keys, opts))
  // The evidence itself is searched, through the descriptors its snapshot holds: SQLite recovered
  // the copy's WAL into it, so the page versions recovery reads are gone there.
  return opts.recover && !verdict.cancelled
    ? verdictWith(
        verdict,
        await searchEvidence(chain.snapshot, keys, opts.signal ? { signal: opts.signal } : {}),
      )
    : verdict
}
