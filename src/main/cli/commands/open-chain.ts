// Opening a chain for `integrity`, `replay` and `report`: read in place by the direct reader where
// it takes the file, else through SQLite on a verified copy (loaded only when that path is taken),
// with the copy's progress on the terminal and Python's wording for a missing file.
import { readChain } from '../../chain/source/open-source'
import type { OpenedChain } from '../../chain/source/opened-chain'
import type { ReaderKind, RowSource } from '../../chain/source/row-source'
import { AuditError } from '../../base/errors'
import type { CliIO } from '../io'
import { throttle } from '../io'

function copyProgress(io: CliIO): { onProgress: (done: number, total: number) => void } {
  return {
    onProgress: throttle(250, (d, t) =>
      io.progress(`copying evidence ${Math.floor((100 * d) / Math.max(t, 1))}%`),
    ),
  }
}

/** A missing file gets Python's wording (`chain DB not found: <path>`). */
function missing(e: unknown, path: string): unknown {
  return e instanceof AuditError && e.code === 'db_missing'
    ? new AuditError('db_missing', `chain DB not found: ${path}`)
    : e
}

/**
 * `use` over the chain at `path` (the direct reader, else SQLite on a verified copy). `required`: the
 * columns the command reads (default: all a verification needs); a table without some other column
 * is read through the copy, as the direct reader declines it.
 */
export async function readChainForCli<T>(
  path: string,
  io: CliIO,
  use: (source: RowSource) => Promise<T>,
  onOpen?: (reader: ReaderKind) => void,
  required?: readonly string[],
): Promise<T> {
  try {
    return await readChain(path, use, {
      env: io.env,
      copy: copyProgress(io),
      ...(onOpen ? { onOpen } : {}),
      ...(required ? { required } : {}),
    })
  } catch (e) {
    throw missing(e, path)
  }
}

/** The chain opened through its verified private copy (the report needs the evidence hashes). */
export async function openChainForCli(path: string, io: CliIO): Promise<OpenedChain> {
  try {
    const { OpenedChain } = await import('../../chain/source/opened-chain')
    return await OpenedChain.open(path, { env: io.env, copy: copyProgress(io) })
  } catch (e) {
    throw missing(e, path)
  }
}
