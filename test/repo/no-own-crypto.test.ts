// The project's cryptography is Node's (OpenSSL) or an audited library's, never written here. This
// guard looks through every source file the project ships (src/, native/, scripts/) for the marks a
// hand-written SHA-2 or HMAC leaves: SHA-256's round constants or initial state, SHA-512's first
// round constant, the x86 SHA instructions' intrinsics, and HMAC's pad bytes applied to a key. It
// failed on native/src/sha256.c, the addon's own SHA-256 until stop 37.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { expect, it } from 'vitest'

const ROOT = resolve(__dirname, '..', '..')
const SOURCES = /\.(ts|tsx|js|mjs|cjs|c|h|cc|cpp|sh)$/

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    if (f === 'node_modules' || f === 'build') return []
    const p = join(dir, f)
    return statSync(p).isDirectory() ? files(p) : SOURCES.test(f) ? [p] : []
  })
}

const MARKS: [string, RegExp][] = [
  ['a SHA-256 round constant', /0x0*428a2f98|0x0*71374491|0x0*c67178f2/i],
  ['the SHA-256 initial state', /0x0*6a09e667|0x0*bb67ae85/i],
  ['a SHA-512 round constant', /0x0*428a2f98d728ae22/i],
  ['an x86 SHA intrinsic', /_mm_sha256|sha256rnds2|sha1rnds4/i],
  ['an HMAC pad applied to a key', /\^\s*0x36\b|\^\s*0x5c\b/i],
]

it('no source file implements SHA-2 or HMAC: the hashing is node:crypto or the host OpenSSL', () => {
  const found: string[] = []
  for (const dir of ['src', 'native/src', 'scripts'])
    for (const f of files(join(ROOT, dir))) {
      const text = readFileSync(f, 'utf8')
      for (const [what, mark] of MARKS) if (mark.test(text)) found.push(`${relative(ROOT, f)}: ${what}`)
    }
  expect(found).toEqual([])
})
