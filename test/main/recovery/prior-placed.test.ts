// A prior is of this chain when a live row or a *placed recovered row* is its head or links to it
// (issue 39, "Priors"). Generated cases: a chain whose tail was cut and re-extended with resealed
// rows (the prior's head seq holds another row now, nothing live links to the old head) — the prior
// is refused without the search and accepted with it, because the old rows behind the WAL are placed
// by their links; the findings lie exactly on the re-sealed seqs. Adversaries: a prior whose head is
// a row of another chain sealed under the same key and planted in the file (unplaced: refused), or a
// made-up head (refused). And the shared truncated-tail fixture, with its prior and re-extended.
import Database from 'better-sqlite3'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { requirePriorOfOpenChain } from '../../../src/main/audit/prior-chain'
import { verifyFile, verifyOpened } from '../../../src/main/audit/verify-file'
import { OpenedChain } from '../../../src/main/chain/source/opened-chain'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { CHAIN_TABLE_DDL } from '../../../src/main/chain/schema'
import { OTHER_CHAIN } from '../../../src/main/verify/prior-chain'
import type { PriorHead } from '../../../src/shared/verify-types'
import { GENESIS, Rng } from '../reliability/chainkit'
import { FIXTURES, SECRETS } from '../testing/fixtures'
import { CHAIN_DDL, insert, openWriter, version, type RowVersion } from '../testing/sealed-writer'

type PriorKind = 'old-head' | 'foreign-head' | 'made-up'

interface Made {
  db: string
  key: Buffer
  prior: PriorHead
  /** Seqs the cut and re-extension touched. */
  attacked: Set<bigint>
  cleanup(): void
}

/**
 * Cut the last `k` rows of the chain at `work` (opened WAL, no checkpoint) and append `k` resealed
 * rows in their place; the files are copied to `evidence` while the WAL still holds the change.
 */
function cutAndReseal(
  db: Database.Database,
  rng: Rng,
  key: Buffer,
  k: number,
  pad: number,
): { attacked: Set<bigint>; old: Map<bigint, string> } {
  const rows = db.prepare('SELECT seq, hmac_hash FROM chain ORDER BY seq DESC LIMIT ?').all(k + 1) as {
    seq: bigint
    hmac_hash: string
  }[]
  const old = new Map(rows.map((r) => [r.seq, r.hmac_hash]))
  const last = rows[0]!.seq
  const from = last - BigInt(k) + 1n
  db.prepare('DELETE FROM chain WHERE seq >= ?').run(from)
  let prev = old.get(from - 1n)!
  const attacked = new Set<bigint>()
  for (let s = from; s <= last; s++) {
    const v = version(rng, key, s, prev, pad, 'resealed')
    db.transaction(() => insert(db, v))()
    prev = v.hmac
    attacked.add(s)
  }
  return { attacked, old }
}

function make(pageSize: number, kind: PriorKind, seed: number): Made {
  const rng = new Rng(seed)
  const key = rng.bytes(32)
  const dir = mkdtempSync(join(tmpdir(), 'bijotel-priorplaced-'))
  const work = join(dir, 'work.db')
  const evidence = join(dir, 'evidence', 'chain.db')
  mkdirSync(join(dir, 'evidence'))
  const db = openWriter(work, { pageSize, journal: 'wal' })
  const pad = pageSize <= 1024 ? 200 : 400
  const n = 24
  let foreignHead: RowVersion | null = null
  try {
    db.exec(CHAIN_DDL)
    let prev = GENESIS
    for (let s = 1n; s <= BigInt(n); s++) {
      const v = version(rng, key, s, prev, pad, 'original')
      db.transaction(() => insert(db, v))()
      prev = v.hmac
    }
    if (kind === 'foreign-head') {
      // Another chain under the same key, its rows at this chain's seqs, dropped: on the freelist.
      db.exec(CHAIN_TABLE_DDL.replace('IF NOT EXISTS chain', 'IF NOT EXISTS other'))
      let p = rng.chance(0.5) ? GENESIS : rng.hex(64)
      const ins = db.prepare(`INSERT INTO other (seq, timestamp_ns, trace_id, span_id, span_name, span_kind,
        canonical_body, canonical_hash, prev_hash, hmac_hash, semantic_body_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?)`)
      for (let s = BigInt(n - 3); s <= BigInt(n); s++) {
        const v = version(rng, key, s, p, pad, 'foreign')
        ins.run(v.seq, v.ts, v.trace, v.span, v.name, v.kind, v.body, v.canonical, v.prev, v.hmac, v.sem)
        p = v.hmac
        foreignHead = v
      }
      db.exec('DROP TABLE other')
    }
    db.pragma('wal_checkpoint(TRUNCATE)')
    const k = rng.int(2, 5)
    const { attacked, old } = cutAndReseal(db, rng, key, k, pad)
    // The prior's head: one of the cut rows (or the head), as an earlier verdict recorded it.
    const headSeq = BigInt(n) - BigInt(rng.int(0, k - 1))
    const head =
      kind === 'old-head' ? old.get(headSeq)! : kind === 'foreign-head' ? foreignHead!.hmac : rng.hex(64)
    const last = kind === 'foreign-head' ? Number(foreignHead!.seq) : Number(headSeq)
    copyFileSync(work, evidence)
    if (existsSync(`${work}-wal`)) copyFileSync(`${work}-wal`, `${evidence}-wal`)
    return {
      db: evidence,
      key,
      prior: { last_seq: last, head_hmac: head, source: { kind: 'verdict' } },
      attacked,
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    }
  } finally {
    db.close()
  }
}

