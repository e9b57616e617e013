// Verifying a chain.db given by path: read directly from the file when the direct reader takes it
// (the common case: a reference-schema chain, WAL or not), else through SQLite on a verified
// private copy. BIJOTEL_READER=sqlite forces the copy path (for comparisons).
import type { VerifyVerdict } from '../../shared/verify-types'
import { readChain } from '../chain/source/open-source'
import type { OpenedChain } from '../chain/source/opened-chain'
import type { ReaderKind } from '../chain/source/row-source'
import type { SnapshotOptions } from '../chain/snapshot'
import type { KeyMaterial } from './secrets'
import { verifyRows, type VerifyOptions } from './verify'

export type { ReaderKind } from '../chain/source/row-source'

export interface FileVerifyResult {
  verdict: VerifyVerdict
  reader: ReaderKind
  /** Milliseconds spent opening (and, on the copy path, copying and hashing) the evidence. */
  openMs: number
}

export async function verifyFile(
  path: string,
  keys: KeyMaterial[],
  opts: VerifyOptions & { copy?: SnapshotOptions; env?: Record<string, string | undefined> } = {},
): Promise<FileVerifyResult> {
  const t0 = performance.now()
  let reader: ReaderKind = 'direct'
  let openMs = 0
  const verdict = await readChain(path, (source) => verifyRows(source, keys, opts), {
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.copy ? { copy: opts.copy } : {}),
    onOpen: (kind) => {
      reader = kind
      openMs = performance.now() - t0
    },
  })
  return { verdict, reader, openMs }
}

/** Verify a chain already opened through its verified private copy. */
export function verifyOpened(
  chain: OpenedChain,
  keys: KeyMaterial[],
  opts: VerifyOptions = {},
): Promise<VerifyVerdict> {
  return chain.read((source) => verifyRows(source, keys, opts))
}
