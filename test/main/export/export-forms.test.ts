// What no sealed body holds (trace_id, span_id, semantic_body_hash, created_at, version), the
// segment's counts and the signature block of a v2 file checked without --public-key: the
// reference authenticates none of them (§9.2), and verify-export answered VALID for an export
// whose trace_id read "VERIFIED BY THE COURT", whose created_at was a number, whose segment said
// is_complete_chain: true for a range, or whose signature was bytes of the forger's choosing while
// the header said "signed by <key>". Generated edits of each, on every entry of real exports (full
// and ranged, v1 and v2), are held to one rule: taken exactly when the value is of the writer's
// form (§9.1) — a value of that form cannot be told from the original, and is taken.
import { generateKeyPairSync, sign } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { exactIntegerText, parseIJson } from '../../../src/main/chain/i-json'
import { readExport, verifyExportDoc } from '../../../src/main/export/verify-export'
import { scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { dbPath, SECRETS } from '../testing/fixtures'

const scratch = scratchDir('export-forms')
const KEY = Buffer.from(SECRETS['primary']!, 'hex')
type Doc = Record<string, unknown>
const docs: Record<string, Doc> = {}
const paths: Record<string, string> = {}
let pub = ''

beforeAll(() => {
  ensureBuilt()
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const priv = join(scratch.dir, 'priv.pem')
  pub = join(scratch.dir, 'pub.pem')
  writeFileSync(priv, privateKey.export({ type: 'pkcs8', format: 'pem' }))
  writeFileSync(pub, publicKey.export({ type: 'spki', format: 'pem' }))
  for (const [name, extra] of [
    ['full v1', []],
    ['range v2', ['--range', '20:60', '--sign-key', priv]],
    ['full v2', ['--sign-key', priv]],
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
    const read = readExport(path)
    if ('error' in read) throw new Error(read.error)
    docs[name] = read.doc
    paths[name] = path
  }
})
afterAll(() => scratch.cleanup())

/** The verdict under the HMAC key, and (v2) under the auditor's public key alone. */
function verdicts(d: Doc): string[] {
  const out = [verifyExportDoc(d, [KEY], null).reason]
  if (d['format'] === 'bijotel-chain-v2') out.push(verifyExportDoc(d, [], pub).reason)
  return out
}

/** Values of other kinds and texts, some of them still of the writer's form. */
function variants(v: unknown, seed: number): unknown[] {
  const out: unknown[] = [null, 0, 7, true, {}, [], '', 'VERIFIED BY THE COURT']
  if (typeof v === 'string') {
    const flip = v.replace(/[0-9a-f]/, (c) => (c === '0' ? '1' : '0'))
    out.push(
      v.toUpperCase(),
      `${v}\n`,
      `\u202e${v}`,
      ` ${v}`,
      v.slice(1),
      `${v}0`,
      flip,
      `${flip}`.slice(0, -1) + 'g',
    )
    const digits = '0123456789abcdef'
    out.push(
      Array.from({ length: v.length }, (_, i) => digits[(seed * 7 + i * 13) % 16]).join(''),
      v.replace(/(\d{4})-/, '$1-13-').slice(0, v.length),
      v.replace('+00:00', 'Z'),
      v.replace('+00:00', '+01:00'),
    )
  }
  return out
}

const FORMS: Record<string, (v: unknown) => boolean> = {
  trace_id: (v) => typeof v === 'string' && /^[0-9a-f]{32}$/.test(v),
  span_id: (v) => typeof v === 'string' && /^[0-9a-f]{16}$/.test(v),
  semantic_body_hash: (v) => v === null || (typeof v === 'string' && /^[0-9a-f]{64}$/.test(v)),
  version: (v) => v === '1.0',
  created_at: (v) =>
    typeof v === 'string' &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?\+00:00$/.test(v) &&
    !Number.isNaN(Date.parse(v)) &&
    new Date(Date.parse(v)).toISOString().slice(0, 19) === v.slice(0, 19),
}

describe('export members no body holds are held to the writer forms', () => {
  it('the honest exports are VALID under the HMAC key and the public key', () => {
    for (const [name, d] of Object.entries(docs)) for (const r of verdicts(d)) expect(r, name).toBe('ok')
  })

  it('every edit of an unprovable member is taken exactly when it is of the writer form', () => {
    let refused = 0
    let cases = 0
    for (const [name, doc] of Object.entries(docs)) {
      const entries = doc['entries'] as Doc[]
      const at: [string, (d: Doc) => Doc][] = [
        ['version', (d) => d],
        ['created_at', (d) => d],
      ]
      // The first, a middle and the last entry: every entry passes the same check.
      for (const i of [0, entries.length >> 1, entries.length - 1])
        for (const m of ['trace_id', 'span_id', 'semantic_body_hash'])
          at.push([m, (d) => (d['entries'] as Doc[])[i]!])
      for (const [k, [member, holder]] of at.entries()) {
        const original = holder(doc)[member]
        for (const v of variants(original, k)) {
          const d = structuredClone(doc)
          holder(d)[member] = v
          const rs = verdicts(d)
          cases++
          const what = `${name} ${member}#${k} = ${JSON.stringify(v)}`
          if (FORMS[member]!(v)) for (const r of rs) expect(r, what).toBe('ok')
          else {
            for (const r of rs) expect(r, what).toMatch(new RegExp(`^${member} .*not .*covered by no HMAC`))
            refused++
          }
        }
        // Dropped: absent is no form the writer writes.
        const d = structuredClone(doc)
        delete holder(d)[member]
        for (const r of verdicts(d)) expect(r, `${name} ${member} dropped`).toMatch(/covered by no HMAC/)
      }
    }
    expect(cases).toBeGreaterThan(500)
    expect(refused).toBeGreaterThan(400)
  }, 180_000)

  it("the segment's counts must be the entries' (as §9.1 computes them)", () => {
    const doc = docs['range v2']!
    const seg = doc['segment'] as Doc
    const n = (doc['entries'] as Doc[]).length
    const cases: [string, Doc, boolean][] = [
      ['honest', {}, true],
      ['complete claimed', { is_complete_chain: true }, false],
      ['complete as text', { is_complete_chain: 'false' }, false],
      ['fewer in segment', { total_in_segment: n - 1 }, false],
      ['more in segment', { total_in_segment: n + 1 }, false],
      ['segment count as text', { total_in_segment: String(n) }, false],
      ['chain smaller than segment', { total_in_full_chain: n - 1 }, false],
      ['chain count null', { total_in_full_chain: null }, false],
      ['chain count fraction', { total_in_full_chain: 240.5 }, false],
      // Another total the entries cannot refute: the range still is not the whole chain.
      ['another total', { total_in_full_chain: 1000 }, true],
      // A total that makes 20..60 complete only if first_seq were 1: still not complete.
      ['total equal last', { total_in_full_chain: 60 }, true],
    ]
    for (const [what, change, ok] of cases) {
      const d = structuredClone(doc)
      Object.assign(d['segment'] as Doc, change)
      for (const r of verdicts(d)) {
        if (ok) expect(r, what).toBe('ok')
        else expect(r, what).toMatch(/^segment\..*covered by no HMAC/)
      }
    }
    expect(seg['is_complete_chain']).toBe(false)
    const full = structuredClone(docs['full v1']!)
    full['segment'] = {
      first_seq: 1,
      last_seq: 240,
      total_in_segment: 240,
      total_in_full_chain: 240,
      boundary_prev_hash: '0'.repeat(64),
      is_complete_chain: false,
    }
    expect(verifyExportDoc(full, [KEY], null).reason).toMatch(/^segment\.is_complete_chain is false/)
    ;(full['segment'] as Doc)['is_complete_chain'] = true
    expect(verifyExportDoc(full, [KEY], null).reason).toBe('ok')
  })

  it('a v2 signature block checked without --public-key must hold under the key it carries', () => {
    const doc = docs['full v2']!
    const block = doc['ed25519_signature'] as Doc
    const sig = Buffer.from(block['signature'] as string, 'base64')
    // Every bit of the signature flipped in turn: the header would say "signed by" the embedded key.
    for (let bit = 0; bit < sig.length * 8; bit += 3) {
      const bad = Buffer.from(sig)
      bad[bit >> 3]! ^= 1 << (bit & 7)
      const d = structuredClone(doc)
      ;(d['ed25519_signature'] as Doc)['signature'] = bad.toString('base64')
      expect(verifyExportDoc(d, [KEY], null).reason, `bit ${bit}`).toMatch(
        /^ed25519 signature (does NOT match chain_signature|refused) under the key the file carries/,
      )
    }
    // Another key embedded, the signature left: refused. That key's own signature: taken (the
    // header then names the key that did sign the chain_signature).
    const other = generateKeyPairSync('ed25519')
    const otherRaw = Buffer.from(other.publicKey.export({ format: 'jwk' }).x!, 'base64url')
    const swapped = structuredClone(doc)
    ;(swapped['ed25519_signature'] as Doc)['public_key'] = otherRaw.toString('base64')
    expect(verifyExportDoc(swapped, [KEY], null).reason).toMatch(/^ed25519 signature does NOT match/)
    ;(swapped['ed25519_signature'] as Doc)['signature'] = sign(
      null,
      Buffer.from(doc['chain_signature'] as string, 'ascii'),
      other.privateKey,
    ).toString('base64')
    expect(verifyExportDoc(swapped, [KEY], null).reason).toBe('ok')
    // The format and the block must agree.
    const unsigned = structuredClone(doc)
    delete unsigned['ed25519_signature']
    expect(verifyExportDoc(unsigned, [KEY], null).reason).toMatch(
      /bijotel-chain-v2 \(signed\) and carries no/,
    )
    const v1 = structuredClone(docs['full v1']!)
    v1['ed25519_signature'] = structuredClone(block)
    expect(verifyExportDoc(v1, [KEY], null).reason).toMatch(/only bijotel-chain-v2 carries one/)
  })

  it('a timestamp_ns 1 ns off (most often the same double) is read as written and disagrees with the body; the double rounding a JavaScript writer makes is taken', () => {
    let n = 0
    for (const [name, path] of Object.entries(paths)) {
      const text = readFileSync(path, 'utf8')
      const literals = [...text.matchAll(/"timestamp_ns": (\d+)/g)]
      for (const [k, m] of literals.entries()) {
        if (k % 37 !== 0 && k !== literals.length - 1) continue
        const sealed = m[1]!
        const honest = [String(Number(sealed)), String(BigInt(Number(sealed)))]
        const swap = (literal: string): Doc => {
          const out = join(scratch.dir, `ts-${++n}.json`)
          writeFileSync(out, text.slice(0, m.index + 16) + literal + text.slice(m.index + 16 + sealed.length))
          const read = readExport(out)
          if ('error' in read) throw new Error(read.error)
          return read.doc
        }
        for (const delta of [1n, -1n, 2n, -7n, 63n, 64n, -64n, 100n, 127n, 255n]) {
          const edited = String(BigInt(sealed) + delta)
          // The forms an honest writer in JavaScript writes for this time are taken (below).
          if (honest.includes(edited)) continue
          expect(verifyExportDoc(swap(edited), [KEY], null).reason, `${name} #${k} ${delta}`).toMatch(
            /^timestamp_ns at seq=\d+ disagrees with the sealed body/,
          )
        }
        // The sealed time rounded to a double, as JSON.stringify writes it and as BigInt() widens it
        // back (an export built from better-sqlite3's doubles), is the writer's rounding, not an edit.
        for (const literal of honest)
          expect(verifyExportDoc(swap(literal), [KEY], null), `${name} #${k} ${literal}`).toMatchObject({
            ok: true,
          })
      }
    }
    expect(n).toBeGreaterThan(20)
    // Where the literals cannot be matched to their places (an index-like member name, enumerated
    // first by JavaScript), none is kept and the doubles stand.
    const doc = parseIJson('{"b": 1764001812774471483, "1": 1764001812774471484}', {
      maxDepth: 8,
      maxValues: 10,
      largeIntegers: true,
    }) as Doc
    expect(exactIntegerText(doc, 'b')).toBeUndefined()
    const kept = parseIJson('{"a": [1764001812774471483], "b": 1764001812774471484}', {
      maxDepth: 8,
      maxValues: 10,
      largeIntegers: true,
    }) as Doc
    expect(exactIntegerText(kept['a'] as object, 0)).toBe('1764001812774471483')
    expect(exactIntegerText(kept, 'b')).toBe('1764001812774471484')
  })
})