const keysOf = (key: Buffer): KeyMaterial[] => [{ index: 0, encoding: 'hex', bytes: key }]

describe('a prior whose head only recovery places', () => {
  const kinds: PriorKind[] = ['old-head', 'foreign-head', 'made-up']
  let i = 0
  for (const kind of kinds)
    for (const pageSize of [1024, 4096, 512]) {
      const seed = 0x9a10 + 31 * i++
      it(`${kind} (p${pageSize})`, async () => {
        const m = make(pageSize, kind, seed)
        try {
          const keys = keysOf(m.key)
          // Without the search nothing shows the prior's head: refused, as before.
          await expect(verifyFile(m.db, keys, { prior: m.prior, workers: 1 })).rejects.toThrow(OTHER_CHAIN)
          const run = verifyFile(m.db, keys, { prior: m.prior, recover: true, workers: 1 })
          if (kind !== 'old-head') {
            await expect(run, kind).rejects.toThrow(OTHER_CHAIN)
            return
          }
          const { verdict } = await run
          const head = (verdict.recovered ?? []).find((r) => r.hmac_hash === m.prior.head_hmac)
          expect(head?.seq).toBe(m.prior.last_seq)
          expect(head?.key_index).toBe(0)
          expect(verdict.valid).toBe(false)
          expect(verdict.prior_check?.prior.head_hmac).toBe(m.prior.head_hmac)
          for (const f of verdict.findings)
            for (let s = f.from_seq; s <= f.to_seq; s++)
              expect(m.attacked.has(BigInt(s)), `${f.kind} ${f.from_seq}-${f.to_seq}`).toBe(true)
          expect(verdict.findings.some((f) => f.kind === 'rewritten')).toBe(true)
        } finally {
          m.cleanup()
        }
      })
    }
})

describe("the app's path: choosing the prior, and verify on the opened chain", () => {
  for (const [i, kind] of (['old-head', 'foreign-head'] as PriorKind[]).entries())
    it(kind, async () => {
      const m = make(1024, kind, 0x3b00 + i)
      const chain = await OpenedChain.open(m.db)
      try {
        const keys = keysOf(m.key)
        // Without keys nothing can be placed: refused as before.
        await expect(requirePriorOfOpenChain(chain, m.prior)).rejects.toThrow(OTHER_CHAIN)
        const choose = requirePriorOfOpenChain(chain, m.prior, keys)
        const verify = verifyOpened(chain, keys, { prior: m.prior, recover: true, workers: 1 })
        if (kind === 'foreign-head') {
          await expect(choose).rejects.toThrow(OTHER_CHAIN)
          await expect(verify).rejects.toThrow(OTHER_CHAIN)
          return
        }
        await choose
        const verdict = await verify
        expect(verdict.findings.some((f) => f.kind === 'rewritten')).toBe(true)
        for (const f of verdict.findings)
          for (let s = f.from_seq; s <= f.to_seq; s++) expect(m.attacked.has(BigInt(s))).toBe(true)
      } finally {
        chain.close()
        m.cleanup()
      }
    })
})

describe('the truncated-tail fixture and its prior', () => {
  const key = Buffer.from(SECRETS['primary']!, 'hex')
  const fixture = join(FIXTURES, 'truncated-tail.db')

  it('its prior (head past the live end) is taken, and the cut is reported against it', async () => {
    const { readFileSync } = await import('node:fs')
    const prior = JSON.parse(readFileSync(join(FIXTURES, 'truncated-tail.prior-verify.json'), 'utf8')) as {
      last_seq: number
      head_hmac: string
    }
    const { verdict } = await verifyFile(fixture, keysOf(key), {
      prior: { last_seq: prior.last_seq, head_hmac: prior.head_hmac, source: { kind: 'verdict' } },
      recover: true,
      workers: 1,
    })
    expect(verdict.findings.map((f) => f.kind)).toContain('truncated')
  })

  it('re-extended with resealed rows, its own head as the prior is placed by recovery', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bijotel-priorfix-'))
    try {
      const work = join(dir, 'work.db')
      copyFileSync(fixture, work)
      const db = new Database(work)
      db.defaultSafeIntegers(true)
      db.pragma('journal_mode = WAL')
      db.pragma('wal_autocheckpoint = 0')
      db.pragma('secure_delete = OFF')
      const head = db.prepare('SELECT seq, hmac_hash FROM chain ORDER BY seq DESC LIMIT 1').get() as {
        seq: bigint
        hmac_hash: string
      }
      db.pragma('wal_checkpoint(TRUNCATE)')
      const { attacked } = cutAndReseal(db, new Rng(0x7a11), key, 4, 200)
      mkdirSync(join(dir, 'evidence'))
      const evidence = join(dir, 'evidence', 'chain.db')
      copyFileSync(work, evidence)
      copyFileSync(`${work}-wal`, `${evidence}-wal`)
      db.close()
      const prior: PriorHead = {
        last_seq: Number(head.seq),
        head_hmac: head.hmac_hash,
        source: { kind: 'verdict' },
      }
      await expect(verifyFile(evidence, keysOf(key), { prior, workers: 1 })).rejects.toThrow(OTHER_CHAIN)
      const { verdict } = await verifyFile(evidence, keysOf(key), { prior, recover: true, workers: 1 })
      expect(verdict.valid).toBe(false)
      for (const f of verdict.findings)
        for (let s = f.from_seq; s <= f.to_seq; s++) expect(attacked.has(BigInt(s))).toBe(true)
      expect(verdict.findings.some((f) => f.kind === 'rewritten')).toBe(true)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
