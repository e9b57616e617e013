// Choosing the source for a chain: the direct file reader when it takes the file (the common case,
// and `BIJOTEL_READER=sqlite` turns it off), else SQLite on a verified private copy. A direct read
// that meets a shape it does not handle — at the open or anywhere during the pass (`Unsupported`,
// or any other error that is not an AuditError) — is redone through SQLite, which gives the answer
// or the one-line error. An AuditError (cancelled, evidence changed, a row the detectors refuse)
// is an answer, not a refusal.
// The SQLite side (the driver, the copy) is loaded only when it is taken: a fresh CLI process that
// reads a chain directly never pays for it.
import { withDirect } from '../direct/open'
import type { OpenPolicy } from '../evidence-files'
import { DirectSource } from './direct-source'
import type { OpenOptions } from './opened-chain'
import type { ReaderKind, RowSource, SourceHandle } from './row-source'

export interface ReadOptions extends OpenOptions {
  /** Called once the source is open, before `use` runs (the CLI's timing line). */
  onOpen?: (reader: ReaderKind) => void
  /**
   * The open roots a web client's path is held to (a verify's segments): applied by the open step of
   * whichever reader takes the file, on the descriptors it opened — a check of the name before the
   * call would leave a link swapped in since free to lead outside (issue 34).
   */
  policy?: OpenPolicy
}

/**
 * `use` over the chain at `path`: read in place by the direct reader when it takes the file, else
 * through SQLite on a verified private copy (made here, and removed when `use` is done).
 */
export async function readChain<T>(
  path: string,
  use: (source: RowSource) => Promise<T>,
  opts: ReadOptions = {},
): Promise<T> {
  const direct = await withDirect(
    path,
    async (chain) => {
      const source = DirectSource.of(chain)
      try {
        opts.onOpen?.('direct')
        return { value: await use(source) }
      } finally {
        source.close()
      }
    },
    opts.env,
    opts.policy ? { policy: opts.policy } : {},
  )
  if (direct !== undefined) return direct.value
  const { OpenedChain } = await import('./opened-chain')
  const { policy, ...rest } = opts
  const chain = await OpenedChain.open(path, {
    ...rest,
    ...(policy ? { copy: { ...rest.copy, policy } } : {}),
    env: { ...opts.env, BIJOTEL_READER: 'sqlite' },
  })
  try {
    opts.onOpen?.('sqlite-copy')
    return await use(chain.copy)
  } finally {
    chain.close()
  }
}

/**
 * Loads the SQLite side (the driver and the copy's source) before a copy's handle arrives: a worker
 * started while the copy is made has it ready when its first run comes. A failure is left for
 * `sourceFromHandle` to report.
 */
export function preloadCopyReader(): void {
  import('./opened-chain').catch(() => undefined)
}

/** The source a worker thread reads, from the handle its parent posted. */
export async function sourceFromHandle(h: SourceHandle): Promise<RowSource> {
  if (h.kind === 'direct') return new DirectSource(h.layout, null, '(worker)')
  const { copySourceAt } = await import('./opened-chain')
  return copySourceAt(h.copyPath, h.displayPath)
}
