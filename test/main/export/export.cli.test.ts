// `bijotel export` on the shared fixtures and written chains: every valid fixture exports to a file
// that this project's verify-export accepts and that an independent checker written from reference
// §9 (export_check.py: Python stdlib, `cryptography` for Ed25519 where installed) passes field by
// field and byte for byte (json.dumps layout); range exports carry the segment block; v2 signatures
// verify with Node's crypto.verify (and Python's where it is installed); broken chains, bad keys and
// targets that are the evidence are refused with the reference's lines and exit codes, nothing
// written and the evidence unchanged; the golden chain_signature vectors of reference §12.3; and a
// large chain exports in bounded memory.
import { spawnSync } from 'node:child_process'
import { createHash, createPublicKey, generateKeyPairSync, verify } from 'node:crypto'
import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChainWriter } from '../testing/writer'
import { copyFixture, scratchDir, spanRow, writeChain } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import {
  dbPath,
  expected,
  FIXTURES as FIXTURE_DIR,
  fingerprintFolder,
  fixtureNames,
  SECRETS,
} from '../testing/fixtures'

const scratch = scratchDir('export')
afterAll(() => scratch.cleanup())
beforeAll(() => ensureBuilt())

const hasPython = spawnSync('python3', ['--version']).status === 0
const pythonHasCryptography =
  hasPython &&
  spawnSync('python3', ['-c', 'import cryptography.hazmat.primitives.asymmetric.ed25519']).status === 0

let n = 0
const out = (name = 'x'): string => join(scratch.dir, `${name}-${++n}.json`)

/** Key flags for a fixture's candidate key set, and the hex of its first key (for the checker). */
function keyArgs(names: string[]): { args: string[]; hex: string } {
  const args = names.flatMap((k) =>
    k === 'raw_text' ? ['--secret-text', SECRETS[k]!] : ['--secret-hex', SECRETS[k]!],
  )
  const first = names[0]!
  const hex = first === 'raw_text' ? Buffer.from(SECRETS[first]!, 'utf8').toString('hex') : SECRETS[first]!
  return { args, hex }
}

interface CheckResult {
  ok: boolean
  entries: number
  problems: string[]
  ed25519: string
}

/** The independent checker, against a private copy of the chain (SQLite reads it there). */
function check(exportPath: string, fixture: string, hex: string, pubPem?: string): CheckResult {
  const copy = copyFixture(fixture, scratch.dir, `${fixture}-${++n}.db`)
  const r = spawnSync(
    'python3',
    [join(__dirname, 'export_check.py'), exportPath, copy, hex, ...(pubPem ? [pubPem] : [])],
    {
      encoding: 'utf8',
    },
  )
  if (r.status !== 0 && r.status !== 1) throw new Error(`export_check.py failed: ${r.stderr}`)
  return JSON.parse(r.stdout) as CheckResult
}

function exported(fixture: string, target: string, extra: string[] = []): ReturnType<typeof bijotel> {
  const { args } = keyArgs(expected(fixture).secrets)
  return bijotel(['export', '--db', dbPath(fixture), '-o', target, ...args, ...extra])
}

describe('export of every fixture', () => {
  const before = fingerprintFolder()
  afterAll(() => expect(fingerprintFolder()).toEqual(before))

  for (const name of fixtureNames()) {
    const exp = expected(name)
    const valid = (exp.verify as { valid: boolean }).valid
    it(`${name}: ${valid ? 'exported, and the file verifies' : 'refused (exit 3), nothing written'}`, () => {
      const target = out(name)
      const r = exported(name, target)
      if (!valid) {
        expect(r.code, r.stderr).toBe(3)
        expect(r.stderr).toMatch(/^Chain BROKEN at seq=\d+: /)
        expect(r.stderr).toContain(
          'ERROR: export refused: the rows to export do not verify; nothing was written',
        )
        expect(existsSync(target)).toBe(false)
        return
      }
      expect(r.code, r.stderr).toBe(0)
      const lines = r.stdout.split('\n')
      expect(lines[0]).toBe(`Exported chain to ${target}`)
      expect(lines[1]).toBe('  format:        bijotel-chain-v1')
      const entries = (exp.verify as { entries: number }).entries
      expect(lines[2]).toBe(`  entries_count: ${entries}`)
      expect(lines[3]).toBe(
        `  head_hash:     ${String((exp.verify as { head_hmac: string }).head_hmac).slice(0, 16)}...`,
      )
      expect(lines[4]).toBe(`  size:          ${readFileSync(target).length.toLocaleString('en-US')} bytes`)
      // No temporary file is left beside it.
      expect(readdirSync(scratch.dir).filter((f) => f.endsWith('.tmp'))).toEqual([])
      const { args, hex } = keyArgs(exp.secrets)
      const v = bijotel(['verify-export', target, ...args])
      expect(v.code, v.stdout + v.stderr).toBe(0)
      expect(v.stdout).toContain('Export VALID — HMAC chain verified.')
      if (hasPython && exp.secrets.length === 1) {
        const c = check(target, name, hex)
        expect(c.problems).toEqual([])
        expect(c.entries).toBe(entries)
      }
    })
  }
})

