// A replay match against a row that does not verify proves nothing (reference §11.7), with or
// without a key: a body that does not hash to its canonical_hash, or a prev_hash that is not the
// previous row's hmac_hash, is seen without any key. Generated cases: sealed chains of random
// length, one row tampered (its sealed output_hash replaced by the forger's output's, with or
// without its canonical_hash recomputed; or its prev_hash edited), the forger's output replayed.
// Before the fix a keyless `replay --seq` and `--batch` said MATCH, exit 0, and `POST
// /replay/verify` said `match: true` even under the server's key.
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openScratch, spanRow, updateRow, writeChain } from '../reliability/chainkit'
import { SECRETS } from '../testing/fixtures'
import { serveForSuite } from '../testing/served'
import { http } from '../server/testkit'
import { mulberry32 } from '../testing/prng'
import { bijotel, ensureBuilt } from './testcli'

const KEY = Buffer.from(SECRETS['primary']!, 'hex')
const dir = mkdtempSync(join(tmpdir(), 'bijotel-replay-broken-row-'))
const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex')

type Kind = 'body' | 'body+hash' | 'prev'
interface Case {
  db: string
  seq: number
  kind: Kind
  forged: string
}

function attrs(out: string): Record<string, unknown> {
  return {
    'bijotel.replay.deterministic': true,
    'bijotel.replay.model_version': 'm-1',
    'bijotel.replay.output_hash': sha(out),
    'bijotel.replay.seed': 3,
    'gen_ai.provider.name': 'openai',
  }
}

/** Chains of 2..12 rows; one row tampered as `kind`; the output replayed is what its body now names. */
function makeCases(n: number, seed: number): Case[] {
  const rnd = mulberry32(seed)
  const kinds: Kind[] = ['body', 'body+hash', 'prev']
  const out: Case[] = []
  for (let c = 0; c < n; c++) {
    const rows = 2 + Math.floor(rnd() * 11)
    const db = join(dir, `c${c}.db`)
    const specs = Array.from({ length: rows }, (_, i) =>
      spanRow({
        timestamp_ns: 1_764_000_000_000_000_000n + BigInt(i) * 1_000_000_000n,
        attributes: attrs(`answer ${i}`),
      }),
    )
    writeChain(db, KEY, specs)
    const seq = 1 + Math.floor(rnd() * rows)
    const kind = kinds[c % kinds.length]!
    const t = 1_764_000_000_000_000_000n + BigInt(seq - 1) * 1_000_000_000n
    const forged = kind === 'prev' ? `answer ${seq - 1}` : `forged ${c} ${rnd().toString(36)}`
    const s = openScratch(db)
    try {
      if (kind === 'prev') updateRow(s, BigInt(seq), { prev_hash: sha(`not the link ${c}`) })
      else {
        const body = spanRow({ timestamp_ns: t, attributes: attrs(forged) }).body
        updateRow(
          s,
          BigInt(seq),
          kind === 'body' ? { canonical_body: body } : { canonical_body: body, canonical_hash: sha(body) },
        )
      }
    } finally {
      s.close()
    }
    out.push({ db, seq, kind, forged })
  }
  return out
}

const cases = makeCases(12, 0x7e57)
/** What a keyless check can see: the body hash or the link (a recomputed hash needs the key). */
const keylessVisible = (k: Kind): boolean => k !== 'body+hash'

beforeAll(() => ensureBuilt())
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('replay --seq against a tampered row', () => {
  it('without a key: a break seen without a key is said, exit 3; with the key: exit 3', () => {
    for (const c of cases) {
      const args = ['replay', '--db', c.db, '--seq', String(c.seq), '--output', c.forged]
      const keyless = bijotel(args)
      expect(keyless.stdout, `${c.kind} ${c.db}`).toMatch(/^=== Replay MATCH/)
      if (keylessVisible(c.kind)) {
        expect(keyless.stdout).toMatch(
          /\n {2}row: {12}row does NOT verify \(seen without a key; HMAC not checked\): /,
        )
        expect(keyless.stdout).toMatch(
          /WARNING: the output matches, but the evidence around it does not hold/,
        )
        expect(keyless.code).toBe(3)
        const j = JSON.parse(bijotel([...args, '--json']).stdout) as Record<string, unknown>
        expect(j['row_verified']).toBe(false)
      } else {
        // Nothing a keyless check can see: the reference's block and exit 0, no claim either way.
        expect(keyless.stdout).not.toMatch(/row:/)
        expect(keyless.code).toBe(0)
      }
      const keyed = bijotel([...args, '--secret-hex', SECRETS['primary']!])
      expect(keyed.stdout).toMatch(/row does NOT verify/)
      expect(keyed.code).toBe(3)
    }
  })
})

describe('replay --batch against tampered rows', () => {
  it('without a key: each break seen without a key is row_not_verified, never matched', () => {
    for (const c of cases) {
      const file = join(dir, `b-${c.seq}-${c.kind}.jsonl`)
      writeFileSync(file, JSON.stringify({ seq: c.seq, output: c.forged }) + '\n')
      const r = bijotel(['replay', '--db', c.db, '--batch', file, '--json'])
      const [line] = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(line!['status'], `${c.kind} ${c.db}`).toBe(
        keylessVisible(c.kind) ? 'row_not_verified' : 'matched',
      )
      expect(r.code).toBe(keylessVisible(c.kind) ? 3 : 0)
    }
  })
})

describe('POST /replay/verify with the server key', () => {
  const c = cases.find((x) => x.kind === 'body+hash')!
  const served = serveForSuite({ prefix: 'bijotel-replay-broken-serve-', open: c.db, keys: ['primary'] })
  it('a match against a row that does not verify is match: false, the reason says why', async () => {
    const r = await http(`${served.base}/replay/verify`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ seq: c.seq, replayed_output: c.forged }),
    })
    expect(r.status, r.text).toBe(200)
    const j = r.json as Record<string, unknown>
    expect(Object.keys(j)).toEqual([
      'match',
      'original_hash',
      'replay_hash',
      'deterministic',
      'model_version',
      'reason',
    ])
    expect(j['original_hash']).toBe(sha(c.forged))
    expect(j['replay_hash']).toBe(sha(c.forged))
    expect(j['match']).toBe(false)
    expect(j['reason']).toMatch(
      /^the output hash equals the sealed output_hash, but the row does NOT verify: .*a match against it proves nothing$/,
    )
  })
})
