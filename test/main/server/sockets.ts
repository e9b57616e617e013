// Test helpers for the limits suites: raw TCP clients on loopback that send exactly what a test says
// (slowly, partly, or not at all) and record the reply and when the server closed the connection.
import { connect, type Socket } from 'node:net'

export interface RawReply {
  status: number
  headers: Record<string, string>
  body: string
  json: unknown
  /** ms from the client's connect to the end of the reply. */
  at: number
}

export interface RawClient {
  socket: Socket
  connected: Promise<void>
  /** The first complete reply (null when the server closed without one). */
  reply: Promise<RawReply | null>
  /** The status line and headers of the first reply, as soon as they arrive (null: closed first). */
  head: Promise<string | null>
  /** ms from connect to the server closing or resetting the connection. */
  closed: Promise<number>
  /** Whether the server has closed (or reset) the connection yet. */
  isClosed(): boolean
  write(data: string | Buffer): boolean
  destroy(): void
}

function parseReply(buf: Buffer, at: number): RawReply | null {
  const end = buf.indexOf('\r\n\r\n')
  if (end < 0) return null
  const head = buf.subarray(0, end).toString('latin1').split('\r\n')
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head[0] ?? '')?.[1] ?? 0)
  const headers: Record<string, string> = {}
  for (const line of head.slice(1)) {
    const i = line.indexOf(':')
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim()
  }
  const len = Number(headers['content-length'] ?? NaN)
  if (!Number.isFinite(len) || buf.length < end + 4 + len) return null
  const body = buf.subarray(end + 4, end + 4 + len).toString('utf8')
  let json: unknown = undefined
  try {
    json = JSON.parse(body)
  } catch {
    // not JSON
  }
  return { status, headers, body, json, at }
}

export function rawClient(port: number, host = '127.0.0.1'): RawClient {
  const start = performance.now()
  const socket = connect(port, host)
  let closedFlag = false
  let chunks = Buffer.alloc(0)
  let got: RawReply | null = null
  const connected = new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve())
    socket.once('error', reject)
  })
  connected.catch(() => undefined)
  const reply = new Promise<RawReply | null>((resolve) => {
    socket.on('data', (d: Buffer) => {
      chunks = Buffer.concat([chunks, d])
      if (!got) {
        got = parseReply(chunks, performance.now() - start)
        if (got) resolve(got)
      }
    })
    socket.once('close', () => resolve(got))
  })
  const head = new Promise<string | null>((resolve) => {
    socket.on('data', () => {
      const end = chunks.indexOf('\r\n\r\n')
      if (end >= 0) resolve(chunks.subarray(0, end).toString('latin1'))
    })
    socket.once('close', () => resolve(null))
  })
  const closed = new Promise<number>((resolve) => {
    socket.once('close', () => {
      closedFlag = true
      resolve(performance.now() - start)
    })
  })
  socket.on('error', () => undefined) // a reset shows as `closed`
  return {
    socket,
    connected,
    reply,
    head,
    closed,
    isClosed: () => closedFlag,
    write: (data) => (socket.destroyed ? false : socket.write(data)),
    destroy: () => socket.destroy(),
  }
}

/** The request line and headers of a POST with a JSON body (declared length, or chunked). */
export function postHead(port: number, path: string, length: number | 'chunked'): string {
  const size = length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n${size}\r\n\r\n`
}

/** One chunk of a chunked body (RFC 9112 §7.1). */
export function chunk(data: string | Buffer): Buffer {
  const b = typeof data === 'string' ? Buffer.from(data) : data
  return Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')])
}

export const LAST_CHUNK = '0\r\n\r\n'

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}
