// `bijotel serve`: the web mode. Opens the chain in an AuditSession (through the verified private
// copy), serves the API and the built renderer, runs until SIGINT/SIGTERM. Loaded only when it runs.
import { printable } from '../../../shared/printable'
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { AuditError } from '../../base/errors'
import { openEvidence } from '../../chain/evidence-files'
import { setSigningKeyFrom } from '../../handlers/custody'
import { AuditSession } from '../../session/session'
import { isLoopbackHost } from '../../server/auth'
import { ListenError, startServer } from '../../server/index'
import { parseSecrets } from '../../chain/keys'
import { parse, UsageError, type Values } from '../args'
import type { Run } from '../command'
import type { CliIO } from '../io'
import { readOneLineSecret, SECRET_OPTIONS, secretInputsFrom } from '../secret-sources'
import { plural } from '../format'
import { EXIT } from './serve-info'

function strings(v: unknown): string[] {
  if (v === undefined) return []
  return (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string')
}

/** out/renderer next to the bundle (out/main/cli.js), or null when the UI is not built. */
export function defaultStaticDir(): string | null {
  for (const p of [
    join(__dirname, '..', 'renderer'),
    join(__dirname, '..', '..', 'renderer'),
    resolve(__dirname, '../../../../out/renderer'),
  ]) {
    if (existsSync(join(p, 'index.html'))) return p
  }
  return null
}

/** Resolves when the process is asked to stop. */
function processStop(): Promise<string> {
  return new Promise((resolveStop) => {
    const on = (sig: string) => () => {
      process.off('SIGINT', onInt)
      process.off('SIGTERM', onTerm)
      resolveStop(sig)
    }
    const onInt = on('SIGINT')
    const onTerm = on('SIGTERM')
    process.on('SIGINT', onInt)
    process.on('SIGTERM', onTerm)
  })
}

/**
 * --api-key, else --api-key-file (the key off the command line, where every local user can read it
 * in the process list), else BIJOTEL_API_KEY.
 */
function apiKeyFrom(values: Values, io: CliIO): string | undefined {
  const flag =
    typeof values['api-key'] === 'string' && values['api-key'] !== '' ? values['api-key'] : undefined
  const file = typeof values['api-key-file'] === 'string' ? values['api-key-file'] : undefined
  if (flag !== undefined && file !== undefined)
    throw new UsageError('argument --api-key-file: not allowed with argument --api-key')
  if (file !== undefined) return readOneLineSecret(file, '--api-key-file')
  return flag ?? (io.env['BIJOTEL_API_KEY'] || undefined)
}

export interface ServeDeps {
  /** What ends the server (default: SIGINT or SIGTERM). */
  stop?: () => Promise<string>
}

/**
 * Serve the chain until `deps.stop` resolves (by default the process's SIGINT or SIGTERM): the
 * command's body, for a host that ends the server its own way.
 */
export async function serve(argv: string[], io: CliIO, deps: ServeDeps): Promise<number> {
  const { values } = parse(argv, {
    db: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    'api-key': { type: 'string' },
    'api-key-file': { type: 'string' },
    'open-root': { type: 'string', multiple: true },
    'static-dir': { type: 'string' },
    'sign-key': { type: 'string' },
    ...SECRET_OPTIONS,
  })
  const db =
    typeof values['db'] === 'string' && values['db'] !== '' ? values['db'] : io.env['BIJOTEL_DB_PATH']
  if (!db) throw new UsageError('the following arguments are required: --db')
  const portText = typeof values['port'] === 'string' ? values['port'] : '8080'
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535)
    throw new UsageError(`--port must be 0..65535, got '${portText}'`)
  const port = Number(portText)
  const host = typeof values['host'] === 'string' && values['host'] !== '' ? values['host'] : '127.0.0.1'
  const apiKey = apiKeyFrom(values, io)
  if (!isLoopbackHost(host) && !apiKey) {
    throw new UsageError(
      `refusing to listen on ${host} without an API key (set --api-key or BIJOTEL_API_KEY, or keep the default 127.0.0.1)`,
    )
  }
  if (apiKey !== undefined && apiKey.length < 16)
    throw new UsageError('the API key must be at least 16 characters')
  const openRoots = strings(values['open-root']).map((r) => resolve(r))
  for (const r of openRoots) if (!existsSync(r)) throw new UsageError(`--open-root ${r} does not exist`)
  let staticDir: string | null
  if (typeof values['static-dir'] === 'string') {
    staticDir = resolve(values['static-dir'])
    if (!existsSync(join(staticDir, 'index.html')))
      throw new UsageError(`--static-dir ${staticDir} has no index.html`)
  } else {
    staticDir = defaultStaticDir()
  }
  const signKey = typeof values['sign-key'] === 'string' ? values['sign-key'] : undefined
  if (signKey !== undefined && !apiKey)
    throw new UsageError(
      '--sign-key needs an API key (--api-key-file): without one, any local client could have reports signed with it',
    )
  const keys = parseSecrets(await secretInputsFrom(values, io, { useEnv: true }))

  // The auditor's own --db: missing or not a regular file is exit 1 in the open step's words (the
  // policy below would give a client's "not allowed" answer for a path that does not resolve).
  openEvidence(db).close()
  const session = new AuditSession({ initialPath: resolve(db), openRoots })
  try {
    if (signKey !== undefined) {
      let info
      try {
        info = setSigningKeyFrom(session, signKey)
      } catch (e) {
        if (e instanceof AuditError) throw new UsageError(`--sign-key: ${e.message}`)
        throw e
      }
      io.err(`reports are signed for requests carrying the API key, with key ${info.fingerprint}\n`)
    }
    // What the web page shows of the served chain is subject to the same policy as any chain a
    // client opens: its side files under their own names or inside an --open-root, never a link
    // elsewhere (whose size and hash the evidence panel would show).
    const overview = await session.open(db, undefined, { policy: session.openPolicy() })
    // The keys given are the served chain's: set after its open (an open clears the keys, issue 35),
    // and cleared again when a client opens another chain.
    session.keys = keys
    let server
    try {
      server = await startServer({
        session,
        host,
        port,
        ...(apiKey ? { apiKey } : {}),
        ...(staticDir ? { staticDir } : {}),
        log: (line) => io.err(line),
      })
    } catch (e) {
      if (e instanceof ListenError) {
        io.err(`ERROR: ${printable(e.message)}\n`)
        return EXIT.listen
      }
      throw e
    }
    const stop = (deps.stop ?? processStop)()
    io.out(
      `Serving ${printable(resolve(db))} (${plural(overview.entries, 'entry', 'entries')}, ${plural(keys.length, 'key')}) at ${server.url}\n`,
    )
    if (!staticDir) io.out('(web UI not built: only the API is served; run `npm run build` for the UI)\n')
    io.out('Press Ctrl+C to stop.\n')
    const sig = await stop
    await server.close()
    io.err(`stopped (${sig})\n`)
    return EXIT.clean
  } finally {
    session.dispose()
  }
}

export const run: Run = (argv, io) => serve(argv, io, {})
