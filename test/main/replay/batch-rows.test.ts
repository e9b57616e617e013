// A keyed replay batch verifies its named rows inside its one pass over the chain (issue 37,
// src/main/replay/batch-rows.ts). The claim: each row's check is exactly the one `replay --seq`
// makes (verifyRow: the verifier over the range seq..seq). The adversary tampers chains so that a
// pass-side check could differ from a range-side one — a row deleted before the named row (gap +
// link), the first rows deleted (trusted boundary), a body, hmac_hash, prev_hash or span_name edited,
// a predecessor whose hmac_hash is not text, a row sealed under a second key (rotation), a row whose
// seq is beyond ±2^53 in front of the first row — and every row of every generated chain is checked
// both ways, through both readers, under several key sets, with lines naming seqs twice and seqs
// that are not there.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { ChainWriter } from '../../../src/main/writer/chain-writer'
import { makeSealer } from '../../../src/main/chain/seal'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { decideBatch } from '../../../src/main/replay/batch'
import type { BatchEntry } from '../../../src/main/replay/batch-lines'
import { verifyRow } from '../../../src/main/replay/check'
import type { ReplayBatchItem } from '../../../src/shared/replay-types'
import { rng } from '../testing/replay-batch'
import { READERS, withSource } from '../testing/sources'

