// Test helpers for the server suites: a large synthetic chain (for jobs that must run long enough
// to watch and cancel), the verify worker built from sources (so verification leaves the main thread
// as it does in the bundle), and small HTTP helpers.
import Database from 'better-sqlite3'
import { createHash, createHmac } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { request } from 'node:http'
import { join, resolve } from 'node:path'

export const GENESIS = '0'.repeat(64)

/**
 * Write a BIJOTEL-format chain of `rows` span rows into `path`, sealed with `key` exactly as the
 * reference does (canonical_hash = sha256(body), hmac = HMAC-SHA256(key, prev ‖ canonical)).
 */
export function writeSyntheticChain(path: string, rows: number, key: Buffer): { head: string } {
  const db = new Database(path)
  try {
    db.pragma('journal_mode = DELETE')
    db.exec(`CREATE TABLE chain (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, timestamp_ns INTEGER NOT NULL, trace_id TEXT NOT NULL,
      span_id TEXT NOT NULL, span_name TEXT NOT NULL, span_kind TEXT, canonical_body BLOB NOT NULL,
      canonical_hash TEXT NOT NULL, prev_hash TEXT NOT NULL, hmac_hash TEXT NOT NULL, semantic_body_hash TEXT)`)
    const insert = db.prepare(
      `INSERT INTO chain (seq, timestamp_ns, trace_id, span_id, span_name, span_kind, canonical_body, canonical_hash, prev_hash, hmac_hash)
       VALUES (?, ?, ?, ?, ?, 'CLIENT', ?, ?, ?, ?)`,
    )
    let prev = GENESIS
    const base = 1_700_000_000_000_000_000n
    db.transaction(() => {
      for (let i = 0; i < rows; i++) {
        const start = base + BigInt(i) * 1_000_000_000n
        const end = start + 100_000_000n
        const name = `anthropic.chat.${i}`
        const body = Buffer.from(
          `{"attributes":{"gen_ai.provider.name":"anthropic","gen_ai.request.model":"claude-haiku-4-5","gen_ai.usage.input_tokens":${100 + (i % 50)},"gen_ai.usage.output_tokens":${50 + (i % 50)}},"end_time_ns":"${end}","kind":"CLIENT","name":"${name}","start_time_ns":"${start}","status_code":"OK","status_description":null}`,
          'utf8',
        )
        const ch = createHash('sha256').update(body).digest('hex')
        const mac = createHmac('sha256', key)
          .update(prev + ch, 'utf8')
          .digest('hex')
        insert.run(
          i + 1,
          end,
          (i + 1).toString(16).padStart(32, '0'),
          (i + 1).toString(16).padStart(16, '0'),
          name,
          body,
          ch,
          prev,
          mac,
        )
        prev = mac
      }
    })()
    return { head: prev }
  } finally {
    db.close()
  }
}

export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** A minimal static folder standing in for out/renderer. */
export function fakeRenderer(dir: string): string {
  mkdirSync(join(dir, 'assets'), { recursive: true })
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html>\n<html lang="en">\n  <head>\n    <meta charset="UTF-8" />\n    <title>BIJOTEL Auditor</title>\n    <script type="module" crossorigin src="/assets/index-abc.js"></script>\n  </head>\n  <body><div id="root"></div></body>\n</html>\n',
  )
  writeFileSync(join(dir, 'assets', 'index-abc.js'), 'console.log("app")\n')
  writeFileSync(join(dir, 'assets', 'style.css'), 'body{margin:0}\n')
  return resolve(dir)
}

// --- the verify worker, built from sources -------------------------------------------------------

let workerBuild: Promise<string> | null = null

/** Delete the worker built by buildVerifyWorker (call after the last job ended). */
export async function removeVerifyWorker(): Promise<void> {
  if (!workerBuild) return
  const path = await workerBuild.catch(() => null)
  workerBuild = null
  if (path) rmSync(path, { force: true })
}

/**
 * Bundle src/main/verify/worker.ts (better-sqlite3 external) under node_modules/.cache, so tests can
 * point `verifyWorkerScript()` at it: from sources there is no built worker and verification would
 * run on the main thread, blocking the server it is meant to leave responsive.
 */
