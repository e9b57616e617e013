// The evidence hash through the addon (native/src/file_hash.c, chain/addon/file-hash.ts) held to
// node:crypto's SHA-256 of the same bytes: on every shared fixture file, on generated chains (WAL,
// overflow pages, free pages, a tail that is not a whole page), on random files whose sizes fall on
// and around every boundary the C has (64-byte block, 256 KB read, 16 MB job), and read in pieces of
// random lengths. A file that changes while it is hashed is still refused; a cancel stops it.
import Database from 'better-sqlite3'
import { createHash } from 'node:crypto'
import {
  appendFileSync,
  closeSync,
  copyFileSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { nativeFileHash, nativeFileHashActive } from '../../../../src/main/chain/addon/file-hash'
import { nativeAddon } from '../../../../src/main/chain/addon/row-prover'
import { openEvidence } from '../../../../src/main/chain/evidence-files'
import { hashFileParallel } from '../../../../src/main/chain/snapshot'
import { hashEvidenceFiles } from '../../../../src/main/chain/statement'
import { verifyFile } from '../../../../src/main/audit/verify-file'
import { parseSecrets } from '../../../../src/main/chain/keys'
import { KEY_HEX, SMALL, writeChainFolder, type ChainShape } from '../../testing/exact-chains'
import { FIXTURES } from '../../testing/fixtures'
import { mulberry32, randomBytes } from '../../testing/prng'

const root = mkdtempSync(join(tmpdir(), 'file-hash-test-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const required = process.env['BIJOTEL_REQUIRE_NATIVE'] === '1'
const active = nativeFileHashActive()
const STEP = 16 * 1024 * 1024
const PIECE = 256 * 1024

function sha(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex')
}

/** The addon's hash of `path` through a descriptor, as verify's statement takes it. */
async function nativeOf(path: string, progress: (n: number) => void = () => {}) {
  const fd = openSync(path, 'r')
  try {
    const h = nativeFileHash(fd, path, progress)
    expect(h).not.toBeNull()
    return await h!
  } finally {
    closeSync(fd)
  }
}

let made = 0
function randomFile(size: number, seed: number): string {
  const p = join(root, `random-${++made}.bin`)
  writeFileSync(p, randomBytes(size, seed))
  return p
}

it('the addon hashes files where the set-up builds it', () => {
  if (!required && !active) {
    console.warn('native addon not built (scripts/setup.sh builds it): the file hash tests are skipped')
    return
  }
  expect(active).toBe(true)
})

describe.runIf(active)('native evidence hash equals node:crypto', () => {
  it('every file of the shared fixtures (chains, -wal files, side files)', async () => {
    const names = readdirSync(FIXTURES).filter((f) => statSync(join(FIXTURES, f)).isFile())
    expect(names.length).toBeGreaterThan(20)
    for (const f of names) {
      const p = join(FIXTURES, f)
      const got = await nativeOf(p)
      expect({ f, ...got }).toEqual({ f, sha256: sha(p), bytes: statSync(p).size })
      // The same through the public entry, by descriptor and by path.
      const fd = openSync(p, 'r')
      try {
        expect((await hashFileParallel(fd, statSync(p).size, () => {})).sha256).toBe(got.sha256)
      } finally {
        closeSync(fd)
      }
      expect((await hashFileParallel(p, statSync(p).size, () => {})).sha256).toBe(got.sha256)
    }
  })

  it('sizes on and around every boundary: empty, 64-byte blocks, 256 KB reads, 16 MB jobs', async () => {
    const sizes = [0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 4095, 4096, 4097]
    for (const b of [PIECE, 2 * PIECE, STEP, 2 * STEP])
      for (const d of [-65, -64, -1, 0, 1, 63, 64, 65]) sizes.push(b + d)
    const rnd = mulberry32(36)
    for (let i = 0; i < 12; i++) sizes.push(Math.floor(rnd() * 3 * PIECE))
    let seed = 1
    for (const size of sizes) {
      const p = randomFile(size, seed++)
      const progressed: number[] = []
      const got = await nativeOf(p, (n) => progressed.push(n))
      expect({ size, ...got }).toEqual({ size, sha256: sha(p), bytes: size })
      expect(progressed.reduce((a, b) => a + b, 0)).toBe(size)
      rmSync(p)
    }
  }, 120_000)

  it('reads in pieces of any length, in order, give the one digest (the C keeps a partial block)', async () => {
    const addon = nativeAddon() as unknown as {
      fileHashStart(): object
      fileHashRead(s: object, fd: number, pos: number, len: number): Promise<number>
      fileHashDigest(s: object): string
    }
    const rnd = mulberry32(7)
    for (let round = 0; round < 40; round++) {
      const size = Math.floor(rnd() * 300_000)
      const p = randomFile(size, 1000 + round)
      const fd = openSync(p, 'r')
      try {
        const st = addon.fileHashStart()
        let pos = 0
        for (;;) {
          // Lengths from 0 to a few blocks, sometimes large: every partial-block path.
          const len = rnd() < 0.8 ? Math.floor(rnd() * 200) : Math.floor(rnd() * 70_000)
          const n = await addon.fileHashRead(st, fd, pos, len)
          expect(n).toBe(Math.min(len, size - pos))
          pos += n
          if (pos >= size && n < len) break
        }
        expect(addon.fileHashDigest(st)).toBe(sha(p))
        // Out of order or overlapping reads are refused, never hashed.
        const st2 = addon.fileHashStart()
        expect(() => addon.fileHashRead(st2, fd, 1, 10)).toThrow(/follow one another/)
      } finally {
        closeSync(fd)
        rmSync(p)
      }
    }
  })

  const shapes: [string, Partial<ChainShape>][] = [
    ['rollback journal mode', {}],
    ['WAL with rows only in the -wal', { wal: true, walRows: 15, walCommits: 3 }],
    ['bodies on overflow pages (page size 1024)', { pageSize: 1024, bodyBytes: 3000 }],
    [
      'overflow pages in the WAL, 64 KB pages',
      { pageSize: 65536, bodyBytes: 90_000, wal: true, walRows: 5, walCommits: 2 },
    ],
    ['512-byte pages with reserved bytes', { pageSize: 512, reserved: 32, bodyBytes: 200 }],
  ]
  for (const [what, shape] of shapes) {
    it(`verify's Evidence hash of a generated chain: ${what}, with free pages, with a torn tail`, async () => {
      const dir = join(root, `chain-${++made}`)
      const chain = writeChainFolder(dir, { ...SMALL, rows: 60, ...shape })
      const keys = parseSecrets([{ encoding: 'hex', value: KEY_HEX }])
      const check = async (): Promise<void> => {
        const r = await verifyFile(chain, keys, { statement: true, workers: 1 })
        expect(r.statement!.db).toMatchObject({ size: statSync(chain).size, sha256: sha(chain) })
        const wal = `${chain}-wal`
        if (readdirSync(dir).includes('chain.db-wal') && statSync(wal).size > 0)
          expect(r.statement!.wal).toMatchObject({ size: statSync(wal).size, sha256: sha(wal) })
      }
      await check()
      if (!shape.wal) {
        // Free pages: rows deleted without VACUUM leave their pages on the freelist, still in the file.
        const db = new Database(chain)
        db.exec('DELETE FROM chain WHERE seq > 30')
        db.close()
        expect(readFileSync(chain).readUInt32BE(36)).toBeGreaterThan(0) // the freelist's page count
        await check()
      }
      // A file whose size is not a multiple of its page size (bytes after the last page): hashed
      // whole; verify either states that hash or refuses the file with one error, never another hash.
      appendFileSync(chain, Buffer.from('torn tail past the last page'))
      const files = openEvidence(chain)
      try {
        expect((await hashEvidenceFiles(files)).db).toMatchObject({
          size: statSync(chain).size,
          sha256: sha(chain),
        })
      } finally {
        files.close()
      }
      await check().catch((e: unknown) => expect(e).toMatchObject({ code: 'truncated' }))
    }, 60_000)
  }
})

describe.runIf(active)('a file that changes while it is hashed', () => {
  const big = (): string => {
    const p = join(root, `moving-${++made}.bin`)
    writeFileSync(p, Buffer.alloc(STEP + 5 * PIECE, 0x5a))
    return p
  }

  it('hashes what it read and says how much: a file cut or grown between jobs is never its old size', async () => {
    for (const change of ['truncate', 'grow'] as const) {
      const p = big()
      const size = statSync(p).size
      let changed = false
      const got = await nativeOf(p, () => {
        if (changed) return
        changed = true
        if (change === 'truncate') truncateSync(p, STEP + 100)
        else appendFileSync(p, Buffer.alloc(3 * PIECE, 1))
      })
      expect(got.bytes).not.toBe(size)
      expect(got.sha256).toBe(sha(p)) // exactly the bytes now there: nothing stale, nothing skipped
    }
  })

  it('hashEvidenceFiles refuses it (evidence_changed), whether cut, grown or rewritten', async () => {
    const chain = writeChainFolder(join(root, `chain-${++made}`), { ...SMALL, rows: 30 })
    const original = readFileSync(chain)
    const changes: [string, () => void][] = [
      ['cut', () => truncateSync(chain, original.length - 1024)],
      ['grown', () => appendFileSync(chain, Buffer.alloc(10, 0))],
      ['rewritten with a later mtime', () => writeFileSync(chain, Buffer.from(original).fill(1, 200, 210))],
    ]
    for (const [what, change] of changes) {
      writeFileSync(chain, original)
      const files = openEvidence(chain)
      try {
        await new Promise((r) => setTimeout(r, 20)) // a later mtime than the open saw
        change()
        await expect(hashEvidenceFiles(files), what).rejects.toMatchObject({ code: 'evidence_changed' })
      } finally {
        files.close()
      }
    }
    writeFileSync(chain, original)
    const files = openEvidence(chain)
    try {
      expect((await hashEvidenceFiles(files)).db.sha256).toBe(sha(chain))
    } finally {
      files.close()
    }
  })

  it('a cancel stops it with one error, between jobs', async () => {
    const p = big()
    const fd = openSync(p, 'r')
    try {
      const abort = new AbortController()
      const h = nativeFileHash(fd, p, () => abort.abort(), abort.signal)!
      await expect(h).rejects.toMatchObject({ code: 'cancelled' })
    } finally {
      closeSync(fd)
    }
  })

  it('a descriptor that cannot be read is a one-line io error', async () => {
    const fd = openSync(root, 'r') // a folder: pread fails with EISDIR
    try {
      await expect(nativeFileHash(fd, 'the folder', () => {})!).rejects.toMatchObject({ code: 'io' })
    } finally {
      closeSync(fd)
    }
  })
})

it('BIJOTEL_NATIVE=0 leaves hashing to node:crypto, with the same digest', async () => {
  const p = join(root, 'plain.bin')
  writeFileSync(p, Buffer.alloc(100_000, 3))
  copyFileSync(p, `${p}.2`)
  const was = process.env['BIJOTEL_NATIVE']
  process.env['BIJOTEL_NATIVE'] = '0'
  try {
    expect(nativeFileHashActive()).toBe(false)
    expect(nativeFileHash(0, 'x', () => {})).toBeNull()
    expect((await hashFileParallel(p, 100_000, () => {})).sha256).toBe(sha(`${p}.2`))
  } finally {
    if (was === undefined) delete process.env['BIJOTEL_NATIVE']
    else process.env['BIJOTEL_NATIVE'] = was
  }
})
