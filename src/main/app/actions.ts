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

/** Open `path` as the engine's chain; resolves true when it opened. Never throws. */
export async function openFromShell(table: HandlerTable, path: string, send: SendEvent): Promise<boolean> {
  try {
    await table.openChain({ path }, SHELL_CALL)
    return true
  } catch (e) {
    send('openFailed', { path, message: errorBody(e).error })
    return false
  }
}

/**
 * The chain path on a command line (`electron . PATH`, or the packaged `BIJOTEL Auditor PATH`): the
 * last argument that is not a flag and names an existing file.
 */
export function pathFromArgv(argv: string[], packaged: boolean, exists = existsSync): string | null {
  const args = argv.slice(packaged ? 1 : 2).filter((a) => !a.startsWith('-'))
  const p = args[args.length - 1]
  return p && exists(p) ? p : null
}
