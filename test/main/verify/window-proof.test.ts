// Verify's runs proven a read window at a time (the addon's proveLeaves, offered by
// RowScanner.scanLeafFirst) must judge every run exactly as the TypeScript path does (BIJOTEL_NATIVE=0,
// the path every native proof only ever shortens). Generated chains of several shapes, rows tampered
// at seeded places (body, column, link), cut into runs at seeded places: the results (rows, first and
// last seq, link, findings, key segments) must be equal, and windows must have proven leaves whole
// (else this test would compare a path with itself) — but for a WAL chain, whose pages are read one
// at a time through the pager (Pager.windowOf).
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { nativeAddon } from '../../../src/main/chain/addon/row-prover'
import { RowScanner, type LeavesFirst } from '../../../src/main/chain/direct/scan'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { verifyPart } from '../../../src/main/verify/part'
import type { PartitionResult } from '../../../src/main/verify/partition'
import { tempDir } from '../server/testkit'
import { KEY, SMALL, tamperRows, writeChainFolder, type ChainShape } from '../testing/exact-chains'
import { mulberry32 } from '../testing/prng'
import { readChainOnce } from '../testing/read-once'

const addon = nativeAddon()
const nativeWas = process.env['BIJOTEL_NATIVE']
const tmp = tempDir('bijotel-window-proof-')
afterAll(() => tmp.cleanup())
const keys: KeyMaterial[] = [{ index: 0, encoding: 'hex', bytes: KEY }]

/** A shape, and whether its windows must prove leaves whole (no body on an overflow page there). */
const shapes: [string, Partial<ChainShape>, boolean][] = [
  ['4 KB pages, several rows a leaf', { rows: 1_500, bodyBytes: 120 }, true],
  ['1 KB pages', { rows: 600, pageSize: 1024 }, true],
  ['1 KB pages, bodies on overflow pages', { rows: 600, pageSize: 1024, bodyBytes: 500 }, false],
  [
    '512-byte pages, reserved bytes, bodies on overflow pages',
    { rows: 900, pageSize: 512, reserved: 24 },
    false,
  ],
  [
    'WAL: the newest rows only in the -wal',
    { rows: 800, bodyBytes: 80, wal: true, walRows: 200, walCommits: 4 },
    true,
  ],
]

describe.skipIf(addon === null || typeof addon.proveLeaves !== 'function' || nativeWas === '0')(
  'runs proven a read window at a time',
  () => {
    for (const [what, shape, wholeLeaves] of shapes) {
      it(`judge every run as the TypeScript path does: ${what}`, async () => {
        // Windows offered and leaves they proved whole, counted where the scan offers them.
        let offered = 0
        let whole = 0
        let partial = 0
        const scan = RowScanner.prototype.scanLeafFirst
        RowScanner.prototype.scanLeafFirst = function (from, to, leaf, row, leaves?: LeavesFirst) {
          const counted: LeavesFirst | undefined =
            leaves &&
            ((w, pages, at, g, out) => {
              leaves(w, pages, at, g, out)
              offered++
              whole += out[0]!
              if (out[1]! > 0) partial++
            })
          scan.call(this, from, to, leaf, row, counted)
        }
        try {
          for (let seed = 1; seed <= 4; seed++) {
            const rnd = mulberry32(seed * 7919 + what.length)
            const rows = shape.rows!
            const pick = (n: number): number[] =>
              Array.from({ length: n }, () => 1 + Math.floor(rnd() * rows))
            const chain = writeChainFolder(join(tmp.dir, `${what.replace(/\W+/g, '-')}-${seed}`), {
              ...SMALL,
              ...shape,
            })
            // Seed 1 leaves the chain clean (a WAL chain keeps its -wal: its leaves then go through
            // the pager's page(), never a window); the others tamper with a few rows each way
            // (SQLite checkpoints the -wal into the file as it closes).
            if (seed > 1) tamperRows(chain, { body: pick(seed), name: pick(2), link: pick(2) })
            const before = offered
            await readChainOnce(chain, async (source) => {
              expect(source.kind).toBe('direct')
              const range = source.resolve(undefined)
              const { place } = source.place(range)
              const runs = source.split(place, 1 + Math.floor(rnd() * 8))
              const judge = (): PartitionResult[] =>
                runs.map((p, i) => verifyPart(source, keys, range, p, { firstOrd: 0, first: i === 0 }))
              const byWindow = judge()
              process.env['BIJOTEL_NATIVE'] = '0'
              let inTypeScript: PartitionResult[]
              try {
                inTypeScript = judge()
              } finally {
                if (nativeWas === undefined) delete process.env['BIJOTEL_NATIVE']
                else process.env['BIJOTEL_NATIVE'] = nativeWas
              }
              expect(byWindow).toEqual(inTypeScript)
              if (seed > 1) expect(inTypeScript.some((r) => r.findings.length > 0)).toBe(true)
            })
            if (shape.wal && seed === 1) expect(offered).toBe(before)
            else expect(offered).toBeGreaterThan(before)
          }
        } finally {
          RowScanner.prototype.scanLeafFirst = scan
        }
        if (wholeLeaves) {
          // Leaves proven whole, and runs that stop inside a leaf (a tampered row) and go on there.
          expect(whole).toBeGreaterThan(shape.rows! / 20)
          expect(partial).toBeGreaterThan(0)
        }
      }, 120_000)
    }
  },
)
