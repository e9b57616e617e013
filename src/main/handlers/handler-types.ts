// The handler table's types, in a module of their own so that the modules contributing handlers
// (./custody.ts) can name them without importing the table that imports them.
import type { ApiName, ApiResponse } from '../../shared/contract'

export interface CallContext {
  transport: 'ipc' | 'http'
  /** The caller is the local app (Electron renderer, or the served page holding the app token). */
  trusted: boolean
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
