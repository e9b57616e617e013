// An export's entries show seq, timestamp_ns, span_name and span_kind beside a sealed body, and the
// reference authenticates none of them (§9.2): it answered VALID for an export whose entries said
// `seq: 999`, `span_name: "fake"` or carried a member of the writer's choosing. Generated edits of
// every kind, on entries across a real export (full and ranged, v1 and v2), must each be INVALID
// with a reason naming what disagrees; the honest exports stay VALID.
import { generateKeyPairSync } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readExport, verifyExportDoc } from '../../../src/main/export/verify-export'
import { scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { dbPath, SECRETS } from '../testing/fixtures'

const scratch = scratchDir('export-metadata')
const KEY = Buffer.from(SECRETS['primary']!, 'hex')
const files: { name: string; path: string; pub: string | null }[] = []

beforeAll(() => {
  ensureBuilt()
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const priv = join(scratch.dir, 'priv.pem')
  const pub = join(scratch.dir, 'pub.pem')
  writeFileSync(priv, privateKey.export({ type: 'pkcs8', format: 'pem' }))
  writeFileSync(pub, publicKey.export({ type: 'spki', format: 'pem' }))
  for (const [name, extra, signed] of [
    ['full v1', [], false],
    ['range v2', ['--range', '20:90', '--sign-key', priv], true],
  ] as const) {
    const path = join(scratch.dir, `${name.replace(' ', '-')}.json`)
    const r = bijotel([
      'export',
      '--db',
      dbPath('clean'),
      '--secret-hex',
      SECRETS['primary']!,
      ...extra,
      '-o',
      path,
    ])
    expect(r.code, r.stderr).toBe(0)
    files.push({ name, path, pub: signed ? pub : null })
  }
})
afterAll(() => scratch.cleanup())

type Doc = Record<string, unknown>
type Entry = Record<string, unknown>

/** Generated edits of what an entry shows beside its body (the i-th entry of `doc`). */
function edits(i: number, seed: number): [string, (d: Doc) => void][] {
  const entry = (d: Doc): Entry => (d['entries'] as Entry[])[i]!
  const pick = <T>(xs: T[]): T => xs[(seed + i) % xs.length]!
  return [
    ['seq jumps', (d) => (entry(d)['seq'] = 999_999)],
    ['seq repeats', (d) => (entry(d)['seq'] = (d['entries'] as Entry[])[i === 0 ? 1 : i - 1]!['seq'])],
    ['seq as text', (d) => (entry(d)['seq'] = String(entry(d)['seq']))],
    ['seq fraction', (d) => (entry(d)['seq'] = Number(entry(d)['seq']) + 0.5)],
    [
      'span_name',
      (d) => (entry(d)['span_name'] = pick(['fake', '', 'chat gpt-5', String(entry(d)['span_name']) + ' '])),
    ],
    ['span_kind', (d) => (entry(d)['span_kind'] = pick(['SERVER', 'INTERNAL', null, 'client']))],
    [
      'timestamp_ns',
      (d) => (entry(d)['timestamp_ns'] = Number(entry(d)['timestamp_ns']) + pick([1e6, -1e9, 3.6e12])),
    ],
    ['timestamp_ns zero', (d) => (entry(d)['timestamp_ns'] = 0)],
    ['member in entry', (d) => (entry(d)[pick(['note', 'verified', '__proto__', 'Seq'])] = 'cleared')],
    ['member at top', (d) => (d[pick(['note', 'auditor', 'signed_by'])] = 'cleared')],
  ]
}

function check(path: string, pub: string | null): { ok: boolean; reason: string } {
  const read = readExport(path)
  if ('error' in read) return { ok: false, reason: read.error }
  return verifyExportDoc(read.doc, pub ? [] : [KEY], pub)
}

describe('what an export shows beside its sealed bodies', () => {
  it('honest exports verify', () => {
    for (const f of files) expect(check(f.path, f.pub), f.name).toEqual({ ok: true, reason: 'ok' })
  })

  it('every generated edit of an entry’s unsealed fields, or an added member, is INVALID', () => {
    let tried = 0
    for (const [k, f] of files.entries()) {
      const honest = JSON.parse(readFileSync(f.path, 'utf8')) as Doc
      const n = (honest['entries'] as unknown[]).length
      for (const i of [0, 1, Math.floor(n / 2), n - 1]) {
        for (const [what, edit] of edits(i, k)) {
          const doc = structuredClone(honest)
          // JSON.parse makes `__proto__` an own member; so does this.
          const text = JSON.stringify(doc)
          const parsed = JSON.parse(text) as Doc
          edit(parsed)
          if (JSON.stringify(parsed) === text) continue
          const out = join(scratch.dir, `edit-${k}-${i}-${tried}.json`)
          writeFileSync(out, JSON.stringify(parsed, null, 2))
          const v = check(out, f.pub)
          expect(v.ok, `${f.name} entries[${i}] ${what}`).toBe(false)
          expect(v.reason, `${f.name} entries[${i}] ${what}`).toMatch(
            /covered by no HMAC or signature|not an integer|prev_hash chain break|hmac_hash mismatch/,
          )
          tried++
        }
      }
      // Both ways in one: the segment block and the signature block take no member of their own.
      for (const block of ['segment', 'ed25519_signature']) {
        const doc = structuredClone(honest)
        if (doc[block] === undefined) continue
        ;(doc[block] as Doc)['note'] = 'cleared'
        const out = join(scratch.dir, `block-${k}-${block}.json`)
        writeFileSync(out, JSON.stringify(doc, null, 2))
        expect(check(out, f.pub).reason).toBe(
          `unknown member "note" in ${block}: covered by no HMAC or signature`,
        )
        tried++
      }
    }
    expect(tried).toBeGreaterThan(60)
  })

  it('a v2 signature block that says it covers more, or carries text in its key, is INVALID', () => {
    const f = files.find((x) => x.name === 'range v2')!
    const honest = JSON.parse(readFileSync(f.path, 'utf8')) as Doc
    const key = String((honest['ed25519_signature'] as Doc)['public_key'])
    const variants: [string, unknown][] = [
      ...['entries', 'chain_signature,entries', 'everything', '', null, 1].map((v): [string, unknown] => [
        'signed_over',
        v,
      ]),
      ...[
        `${key} (notarised)`,
        `${key}!!`,
        ` ${key}`,
        `${key}\n`,
        key.replace(/=+$/, ''),
        key.replace(/\+/g, '-').replace(/\//g, '_'),
        `${key}AAAA`,
      ]
        .filter((v) => v !== key)
        .map((v): [string, unknown] => ['public_key', v]),
    ]
    let tried = 0
    for (const [member, value] of variants) {
      const doc = structuredClone(honest)
      ;(doc['ed25519_signature'] as Doc)[member] = value
      const out = join(scratch.dir, `sigblock-${tried++}.json`)
      writeFileSync(out, JSON.stringify(doc, null, 2))
      const v = check(out, f.pub)
      expect(v.ok, `${member} = ${JSON.stringify(value)}`).toBe(false)
      expect(v.reason).toMatch(/^ed25519_signature\.(signed_over is|public_key is not)/)
    }
    expect(tried).toBeGreaterThan(10)
  })

  it('a range export whose segment names other seqs than its entries is INVALID', () => {
    const f = files.find((x) => x.name === 'range v2')!
    for (const [a, b] of [
      [19, 90],
      [20, 91],
      [1, 240],
    ]) {
      const doc = JSON.parse(readFileSync(f.path, 'utf8')) as Doc
      Object.assign(doc['segment'] as Doc, { first_seq: a, last_seq: b })
      const out = join(scratch.dir, `segment-${a}-${b}.json`)
      writeFileSync(out, JSON.stringify(doc, null, 2))
      expect(check(out, f.pub).reason).toMatch(/^segment says seq \d+-\d+, the entries hold 20-90/)
    }
  })
})