const dir = mkdtempSync(join(tmpdir(), 'bijotel-batch-rows-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const K1 = Buffer.alloc(32, 0x11)
const K2 = Buffer.alloc(32, 0x22)
const WRONG = Buffer.alloc(32, 0x33)
const key = (bytes: Buffer, index: number): KeyMaterial => ({ index, encoding: 'hex', bytes })
const KEY_SETS: Record<string, KeyMaterial[]> = {
  K1: [key(K1, 0)],
  'K2, K1': [key(K2, 0), key(K1, 1)],
  wrong: [key(WRONG, 0)],
}

type Attack = (db: Database.Database, rows: number, r: () => number) => void
const at = (rows: number, r: () => number): number => 2 + Math.floor(r() * (rows - 2))

/** Each class of tampering, applied at a random seq (several may apply to one chain). */
const ATTACKS: Record<string, Attack> = {
  'delete a row': (db, n, r) => void db.prepare('DELETE FROM chain WHERE seq = ?').run(at(n, r)),
  'delete the first rows': (db, _n, r) =>
    void db.prepare('DELETE FROM chain WHERE seq <= ?').run(1 + Math.floor(r() * 3)),
  'edit a body': (db, n, r) =>
    void db
      .prepare(
        "UPDATE chain SET canonical_body = CAST(replace(CAST(canonical_body AS TEXT), 'call.', 'CALL.') AS BLOB) WHERE seq = ?",
      )
      .run(at(n, r)),
  'edit an hmac_hash': (db, n, r) =>
    void db
      .prepare("UPDATE chain SET hmac_hash = replace(hmac_hash, substr(hmac_hash, 1, 1), 'f') WHERE seq = ?")
      .run(at(n, r)),
  'edit a prev_hash': (db, n, r) =>
    void db.prepare("UPDATE chain SET prev_hash = 'ab' || substr(prev_hash, 3) WHERE seq = ?").run(at(n, r)),
  'edit a span_name column': (db, n, r) =>
    void db.prepare("UPDATE chain SET span_name = 'renamed' WHERE seq = ?").run(at(n, r)),
  'hmac_hash as a blob': (db, n, r) =>
    void db.prepare('UPDATE chain SET hmac_hash = CAST(hmac_hash AS BLOB) WHERE seq = ?').run(at(n, r)),
  'hmac_hash as an integer': (db, n, r) =>
    void db.prepare('UPDATE chain SET hmac_hash = 12345 WHERE seq = ?').run(at(n, r)),
  'rotate to a second key': (db, n, r) => {
    const from = at(n, r)
    const rows = db
      .prepare('SELECT seq, canonical_hash, prev_hash FROM chain WHERE seq >= ? ORDER BY seq')
      .all(from) as { seq: number; canonical_hash: string; prev_hash: string }[]
    const prevRow = db
      .prepare('SELECT hmac_hash FROM chain WHERE seq < ? ORDER BY seq DESC LIMIT 1')
      .get(from) as { hmac_hash: string } | undefined
    let link = prevRow?.hmac_hash ?? rows[0]!.prev_hash
    const seal = makeSealer(K2)
    const put = db.prepare('UPDATE chain SET prev_hash = ?, hmac_hash = ? WHERE seq = ?')
    for (const row of rows) {
      const mac = seal.seal(link, row.canonical_hash)
      put.run(link, mac, row.seq)
      link = mac
    }
  },
  'a row beyond 2^53 before the first': (db) =>
    db.exec(
      'CREATE TEMP TABLE t AS SELECT * FROM chain ORDER BY seq LIMIT 1; ' +
        'UPDATE t SET seq = -4611686018427387904; INSERT INTO chain SELECT * FROM t; DROP TABLE t',
    ),
}

function writeChain(path: string, rows: number, attacks: string[], r: () => number): void {
  const w = ChainWriter.open(path, K1, { mode: 'create' })
  try {
    for (let i = 1; i <= rows; i++) w.appendSpan({ name: `call.${i}`, attributes: { n: i } })
  } finally {
    w.close()
  }
  const db = new Database(path)
  try {
    for (const a of attacks) ATTACKS[a]!(db, rows, r)
  } finally {
    db.close()
  }
}

const entry = (line: number, seq: number): BatchEntry => ({
  line,
  name: `line ${line}`,
  seq,
  replayHash: '0'.repeat(64),
  source: { kind: 'text', name: null, bytes: 1, sha256_of_bytes: '0'.repeat(64), mode: 'python' },
  prompt: null,
})

const SEED = Number(process.env['BATCH_SEED'] ?? 3737)
const CHAINS = 20

describe('a keyed batch checks each named row as replay --seq does', () => {
  const r = rng(SEED)
  const names = Object.keys(ATTACKS)
  for (let c = 0; c < CHAINS; c++) {
    // Each attack alone first, then random mixes of two or three.
    const attacks =
      c < names.length
        ? [names[c]!]
        : Array.from({ length: 2 + Math.floor(r() * 2) }, () => names[Math.floor(r() * names.length)]!)
    const rows = 12 + Math.floor(r() * 20)
    const path = join(dir, `chain-${c}.db`)
    writeChain(path, rows, attacks, r)
    for (const reader of READERS) {
      it(`${attacks.join(' + ')} (${rows} rows), read by ${reader}`, async () => {
        await withSource(path, reader, async (source) => {
          // Every seq, one twice, and seqs that are not there (0 and past the end: seq_missing).
          const seqs = [0, ...Array.from({ length: rows }, (_, i) => i + 1), 3, rows + 5]
          for (const [label, keys] of Object.entries(KEY_SETS)) {
            const items: ReplayBatchItem[] = []
            await decideBatch(
              source,
              keys,
              seqs.map((s, i) => entry(i + 1, s)),
              (it) => items.push(it),
            )
            expect(items.map((i) => i.seq)).toEqual(seqs)
            for (const item of items) {
              let single: Awaited<ReturnType<typeof verifyRow>> | 'missing'
              try {
                single = await verifyRow(source, keys, item.seq!)
              } catch (e) {
                single = 'missing'
                expect((e as Error).message).toBe(`seq ${item.seq} not found in chain`)
              }
              if (single === 'missing') {
                expect(item.status, `${label} seq ${item.seq}`).toBe('seq_missing')
                continue
              }
              expect(
                { row_verified: item.check?.row_verified, row_detail: item.check?.row_detail },
                `${label} seq ${item.seq}`,
              ).toEqual({ row_verified: single.row_verified, row_detail: single.row_detail })
            }
          }
        })
      })
    }
  }
})