describe('range exports', () => {
  const hex = SECRETS['primary']!
  const cases: [string, string[], number, number][] = [
    ['--range 10:20', ['--range', '10:20'], 10, 20],
    ['--range 1:', ['--range', '1:'], 1, 240],
    ['--last 7', ['--last', '7'], 234, 240],
    ['--last 7 beats --range', ['--range', '3:9', '--last', '7'], 234, 240],
  ]
  for (const [label, flags, first, last] of cases) {
    it(`${label}: seq ${first}-${last} with its segment block, verified by both checkers`, () => {
      const target = out('range')
      const r = bijotel(['export', '--db', dbPath('clean'), '-o', target, '--secret-hex', hex, ...flags])
      expect(r.code, r.stderr).toBe(0)
      const doc = JSON.parse(readFileSync(target, 'utf8')) as {
        entries: { seq: number }[]
        segment: Record<string, unknown>
      }
      expect(doc.entries.map((e) => e.seq)).toEqual(
        Array.from({ length: last - first + 1 }, (_, i) => first + i),
      )
      expect(doc.segment['first_seq']).toBe(first)
      expect(doc.segment['is_complete_chain']).toBe(first === 1 && last === 240)
      // The reference's lines only: its predecessor is in the file, so no Boundary line anywhere.
      expect(r.stdout).not.toContain('Boundary')
      expect(r.stderr).toBe('')
      expect(bijotel(['verify-export', target, '--secret-hex', hex]).code).toBe(0)
      if (hasPython) expect(check(target, 'clean', hex).problems).toEqual([])
    })
  }

  it('--since/--until: the contiguous seq range of the window, linked to its predecessor', () => {
    const full = out('full')
    expect(bijotel(['export', '--db', dbPath('clean'), '-o', full, '--secret-hex', hex]).code).toBe(0)
    const all = (
      JSON.parse(readFileSync(full, 'utf8')) as { entries: { seq: number; timestamp_ns: number }[] }
    ).entries
    const day = new Date(Number(BigInt(all[120]!.timestamp_ns) / 1_000_000n)).toISOString().slice(0, 10)
    const target = out('since')
    const r = bijotel([
      'export',
      '--db',
      dbPath('clean'),
      '-o',
      target,
      '--secret-hex',
      hex,
      '--since',
      day,
      '--until',
      day,
    ])
    expect(r.code, r.stderr).toBe(0)
    const doc = JSON.parse(readFileSync(target, 'utf8')) as {
      entries: { seq: number }[]
      segment: { first_seq: number }
    }
    expect(doc.entries.length).toBeGreaterThan(0)
    expect(bijotel(['verify-export', target, '--secret-hex', hex]).code).toBe(0)
    if (hasPython) expect(check(target, 'clean', hex).problems).toEqual([])
  })

  it('a range with no rows: an empty export (head GENESIS, no segment block), as the reference writes it', () => {
    const target = out('empty-range')
    const r = bijotel([
      'export',
      '--db',
      dbPath('clean'),
      '-o',
      target,
      '--secret-hex',
      hex,
      '--range',
      '500:600',
    ])
    expect(r.code, r.stderr).toBe(0)
    const doc = JSON.parse(readFileSync(target, 'utf8')) as Record<string, unknown>
    expect(doc['entries']).toEqual([])
    expect(doc['head_hash']).toBe('0'.repeat(64))
    expect('segment' in doc).toBe(false)
  })

  it('a range whose predecessor row was deleted is refused: its boundary does not verify', () => {
    const gap = (
      expected('row-deleted').verify as { findings: { kind: string; from_seq: number }[] }
    ).findings.find((f) => f.kind === 'seq_gap')!
    const target = out('gap')
    const r = bijotel([
      'export',
      '--db',
      dbPath('row-deleted'),
      '-o',
      target,
      '--secret-hex',
      hex,
      '--range',
      `${gap.from_seq}:${gap.from_seq + 5}`,
    ])
    expect(r.code, r.stderr).toBe(3)
    expect(r.stdout).toContain('link_mismatch')
    expect(existsSync(target)).toBe(false)
  })
})

