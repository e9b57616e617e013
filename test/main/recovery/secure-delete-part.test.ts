// PRAGMA secure_delete on for part of an attack only (issue 39, round 10): the tail cut row by row,
// secure_delete switched on for some of the rows and off for the others. While the WAL still holds the
// frames before the cut (the writer's checkpoint held), every cut row is found and named, zeroed or
// not. Once the file checkpoints (journal_mode WAL→DELETE), what secure_delete zeroed is gone from the
// file: no finding may claim it, and the rows whose hashes are still in the file's bytes (the oracle)
// are found, from the live head on, as far as their sealed links reach. Generated over which rows were
// zeroed, page sizes and seeds.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { recoverPath } from '../../../src/main/recovery/verdict'
import { mulberry32 } from '../testing/prng'
import { evidenceAfter, expectAttack, keysOf } from './attack-findings'
import { generateClaims } from './claims-generator'

async function partSecure(name: string, pageSize: number, seed: number, checkpoint: boolean) {
  const rnd = mulberry32(seed)
  const g = generateClaims(
    {
      name,
      pageSize,
      journal: 'wal',
      history: 'appends-checkpoints',
      attack: 'none',
      foreign: 'none',
      rows: 24,
    },
    seed,
  )
  try {
    const cut = 2 + Math.floor(rnd() * 4)
    const head = [...g.live.keys()].reduce((a, b) => (a > b ? a : b))
    const attacked = new Set<bigint>()
    const zeroed = new Set<bigint>()
    const cutRows = new Map([...g.live].filter(([s]) => s > head - BigInt(cut)))
    const evidence = evidenceAfter(g.db, 'cut.db', (db) => {
      // Newest first, as a tail is cut one row at a time; each row's own secure_delete setting.
      for (let s = head; s > head - BigInt(cut); s--) {
        const secure = rnd() < 0.5
        db.pragma(`secure_delete = ${secure ? 'ON' : 'OFF'}`)
        db.prepare('DELETE FROM chain WHERE seq = ?').run(s)
        attacked.add(s)
        if (secure) zeroed.add(s)
      }
      if (checkpoint) db.pragma('journal_mode = DELETE')
    })
    const { verdict: v } = await verifyFile(evidence, keysOf(g.keys), { recover: true, workers: 1 })
    expect(v.recovery?.searched, name).toBe(true)
    // Never a finding off the cut rows.
    for (const f of v.findings)
      for (let s = f.from_seq; s <= f.to_seq; s++)
        expect(attacked.has(BigInt(s)), `${name}: ${f.kind} ${s}`).toBe(true)
    if (!checkpoint) {
      expectAttack(v, attacked, 'truncated', name)
      return
    }
    // After the checkpoint: a finding claims no zeroed row; and the oracle is the files' bytes — from
    // the live head on, each cut row whose three hashes are still in them (not zeroed, not overwritten
    // by SQLite's rebalancing) is found at its seq, as far as that run of rows reaches.
    for (const f of v.findings)
      for (let s = f.from_seq; s <= f.to_seq; s++)
        expect(zeroed.has(BigInt(s)), `${name}: zeroed ${s}`).toBe(false)
    const bytes = readFileSync(evidence, 'latin1')
    const found = new Set((await recoverPath(evidence, keysOf(g.keys))).rows.map((r) => r.seq))
    for (let s = head - BigInt(cut) + 1n; s <= head; s++) {
      const r = cutRows.get(s)!
      if (!bytes.includes(r.canonical + r.prev + r.hmac)) break
      expect(zeroed.has(s), `${name}: zeroed ${s} still in the file`).toBe(false)
      expect(found.has(Number(s)), `${name}: seq ${s} in the file, not found`).toBe(true)
    }
  } finally {
    g.cleanup()
  }
}

describe('secure_delete on for part of a cut tail', () => {
  let n = 0
  for (const checkpoint of [false, true])
    for (const pageSize of [512, 1024, 4096])
      for (let k = 0; k < 3; k++) {
        const seed = 0x5dc + n++
        const name = `${checkpoint ? 'checkpointed' : 'WAL held'} (p${pageSize}, seed ${seed})`
        it(name, () => partSecure(name, pageSize, seed, checkpoint))
      }
})
