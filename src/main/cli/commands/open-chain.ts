// Opening a chain through SQLite on a verified copy, for `integrity` and `report`: imported only
// when that path is taken (it loads the SQLite driver).
import { ChainFile } from '../../chain/reader'
import { AuditError } from '../../errors'
import type { CliIO } from '../io'
import { throttle } from '../io'

/**
 * Open a chain; a missing file gets Python's wording (`chain DB not found: <path>`). `required`: the
 * columns the command reads (default: all a verification needs).
 */
export async function openChainForCli(
  path: string,
  io: CliIO,
  required?: readonly string[],
): Promise<ChainFile> {
  try {
    return await ChainFile.open(path, {
      ...(required ? { required } : {}),
      onProgress: throttle(250, (d, t) =>
        io.progress(`copying evidence ${Math.floor((100 * d) / Math.max(t, 1))}%`),
      ),
    })
  } catch (e) {
    if (e instanceof AuditError && e.code === 'db_missing')
      throw new AuditError('db_missing', `chain DB not found: ${path}`)
    throw e
  }
}
