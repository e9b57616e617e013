// Registering the contract's handler table on ipcMain, with every sender checked.
import { ipcMain, type IpcMainInvokeEvent } from 'electron'
import { IPC_CHANNEL } from '../../shared/contract'
import { dispatch, type Reply } from '../handlers/dispatch'
import type { HandlerTable } from '../handlers/table'
import { isAllowedSenderUrl } from './security'

/**
 * `appContents`: the app window's web contents. A call is taken only from its main frame, at the
 * app's own URL: a subframe, a page it navigated to, or another window — even one showing the app's
 * URL (Electron's sender is whichever renderer invoked) — is refused.
 */
export function registerIpc(table: HandlerTable, appContents: () => unknown, devServerUrl?: string): void {
  ipcMain.handle(
    IPC_CHANNEL,
    async (event: IpcMainInvokeEvent, name: unknown, req: unknown): Promise<Reply> => {
      const url = event.senderFrame?.url
      if (
        event.sender !== appContents() ||
        !isAllowedSenderUrl(url, devServerUrl) ||
        event.senderFrame !== event.sender.mainFrame
      ) {
        return { ok: false, error: { error: 'refused: call from an unexpected sender', code: 'forbidden' } }
      }
      if (typeof name !== 'string') return { ok: false, error: { error: 'bad call', code: 'bad_request' } }
      return dispatch(table, name, req, { transport: 'ipc', trusted: true })
    },
  )
}
