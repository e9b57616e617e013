// The limits with their defaults in a real `bijotel serve` (the built CLI, its own process), over
// real sockets: the case of issue 29 — four concurrent 90 MB /replay/verify bodies — with the
// server's peak memory read from /proc, and a body sent one byte every two seconds.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_LIMITS } from '../../../src/main/server/limits'
import { BIN, ensureBuilt } from '../testing/cli'
import { dbPath, fingerprintFolder, SECRETS } from '../testing/fixtures'
import { postHead, rawClient, type RawClient } from './sockets'

const before = fingerprintFolder()
const MB = 1000 * 1000
let child: ChildProcess
let port: number
const clients: RawClient[] = []

/** Peak and current resident memory of the server process, in bytes (Linux /proc). */
function memory(pid: number): { peak: number; now: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (name: string): number =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
  return { peak: kb('VmHWM') * 1024, now: kb('VmRSS') * 1024 }
}

beforeAll(async () => {
  ensureBuilt()
  const env = { ...process.env }
  delete env['BIJOTEL_HMAC_SECRET']
  delete env['BIJOTEL_API_KEY']
  child = spawn(
    process.execPath,
    [BIN, 'serve', '--db', dbPath('clean'), '--port', '0', '--secret-hex', SECRETS['primary']!],
    { stdio: ['ignore', 'pipe', 'pipe'], env },
  )
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 30_000)
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const m = / at (http:\/\/\S+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve(m[1]!)
      }
    })
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)))
  })
  port = Number(new URL(url).port)
}, 60_000)

afterAll(async () => {
  for (const c of clients) c.destroy()
  if (child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r))
    child.kill('SIGTERM')
    await exited
  }
  expect(fingerprintFolder()).toEqual(before)
})

describe('bijotel serve, default limits', () => {
  it.skipIf(!existsSync('/proc/self/status'))(
    'four concurrent 90 MB /replay/verify bodies: one is taken, three are refused at once, memory stays bounded',
    async () => {
      const start = memory(child.pid!)
      const body = Buffer.from(JSON.stringify({ seq: 1, replayed_output: 'x'.repeat(90 * MB - 40) }))
      const four = Array.from({ length: 4 }, () => {
        const c = rawClient(port)
        clients.push(c)
        c.write(postHead(port, '/replay/verify', body.length))
        return c
      })
      // Headers first, so the server admits or refuses each before any body arrives.
      await new Promise((r) => setTimeout(r, 300))
      for (const c of four) c.write(body)
      const replies = await Promise.all(four.map((c) => c.reply))
      const end = memory(child.pid!)
      // A held body lives as its bytes, its text and its parsed value: about three times its size.
      const bound = 3 * DEFAULT_LIMITS.maxBodyBytesInFlight
      expect(end.peak - start.now, `peak ${end.peak} from ${start.now}`).toBeLessThan(bound)
      const statuses = replies.map((r) => r?.status)
      expect(
        statuses.filter((s) => s === 503),
        JSON.stringify(statuses),
      ).toHaveLength(3)
      // The one taken is answered as the reference does (a 90 MB text is over the 64 MiB replay text).
      expect(statuses.filter((s) => s !== 503)).toEqual([422])
      for (const r of replies.filter((r) => r?.status === 503))
        expect(r?.json).toMatchObject({ code: 'unavailable' })
    },
    120_000,
  )

  it('a body sent one byte every two seconds is cut after the grace period, not kept for minutes', async () => {
    const c = rawClient(port)
    clients.push(c)
    c.write(postHead(port, '/api/call/listEntries', 100))
    c.write('{')
    const drip = setInterval(() => c.write('"'), 2000)
    try {
      const reply = await c.reply
      expect(reply?.status).toBe(408)
      expect(reply?.json).toMatchObject({ code: 'bad_request', error: expect.stringContaining('too slow') })
      expect(reply!.at).toBeGreaterThan(DEFAULT_LIMITS.bodyGraceMs)
      expect(reply!.at).toBeLessThan(DEFAULT_LIMITS.bodyGraceMs + 3000)
      expect(await c.closed).toBeLessThan(DEFAULT_LIMITS.bodyGraceMs + 6000)
    } finally {
      clearInterval(drip)
    }
  }, 60_000)
})
