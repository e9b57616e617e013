// The desktop shell without Electron, for the renderer suite (e2e/shell.spec.ts): the real handler
// table on a real AuditSession, called over HTTP by a stand-in of the preload bridge in the page
// (stand-in-bridge.ts), exactly as the IPC handler calls it (transport 'ipc', trusted, with the
// dialogs). Main → renderer events go to the page on one stream, as on the IPC event channel: the
// session's chainChanged, the shell's own opens (Open Recent, a second instance: the main
// process's openFromShell), and any event a test emits (the menu's commands). Test-only code.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { AppEvent, AppEventName, AppEvents } from '../../src/shared/app-events'
import { openFromShell, pathFromArgv, SHELL_CALL } from '../../src/main/app/actions'
import { dispatch } from '../../src/main/handlers/dispatch'
import { AuditSession } from '../../src/main/session/session'
import { createHandlers, type HandlerTable } from '../../src/main/handlers/table'
import { StaticSite } from '../../src/main/server/static'

export const CALL_PATH = '/shell/call/'
export const EVENTS_PATH = '/shell/events'

export interface ShellServer {
  url: string
  session: AuditSession
  table: HandlerTable
  /** Where the save dialog writes reports (a temporary folder). */
  saveDir: string
  /** Every call the page made, by name, in order. */
  calls: string[]
  /** What the open dialog answers next (null: cancelled). */
  nextPick: string | null
  /** What the signing-key dialog answers next (null: cancelled). */
  nextKeyPick: string | null
  /** Electron's printToPDF as a test provides it (null: printing fails). */
  printToPdf: ((html: string) => Promise<Buffer>) | null
  /** Hold the answers of calls (by name) until `release()`, to make them arrive late. */
  hold: (names: string[]) => { release: () => void }
  /** Send an event to the page, as webContents.send on the event channel. */
  emit: <E extends AppEventName>(name: E, payload: AppEvents[E]) => void
  /** The main process's Open Recent. */
  openRecent: (path: string) => Promise<boolean>
  /** A second instance started with `argv`. */
  secondInstance: (argv: string[]) => Promise<void>
  close: () => Promise<void>
}

export interface ShellServerOptions {
  rendererDir?: string
  /** Chains of at least this many rows open in stages (AuditSession's option; default 100 000). */
  stagedOpenRows?: number
}

export async function startShellServer(opts: ShellServerOptions = {}): Promise<ShellServer> {
  const rendererDir = opts.rendererDir ?? resolve(__dirname, '../../out/renderer')
  const saveDir = mkdtempSync(join(tmpdir(), 'bijotel-shell-save-'))
  const session = new AuditSession(opts.stagedOpenRows ? { stagedOpenRows: opts.stagedOpenRows } : {})
  const streams = new Set<ServerResponse>()
  const held: { names: Set<string>; waiting: (() => void)[] } = { names: new Set(), waiting: [] }
  const send = (event: AppEvent): void => {
    for (const res of streams) res.write(`data: ${JSON.stringify(event)}\n\n`)
  }
  const emit = <E extends AppEventName>(name: E, payload: AppEvents[E]): void =>
    send({ name, payload } as AppEvent)
  session.onChainChanged((chain) => emit('chainChanged', { chain }))

  const shell = {} as ShellServer
  const table = createHandlers(session, {
    pickOpenPath: async () => shell.nextPick,
    pickSavePath: async (name) => join(saveDir, name),
    pickKeyPath: async () => shell.nextKeyPick,
    printToPdf: (html) =>
      shell.printToPdf ? shell.printToPdf(html) : Promise.reject(new Error('no printer in this test')),
  })
  const site = new StaticSite(rendererDir, 'shell-suite')

  const onRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://shell.invalid').pathname
    if (path === EVENTS_PATH) {
      res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store' })
      res.write('retry: 500\n\n')
      streams.add(res)
      req.on('close', () => streams.delete(res))
      return
    }
    if (path.startsWith(CALL_PATH) && req.method === 'POST') {
      const name = path.slice(CALL_PATH.length)
      const chunks: Buffer[] = []
      for await (const c of req) chunks.push(c as Buffer)
      const text = Buffer.concat(chunks).toString('utf8')
      shell.calls.push(name)
      const reply = await dispatch(
        table,
        name,
        text ? (JSON.parse(text) as { req: unknown }).req : undefined,
        SHELL_CALL,
      )
      if (held.names.has(name)) await new Promise<void>((r) => held.waiting.push(r))
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify(reply))
      return
    }
    if ((req.method === 'GET' || req.method === 'HEAD') && (await site.serve(req, res, path))) return
    res.writeHead(404).end()
  }
  const server: Server = createServer((req, res) => {
    onRequest(req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500)
      res.end(String(e))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo

  Object.assign(shell, {
    url: `http://127.0.0.1:${port}`,
    session,
    table,
    saveDir,
    calls: [],
    nextPick: null,
    nextKeyPick: null,
    printToPdf: null,
    hold: (names: string[]) => {
      for (const n of names) held.names.add(n)
      return {
        release: () => {
          held.names.clear()
          for (const r of held.waiting.splice(0)) r()
        },
      }
    },
    emit,
    openRecent: (p: string) => openFromShell(table, p, emit),
    secondInstance: async (argv: string[]) => {
      const p = pathFromArgv(argv, false)
      if (p) await openFromShell(table, p, emit)
    },
    close: async () => {
      for (const r of held.waiting.splice(0)) r()
      for (const res of streams) res.end()
      await new Promise<void>((r) => {
        server.close(() => r())
        server.closeAllConnections()
      })
      session.dispose()
      rmSync(saveDir, { recursive: true, force: true })
    },
  } satisfies ShellServer)
  return shell
}
