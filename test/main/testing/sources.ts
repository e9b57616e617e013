// Test helper: a chain read through each of the two row sources — the direct file reader in place,
// and SQLite on a verified private copy — so a test can hold every engine to the same answers on both.
import { ChainFile, openCopy } from '../../../src/main/chain/reader'
import { CopySource } from '../../../src/main/chain/source/copy-source'
import { openDirect } from '../../../src/main/chain/direct/open'
import { DirectSource } from '../../../src/main/chain/source/direct-source'
import { OpenedChain, copySourceOf } from '../../../src/main/chain/source/opened-chain'
import type { ReaderKind, RowSource } from '../../../src/main/chain/source/row-source'

export const READERS: readonly ReaderKind[] = ['direct', 'sqlite-copy']

/** The direct reader's source over the file at `path` (throws `Unsupported` where it declines). */
export function directSource(path: string): DirectSource {
  return DirectSource.of(openDirect(path))
}

/** `use` with the chain at `path` read by `reader`; the source (and any copy) is closed after. */
export async function withSource<T>(
  path: string,
  reader: ReaderKind,
  use: (source: RowSource) => Promise<T> | T,
): Promise<T> {
  if (reader === 'direct') {
    const source = directSource(path)
    try {
      return await use(source)
    } finally {
      source.close()
    }
  }
  const chain = await OpenedChain.open(path)
  try {
    return await use(chain.copy)
  } finally {
    chain.close()
  }
}

/** A source of its own over the chain at `path` (closing it closes any copy too). */
export async function openSource(path: string, reader: ReaderKind = 'sqlite-copy'): Promise<RowSource> {
  if (reader === 'direct') return directSource(path)
  const chain = await ChainFile.open(path)
  const { db, columns, displayPath } = chain
  const evidence = chain.snapshot.evidence
  const copyPath = chain.snapshot.dbPath
  const connect = () => openCopy(copyPath, displayPath, []).db
  return new CopySource({ db, columns, copyPath, displayPath, evidence, connect }, () => chain.close())
}

/** The SQLite source over an already opened chain (the caller closes the chain). */
export function sqliteSource(chain: ChainFile): RowSource {
  return copySourceOf(chain)
}

/** `use` through each reader, as `{ direct, 'sqlite-copy' }`. */
export async function bothReaders<T>(
  path: string,
  use: (source: RowSource, reader: ReaderKind) => Promise<T> | T,
): Promise<Record<ReaderKind, T>> {
  return {
    direct: await withSource(path, 'direct', (s) => use(s, 'direct')),
    'sqlite-copy': await withSource(path, 'sqlite-copy', (s) => use(s, 'sqlite-copy')),
  }
}