describe('a ranged export prints the reference lines only (issue 36)', () => {
  const hex = SECRETS['primary']!
  const trimmed = join(FIXTURE_DIR, 'claims', 'claims-archived-prefix.db')
  it('a trimmed chain (rows 1-100 archived): the trusted boundary is said on stderr, stdout is the reference', () => {
    for (const flags of [[], ['--range', '101:'], ['--range', '120:130'], ['--last', '5']]) {
      const target = out('trimmed')
      const r = bijotel(['export', '--db', trimmed, '-o', target, '--secret-hex', hex, ...flags])
      expect(r.code, r.stderr).toBe(0)
      expect(
        r.stdout
          .split('\n')
          .slice(0, -1)
          .map((l) => l.split(':')[0]!.trim()),
      ).toEqual(['Exported chain to ' + target, 'format', 'entries_count', 'head_hash', 'size'])
      const first = flags.length === 0 || flags[1] === '101:' ? 101 : null
      // Only where the first row's predecessor is absent from the file (seq 101: rows 1-100 are
      // gone); a range starting later is linked to a row that is there, and nothing is said.
      if (first !== null)
        expect(r.stderr).toMatch(
          /^Boundary: prev_hash at seq=101 = [0-9a-f]{16}\.\.\. \(boundary — predecessor not in this DB/,
        )
      else expect(r.stderr).toBe('')
    }
  })
})

describe('v2: signed with an Ed25519 key', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const priv = join(scratch.dir, 'sign.pem')
  const pub = join(scratch.dir, 'sign.pub.pem')
  writeFileSync(priv, privateKey.export({ format: 'pem', type: 'pkcs8' }))
  writeFileSync(pub, publicKey.export({ format: 'pem', type: 'spki' }))

  it('the signature over the chain_signature text verifies with a standard Ed25519 implementation', () => {
    const target = out('v2')
    const hex = SECRETS['primary']!
    const r = bijotel([
      'export',
      '--db',
      dbPath('clean'),
      '-o',
      target,
      '--secret-hex',
      hex,
      '--sign-key',
      priv,
    ])
    expect(r.code, r.stderr).toBe(0)
    const raw = Buffer.from(publicKey.export({ format: 'der', type: 'spki' })).subarray(-32)
    const fp = (): string => createHash('sha256').update(raw).digest('hex').slice(0, 16)
    expect(r.stdout).toContain('  format:        bijotel-chain-v2')
    expect(r.stdout).toContain(`  signed by:     ${fp()} (Ed25519)`)
    const doc = JSON.parse(readFileSync(target, 'utf8')) as {
      chain_signature: string
      ed25519_signature: Record<string, string>
    }
    expect(Object.keys(doc.ed25519_signature)).toEqual([
      'public_key',
      'signature',
      'signed_over',
      'algorithm',
    ])
    expect(Buffer.from(doc.ed25519_signature['public_key']!, 'base64')).toEqual(raw)
    // Node's crypto.verify (OpenSSL's Ed25519, RFC 8032), from the auditor's own public key file.
    const auditorKey = createPublicKey(readFileSync(pub))
    expect(
      verify(
        null,
        Buffer.from(doc.chain_signature, 'ascii'),
        auditorKey,
        Buffer.from(doc.ed25519_signature['signature']!, 'base64'),
      ),
    ).toBe(true)
    // This project's verify-export in auditor mode and with the secret.
    expect(bijotel(['verify-export', target, '--public-key', pub]).stdout).toContain(
      'Export VALID — Ed25519 signature verified',
    )
    expect(bijotel(['verify-export', target, '--public-key', pub, '--secret-hex', hex]).stdout).toContain(
      'Export VALID — HMAC chain + Ed25519 signature both verified.',
    )
    // Python's `cryptography` where it is installed (the checker says 'no library' otherwise).
    if (hasPython) {
      const c = check(target, 'clean', hex, pub)
      expect(c.problems).toEqual([])
      expect(c.ed25519).toBe(pythonHasCryptography ? 'verified' : 'no library')
    }
  })

  it('a key that is not Ed25519 is refused in the reference’s words; a missing one too', () => {
    const rsa = join(scratch.dir, 'rsa.pem')
    writeFileSync(
      rsa,
      generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' }),
    )
    const target = out('rsa')
    const hex = ['--secret-hex', SECRETS['primary']!]
    let r = bijotel(['export', '--db', dbPath('clean'), '-o', target, ...hex, '--sign-key', rsa])
    expect([r.code, r.stderr]).toEqual([
      2,
      'ERROR: export failed: signing key is not Ed25519 (got RSAPrivateKey)\n',
    ])
    r = bijotel([
      'export',
      '--db',
      dbPath('clean'),
      '-o',
      target,
      ...hex,
      '--sign-key',
      join(scratch.dir, 'none.pem'),
    ])
    expect([r.code, r.stderr]).toEqual([
      2,
      `ERROR: --sign-key path not found: ${join(scratch.dir, 'none.pem')}\n`,
    ])
    const garbage = join(scratch.dir, 'garbage.pem')
    writeFileSync(garbage, 'not a key\n')
    r = bijotel(['export', '--db', dbPath('clean'), '-o', target, ...hex, '--sign-key', garbage])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^ERROR: export failed: invalid signing key PEM: .+\n$/)
    expect(existsSync(target)).toBe(false)
  })
})

