// What the desktop shell does by itself, without the renderer asking: open a chain from Open Recent
// or from a second instance's command line. Electron-free, so the shell tests (test/main/app, and
// the renderer suite in e2e/shell) drive exactly this code. The session announces the new chain
// (AppEvents.chainChanged); a failure is sent as openFailed with the engine's one-line reason.
import { existsSync } from 'node:fs'
import type { AppEventName, AppEvents } from '../../shared/app-events'
import { errorBody } from '../handlers/dispatch'
import type { CallContext, HandlerTable } from '../handlers/table'

export const SHELL_CALL: CallContext = { transport: 'ipc', trusted: true }

export type SendEvent = <E extends AppEventName>(name: E, payload: AppEvents[E]) => void

/** Open `path` as the engine's chain (at row `seq`, if given); resolves true when it opened. Never throws. */
export async function openFromShell(
  table: HandlerTable,
  path: string,
  send: SendEvent,
  seq: number | null = null,
): Promise<boolean> {
  try {
    await table.openChain(seq === null ? { path } : { path, focus_seq: seq }, SHELL_CALL)
    return true
  } catch (e) {
    send('openFailed', { path, message: errorBody(e).error })
    return false
  }
}

/** Flags of the app's own command line that take the next argument as their value. */
const VALUE_FLAGS = new Set(['--seq'])

/** The arguments after the executable (and, unpackaged, the app folder). */
function userArgs(argv: string[], packaged: boolean): string[] {
  return argv.slice(packaged ? 1 : 2)
}

/**
 * The chain path on a command line (`electron . PATH`, or the packaged `BIJOTEL Auditor PATH
 * [--seq N]`): the last argument that is neither a flag nor a flag's value and names an existing file.
 */
export function pathFromArgv(argv: string[], packaged: boolean, exists = existsSync): string | null {
  const args = userArgs(argv, packaged)
  const plain = args.filter((a, i) => !a.startsWith('-') && !VALUE_FLAGS.has(args[i - 1] ?? ''))
  const p = plain[plain.length - 1]
  return p && exists(p) ? p : null
}

/** `--seq N` or `--seq=N` (a deep link to a row): the seq, or null when absent or not a seq number. */
export function seqFromArgv(argv: string[], packaged: boolean): number | null {
  const args = userArgs(argv, packaged)
  let text: string | undefined
  for (const [i, a] of args.entries()) {
    if (a === '--seq') text = args[i + 1]
    else if (a.startsWith('--seq=')) text = a.slice('--seq='.length)
  }
  if (text === undefined || !/^\d{1,15}$/.test(text)) return null
  return Number(text)
}
