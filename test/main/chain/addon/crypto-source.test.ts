// Where the addon's SHA-256 and HMAC come from (native/src/crypto.c). In Node, the running process's
// own OpenSSL. In a process with none — Electron, which does not export its BoringSSL to addons —
// the system's OpenSSL on Linux: crypto.c built into a plain C program (./crypto-main.c) must find it
// there and hash exactly as node:crypto does, reusing one HMAC context per key; where the system has
// no libcrypto either, nothing is hashed (and the TypeScript path proves every row).
import { execFileSync, spawnSync } from 'node:child_process'
import { createHmac, hash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { platform, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { hasCrypto, nativeAddon } from '../../../../src/main/chain/addon/row-prover'
import { randomBytes } from '../../testing/prng'

const ROOT = resolve(__dirname, '..', '..', '..', '..')
const addon = nativeAddon()

describe.skipIf(addon === null)('in Node', () => {
  it("the addon hashes with the process's own OpenSSL", () => {
    expect(addon!.cryptoSource()).toBe('host')
    expect(hasCrypto(addon!)).toBe(true)
  })
})

function compiler(): string | null {
  for (const cc of ['cc', 'gcc', 'clang'])
    if (spawnSync(cc, ['--version'], { stdio: 'ignore' }).status === 0) return cc
  return null
}

const cc = platform() === 'linux' ? compiler() : null

describe.skipIf(cc === null)('in a process without OpenSSL of its own (Linux)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bijotel-crypto-source-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const bin = join(dir, 'crypto-main')
  execFileSync(cc!, [
    '-O1',
    '-std=c11',
    '-o',
    bin,
    join(ROOT, 'test/main/chain/addon/crypto-main.c'),
    join(ROOT, 'native/src/crypto.c'),
    '-ldl',
    '-lpthread',
  ])
  // Whether the system has an OpenSSL the loader finds, by the loader's own cache (null: no ldconfig
  // here to ask; then either answer must at least be whole).
  const cache = ['ldconfig', '/sbin/ldconfig', '/usr/sbin/ldconfig']
    .map((c) => spawnSync(c, ['-p'], { encoding: 'utf8' }))
    .find((r) => r.status === 0)
  const systemHas = cache ? /libcrypto\.so\.(3|1\.1)\b/.test(cache.stdout) : null

  it("finds the system's OpenSSL and hashes as node:crypto does, or hashes nothing without one", () => {
    const lines: string[] = []
    const want: string[] = []
    for (let i = 0; i < 60; i++) {
      const n = i < 20 ? i * 7 : 100 + i * 97
      const b = randomBytes(n, 1000 + i)
      lines.push(`S ${b.toString('hex')}`)
      want.push(hash('sha256', b, 'hex'))
    }
    for (let i = 0; i < 30; i++) {
      const key = randomBytes(i * 7, 2000 + i)
      const msg = randomBytes(i % 3 === 0 ? 0 : 128 + i, 3000 + i)
      lines.push(`H ${key.toString('hex')} ${msg.toString('hex')}`)
      const mac = createHmac('sha256', key).update(msg).digest('hex')
      want.push(`${mac} ${mac}`)
    }
    const r = spawnSync(bin, [], { input: lines.join('\n') + '\n', encoding: 'utf8' })
    const out = r.stdout.trim().split('\n')
    if (systemHas === false || (systemHas === null && out[0] === 'source 0')) {
      expect(out[0]).toBe('source 0')
      expect(out[1]).toBe('sha256 failed')
      expect(r.status).toBe(1)
      return
    }
    expect(out[0]).toBe('source 2')
    expect(r.status).toBe(0)
    expect(out.slice(1)).toEqual(want)
  })
})
