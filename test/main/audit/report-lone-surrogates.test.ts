// A report of a chain whose text holds lone surrogates (round 8): a body's provider name written
// `"\ud800x"` is read by json.loads and JSON.parse alike as a string with a lone surrogate, and the
// chain verifies VALID. The integrity run names the provider that moved, so the report held it:
// signing refused the report ("cannot be canonicalized (RFC 8785)"), and the unsigned one was
// refused by report verify and verify --prior, its own checkers ("not I-JSON: lone surrogate").
// Generated: lone high and low surrogates alone, at either end, in the middle, two of them, a
// reversed pair, beside controls and bidi overrides, each as a provider name in the second half of
// a VALID chain. Each report must sign, read back strictly (JSON and HTML), verify field for field
// against its chain, be taken as a prior, and show the surrogate as printable() does. Two provider
// names that write the same (`"\ud800"` and a literal `"<U+D800>"`) are refused in one line.
import Database from 'better-sqlite3'
import { createHash, createHmac, generateKeyPairSync } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { buildAuditReport } from '../../../src/main/audit/build-report'
import { checkReport } from '../../../src/main/audit/check-report'
import { AuditError } from '../../../src/main/base/errors'
import { parseSecrets } from '../../../src/main/chain/keys'
import { OpenedChain } from '../../../src/main/chain/source/opened-chain'
import { renderReportHtml } from '../../../src/main/custody/html/render'
import { parseReportText, priorFrom } from '../../../src/main/custody/report-file'
import { signReport } from '../../../src/main/custody/sign'
import { jsonPrintable, printable } from '../../../src/shared/printable'
import { CHAIN_TABLE_DDL } from '../../../src/main/chain/schema'
import { scratchDir } from '../reliability/chainkit'

const scratch = scratchDir('report-lone-surrogates')
afterAll(() => scratch.cleanup())

const SECRET = '62696a6f74656c2d64656d6f2d7365637265742d6e6f742d666f722d70726f64'
const KEYS = parseSecrets([{ encoding: 'hex', value: SECRET }])
const { privateKey, publicKey } = generateKeyPairSync('ed25519')
let n = 0

/** A VALID chain of `rows` rows: provider openai, then (second half) the `names` in turn. */
function chainWith(names: string[], rows = 40): string {
  const path = join(scratch.dir, `chain-${++n}.db`)
  const db = new Database(path)
  db.exec(CHAIN_TABLE_DDL)
  const ins = db.prepare(
    `INSERT INTO chain (seq, timestamp_ns, trace_id, span_id, span_name, span_kind, canonical_body,
     canonical_hash, prev_hash, hmac_hash, semantic_body_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
  )
  const key = Buffer.from(SECRET, 'hex')
  let prev = '0'.repeat(64)
  let ts = 1_764_000_000_000_000_000n
  db.transaction(() => {
    for (let i = 1; i <= rows; i++) {
      ts += 60_000_000_000n
      const provider = i > rows / 2 ? names[i % names.length]! : 'openai'
      // JSON.stringify writes a lone surrogate as its \u escape (well-formed JSON, ECMA-262 §25.5.2.3),
      // which is how Python's json.dumps writes one too.
      const body = Buffer.from(
        JSON.stringify({
          attributes: { 'gen_ai.provider.name': provider, 'gen_ai.request.model': 'gpt-4o' },
          end_time_ns: ts.toString(),
          kind: 'CLIENT',
          name: 'chat gpt-4o',
          start_time_ns: (ts - 1000n).toString(),
        }),
      )
      const canonical = createHash('sha256').update(body).digest('hex')
      const hmac = createHmac('sha256', key)
        .update(prev + canonical, 'utf8')
        .digest('hex')
      ins.run(
        i,
        ts,
        'a'.repeat(32),
        'b'.repeat(16),
        'chat gpt-4o',
        'CLIENT',
        body,
        canonical,
        prev,
        hmac,
        null,
      )
      prev = hmac
    }
  })()
  db.close()
  return path
}

/** Hostile provider names: lone surrogates in every position, with other unprintable text. */
function hostileNames(): string[] {
  const out: string[] = []
  for (const s of [0xd800, 0xdbff, 0xdc00, 0xdfff, 0xd9a5, 0xde01]) {
    const c = String.fromCharCode(s)
    out.push(c, `${c}x`, `x${c}`, `a${c}b`, `${c}${c}`, `\u202e${c}\u0000`)
  }
  out.push('\udc00\ud800', 'ok\ud83d\ude00\ud800', '\ud800<U+D801>')
  return out
}

async function reportOf(db: string) {
  const chain = await OpenedChain.open(db)
  try {
    return await buildAuditReport({ chain, keys: KEYS, integrityOptions: { all: true } })
  } finally {
    chain.close()
  }
}

describe('a chain whose provider names hold lone surrogates', () => {
  it.each(hostileNames().map((h) => [jsonPrintable(h), h]))(
    '%s: signs, reads back, verifies and is taken as a prior',
    async (_label, hostile) => {
      const db = chainWith([hostile])
      const signed = signReport(await reportOf(db), privateKey)
      const text = JSON.stringify(signed, null, 2)
      const shifts = Object.keys(signed.integrity.report.provider_shift!.shifts)
      // The name as a person reads it everywhere else (printable()), its other characters kept.
      expect(shifts).toContain(
        hostile.replace(/[\ud800-\udfff]/g, (c, i: number, s: string) => {
          const paired =
            (c < '\udc00' && /[\udc00-\udfff]/.test(s[i + 1] ?? '')) ||
            (c >= '\udc00' && /[\ud800-\udbff]/.test(s[i - 1] ?? ''))
          return paired ? c : printable(c)
        }),
      )
      for (const [format, bytes] of [
        ['json', text],
        ['html', renderReportHtml(signed)],
      ] as const) {
        const read = parseReportText(bytes, `r.${format}`)
        expect(read.format).toBe(format)
        const r = await checkReport({ read, reportPath: `r.${format}`, dbPath: db, keys: KEYS, publicKey })
        expect(r.summary).toMatch(/every checked field reproduces .*signature valid against the given key/)
        expect(r.ok).toBe(true)
        expect(priorFrom(read, `r.${format}`).head_hmac).toBe(signed.coverage!.rows.head_hmac)
      }
    },
  )

  it('two names that write the same are refused in one line, not one of them dropped', async () => {
    const db = chainWith(['\ud800', '<U+D800>'])
    let err: unknown
    try {
      await reportOf(db)
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(AuditError)
    expect((err as AuditError).message).toMatch(/both written "<U\+D800>".*cannot hold both/)
    expect((err as AuditError).message).not.toContain('\n')
  })
})