export function buildVerifyWorker(): Promise<string> {
  workerBuild ??= (async () => {
    const { build } = (await import('rolldown')) as typeof import('rolldown')
    const out = resolve(
      __dirname,
      '../../../node_modules/.cache/bijotel-server-test',
      `verify-worker-${process.pid}.cjs`,
    )
    await build({
      input: resolve(__dirname, '../../../src/main/verify/worker.ts'),
      platform: 'node',
      external: ['better-sqlite3', /^node:/],
      output: { file: out, format: 'cjs', codeSplitting: false },
      logLevel: 'silent',
    })
    return out
  })()
  return workerBuild
}

// --- HTTP helpers ----------------------------------------------------------------------------------

export interface Reply {
  status: number
  headers: Headers
  text: string
  json: unknown
}

export async function http(url: string, init: RequestInit = {}): Promise<Reply> {
  const res = await fetch(url, init)
  const text = await res.text()
  let json: unknown = undefined
  try {
    json = JSON.parse(text)
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, text, json }
}

/** POST /api/call/<name> with a JSON body. */
export function callApi(
  base: string,
  name: string,
  req?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return http(`${base}/api/call/${name}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: req === undefined ? '' : JSON.stringify(req),
  })
}

/** The app token from the served index.html's meta tag. */
export async function fetchAppToken(base: string, headers: Record<string, string> = {}): Promise<string> {
  const r = await http(`${base}/`, { headers })
  const m = /<meta name="bijotel-app-token" content="([^"]+)"/.exec(r.text)
  if (!m) throw new Error(`no app token in index.html (status ${r.status})`)
  return m[1]!
}

/** Run `fn` over `items` with at most `limit` in flight. */
export async function pool<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length)
  let next = 0
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i]!, i)
    }
  })
  await Promise.all(lanes)
  return out
}

export interface SseEvent {
  event: string
  data: unknown
  at: number
}

/** Read a Server-Sent Events stream until it ends (or `until` says stop); events carry arrival times. */
export async function readSse(
  url: string,
  opts: {
    headers?: Record<string, string>
    until?: (e: SseEvent) => boolean
    onEvent?: (e: SseEvent) => void
  } = {},
): Promise<{ status: number; events: SseEvent[]; contentType: string | null }> {
  const ctrl = new AbortController()
  const res = await fetch(url, { headers: opts.headers ?? {}, signal: ctrl.signal })
  const events: SseEvent[] = []
  if (!res.body || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
    await res.text()
    return { status: res.status, events, contentType: res.headers.get('content-type') }
  }
  const reader = res.body.getReader()
  const dec = new TextDecoder()
  let buf = ''
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      buf += dec.decode(value, { stream: true })
      let i: number
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i)
        buf = buf.slice(i + 2)
        let event = 'message'
        const data: string[] = []
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) event = line.slice(7)
          else if (line.startsWith('data: ')) data.push(line.slice(6))
        }
        if (data.length === 0) continue
        const e: SseEvent = { event, data: JSON.parse(data.join('\n')) as unknown, at: performance.now() }
        events.push(e)
        opts.onEvent?.(e)
        if (opts.until?.(e)) {
          ctrl.abort()
          return { status: res.status, events, contentType: res.headers.get('content-type') }
        }
      }
    }
  } catch (e) {
    if (!ctrl.signal.aborted) throw e
  }
  return { status: res.status, events, contentType: res.headers.get('content-type') }
}

/** A request with full control over the path and headers (fetch normalizes both). */
export function rawRequest(
  port: number,
  opts: {
    method?: string
    path: string
    headers?: Record<string, string>
    body?: Buffer | string
    host?: string
  },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolveReply, reject) => {
    const req = request(
      {
        host: opts.host ?? '127.0.0.1',
        port,
        method: opts.method ?? 'GET',
        path: opts.path,
        headers: opts.headers ?? {},
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolveReply({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        )
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    if (opts.body !== undefined) req.write(opts.body)
    req.end()
  })
}
