// A stream over cells that share one overflow chain (file format §1.6: each overflow page belongs to
// one cell; SQLite's integrity_check calls a second reference corruption). The streaming engines
// (export, list, stats, search, regression, drift) read through a cursor that goes a leaf at a
// time; the overflow bound must hold over the whole stream, not per leaf, on both readers — the
// direct reader (CellReader's pass) and SQLite on the private copy (ValueBudget) — or a file of a
// few megabytes has every stream assemble gigabytes. Generated files whose leaves each stay under
// the file's page count, while all leaves together claim hundreds of times the file, must be
// refused as corrupt promptly by every streaming command; an honest file streamed with other scans
// of the same source run between the stream's steps must never be.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { AuditError } from '../../../../src/main/base/errors'
import { readChain } from '../../../../src/main/chain/source/open-source'
import { streamRows } from '../../../../src/main/chain/source/stream'
import { digestRows } from '../../../../src/main/chain/rows-digest'
import { BIN, ensureBuilt } from '../../testing/cli'
import { readChainOnce } from '../../testing/read-once'
import { sharedCase, shareTheLongChain } from '../../testing/shared-overflow'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-stream-shared-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** What one refusal may take (the old per-leaf bound let each of these run for tens of seconds). */
const BOUND_MS = 8000

const READERS: [string, Record<string, string>][] = [
  ['direct', {}],
  ['SQLite on the copy', { BIJOTEL_READER: 'sqlite' }],
]

/** The streaming commands of the CLI (export verifies first: its refusal is verify's, tested elsewhere). */
const COMMANDS: string[][] = [['list', '--limit', '-1'], ['stats'], ['regression']]

function withReader<T>(env: Record<string, string>, run: () => Promise<T>): Promise<T> {
  const was = process.env['BIJOTEL_READER']
  if (env['BIJOTEL_READER']) process.env['BIJOTEL_READER'] = env['BIJOTEL_READER']
  return run().finally(() => {
    if (was === undefined) delete process.env['BIJOTEL_READER']
    else process.env['BIJOTEL_READER'] = was
  })
}

describe('a stream over cells sharing one overflow chain', () => {
  // [name, page size, small rows, long chain's pages]: the long chain is a small share of the file,
  // so no one leaf's cells claim more pages than the file has, while all cells together do, many
  // times over.
  const cases: [string, number, number, number][] = [
    ['p512', 512, 6000, 1500],
    ['p1024', 1024, 3000, 700],
  ]
  for (const [name, pageSize, small, longPages] of cases)
    describe(name, () => {
      let path = ''
      it('is built: every leaf under the file, all leaves far over it', () => {
        ensureBuilt()
        path = sharedCase(root, name, pageSize, small, longPages)
        const shared = shareTheLongChain(path)
        const filePages = readFileSync(path).length / pageSize
        expect(shared).toBeGreaterThan(small / 2)
        expect(shared * longPages).toBeGreaterThan(50 * filePages)
      }, 120_000)

      for (const [reader, env] of READERS) {
        for (const args of COMMANDS)
          it(`${reader}: bijotel ${args[0]} refuses it as corrupt, promptly`, () => {
            const t = Date.now()
            const r = spawnSync(process.execPath, [BIN, ...args, '--db', path], {
              encoding: 'utf8',
              env: { ...process.env, ...env },
              timeout: 60_000,
            })
            const ms = Date.now() - t
            expect(r.stderr, `exit ${r.status} after ${ms} ms`).toMatch(/share overflow pages/)
            expect(r.stderr.trim().split('\n')).toHaveLength(1)
            expect([1, 2]).toContain(r.status)
            expect(ms).toBeLessThan(BOUND_MS)
          }, 90_000)

        it(`${reader}: a pass of hmac_hash alone (the rows digest) refuses it`, async () => {
          const t = Date.now()
          const err = await withReader(env, () =>
            readChain(path, (src) => Promise.resolve(digestRows(src, 64))).then(
              () => null,
              (e: unknown) => e,
            ),
          )
          expect(err, String(err)).toBeInstanceOf(AuditError)
          expect((err as AuditError).message).toMatch(/share overflow pages/)
          expect(Date.now() - t).toBeLessThan(BOUND_MS)
        }, 90_000)

        // Columns after the body are reached by walking its overflow chain (SQLite skips through
        // it without copying): a stream of hashes alone is as much work as one of bodies.
        const streams: [string[], boolean][] = [
          [['canonical_body'], false],
          [['canonical_body'], true],
          [['hmac_hash'], false],
          [['span_id', 'semantic_body_hash'], true],
        ]
        for (const [columns, descending] of streams)
          it(`${reader}: the library's stream of ${columns.join(', ')} (${descending ? 'newest first' : 'in seq order'}) refuses it`, async () => {
            const t = Date.now()
            const err = await withReader(env, () =>
              readChain(path, (src) => streamRows(src, { columns, descending, sliceMs: 0 }, () => {})).then(
                () => null,
                (e: unknown) => e,
              ),
            )
            expect(err, String(err)).toBeInstanceOf(AuditError)
            expect((err as AuditError).code).toBe('corrupt')
            expect((err as AuditError).message).toMatch(/share overflow pages/)
            expect(Date.now() - t).toBeLessThan(BOUND_MS)
          }, 90_000)
      }
    })

  for (const [reader, env] of READERS)
    it(`${reader}: an honest chain with long overflow chains, streamed while whole scans of the same source run between its steps, is never refused`, async () => {
      const path = sharedCase(root, `honest-${reader.length}`, 512, 400, 60)
      const rows = await withReader(env, () =>
        readChainOnce(path, async (src) => {
          let between = 0
          let stop = false
          const r = src.resolve(undefined)
          const place = src.place(r).place
          // A scan of the whole chain at every turn of the event loop the stream yields to.
          const interleave = (): void => {
            if (stop) return
            src.scan(place, r, () => {})
            between++
            setImmediate(interleave)
          }
          setImmediate(interleave)
          try {
            const seen: number[] = []
            for (const descending of [false, true, false])
              seen.push(
                await streamRows(src, { columns: ['canonical_body'], descending, sliceMs: 0 }, () => {}),
              )
            expect(between).toBeGreaterThan(10)
            return seen
          } finally {
            stop = true
          }
        }),
      )
      expect(rows).toEqual([401, 401, 401])
    }, 120_000)
})
