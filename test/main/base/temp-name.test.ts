// Outputs under names up to NAME_MAX (255 bytes): the temporary file written beside the target must
// itself stay within NAME_MAX, or a name the file system takes is refused (ENAMETOOLONG) — a report
// `-o` of 242-255 bytes ended with 'internal error', an export with 'cannot write'. Generated names
// of 1-4 byte code points at every length near the bound: tempBeside() on its own, AtomicOutput and
// writeParts (the app's report save and view export), and `bijotel export`/`report` on a fixture.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clipUtf8, NAME_MAX_BYTES, tempBeside } from '../../../src/main/base/temp-name'
import { AtomicOutput } from '../../../src/main/export/output-file'
import { writeParts } from '../../../src/main/export/view-export'
import { scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { dbPath, SECRETS } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'

const scratch = scratchDir('temp-name')
afterAll(() => scratch.cleanup())

const ALPHABET = ['a', 'Z', '7', '-', 'é', 'ж', '中', '€', '😀', '𝔘']

/** A file name of exactly `bytes` UTF-8 bytes (or one less when a wide code point would not fit). */
function nameOf(bytes: number, rnd: () => number): string {
  let s = ''
  for (;;) {
    const c = ALPHABET[Math.floor(rnd() * ALPHABET.length)]!
    const left = bytes - Buffer.byteLength(s)
    if (left === 0) return s
    s += Buffer.byteLength(c) <= left ? c : 'a'.repeat(left)
  }
}

const utf8 = (s: string): number => Buffer.byteLength(s, 'utf8')

describe('tempBeside', () => {
  it('stays within NAME_MAX for every target length, on whole code points, unique by its tag', () => {
    const rnd = mulberry32(909)
    for (let bytes = 1; bytes <= NAME_MAX_BYTES; bytes++) {
      const name = nameOf(bytes, rnd)
      for (const tag of ['a1b2c3d4e5f6', String(4_194_304)]) {
        const tmp = basename(tempBeside(join('/x', name), tag))
        expect(utf8(tmp)).toBeLessThanOrEqual(NAME_MAX_BYTES)
        expect(tmp.endsWith(`.${tag}.tmp`)).toBe(true)
        expect(tmp.startsWith('.')).toBe(true)
        const part = tmp.slice(1, -`.${tag}.tmp`.length)
        expect(name.startsWith(part)).toBe(true)
        expect(part).not.toMatch(/[\uD800-\uDBFF]$/) // never half a surrogate pair
        if (utf8(name) + utf8(tag) + 6 <= NAME_MAX_BYTES) expect(part).toBe(name)
      }
    }
  })

  it('clipUtf8 keeps whole code points up to the bound', () => {
    const rnd = mulberry32(77)
    for (let i = 0; i < 500; i++) {
      const s = nameOf(1 + Math.floor(rnd() * 300), rnd)
      const max = Math.floor(rnd() * 300)
      const c = clipUtf8(s, max)
      expect(utf8(c)).toBeLessThanOrEqual(max)
      expect(s.startsWith(c)).toBe(true)
      const next = [...s.slice(c.length)][0]
      if (next !== undefined) expect(utf8(c) + utf8(next)).toBeGreaterThan(max)
    }
  })
})

describe('writing under names up to NAME_MAX', () => {
  const rnd = mulberry32(4242)
  const lengths = [200, 236, 237, 238, 240, 245, 250, 253, 254, 255]

  it('AtomicOutput and writeParts write and rename into place, no temporary file left', () => {
    for (const bytes of lengths) {
      const a = join(scratch.dir, nameOf(bytes, rnd))
      const out = new AtomicOutput(a)
      out.writeBytes(Buffer.from('{"a":1}\n'))
      out.commit()
      expect(readFileSync(a, 'utf8'), a).toBe('{"a":1}\n')
      const b = join(scratch.dir, nameOf(bytes, rnd))
      if (existsSync(b)) continue
      writeParts(b, ['x,y\r\n', '1,2\r\n'])
      expect(readFileSync(b, 'utf8')).toBe('x,y\r\n1,2\r\n')
    }
    expect(readdirSync(scratch.dir).filter((f) => f.endsWith('.tmp'))).toEqual([])
  })

  describe('the CLI', () => {
    beforeAll(() => ensureBuilt())
    it('export and report write under every long name, exit 0', () => {
      const dir = join(scratch.dir, 'cli')
      mkdirSync(dir)
      for (const bytes of lengths) {
        const e = join(dir, nameOf(bytes, rnd))
        const r1 = bijotel(['export', '--db', dbPath('clean'), '--secret-hex', SECRETS['primary']!, '-o', e])
        expect(r1.stderr, `export ${bytes}`).toBe('')
        expect(r1.code).toBe(0)
        expect(JSON.parse(readFileSync(e, 'utf8')).entries_count).toBe(240)
        const p = join(dir, nameOf(bytes, rnd))
        if (existsSync(p)) continue
        const r2 = bijotel(['report', '--db', dbPath('clean'), '--secret-hex', SECRETS['primary']!, '-o', p])
        expect(r2.code, `report ${bytes}: ${r2.stderr}`).toBe(0)
        expect(JSON.parse(readFileSync(p, 'utf8'))).toHaveProperty('evidence')
      }
      expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([])
    }, 120_000)
  })
})
