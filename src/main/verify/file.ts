// Verifying a chain.db given by path: read directly from the file when the direct reader takes it
// (the common case: a reference-schema chain, WAL or not), else through SQLite on a verified
// private copy. BIJOTEL_READER=sqlite forces the copy path (for comparisons).
import type { EvidenceStatement } from '../../shared/custody-types'
import type { VerifyVerdict } from '../../shared/verify-types'
import { withDirect } from '../chain/direct/open'
import { ChainFile } from '../chain/reader'
import type { SnapshotOptions } from '../chain/snapshot'
import {
  buildStatement,
  hashEvidenceFiles,
  statedFromEvidence,
  timestampsDirect,
  timestampsSql,
} from '../custody/statement'
import { startRecovery, verdictWith, withRecovery } from '../recovery/verdict'
import { verifyDirect } from './direct'
import { keyInfo, type KeyMaterial } from './secrets'
import { verifyChain, type VerifyOptions } from './verify'

export type ReaderKind = 'direct' | 'sqlite-copy'

export interface FileVerifyResult {
  verdict: VerifyVerdict
  reader: ReaderKind
  /** Milliseconds spent opening (and, on the copy path, copying and hashing) the evidence. */
  openMs: number
  /** What the verdict judged (files, rows, keys), when asked for with `statement: true`. */
  statement?: EvidenceStatement
}

export interface FileVerifyOptions extends VerifyOptions {
  copy?: SnapshotOptions
  env?: Record<string, string | undefined>
  /**
   * Also state the evidence judged: on the direct path the file and its -wal are hashed on their
   * own threads while the rows are verified (the copy path hashed them while copying).
   */
  statement?: boolean
  /** Search the files for deleted and earlier rows and add what they prove (../recovery). */
  recover?: boolean
}

export async function verifyFile(
  path: string,
  keys: KeyMaterial[],
  opts: FileVerifyOptions = {},
): Promise<FileVerifyResult> {
  const t0 = performance.now()
  const infos = keys.map(keyInfo)
  const recover = opts.recover ? { ...(opts.signal ? { signal: opts.signal } : {}) } : null
  const direct = await withDirect(
    path,
    async (chain): Promise<FileVerifyResult> => {
      const openMs = performance.now() - t0
      // The files are searched (see startRecovery) and, for the statement, hashed on their own
      // threads while the rows are verified.
      const search = recover ? startRecovery(chain, keys, recover) : null
      const abort = opts.statement ? new AbortController() : null
      const hashing = abort ? hashEvidenceFiles(chain.files, abort.signal) : null
      hashing?.catch(() => undefined) // awaited below; a refusal of the file leaves it aborted
      try {
        let verdict = await verifyDirect(chain, keys, opts)
        if (search) verdict = verdictWith(verdict, await search.done())
        if (!hashing) return { verdict, reader: 'direct' as const, openMs }
        const files = await hashing
        const ts = timestampsDirect(chain, verdict.first_seq, verdict.last_seq)
        return { verdict, reader: 'direct', openMs, statement: buildStatement(files, verdict, ts, infos) }
      } catch (e) {
        search?.abort()
        abort?.abort()
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
    if (recover) verdict = await withRecovery(path, verdict, keys, recover)
    if (!opts.statement) return { verdict, reader: 'sqlite-copy', openMs }
    const ts = timestampsSql(chain.db, verdict.first_seq, verdict.last_seq)
    const files = statedFromEvidence(chain.snapshot.evidence)
    return { verdict, reader: 'sqlite-copy', openMs, statement: buildStatement(files, verdict, ts, infos) }
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
  // The private copy holds the evidence's bytes exactly: its files are searched in their place.
  return opts.recover
    ? await withRecovery(chain.snapshot.dbPath, verdict, keys, opts.signal ? { signal: opts.signal } : {})
    : verdict
}
