// Opening a chain and drawing progress for `integrity` and `report`, which share both.
import { ChainFile } from '../../chain/reader'
import { AuditError } from '../../errors'
import type { CliIO } from '../io'
import { throttle } from '../io'

/** Open a chain; a missing file gets Python's wording (`chain DB not found: <path>`). */
export async function openChainForCli(path: string, io: CliIO): Promise<ChainFile> {
  try {
    return await ChainFile.open(path, {
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

/** A throttled progress line for the integrity phases. */
export function progressLine(io: CliIO): (done: number, total: number, phase?: string) => void {
  let last = 0
  return (d, t, phase) => {
    const now = Date.now()
    if (now - last < 250 && d < t) return
    last = now
    const what = phase === 'rotation' ? 'verifying keys' : phase === 'verify' ? 'verifying' : 'analysing'
    io.progress(`${what} ${Math.floor((100 * d) / Math.max(t, 1))}% (${d}/${t} rows)`)
  }
}
