// Hashes whose record is lost, next to a live row that is not the head (issue 39, round 11). A block
// deleted from the middle of the chain, or rows resealed by a key holder, in a WAL file of overflowing
// bodies (pages of 512 and 1024 bytes: the three hashes lie on an overflow page, file-format §1.6);
// then the writer's ordinary operations: a table filled and dropped, incremental_vacuum in steps of
// n pages (auto_vacuum=INCREMENTAL moves and truncates pages, §1.3 offset 52), checkpoints that let
// the next write restart the WAL (§4.3). The leaf cells and their overflow chains no longer hold
// together in any view, so no record is carved; the rows' three hashes survive side by side in older
// WAL frames. Round 10's triple search walked only from the live head and rows already placed: a
// deleted block's triples (sealed after live row k, followed by live row k+n) and a reseal's originals
// (sealed after a live row) were never reached, and the file read with no `deleted`/`rewritten`
// finding (the WAL held the proof); a clean reseal of the tail (every column rewritten) read Chain
// VALID. Now the unreached sealed triples are looked up among every live
// row's links (src/main/recovery/orphan-hashes.ts).
//
// Oracle: the file's own bytes. An attacked row is provable when its original three hashes are in
// the database file or its -wal and its sealed links join it, through other provable rows, to a live
// row. Every provable deleted row must be named `deleted` (or `truncated` past the head); every
// provable resealed original `rewritten` — or, where every place holding it is one no commit is known
// for, listed by `recover` as uncommitted (a writer's retry after a failed batch looks the same,
// ./prove.ts). No deleted/truncated/rewritten finding outside the attacked seqs; unattacked files
// read VALID with no finding.
import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { recoverPath } from '../../../src/main/recovery/verdict'
import { Rng } from '../reliability/chainkit'
import { mulberry32 } from '../testing/prng'
import { version, type RowVersion } from '../testing/sealed-writer'
import { evidenceAfter, expectAttack, keysOf } from './attack-findings'
import { generateClaims, seal, type History } from './claims-generator'

type Attack = 'none' | 'delete-middle' | 'truncate-tail' | 'reseal-tail' | 'reseal-middle'
const ATTACKS: Attack[] = ['none', 'delete-middle', 'truncate-tail', 'reseal-tail', 'reseal-middle']
const KIND: Record<Attack, string> = {
  none: '',
  'delete-middle': 'deleted',
  'truncate-tail': 'truncated',
  'reseal-tail': 'rewritten',
  'reseal-middle': 'rewritten',
}

/** Seqs of the attacked rows the file's bytes prove: their triple is there and links join it to a live row. */
function provable(
  originals: Map<bigint, RowVersion>,
  live: Map<string, 'hmac' | 'prev'>,
  bytes: Buffer[],
): Set<bigint> {
  const present = [...originals].filter(([, v]) =>
    bytes.some((b) => b.includes(Buffer.from(`${v.canonical}${v.prev}${v.hmac}`))),
  )
  const known = new Set<string>([...live].filter(([, w]) => w === 'hmac').map(([h]) => h))
  const knownPrev = new Set<string>([...live].filter(([, w]) => w === 'prev').map(([h]) => h))
  const out = new Set<bigint>()
  for (let grew = true; grew;) {
    grew = false
    for (const [s, v] of present)
      if (!out.has(s) && (known.has(v.prev) || knownPrev.has(v.hmac))) {
        out.add(s)
        known.add(v.hmac)
        knownPrev.add(v.prev)
        grew = true
      }
  }
  return out
}