describe('refusals and errors (reference §4.6: exit 2)', () => {
  const hex = ['--secret-hex', SECRETS['primary']!]
  it('no secret, a missing DB, a short key, bad range flags', () => {
    const target = out('err')
    let r = bijotel(['export', '--db', dbPath('clean'), '-o', target])
    expect(r.code).toBe(2)
    expect(r.stderr.split('\n')[0]).toBe('ERROR: HMAC secret required (--secret-hex or BIJOTEL_HMAC_SECRET).')
    r = bijotel(['export', '--db', join(scratch.dir, 'nope.db'), '-o', target, ...hex])
    expect([r.code, r.stderr]).toEqual([2, `ERROR: chain DB not found: ${join(scratch.dir, 'nope.db')}\n`])
    r = bijotel(['export', '--db', dbPath('clean'), '-o', target, '--secret-hex', '00112233'])
    expect([r.code, r.stderr]).toEqual([2, 'ERROR: export failed: secret_key must be at least 16 bytes\n'])
    r = bijotel(['export', '--db', dbPath('clean'), '-o', target, ...hex, '--since', '2023-13-01'])
    expect([r.code, r.stderr]).toEqual([2, "ERROR: --since must be YYYY-MM-DD, got '2023-13-01'\n"])
    r = bijotel(['export', '--db', dbPath('bad-not-sqlite'), '-o', target, ...hex])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^ERROR: export failed: .+\n$/)
    r = bijotel([
      'export',
      '--db',
      dbPath('clean'),
      '-o',
      join(scratch.dir, 'no', 'such', 'dir.json'),
      ...hex,
    ])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^ERROR: export failed: cannot write .+\n$/)
    expect(existsSync(target)).toBe(false)
  })

  it('never writes over the evidence: the chain file, its side files, a symlink or a hard link to one', () => {
    const dir = join(scratch.dir, 'evidence')
    mkdirSync(dir)
    const db = copyFixture('wal-tail', dir, 'chain.db')
    const sym = join(scratch.dir, 'sym.json')
    symlinkSync(db, sym)
    const hard = join(scratch.dir, 'hard.json')
    linkSync(`${db}-wal`, hard)
    const before = fingerprintFolder(dir)
    for (const [target, which] of [
      [db, 'the chain file'],
      [`${db}-wal`, 'its -wal file'],
      [`${db}-shm`, 'its -shm file'],
      [`${db}-journal`, 'its -journal file'],
      [join(dir, '.', 'chain.db'), 'the chain file'],
      [sym, 'the chain file'],
      [hard, 'its -wal file'],
    ] as const) {
      const r = bijotel(['export', '--db', db, '-o', target, ...hex])
      expect([r.code, r.stderr]).toEqual([
        2,
        `ERROR: export failed: refusing to write the export over the evidence: ${target} is ${which}\n`,
      ])
    }
    expect(fingerprintFolder(dir)).toEqual(before)
  })
})

