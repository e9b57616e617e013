// The private copy made in one read (src/main/chain/copy-hashed.ts, issue 36): the digest is taken
// of the very bytes written to the copy, so the copy must be the file byte for byte and the digest
// the file's, at every size around the hash's buffer boundaries. And the adversary's side: a file
// written while it is being read — ahead of the read or behind it, the same size or not, its mtime
// set back or not, replaced under its name — is refused (`evidence_changed`), never a snapshot,
// through the one read and through the old copy-then-hash-both path alike.
import { createHash } from 'node:crypto'
import {
  closeSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { nativeFileHashActive, TAP_STEP } from '../../../src/main/chain/addon/file-hash'
import { copyHashed } from '../../../src/main/chain/copy-hashed'
import { takeSnapshot } from '../../../src/main/chain/snapshot'
import { dbPath, fixtureNames } from '../testing/fixtures'
import { mulberry32, randomBytes } from '../testing/prng'

const root = mkdtempSync(join(tmpdir(), 'copy-hashed-test-'))
const copies = join(root, 'copies')
mkdirSync(copies)
afterAll(() => rmSync(root, { recursive: true, force: true }))

const active = nativeFileHashActive()
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex')
/** A whole-millisecond mtime, so a test can set it back exactly (utimes takes milliseconds). */
const WHEN = new Date(1_700_000_000_000)

let made = 0
function randomFile(size: number, seed: number): { path: string; bytes: Buffer } {
  const bytes = randomBytes(size, seed)
  const path = join(root, `evidence-${++made}.db`)
  writeFileSync(path, bytes)
  utimesSync(path, WHEN, WHEN)
  return { path, bytes }
}

describe.runIf(active)('copyHashed: one read, the copy and the digest of the same bytes', () => {
  it('copies every byte and hashes exactly them, at sizes around every buffer boundary', async () => {
    const sizes = [0, 1, 4095, 4096, 4097]
    for (const b of [256 * 1024, TAP_STEP, 2 * TAP_STEP, 3 * TAP_STEP])
      for (const d of [-4097, -1, 0, 1, 4096]) sizes.push(b + d)
    const rnd = mulberry32(3701)
    for (let i = 0; i < 4; i++) sizes.push(Math.floor(rnd() * 4 * TAP_STEP))
    let seed = 400
    for (const size of sizes) {
      const f = randomFile(size, seed++)
      const dst = join(root, `copy-${size}-${seed}`)
      const fd = openSync(f.path, 'r')
      try {
        let progressed = 0
        const got = await copyHashed(fd, dst, (n) => (progressed += n))!
        expect({ size, ...got }).toEqual({ size, sha256: sha(f.bytes), bytes: size })
        expect(readFileSync(dst).equals(f.bytes)).toBe(true)
        expect(statSync(dst).mode & 0o777).toBe(0o600)
        expect(progressed).toBe(size)
      } finally {
        closeSync(fd)
      }
      rmSync(dst)
      rmSync(f.path)
    }
  })

  it('copies every fixture (chain, -wal, -journal) as it is', async () => {
    for (const name of fixtureNames()) {
      for (const suffix of ['', '-wal', '-journal']) {
        const src = dbPath(name) + suffix
        if (!existsSync(src)) continue
        const dst = join(root, `fixture-${name}${suffix}`)
        const fd = openSync(src, 'r')
        try {
          const got = await copyHashed(fd, dst, () => {})!
          const bytes = readFileSync(src)
          expect(got).toEqual({ sha256: sha(bytes), bytes: bytes.length })
          expect(readFileSync(dst).equals(bytes)).toBe(true)
        } finally {
          closeSync(fd)
        }
        rmSync(dst)
      }
    }
  })

  it('never writes over a file already there (O_EXCL)', () => {
    const f = randomFile(100, 1)
    const dst = join(root, 'there')
    writeFileSync(dst, 'mine')
    const fd = openSync(f.path, 'r')
    try {
      expect(() => copyHashed(fd, dst, () => {})).toThrow(/EEXIST/)
      expect(readFileSync(dst, 'utf8')).toBe('mine')
    } finally {
      closeSync(fd)
    }
  })

  it('a cancel rejects, and the copy is left short, never passed as whole', async () => {
    const f = randomFile(5 * TAP_STEP, 2)
    const dst = join(root, 'cancelled')
    const fd = openSync(f.path, 'r')
    try {
      const abort = new AbortController()
      let pieces = 0
      const h = copyHashed(fd, dst, () => ++pieces === 2 && abort.abort(), abort.signal)!
      await expect(h).rejects.toMatchObject({ code: 'cancelled' })
      expect(statSync(dst).size).toBeLessThan(f.bytes.length)
    } finally {
      closeSync(fd)
    }
  })
})

/** How the adversary changes the evidence while it is read (at a piece the read has just got). */
type Strike =
  | 'behind, same size'
  | 'behind, same size, mtime set back'
  | 'ahead, same size'
  | 'ahead, same size, mtime set back'
  | 'truncate'
  | 'append'
  | 'replaced under its name'

const STRIKES: Strike[] = [
  'behind, same size',
  'behind, same size, mtime set back',
  'ahead, same size',
  'ahead, same size, mtime set back',
  'truncate',
  'append',
  'replaced under its name',
]

function strike(path: string, size: number, readSoFar: number, how: Strike, rnd: () => number): void {
  if (how === 'replaced under its name') {
    const other = `${path}.new`
    writeFileSync(other, readFileSync(path))
    utimesSync(other, WHEN, WHEN)
    renameSync(other, path)
    return
  }
  const fd = openSync(path, 'r+')
  try {
    if (how === 'truncate') ftruncateSync(fd, Math.floor(rnd() * readSoFar))
    else if (how === 'append') writeSync(fd, Buffer.from('one more row'), 0, 12, size)
    else {
      // One byte flipped where the read has been, or where it has yet to go.
      const at = how.startsWith('behind')
        ? Math.floor(rnd() * readSoFar)
        : readSoFar + Math.floor(rnd() * (size - readSoFar))
      const b = Buffer.alloc(1)
      const old = readFileSync(path).subarray(at, at + 1)
      b[0] = old[0]! ^ 0x5a
      writeSync(fd, b, 0, 1, at)
    }
  } finally {
    closeSync(fd)
  }
  if (how.endsWith('mtime set back')) utimesSync(path, WHEN, WHEN)
}

describe('takeSnapshot refuses evidence written while it is read', () => {
  const saved = process.env['BIJOTEL_NATIVE']
  afterEach(() => {
    if (saved === undefined) delete process.env['BIJOTEL_NATIVE']
    else process.env['BIJOTEL_NATIVE'] = saved
  })

  const paths = active
    ? (['one read', 'copy, then both hashed'] as const)
    : (['copy, then both hashed'] as const)
  for (const path of paths) {
    it(`${path}: every strike, at random pieces and places, is evidence_changed and leaves no copy`, async () => {
      if (path === 'copy, then both hashed') process.env['BIJOTEL_NATIVE'] = '0'
      const rnd = mulberry32(path === 'one read' ? 3702 : 3703)
      for (const how of STRIKES) {
        for (let round = 0; round < 3; round++) {
          const size = 3 * TAP_STEP + Math.floor(rnd() * 3 * TAP_STEP)
          const f = randomFile(size, 1000 + made)
          let seen = 0
          let struck = false
          // The progress callback runs between pieces: the adversary strikes after the k-th.
          const at = 1 + Math.floor(rnd() * 2)
          const taking = takeSnapshot(f.path, {
            tempRoot: copies,
            onProgress: (done) => {
              if (struck || ++seen < at) return
              struck = true
              strike(f.path, size, Math.min(done, size), how, rnd)
            },
          })
          await expect(taking, `${how}, round ${round}`).rejects.toMatchObject({ code: 'evidence_changed' })
          expect(struck).toBe(true)
          expect(readdirSync(copies)).toEqual([])
          rmSync(f.path, { force: true })
        }
      }
    })
  }

  it('the same files untouched give a snapshot whose copy is the file', async () => {
    for (const native of active ? [true, false] : [false]) {
      if (!native) process.env['BIJOTEL_NATIVE'] = '0'
      const f = randomFile(2 * TAP_STEP + 777, 77)
      const snap = await takeSnapshot(f.path, { tempRoot: copies })
      try {
        expect(snap.evidence.db.sha256).toBe(sha(f.bytes))
        expect(readFileSync(snap.dbPath).equals(f.bytes)).toBe(true)
        expect(snap.evidence.method).toMatch(
          native ? /the original read once, hashed and written to the copy/ : /original and copy hashed/,
        )
      } finally {
        snap.dispose()
      }
    }
  })
})
