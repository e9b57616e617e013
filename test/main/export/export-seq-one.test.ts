// Round 8: an export whose rows are another export's shifted (rows A-B of a chain shown as seq
// 1-(B-A+1)). No seq is sealed, and the metadata checks held the seqs to follow one another and the
// segment to name them, so a range export relabelled from seq 1 — its segment saying first_seq 1,
// total_in_full_chain its own count and is_complete_chain true — read "Export VALID — HMAC chain
// verified" (and VALID with the auditor's public key: the chain_signature is over the head and the
// count only): a complete chain of 10 rows, where the file holds rows 2-11 of 30. The one seq a link
// proves is seq 1: the chain's first row is sealed after the genesis hash (verify holds a chain.db's
// to it). Generated: range exports of random extents, v1 and v2, relabelled to start at 1 with the
// segment made consistent in each way a writer could, each INVALID naming seq 1; the honest
// exports (whole chain, ranges from seq 1 and later) stay VALID.
import { generateKeyPairSync } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readExport, verifyExportDoc } from '../../../src/main/export/verify-export'
import { scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { dbPath, SECRETS } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'

const scratch = scratchDir('export-seq-one')
afterAll(() => scratch.cleanup())
const KEY = Buffer.from(SECRETS['primary']!, 'hex')
const rnd = mulberry32(0x5e91)
let pub = ''
const exports: { path: string; from: number; to: number; signed: boolean }[] = []

beforeAll(() => {
  ensureBuilt()
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const priv = join(scratch.dir, 'priv.pem')
  pub = join(scratch.dir, 'pub.pem')
  writeFileSync(priv, privateKey.export({ type: 'pkcs8', format: 'pem' }))
  writeFileSync(pub, publicKey.export({ type: 'spki', format: 'pem' }))
  // clean.db holds seq 1-240.
  const ranges: [number, number][] = [
    [1, 240],
    [1, 17],
    [2, 11],
    [2, 240],
  ]
  for (let n = 0; n < 4; n++) {
    const from = 2 + Math.floor(rnd() * 150)
    ranges.push([from, from + Math.floor(rnd() * (240 - from))])
  }
  for (const [i, [from, to]] of ranges.entries()) {
    const signed = i % 2 === 0
    const path = join(scratch.dir, `export-${i}.json`)
    const r = bijotel([
      'export',
      '--db',
      dbPath('clean'),
      '--secret-hex',
      SECRETS['primary']!,
      '--range',
      `${from}:${to}`,
      ...(signed ? ['--sign-key', priv] : []),
      '-o',
      path,
    ])
    expect(r.code, r.stderr).toBe(0)
    exports.push({ path, from, to, signed })
  }
}, 120_000)

type Doc = Record<string, unknown>
type Entry = Record<string, unknown>

/** Both trust anchors the export can be checked with: the HMAC key, and for v2 the public key. */
function verdicts(doc: Doc, signed: boolean): { ok: boolean; reason: string }[] {
  const out = [verifyExportDoc(doc, [KEY], null)]
  if (signed) out.push(verifyExportDoc(doc, [], pub))
  return out
}

/** The export's rows relabelled from seq 1, its segment made to agree in the ways a writer could. */
function relabelled(path: string): [string, Doc][] {
  const ways: [string, (seg: Entry, n: number) => void][] = [
    ['segment kept but its seqs', (seg, n) => Object.assign(seg, { first_seq: 1, last_seq: n })],
    [
      'a complete chain of its own rows',
      (seg, n) =>
        Object.assign(seg, { first_seq: 1, last_seq: n, total_in_full_chain: n, is_complete_chain: true }),
    ],
    [
      'a part of a longer chain',
      (seg, n) =>
        Object.assign(seg, {
          first_seq: 1,
          last_seq: n,
          total_in_full_chain: n + 1 + Math.floor(rnd() * 500),
        }),
    ],
  ]
  return ways.map(([name, edit]) => {
    const doc = JSON.parse(readFileSync(path, 'utf8')) as Doc
    const entries = doc['entries'] as Entry[]
    entries.forEach((e, i) => (e['seq'] = i + 1))
    edit(doc['segment'] as Entry, entries.length)
    return [name, doc]
  })
}

describe('an export whose rows are shown from seq 1', () => {
  it('honest exports, from seq 1 and later, verify', () => {
    for (const e of exports) {
      const read = readExport(e.path)
      if ('error' in read) throw new Error(read.error)
      for (const v of verdicts(read.doc, e.signed))
        expect(v, `${e.from}:${e.to}`).toEqual({ ok: true, reason: 'ok' })
    }
  })

  it('rows from a later seq relabelled from seq 1 are INVALID, naming seq 1', () => {
    let cases = 0
    for (const e of exports.filter((x) => x.from > 1))
      for (const [way, doc] of relabelled(e.path))
        for (const v of verdicts(doc, e.signed)) {
          cases++
          expect(v.ok, `${e.from}:${e.to} ${way}`).toBe(false)
          expect(v.reason).toMatch(/^seq 1 at entries\[0\] links to "[0-9a-f]{64}", not the genesis hash/)
        }
    expect(cases).toBeGreaterThanOrEqual(20)
  })

  it('the CLI says INVALID in one line (exit 1)', () => {
    const e = exports.find((x) => x.from > 1 && x.signed)!
    const [, doc] = relabelled(e.path)[1]!
    const path = join(scratch.dir, 'relabelled.json')
    writeFileSync(path, JSON.stringify(doc))
    for (const args of [
      ['--secret-hex', SECRETS['primary']!],
      ['--public-key', pub],
    ]) {
      const r = bijotel(['verify-export', path, ...args])
      expect(r.code, r.stdout + r.stderr).toBe(1)
      expect(r.stdout + r.stderr).toMatch(/Export INVALID: seq 1 at entries\[0\] links to/)
      expect(r.stdout + r.stderr).not.toMatch(/Export VALID/)
    }
  })
})