describe('the reference’s golden values (§12.3)', () => {
  it('the 25-row Go seed chain exports with chain_signature 7a41465b…; an empty chain with 9fb0b47d…', () => {
    const ci = Buffer.from('0011223344556677889900112233445566778899aabbccddeeff00112233aabb', 'hex')
    const seed = join(scratch.dir, 'go-seed.db')
    const w = ChainWriter.open(seed, ci, { mode: 'create' })
    for (let i = 0; i < 25; i++) {
      const start = 1700000000000000000n + BigInt(i) * 1_000_000_000n
      w.appendSpan(
        {
          name: `anthropic.chat.${i}`,
          kind: 'CLIENT',
          attributes: {
            'gen_ai.provider.name': 'anthropic',
            'gen_ai.request.model': 'claude-haiku-4-5',
            'gen_ai.usage.input_tokens': 100 + i,
            'gen_ai.usage.output_tokens': 50 + i,
          },
          statusCode: 'OK',
          statusDescription: null,
          startTimeNs: start,
          endTimeNs: start + 100_000_000n,
        },
        { traceId: (i + 1).toString(16).padStart(32, '0'), spanId: (i + 1).toString(16).padStart(16, '0') },
      )
    }
    w.close()
    const target = out('go-seed')
    expect(bijotel(['export', '--db', seed, '-o', target, '--secret-hex', ci.toString('hex')]).code).toBe(0)
    const doc = JSON.parse(readFileSync(target, 'utf8')) as Record<string, unknown>
    expect(doc['head_hash']).toBe('01c72102624994aeecccce548b50ef9111e2200c936b058c8249efa8ccf45231')
    expect(doc['chain_signature']).toBe('7a41465b04a0e1b6914c6f1b3933f57505223cd926a62eb9c57fb1dd8c07bb8b')

    const x32 = Buffer.from('x'.repeat(32))
    const empty = join(scratch.dir, 'empty.db')
    ChainWriter.open(empty, x32, { mode: 'create' }).close()
    const target2 = out('empty')
    const r = bijotel(['export', '--db', empty, '-o', target2, '--secret-hex', x32.toString('hex')])
    expect(r.code, r.stderr).toBe(0)
    const text = readFileSync(target2, 'utf8')
    expect(text).toMatch(
      /^\{\n {2}"version": "1\.0",\n {2}"format": "bijotel-chain-v1",\n {2}"created_at": "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+00:00",\n {2}"entries_count": 0,\n {2}"head_hash": "0{64}",\n {2}"chain_signature": "9fb0b47dc5b6f37c03891c8e9f9053f86171fe38e2ef0b173b1e05cbcf969d59",\n {2}"entries": \[\]\n\}$/,
    )
  })
})

describe('memory', () => {
  it('a chain larger than the bound exports in flat memory (peak RSS well under the file size)', () => {
    const key = Buffer.from(SECRETS['primary']!, 'hex')
    const big = join(scratch.dir, 'big.db')
    // 6,000 rows of ≈40 KB bodies (overflow pages): a ≈240 MB chain, a ≈330 MB export.
    const filler = 'lorem ipsum dolor sit amet '.repeat(1500)
    const rows = Array.from({ length: 6000 }, (_, i) =>
      spanRow({
        timestamp_ns: 1_764_000_000_000_000_000n + BigInt(i) * 1_000_000_000n,
        attributes: { i, filler },
      }),
    )
    writeChain(big, key, rows)
    const target = out('big')
    const r = bijotel(['export', '--db', big, '-o', target, '--secret-hex', key.toString('hex')], {
      BIJOTEL_TIMING: '1',
    })
    expect(r.code, r.stderr).toBe(0)
    const size = statSync(target).size
    const rss = Number(/timing: maxrss (\d+) MB/.exec(r.stderr)![1])
    expect(size).toBeGreaterThan(300 * 1024 * 1024)
    // Holding the rows, or the file's text, would take more than the file itself.
    expect(rss).toBeLessThan(200)
    expect(bijotel(['verify-export', target, '--secret-hex', key.toString('hex')]).code).toBe(0)
  }, 300_000)
})