async function attackCase(seed: number): Promise<void> {
  const rnd = mulberry32(seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!
  const pageSize = pick([512, 1024])
  const attack = ATTACKS[seed % ATTACKS.length]!
  const history = pick<History>(['av-moves', 'appends-checkpoints', 'rotation'])
  const rows = 24 + Math.floor(rnd() * 16)
  const name = `#${seed} ${attack} ${history} p${pageSize} ${rows} rows`
  const g = generateClaims(
    {
      name,
      pageSize,
      journal: 'wal',
      history,
      attack: 'none',
      foreign: 'none',
      rows,
      autoVacuum: 'INCREMENTAL',
    },
    seed,
  )
  const rng = new Rng(seed ^ 0x5eed)
  try {
    const seqs = [...g.live.keys()].sort((a, b) => (a < b ? -1 : 1))
    const originals = new Map<bigint, RowVersion>()
    const len = 1 + Math.floor(rnd() * 4)
    const at = attack.endsWith('tail') ? seqs.length - len : 2 + Math.floor(rnd() * (seqs.length - len - 4))
    const block = seqs.slice(at, at + len)
    const liveNow = new Map(g.live)
    const steps: string[] = []
    const evidence = evidenceAfter(g.db, 'after.db', (db) => {
      if (attack === 'delete-middle' || attack === 'truncate-tail') {
        db.prepare('DELETE FROM chain WHERE seq >= ? AND seq <= ?').run(block[0], block.at(-1))
        for (const s of block) liveNow.delete(s)
      } else if (attack !== 'none') {
        let p = g.live.get(seqs[at - 1]!)!.hmac
        for (const q of block) {
          const old = g.live.get(q)!
          const key = g.keys.find((k) => seal(k, old.prev, old.canonical) === old.hmac)!
          const v = version(rng, key, q, p, pageSize === 512 ? 700 : 900, 'resealed')
          db.prepare(
            'UPDATE chain SET timestamp_ns = ?, canonical_body = ?, canonical_hash = ?, prev_hash = ?, hmac_hash = ? WHERE seq = ?',
          ).run(v.ts, v.body, v.canonical, v.prev, v.hmac, q)
          liveNow.set(q, v)
          p = v.hmac
        }
      }
      for (const s of attack === 'none' ? [] : block) originals.set(s, g.live.get(s)!)
      // The writer's ordinary operations afterwards.
      const n = 4 + Math.floor(rnd() * 9)
      for (let i = 0; i < n; i++) {
        const op = pick(['filler', 'incremental', 'passive', 'note'] as const)
        steps.push(op)
        if (op === 'filler') {
          db.exec('CREATE TABLE IF NOT EXISTS filler2 (x BLOB)')
          const k = 2 + Math.floor(rnd() * 10)
          for (let j = 0; j < k; j++)
            db.prepare('INSERT INTO filler2 VALUES (randomblob(?))').run(200 + Math.floor(rnd() * 900))
          db.exec('DROP TABLE filler2')
        } else if (op === 'incremental') {
          const pages = 1 + Math.floor(rnd() * 3)
          for (let j = 0; j < 4 + Math.floor(rnd() * 20); j++) db.pragma(`incremental_vacuum(${pages})`)
        } else if (op === 'passive') db.pragma('wal_checkpoint(PASSIVE)')
        else db.exec('CREATE TABLE IF NOT EXISTS note (x); INSERT INTO note VALUES (1)')
      }
    })
    const bytes = [
      readFileSync(evidence),
      ...(existsSync(`${evidence}-wal`) ? [readFileSync(`${evidence}-wal`)] : []),
    ]
    const links = new Map<string, 'hmac' | 'prev'>()
    for (const v of liveNow.values()) {
      links.set(v.hmac, 'hmac')
      if (!links.has(v.prev)) links.set(v.prev, 'prev')
    }
    const proven = provable(originals, links, bytes)
    const keys = keysOf(g.keys)
    const { verdict } = await verifyFile(evidence, keys, { recover: true, workers: 1 })
    const r = await recoverPath(evidence, keys)
    for (const row of r.rows)
      if (row.key_index !== null && (row.status === 'deleted' || row.status === 'superseded'))
        expect(originals.has(BigInt(row.seq!)), `${name} (recover): seq ${row.seq}`).toBe(true)
    const unc = new Set(r.uncommitted.filter((u) => u.seq !== null).map((u) => u.seq!))
    const kind = KIND[attack]
    expectAttack(verdict, new Set(originals.keys()), kind, `${name} [${steps.join(' ')}]`, {
      mustCover: proven,
      coveredBy: kind === 'deleted' ? ['truncated'] : [],
      excused: (s) => kind === 'rewritten' && unc.has(Number(s)),
    })
  } finally {
    g.cleanup()
  }
}

describe('hashes of rows cut next to a live row are found after incremental_vacuum and checkpoints', () => {
  for (let i = 0; i < 40; i++) {
    const seed = 0x0b11 + i
    it(`seed ${seed}`, () => attackCase(seed))
  }
})
