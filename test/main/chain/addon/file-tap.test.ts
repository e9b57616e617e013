// The evidence hash sharing its reads (issue 36): fileHashRead's `dest` (native/src/file_hash.c) and
// nativeFileHash's tap (chain/addon/file-hash.ts), held to node:crypto and to the file's own bytes.
// What a tap is handed must be the file, every byte once, in order, from 0; `end` must come exactly
// once, with where the pieces stopped, whatever happens (the end of the file, a tap that throws, a
// cancel, an unreadable descriptor, another descriptor, no addon) — the carver reads the rest itself
// from there, so a wrong `end` would skip pages or carve them twice. The digest never changes.
import { createHash } from 'node:crypto'
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  nativeFileHash,
  nativeFileHashActive,
  TAP_STEP,
  type FileTap,
} from '../../../../src/main/chain/addon/file-hash'
import { nativeAddon } from '../../../../src/main/chain/addon/row-prover'
import { hashFileParallel } from '../../../../src/main/chain/snapshot'
import { mulberry32, randomBytes } from '../../testing/prng'

const root = mkdtempSync(join(tmpdir(), 'file-tap-test-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const active = nativeFileHashActive()
const PIECE = 256 * 1024

interface RawAddon {
  fileHashStart(): object
  fileHashRead(state: object, fd: number, pos: number, len: number, dest?: unknown): Promise<number>
  fileHashDigest(state: object): string
}

let made = 0
function randomFile(size: number, seed: number): { path: string; bytes: Buffer } {
  const bytes = randomBytes(size, seed)
  const path = join(root, `random-${++made}.bin`)
  writeFileSync(path, bytes)
  return { path, bytes }
}

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex')

/** A tap recording what it is handed; `failAt`: the piece (0-based) whose `bytes` throws. */
function recorder(fd: number, failAt = -1) {
  const pieces: { pos: number; bytes: Buffer }[] = []
  const ends: number[] = []
  let calls = 0
  const tap: FileTap = {
    fd,
    bytes(pos, bytes) {
      if (ends.length > 0) throw new Error('bytes after end')
      if (calls++ === failAt) throw new Error('the tap gives up')
      pieces.push({ pos, bytes: Buffer.from(bytes) }) // a copy: the buffer is read into again
    },
    end(pos) {
      ends.push(pos)
    },
  }
  const joined = (): Buffer => {
    let at = 0
    for (const p of pieces) {
      expect(p.pos).toBe(at) // in order, no gap, no overlap
      at += p.bytes.length
    }
    return Buffer.concat(pieces.map((p) => p.bytes))
  }
  return { tap, pieces, ends, joined }
}

async function withFd<T>(path: string, f: (fd: number) => Promise<T>): Promise<T> {
  const fd = openSync(path, 'r')
  try {
    return await f(fd)
  } finally {
    closeSync(fd)
  }
}

describe.runIf(active)('fileHashRead into a caller buffer', () => {
  const addon = nativeAddon() as unknown as RawAddon

  it('leaves the bytes read in `dest` and hashes exactly them, for jobs of any length', async () => {
    const rnd = mulberry32(3601)
    const sizes = [0, 1, 63, 64, 65, PIECE - 1, PIECE, PIECE + 1, 3 * PIECE + 17]
    for (let i = 0; i < 6; i++) sizes.push(Math.floor(rnd() * 4 * PIECE))
    for (const size of sizes) {
      const f = randomFile(size, 100 + size)
      await withFd(f.path, async (fd) => {
        const state = addon.fileHashStart()
        let pos = 0
        for (;;) {
          const len = 1 + Math.floor(rnd() * 2 * PIECE)
          const dest = new Uint8Array(len + Math.floor(rnd() * 9)).fill(0xee)
          const n = await addon.fileHashRead(state, fd, pos, len, dest)
          expect(Buffer.from(dest.subarray(0, n)).equals(f.bytes.subarray(pos, pos + n))).toBe(true)
          // Nothing past what was read is written.
          expect(dest.subarray(n).every((b) => b === 0xee)).toBe(true)
          pos += n
          if (n < len) break
        }
        expect({ size, pos, sha: addon.fileHashDigest(state) }).toEqual({
          size,
          pos: size,
          sha: sha(f.bytes),
        })
      })
    }
  })

  it('refuses a destination that is not a Uint8Array of at least `len` bytes, and stays usable', async () => {
    const f = randomFile(5000, 7)
    await withFd(f.path, async (fd) => {
      const state = addon.fileHashStart()
      for (const bad of [new Uint8Array(99), new Int32Array(400), new ArrayBuffer(400), {}, 'x', 5]) {
        expect(() => addon.fileHashRead(state, fd, 0, 100, bad)).toThrow(/dest/)
      }
      // A subarray is fine (its own offset), and so is no destination at all.
      const big = new Uint8Array(300)
      expect(await addon.fileHashRead(state, fd, 0, 100, big.subarray(200))).toBe(100)
      expect(Buffer.from(big.subarray(200)).equals(f.bytes.subarray(0, 100))).toBe(true)
      expect(big.subarray(0, 200).every((b) => b === 0)).toBe(true)
      expect(await addon.fileHashRead(state, fd, 100, 10_000, undefined)).toBe(4900)
      expect(addon.fileHashDigest(state)).toBe(sha(f.bytes))
    })
  })
})

describe.runIf(active)('nativeFileHash with a tap', () => {
  it('hands over every byte once, in order, ends once at the size, same digest: sizes around every boundary', async () => {
    const sizes = [0, 1, 4095, 4096, 4097]
    for (const b of [PIECE, TAP_STEP, 2 * TAP_STEP, 3 * TAP_STEP])
      for (const d of [-4097, -1, 0, 1, 4096]) sizes.push(b + d)
    const rnd = mulberry32(3602)
    for (let i = 0; i < 4; i++) sizes.push(Math.floor(rnd() * 3 * TAP_STEP))
    let seed = 200
    for (const size of sizes) {
      const f = randomFile(size, seed++)
      await withFd(f.path, async (fd) => {
        const r = recorder(fd)
        let progressed = 0
        const got = await nativeFileHash(fd, f.path, (n) => (progressed += n), undefined, r.tap)!
        expect({ size, ...got }).toEqual({ size, sha256: sha(f.bytes), bytes: size })
        expect(r.joined().equals(f.bytes)).toBe(true)
        expect(r.ends).toEqual([size])
        expect(progressed).toBe(size)
        // Every piece but the last is a whole job: whole pages of any page size.
        for (const p of r.pieces.slice(0, -1)) expect(p.bytes.length).toBe(TAP_STEP)
      })
      rmSync(f.path)
    }
  })

  it('a tap that throws is ended where its pieces stopped, once; the hash goes on to the same digest', async () => {
    const f = randomFile(4 * TAP_STEP + 12345, 300)
    for (const failAt of [0, 1, 2, 4]) {
      await withFd(f.path, async (fd) => {
        const r = recorder(fd, failAt)
        const got = await nativeFileHash(fd, f.path, () => {}, undefined, r.tap)!
        expect(got).toEqual({ sha256: sha(f.bytes), bytes: f.bytes.length })
        expect(r.pieces.length).toBe(failAt)
        expect(r.ends).toEqual([failAt * TAP_STEP])
        expect(r.joined().equals(f.bytes.subarray(0, failAt * TAP_STEP))).toBe(true)
      })
    }
  })

  it('a cancel ends the tap once where its pieces stopped, and rejects', async () => {
    const f = randomFile(5 * TAP_STEP, 301)
    for (const after of [1, 2, 3]) {
      await withFd(f.path, async (fd) => {
        const r = recorder(fd)
        const abort = new AbortController()
        let seen = 0
        const h = nativeFileHash(fd, f.path, () => ++seen === after && abort.abort(), abort.signal, r.tap)!
        await expect(h).rejects.toMatchObject({ code: 'cancelled' })
        expect(r.ends.length).toBe(1)
        expect(r.joined().equals(f.bytes.subarray(0, r.ends[0]))).toBe(true)
        expect(r.ends[0]).toBe(after * TAP_STEP)
      })
    }
  })

  it('a descriptor the addon refuses before reading (negative): the tap ended at 0, an io error', async () => {
    const r = recorder(-1)
    await expect(nativeFileHash(-1, 'nothing', () => {}, undefined, r.tap)!).rejects.toMatchObject({
      code: 'io',
    })
    expect(r.ends).toEqual([0])
    expect(r.pieces).toEqual([])
  })

  it('an unreadable descriptor ends the tap at 0 and is a one-line io error', async () => {
    const fd = openSync(root, 'r') // a folder: pread fails with EISDIR
    try {
      const r = recorder(fd)
      await expect(nativeFileHash(fd, 'the folder', () => {}, undefined, r.tap)!).rejects.toMatchObject({
        code: 'io',
      })
      expect(r.ends).toEqual([0])
      expect(r.pieces).toEqual([])
    } finally {
      closeSync(fd)
    }
  })

  it('a file cut between jobs: the tap got exactly the bytes hashed, and the count says so', async () => {
    const f = randomFile(4 * TAP_STEP, 302)
    const copy = join(root, 'cut.bin')
    writeFileSync(copy, f.bytes)
    await withFd(copy, async (fd) => {
      const r = recorder(fd)
      let cut = false
      const got = await nativeFileHash(
        fd,
        copy,
        () => {
          if (!cut) writeFileSync(copy, f.bytes.subarray(0, TAP_STEP + 5000)) // truncates in place
          cut = true
        },
        undefined,
        r.tap,
      )!
      // The next job is read while the tap scans, so it races the cut: whatever it read, the
      // digest is of exactly the bytes the tap got, and the count says the file was not its size.
      const joined = r.joined()
      expect(got.bytes).toBeLessThan(f.bytes.length)
      expect(joined.length).toBe(got.bytes)
      expect(got.sha256).toBe(sha(joined))
      expect(joined.subarray(0, TAP_STEP).equals(f.bytes.subarray(0, TAP_STEP))).toBe(true)
      expect(r.ends).toEqual([got.bytes])
    })
  })
})

describe('hashFileParallel hands a tap only the bytes of its own descriptor', () => {
  it('another descriptor, a path, or no addon: the tap is ended at 0 at once, and never handed a byte', async () => {
    const f = randomFile(3 * TAP_STEP + 100, 400)
    await withFd(f.path, async (fd) => {
      await withFd(f.path, async (other) => {
        const r = recorder(other)
        const h = hashFileParallel(fd, f.bytes.length, () => {}, undefined, r.tap)
        expect(r.ends).toEqual([0]) // at once: the carver starts reading by itself
        expect((await h).sha256).toBe(sha(f.bytes))
        expect(r.pieces).toEqual([])
        expect(r.ends).toEqual([0])
      })
      const byPath = recorder(fd)
      expect((await hashFileParallel(f.path, f.bytes.length, () => {}, undefined, byPath.tap)).sha256).toBe(
        sha(f.bytes),
      )
      expect(byPath.ends).toEqual([0])
      expect(byPath.pieces).toEqual([])
      const was = process.env['BIJOTEL_NATIVE']
      process.env['BIJOTEL_NATIVE'] = '0'
      try {
        const off = recorder(fd)
        const h = hashFileParallel(fd, f.bytes.length, () => {}, undefined, off.tap)
        expect(off.ends).toEqual([0])
        expect((await h).sha256).toBe(sha(f.bytes))
        expect(off.pieces).toEqual([])
      } finally {
        if (was === undefined) delete process.env['BIJOTEL_NATIVE']
        else process.env['BIJOTEL_NATIVE'] = was
      }
      if (active) {
        const own = recorder(fd)
        expect((await hashFileParallel(fd, f.bytes.length, () => {}, undefined, own.tap)).sha256).toBe(
          sha(f.bytes),
        )
        expect(own.joined().equals(f.bytes)).toBe(true)
        expect(own.ends).toEqual([f.bytes.length])
      }
    })
  })
})
