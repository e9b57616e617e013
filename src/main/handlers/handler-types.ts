// The handler table's types: one handler per call of the contract (src/shared/contract.ts), and what
// a call knows of its caller. Apart from the table itself so the modules that contribute handlers
// (one per area: ./open.ts, ./entries.ts, ./tools.ts, ./custody.ts…) and the transports can name
// them without importing the table.
import type { ApiName, ApiResponse } from '../../shared/contract'

export interface CallContext {
  transport: 'ipc' | 'http'
  /** The caller is the local app (Electron renderer, or the served page holding the app token). */
  trusted: boolean
  /**
   * The request carried the server's API key (web mode started with --api-key/--api-key-file): only
   * then does web mode sign a report with the auditor's key. The app token is not enough.
   */
  apiKey?: boolean
}

/** What only a desktop shell can do (dialogs). Absent in web mode. */
export interface Platform {
  pickOpenPath?: () => Promise<string | null>
  pickSavePath?: (defaultName: string) => Promise<string | null>
  /** The report-signing key's file (issue 25). */
  pickKeyPath?: () => Promise<string | null>
  /** An HTML page printed to PDF (Electron's printToPDF). */
  printToPdf?: (html: string) => Promise<Buffer>
}

export type Handler<N extends ApiName> = (req: unknown, ctx: CallContext) => Promise<Awaited<ApiResponse<N>>>
export type HandlerTable = { [N in ApiName]: Handler<N> }
