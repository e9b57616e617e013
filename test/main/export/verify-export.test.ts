// `bijotel verify-export` on exports written here from the shared fixtures in Python BIJOTEL's
// layout (reference §9.1): valid ones, every tampering the reference names with its exact reason,
// v2 exports with Ed25519 in auditor mode (and what that mode cannot see, §11.6), a rotated chain's
// export (every candidate key is tried) and a segment export; the golden chain_signature vectors.
import Database from 'better-sqlite3'
import { createHash, createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import { statSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copyFixture, scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { SECRETS } from '../testing/fixtures'
import { GENESIS_HASH } from '../../../src/main/chain/seal'
import { chainSignature, MAX_EXPORT_BYTES } from '../../../src/main/export/verify-export'
import { pyRepr } from '../../../src/main/python/repr'

const scratch = scratchDir('verify-export')
afterAll(() => scratch.cleanup())
beforeAll(() => ensureBuilt())

const key = (name: string): Buffer => Buffer.from(SECRETS[name]!, 'hex')

interface Entry {
  seq: number
  timestamp_ns: number
  trace_id: string | null
  span_id: string | null
  span_name: string | null
  span_kind: string | null
  canonical_body_b64: string
  canonical_hash: string
  semantic_body_hash: string | null
  prev_hash: string
  hmac_hash: string
}

/** The fixture's rows from..to as export entries (read from a scratch copy, never the fixture). */
function entriesOf(fixture: string, from = 1, to = 1e9): Entry[] {
  const db = new Database(copyFixture(fixture, scratch.dir, `${fixture}-${from}-${to}.db`), {
    readonly: true,
  })
  try {
    const rows = db
      .prepare('SELECT * FROM chain WHERE seq BETWEEN ? AND ? ORDER BY seq')
      .all(from, to) as Record<string, unknown>[]
    return rows.map((r) => ({
      seq: r['seq'] as number,
      timestamp_ns: r['timestamp_ns'] as number,
      trace_id: (r['trace_id'] as string) ?? null,
      span_id: (r['span_id'] as string) ?? null,
      span_name: (r['span_name'] as string) ?? null,
      span_kind: (r['span_kind'] as string) ?? null,
      canonical_body_b64: Buffer.from(r['canonical_body'] as Buffer).toString('base64'),
      canonical_hash: r['canonical_hash'] as string,
      semantic_body_hash: (r['semantic_body_hash'] as string) ?? null,
      prev_hash: r['prev_hash'] as string,
      hmac_hash: r['hmac_hash'] as string,
    }))
  } finally {
    db.close()
  }
}

let written = 0
/** An export file of `entries` (§9.1): chain_signature under `secret`, signed when `signer` is given. */
function exportFile(
  entries: Entry[],
  secret: Buffer,
  opts: {
    signer?: { priv: KeyObject; pub: KeyObject }
    segment?: object
    edit?: (doc: Record<string, unknown>) => void
  } = {},
): string {
  const head = entries.at(-1)?.hmac_hash ?? GENESIS_HASH
  const doc: Record<string, unknown> = {
    version: '1.0',
    format: opts.signer ? 'bijotel-chain-v2' : 'bijotel-chain-v1',
    created_at: '2026-12-05T00:00:00.000000+00:00',
    entries_count: entries.length,
    head_hash: head,
    chain_signature: createHmac('sha256', secret).update(`chain:${head}:${entries.length}`).digest('hex'),
    entries,
  }
  if (opts.segment) doc['segment'] = opts.segment
  if (opts.signer) {
    const raw = Buffer.from(opts.signer.pub.export({ format: 'jwk' }).x!, 'base64url')
    doc['ed25519_signature'] = {
      public_key: raw.toString('base64'),
      signature: sign(
        null,
        Buffer.from(doc['chain_signature'] as string, 'ascii'),
        opts.signer.priv,
      ).toString('base64'),
      signed_over: 'chain_signature',
      algorithm: 'Ed25519',
    }
  }
  opts.edit?.(doc)
  const path = join(scratch.dir, `export-${++written}.json`)
  writeFileSync(path, JSON.stringify(doc, null, 2))
  return path
}

function keyPair(): { priv: KeyObject; pub: KeyObject; pem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const pem = join(scratch.dir, `pub-${++written}.pem`)
  writeFileSync(pem, publicKey.export({ format: 'pem', type: 'spki' }))
  return { priv: privateKey, pub: publicKey, pem }
}

const run = (path: string, ...args: string[]): ReturnType<typeof bijotel> =>
  bijotel(['verify-export', path, ...args])
const withPrimary = ['--secret-hex', SECRETS['primary']!]
const invalid = (path: string, ...args: string[]): string => {
  const r = run(path, ...args)
  expect(r.code, r.stderr).toBe(1)
  return r.stdout
    .split('\n')
    .find((l) => l.startsWith('Export INVALID: '))!
    .slice('Export INVALID: '.length)
}

describe('verify-export', () => {
  it('reproduces the reference’s chain_signature vectors', () => {
    const ci = Buffer.from('0011223344556677889900112233445566778899aabbccddeeff00112233aabb', 'hex')
    expect(chainSignature(ci, '01c72102624994aeecccce548b50ef9111e2200c936b058c8249efa8ccf45231', 25)).toBe(
      '7a41465b04a0e1b6914c6f1b3933f57505223cd926a62eb9c57fb1dd8c07bb8b',
    )
    expect(chainSignature(Buffer.from('x'.repeat(32)), GENESIS_HASH, 0)).toBe(
      '9fb0b47dc5b6f37c03891c8e9f9053f86171fe38e2ef0b173b1e05cbcf969d59',
    )
    expect([pyRepr(undefined), pyRepr('v3'), pyRepr(3), pyRepr("it's")]).toEqual([
      'None',
      "'v3'",
      '3',
      `"it's"`,
    ])
  })

  it('a v1 export of the clean chain verifies with its secret, in the reference’s layout', () => {
    const path = exportFile(entriesOf('clean'), key('primary'))
    const r = run(path, ...withPrimary)
    expect(r.code).toBe(0)
    const size = statSync(path).size.toLocaleString('en-US')
    expect(r.stdout).toBe(
      `File:          ${path}\n  format:        bijotel-chain-v1\n  entries_count: 240\n  size:          ${size} bytes\n\nExport VALID — HMAC chain verified.\n`,
    )
  })

  it('the header prints what inspect_export read as Python’s f-strings do (a missing key is None)', () => {
    const clean = entriesOf('clean', 1, 3)
    const k = key('primary')
    const path = exportFile(clean, k, {
      edit: (d) => {
        delete d['entries_count']
        d['format'] = ['v1', "it's"]
      },
    })
    const r = run(path, ...withPrimary)
    expect(r.code).toBe(1)
    expect(r.stdout).toContain(`  format:        ['v1', "it's"]\n  entries_count: None\n`)
    expect(r.stdout).toContain(
      `Export INVALID: Not a bijotel-chain-v1 file (and not v2 either); got format=['v1', "it's"]`,
    )
    // Auditor mode on a file whose format is missing: str(None).
    const bare = exportFile(clean, k, { edit: (d) => delete d['format'] })
    const { pem } = keyPair()
    const a = run(bare, '--public-key', pem)
    expect(a.code).toBe(1)
    expect(a.stdout).toContain('  format:        None\n')
    expect(a.stderr).toContain('this file is None. Either provide --secret-hex')
  })

  it('names every tampering with the reference’s reason', () => {
    const clean = entriesOf('clean')
    const k = key('primary')
    const edited = clean.map((e) =>
      e.seq === 57 ? { ...e, canonical_body_b64: Buffer.from('{}').toString('base64') } : e,
    )
    expect(invalid(exportFile(edited, k), ...withPrimary)).toMatch(
      /^canonical_body tampered at seq=57: body hashes to 44136fa355b3678a\.\.\. but canonical_hash claims [0-9a-f]{16}\.\.\.$/,
    )
    // Body and hash replaced together: only the HMAC can tell.
    const rehashed = clean.map((e) =>
      e.seq === 57
        ? {
            ...e,
            canonical_body_b64: Buffer.from('{}').toString('base64'),
            canonical_hash: '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a',
          }
        : e,
    )
    expect(invalid(exportFile(rehashed, k), ...withPrimary)).toBe('hmac_hash mismatch at seq=57')
    const dropped = clean.filter((e) => e.seq !== 100)
    expect(invalid(exportFile(dropped, k), ...withPrimary)).toBe('prev_hash chain break at seq=101')
    expect(invalid(exportFile(clean, key('attacker')), ...withPrimary)).toBe(
      'chain_signature mismatch — file may be tampered',
    )
    expect(invalid(exportFile(clean, k, { edit: (d) => (d['entries_count'] = 239) }), ...withPrimary)).toBe(
      'entries_count mismatch (239 vs len(entries)=240)',
    )
    expect(
      invalid(
        exportFile(clean.slice(0, 239), k, { edit: (d) => (d['head_hash'] = clean[239]!.hmac_hash) }),
        ...withPrimary,
      ),
    ).toBe('chain_signature mismatch — file may be tampered')
    expect(
      invalid(exportFile(clean, k, { edit: (d) => (d['format'] = 'bijotel-chain-v3') }), ...withPrimary),
    ).toBe("Not a bijotel-chain-v1 file (and not v2 either); got format='bijotel-chain-v3'")
    // Whatever the file holds there is quoted as Python's repr() would (the file is the adversary's).
    for (const [format, shown] of [
      ["it's", `"it's"`],
      [['v1', 'x'], "['v1', 'x']"],
      [null, 'None'],
      [true, 'True'],
      [{ a: 'b"\'' }, `{'a': 'b"\\''}`],
      ['tab\there', "'tab\\there'"],
    ] as const)
      expect(invalid(exportFile(clean, k, { edit: (d) => (d['format'] = format) }), ...withPrimary)).toBe(
        `Not a bijotel-chain-v1 file (and not v2 either); got format=${shown}`,
      )
    expect(invalid(exportFile(clean, k), '--secret-hex', '00112233')).toBe(
      'secret_key must be at least 16 bytes',
    )
    const noBody = clean.map((e) => (e.seq === 3 ? { ...e, canonical_body_b64: undefined } : e))
    expect(invalid(exportFile(noBody as Entry[], k), ...withPrimary)).toBe(
      'missing canonical_body_b64 at seq=3',
    )
    const badB64 = clean.map((e) => (e.seq === 4 ? { ...e, canonical_body_b64: 'not base64!' } : e))
    expect(invalid(exportFile(badB64, k), ...withPrimary)).toBe(
      'canonical_body_b64 not decodable at seq=4: invalid base64',
    )
  })

  it('v2 in auditor mode: the signature is checked against the auditor’s key, and the output says what it cannot see', () => {
    const signer = keyPair()
    const clean = entriesOf('clean')
    const path = exportFile(clean, key('primary'), { signer })
    const auditor = run(path, '--public-key', signer.pem)
    expect(auditor.code).toBe(0)
    expect(auditor.stdout).toMatch(/ {2}signed by: {5}[0-9a-f]{16} \(Ed25519\)\n/)
    expect(auditor.stdout).toContain(
      'Export VALID — Ed25519 signature verified (auditor mode, HMAC not re-checked).\n',
    )
    expect(auditor.stdout).toContain('the entries themselves are not authenticated (reference §11.6)')
    expect(run(path, '--public-key', signer.pem, ...withPrimary).stdout).toContain(
      'Export VALID — HMAC chain + Ed25519 signature both verified.',
    )
    // §11.6: self-consistent forged entries under the original signature block pass auditor mode
    // (a body edited and its hash recomputed: only the HMAC, not checked here, would tell)…
    const forged = exportFile(clean, key('primary'), {
      signer,
      edit: (d) => {
        const entries = d['entries'] as Entry[]
        const e = entries[56]!
        const body = Buffer.from(String(e['canonical_body_b64']), 'base64')
          .toString('utf8')
          .replace(
            /("gen_ai\.usage\.input_tokens":)(\d)/,
            (_m, k: string, d0: string) => k + (d0 === '9' ? '8' : '9'),
          )
        const bytes = Buffer.from(body, 'utf8')
        entries[56] = {
          ...e,
          canonical_body_b64: bytes.toString('base64'),
          canonical_hash: createHash('sha256').update(bytes).digest('hex'),
        }
      },
    })
    expect(run(forged, '--public-key', signer.pem).code).toBe(0)
    // …but not an entry whose unsealed span_name disagrees with its sealed body.
    const renamed = exportFile(clean, key('primary'), {
      signer,
      edit: (d) => {
        const entries = d['entries'] as Entry[]
        entries[56] = { ...entries[56]!, span_name: 'forged' }
      },
    })
    expect(invalid(renamed, '--public-key', signer.pem)).toMatch(
      /^span_name at seq=57 disagrees with the sealed body/,
    )
    // …and another key, a bad signature or a v1 file do not.
    expect(invalid(path, '--public-key', keyPair().pem)).toBe(
      "public key in export does not match auditor's copy (embedded != provided — possible key-swap attack)",
    )
    const resigned = exportFile(clean, key('primary'), {
      signer,
      edit: (d) => (d['chain_signature'] = 'f'.repeat(64)),
    })
    expect(invalid(resigned, '--public-key', signer.pem)).toBe(
      'ed25519 signature does NOT match chain_signature',
    )
    const v1 = exportFile(clean, key('primary'))
    const r = run(v1, '--public-key', signer.pem)
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(
      'ERROR: auditor mode requires a v2 export; this file is bijotel-chain-v1. Either provide --secret-hex or ask the operator to re-export with --sign-key.\n',
    )
    expect(invalid(v1, '--public-key', signer.pem, ...withPrimary)).toBe(
      '--public-key provided but file is bijotel-chain-v1 (only bijotel-chain-v2 carries an Ed25519 signature)',
    )
  })

  it('a rotated chain’s export verifies with both keys (the reference’s cannot), and a segment export from its boundary', () => {
    const rotated = exportFile(entriesOf('rotation'), key('rotated'))
    expect(run(rotated, ...withPrimary, '--secret-hex', SECRETS['rotated']!).code).toBe(0)
    expect(invalid(rotated, '--secret-hex', SECRETS['rotated']!)).toBe('hmac_hash mismatch at seq=1')
    const part = entriesOf('clean', 101, 240)
    const segment = {
      first_seq: 101,
      last_seq: 240,
      total_in_segment: 140,
      total_in_full_chain: 240,
      boundary_prev_hash: part[0]!.prev_hash,
      is_complete_chain: false,
    }
    expect(run(exportFile(part, key('primary'), { segment }), ...withPrimary).code).toBe(0)
    expect(invalid(exportFile(part, key('primary')), ...withPrimary)).toBe('prev_hash chain break at seq=101')
  })

  it('needs a secret or a key; an unreadable file is one line, exit 1', () => {
    const path = exportFile(entriesOf('clean', 1, 5), key('primary'))
    const none = run(path)
    expect(none.code).toBe(2)
    expect(none.stderr).toBe(
      'ERROR: HMAC secret required (--secret-hex or BIJOTEL_HMAC_SECRET) OR --public-key for auditor mode against a v2 export — at least one is required.\n',
    )
    const missing = run('/nonexistent/export.json', ...withPrimary)
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe('ERROR: cannot read export file: File not found: /nonexistent/export.json\n')
    // A directory, and a file past the in-memory limit (sparse: no disk is used), are one line too.
    const dir = run(scratch.dir, ...withPrimary)
    expect(dir.code).toBe(1)
    expect(dir.stderr).toMatch(
      /^ERROR: cannot read export file: export .+ is a directory, not a regular file\n$/,
    )
    const huge = join(scratch.dir, 'huge.json')
    truncateSync((writeFileSync(huge, '{}'), huge), MAX_EXPORT_BYTES + 1)
    const big = run(huge, ...withPrimary)
    expect(big.code).toBe(1)
    expect(big.stderr).toBe(
      `ERROR: cannot read export file: ${huge} is ${MAX_EXPORT_BYTES + 1} bytes; exports over ${MAX_EXPORT_BYTES} bytes are not read into memory\n`,
    )
    const junk = join(scratch.dir, 'junk.json')
    writeFileSync(junk, '{"format": ')
    const bad = run(junk, ...withPrimary)
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/^ERROR: cannot read export file: JSON parse error: .+\n$/)
  })
})
