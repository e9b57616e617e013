// Archive segments whose rowids lie (issue 39: a rowid proves nothing). Rows 1..a archived into one
// segment and a+1..b into another, both deleted from the live file as the writer's rotation does; the
// auditor is given only the first, as the audited party hands it over: its seqs shifted (by one or
// many, either way), a junk row stored at a far seq, given twice under two names, with rows sealed
// under another key after its last row, or beside a copy of the live rows shifted by one. Rows a+1..b
// are archived in the segment not given: never `deleted`, always a notice. A segment with one row taken
// out proves nothing of that row either (a notice: ./segment-holes.test.ts, an archive by date leaves
// such holes honestly). Generated over page sizes, journal modes, lengths and seeds.
import Database from 'better-sqlite3'
import { copyFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readSegments } from '../../../src/main/audit/segments'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { CHAIN_TABLE_DDL } from '../../../src/main/chain/schema'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { GENESIS, Rng } from '../reliability/chainkit'
import { caseFolder, CHAIN_DDL, insert, openWriter, version, type RowVersion } from '../testing/sealed-writer'

type Craft =
  'shift' | 'shift-one' | 'junk-far' | 'twice' | 'other-key' | 'live-shifted' | 'minus-row' | 'wal-segment'
const CRAFTS: Craft[] = [
  'shift',
  'shift-one',
  'junk-far',
  'twice',
  'other-key',
  'live-shifted',
  'minus-row',
  'wal-segment',
]
const RANDOM = Number(process.env.BIJOTEL_SEGSEQ_CASES ?? 28)
const BASE = Number(process.env.BIJOTEL_SEGSEQ_SEED ?? 0x5e95)

/**
 * A segment file at `path` holding `rows`, each stored at its seq plus `shift`; with `wal`, a WAL-mode
 * segment taken while its writer held it: its rows only in its -wal, beside it.
 */
function writeSegment(path: string, rows: RowVersion[], shift: bigint, wal = false): void {
  const at = wal ? `${path}.writing` : path
  const s = new Database(at)
  s.defaultSafeIntegers(true)
  if (wal) s.pragma('journal_mode = WAL')
  s.pragma('wal_autocheckpoint = 0')
  s.exec(CHAIN_TABLE_DDL)
  s.transaction(() => {
    for (const v of rows) insert(s, { ...v, seq: v.seq + shift })
  })()
  if (wal) {
    copyFileSync(at, path)
    copyFileSync(`${at}-wal`, `${path}-wal`)
  }
  s.close()
}

describe('segments whose rowids lie accuse nothing', () => {
  for (let n = 0; n < RANDOM; n++) {
    const seed = BASE + n
    const craft = CRAFTS[n % CRAFTS.length]!
    it(`#${n} seed ${seed}: ${craft}`, async () => {
      const rng = new Rng(seed)
      const pageSize = rng.pick([512, 1024, 4096, 8192])
      const journal = rng.pick(['wal', 'delete'] as const)
      const { dir, work, evidence, cleanup } = caseFolder('bijotel-segseq-')
      try {
        const key = rng.bytes(32)
        const db = openWriter(work, { pageSize, journal })
        db.exec(CHAIN_DDL)
        const total = rng.int(40, 90)
        const rows: RowVersion[] = []
        let prev = GENESIS
        for (let s = 1n; s <= BigInt(total); s++) {
          const v = version(rng, key, s, prev, rng.int(40, 400), 'append')
          db.transaction(() => insert(db, v))()
          rows.push(v)
          prev = v.hmac
        }
        const a = rng.int(8, Math.floor(total / 3))
        const b = rng.int(a + 5, Math.floor((2 * total) / 3))
        const first = join(dir, 'segment-1.db')
        const second = join(dir, 'segment-2.db')
        const taken = craft === 'minus-row' ? rng.int(2, a - 1) : null
        const shift =
          craft === 'shift-one' ? 1n : craft === 'shift' ? BigInt(rng.pick([-1, 1]) * rng.int(2, 40)) : 0n
        writeSegment(
          first,
          rows.slice(0, a).filter((v) => v.seq !== BigInt(taken ?? 0)),
          // A shift below 1 would store seq 0 or less: kept positive, as any rowid may be.
          shift < 0n ? shift + 100n : shift,
          craft === 'wal-segment',
        )
        writeSegment(second, rows.slice(a, b), 0n)
        db.prepare('DELETE FROM chain WHERE seq <= ?').run(a)
        db.prepare('DELETE FROM chain WHERE seq <= ?').run(b)
        const given = [first]
        const s = new Database(craft === 'wal-segment' ? `${first}.writing` : first)
        if (craft === 'junk-far')
          s.prepare(
            `INSERT INTO chain (seq, timestamp_ns, trace_id, span_id, span_name, span_kind, canonical_body,
              canonical_hash, prev_hash, hmac_hash) VALUES (?, 1, 't', 's', 'n', 'k', x'00', ?, ?, ?)`,
          ).run(rng.int(a + 1, b + 40), rng.hex(64), rng.hex(64), rng.hex(64))
        if (craft === 'other-key') {
          // Rows sealed under another key after the segment's last row, at the seqs archived elsewhere.
          const other = rng.bytes(32)
          let p = rows[a - 1]!.hmac
          for (let q = a + 1; q <= b; q++) {
            const v = version(rng, other, BigInt(q), p, 100, 'other-key')
            insert(s, v)
            p = v.hmac
          }
        }
        s.close()
        if (craft === 'twice') {
          copyFileSync(first, join(dir, 'segment-1-again.db'))
          given.push(join(dir, 'segment-1-again.db'))
        }
        if (craft === 'live-shifted') {
          const copy = join(dir, 'live-shifted.db')
          writeSegment(copy, rows.slice(b), 1n)
          given.push(copy)
        }
        copyFileSync(work, evidence)
        if (existsSync(`${work}-wal`)) copyFileSync(`${work}-wal`, `${evidence}-wal`)
        db.close()
        const keys: KeyMaterial[] = [{ index: 0, encoding: 'hex', bytes: key }]
        const what = `${craft} p${pageSize} ${journal} rows ${total}, segments 1..${a} (given), ${a + 1}..${b}`
        for (const paths of [given, [...given].reverse()]) {
          const { verdict } = await verifyFile(evidence, keys, {
            recover: true,
            workers: 1,
            segments: await readSegments(paths),
          })
          const rec = verdict.recovered ?? []
          const deleted = rec.filter((r) => r.status === 'deleted').map((r) => r.seq)
          const findings = verdict.findings.map((f) => `${f.kind} ${f.from_seq}-${f.to_seq}`)
          expect(findings, what).toEqual([])
          expect(deleted, what).toEqual([])
          expect(verdict.valid, what).toBe(true)
          // Rows 1..a are in the segment given (read with its -wal too): archived, whatever its rowids say.
          if (taken === null)
            for (const r of rec)
              if (r.seq !== null && r.seq <= a) expect(r.status, `${what}: ${r.seq}`).toBe('archived')
          // Rows a+1..b, archived in the segment not given, are never claimed.
          for (const r of rec)
            if (r.seq !== null && r.seq > a && r.seq <= b) expect(r.status, what).not.toBe('deleted')
        }
      } finally {
        cleanup()
      }
    }, 60_000)
  }
})
