// Keys off the command line (issue 22; issue 29 item 5): --secret-file and --secret-stdin on every
// command that takes a key, the key-file format (one key per line, hex: / text: prefixes, #
// comments), the documented order with --secret-hex/--secret-text, errors that name the line but
// never the key, and serve's --api-key-file. Runs the built `bin/bijotel` (serve in process).
import Database from 'better-sqlite3'
import { spawnSync } from 'node:child_process'
import { createHmac } from 'node:crypto'
import { chmodSync, existsSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCommand } from '../../../src/main/cli/command'
import { BIN, ensureBuilt, type CliResult } from '../testing/cli'
import { beforeEvidence } from '../testing/evidence'
import { dbPath, fingerprintFolder, SECRETS } from '../testing/fixtures'
import { KEY_HEX, OTHER_KEY_HEX, SmallChains } from './testing/small-chain'
import { createServeCommand, memoryIO } from '../testing/cli-io'

const PRIMARY = SECRETS['primary']!
const ROTATED = SECRETS['rotated']!
const RAW = SECRETS['raw_text']!

/** `bin/bijotel` with `input` on stdin and no BIJOTEL_HMAC_SECRET unless given. */
function run(args: string[], input = '', env: Record<string, string> = {}): CliResult {
  const clean = { ...process.env }
  delete clean['BIJOTEL_HMAC_SECRET']
  const r = spawnSync(process.execPath, [BIN, ...args], {
    input,
    encoding: 'utf8',
    env: { ...clean, ...env },
    timeout: 120_000,
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

let kit: SmallChains
let chain: string
let before: Map<string, string>
let n = 0
function keyFile(text: string | Buffer): string {
  const p = kit.path(`keys-${++n}.txt`)
  writeFileSync(p, text, { mode: 0o600 })
  return p
}

beforeAll(() => {
  ensureBuilt()
  before = fingerprintFolder()
  kit = new SmallChains()
  chain = kit.write(40)
})
afterAll(() => {
  kit.dispose()
  expect(fingerprintFolder()).toEqual(before)
})

describe('the key-file format', () => {
  it('comments, blank lines, hex: and text: prefixes, CRLF endings, spaces in hex; keys in file order', () => {
    const spaced = PRIMARY.replace(/(..)/g, '$1 ').trim()
    const p = keyFile(`# rotation.db's keys\r\n\r\n  hex:${spaced}\r\n${ROTATED}\r\n# end\r\n`)
    const r = run(['verify', '--db', dbPath('rotation'), '--secret-file', p, '--json'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const v = JSON.parse(r.stdout)
    expect(v.key_segments.map((s: { key_index: number }) => s.key_index)).toEqual([0, 1])
    const raw = run(['verify', '--db', dbPath('raw-secret'), '--secret-file', keyFile(`text:${RAW}\n`)])
    expect(raw.code).toBe(0)
    expect(raw.stdout.split('\n')[0]).toMatch(/^Chain VALID \(\d+ entries\)\.$/)
  })

  it('a bad line is named by its number; no part of any key is printed', () => {
    const secretLooking = 'zz' + PRIMARY.slice(2)
    const p = keyFile(`# keys\n${PRIMARY}\n${secretLooking}\n`)
    const r = run(['verify', '--db', chain, '--secret-file', p])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(
      `ERROR: --secret-file ${p}, line 3: not valid hex (${secretLooking.length} characters); write text: before a raw UTF-8 key\n`,
    )
    for (const k of [PRIMARY, secretLooking]) {
      for (let i = 0; i + 6 <= k.length; i += 6) expect(r.stderr).not.toContain(k.slice(i, i + 6))
    }
    const empty = run(['verify', '--db', chain, '--secret-file', keyFile('text:\n')])
    expect(empty.stderr).toMatch(/, line 1: empty text: key\n$/)
    expect(empty.code).toBe(2)
  })

  it('no key in the file, a missing file, a binary file: one line, exit 2', () => {
    const none = keyFile('# nothing yet\n\n')
    expect(run(['verify', '--db', chain, '--secret-file', none]).stderr).toBe(
      `ERROR: --secret-file ${none}: no key in it (only blank lines and # comments)\n`,
    )
    const missing = kit.path('no-such-keys.txt')
    const m = run(['verify', '--db', chain, '--secret-file', missing])
    expect(m.code).toBe(2)
    expect(m.stderr).toBe(`ERROR: --secret-file not found: ${missing}\n`)
    const bin = run(['verify', '--db', chain, '--secret-file', keyFile(Buffer.from([0x78, 0, 0x79]))])
    expect(bin.stderr).toMatch(/: holds a NUL byte, not a key file\n$/)
  })

  it('order: --secret-hex, --secret-text, --secret-file, --secret-stdin (key_index says which sealed)', () => {
    const r = run(
      [
        'verify',
        '--db',
        chain,
        '--secret-hex',
        OTHER_KEY_HEX,
        '--secret-file',
        keyFile(`${OTHER_KEY_HEX}\n`),
        '--secret-stdin',
        '--json',
      ],
      `${KEY_HEX}\n`,
    )
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).key_segments).toEqual([{ key_index: 2, from_seq: 1, to_seq: 40, count: 40 }])
  })

  it('BIJOTEL_HMAC_SECRET is used only when no option gave a key; an empty --secret-hex never falls back to it', () => {
    const envOnly = run(['verify', '--db', chain], '', { BIJOTEL_HMAC_SECRET: KEY_HEX })
    expect(envOnly.code).toBe(0)
    const fileWins = run(['verify', '--db', chain, '--secret-file', keyFile(`${OTHER_KEY_HEX}\n`)], '', {
      BIJOTEL_HMAC_SECRET: KEY_HEX,
    })
    expect(fileWins.code).toBe(3)
    const empty = run(['verify', '--db', chain, '--secret-hex', ''], '', { BIJOTEL_HMAC_SECRET: KEY_HEX })
    expect(empty.stderr).toBe('ERROR: an empty --secret-hex was given\n')
    expect(empty.code).toBe(2)
  })
})

describe('--secret-stdin', () => {
  it('verify reads the keys from a pipe', () => {
    const r = run(['verify', '--db', chain, '--secret-stdin'], `# piped\n${KEY_HEX}\n`)
    expect(beforeEvidence(r.stdout)).toBe('Chain VALID (40 entries).\n')
    expect(r.code).toBe(0)
  })
  it('an empty stdin is no key, in one line', () => {
    const r = run(['verify', '--db', chain, '--secret-stdin'], '')
    expect(r.stderr).toBe('ERROR: --secret-stdin: no key in it (only blank lines and # comments)\n')
    expect(r.code).toBe(2)
  })
})

describe('every command that takes a key', () => {
  it('verify-continuity', () => {
    const r = run(['verify-continuity', chain, '--secret-file', keyFile(`${KEY_HEX}\n`)])
    expect(r.code).toBe(0)
    expect(r.stdout).not.toContain('HMACs not checked')
    expect(r.stdout).toContain('Full chain: 40 entries across 1 segments, CONTINUOUS.')
  })

  it('verify-export', () => {
    const db = new Database(chain, { readonly: true })
    const rows = db.prepare('SELECT * FROM chain ORDER BY seq').all() as Record<string, unknown>[]
    db.close()
    const head = String(rows.at(-1)!['hmac_hash'])
    const doc = {
      version: '1.0',
      format: 'bijotel-chain-v1',
      created_at: '2026-01-01T00:00:00.000000+00:00',
      entries_count: rows.length,
      head_hash: head,
      chain_signature: createHmac('sha256', Buffer.from(KEY_HEX, 'hex'))
        .update(`chain:${head}:${rows.length}`)
        .digest('hex'),
      entries: rows.map((r) => ({
        ...r,
        canonical_body: undefined,
        canonical_body_b64: Buffer.from(r['canonical_body'] as Buffer).toString('base64'),
      })),
    }
    const path = kit.path('export.json')
    writeFileSync(path, JSON.stringify(doc))
    const r = run(['verify-export', path, '--secret-stdin'], `${KEY_HEX}\n`)
    expect(r.stderr).toBe('')
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('Export VALID — HMAC chain verified.')
    expect(r.code).toBe(0)
  })

  it('integrity: keys from a file turn the rotation detector on', () => {
    const r = run([
      'integrity',
      '--db',
      dbPath('rotation'),
      '--window',
      '200',
      '--secret-file',
      keyFile(`${PRIMARY}\n${ROTATED}\n`),
    ])
    expect(r.stdout).toContain(
      'Rotation: 1 key change(s)\n  WARN  seq=161  sealing key changed from key #1 to key #2 at seq=161\n',
    )
  })

  it('replay: a key from stdin adds the row check', () => {
    const r = run(
      ['replay', '--db', chain, '--seq', '1', '--output', '- a bullet', '--secret-stdin'],
      `${KEY_HEX}\n`,
    )
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^ {2}row: {12}\S/m)
  })

  it('report: the verification section is filled from a key file', () => {
    const r = run(['report', '--db', chain, '-o', '-', '--secret-file', keyFile(`hex:${KEY_HEX}\n`)])
    expect(r.code).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(report.verification.verdict.valid).toBe(true)
    expect(r.stdout).not.toContain(KEY_HEX)
  })

  it('demo: the sealing key (and the rotated key) from a file', () => {
    const out = kit.path('demo.db')
    const keys = keyFile(`${KEY_HEX}\n${OTHER_KEY_HEX}\n`)
    const w = run(['demo', '--db', out, '--count', '30', '--rotate-at', '21', '--secret-file', keys])
    expect(w.code).toBe(0)
    expect(w.stdout).toContain(`Verify it with: bijotel verify --db ${out} --secret-file ${keys}\n`)
    expect(w.stdout).not.toContain(KEY_HEX)
    const v = JSON.parse(run(['verify', '--db', out, '--secret-file', keys, '--json']).stdout)
    expect(v.valid).toBe(true)
    expect(v.key_segments.map((s: { from_seq: number }) => s.from_seq)).toEqual([1, 21])
    const two = run(['demo', '--db', kit.path('demo2.db'), '--count', '3', '--secret-file', keys])
    expect(two.code).toBe(2)
    expect(existsSync(kit.path('demo2.db'))).toBe(false)
  })
})

describe('serve: keys and the API key from files', () => {
  async function serve(argv: string[], env: Record<string, string> = {}, stdin = '') {
    let stop!: (sig: string) => void
    const stopped = new Promise<string>((r) => (stop = r))
    const io = memoryIO(env, stdin)
    const exit = runCommand(createServeCommand({ stop: () => stopped }), argv, io)
    let code: number | null = null
    void exit.then((c) => (code = c))
    const deadline = Date.now() + 20_000
    while (code === null && !/ at (http:\/\/\S+)\n/.test(io.stdout)) {
      if (Date.now() > deadline) throw new Error(`serve did not start: ${io.stdout} ${io.stderr}`)
      await new Promise((r) => setTimeout(r, 10))
    }
    const url = / at (http:\/\/\S+)\n/.exec(io.stdout)?.[1]?.replace(/\/$/, '') ?? ''
    return { io, url, code: () => code, stop: () => (stop('SIGTERM'), exit) }
  }

  it('--api-key-file guards the API; --secret-stdin gives the key', async () => {
    const apiKey = 'k'.repeat(8) + 'ey-from-a-file-0123'
    const file = keyFile(`${apiKey}\n`)
    chmodSync(file, 0o600)
    const s = await serve(
      ['--db', chain, '--port', '0', '--api-key-file', file, '--secret-stdin'],
      {},
      `${KEY_HEX}\n`,
    )
    try {
      expect(s.io.stdout).toContain('(40 entries, 1 key)')
      expect((await fetch(`${s.url}/chain/1`)).status).toBe(401)
      const ok = await fetch(`${s.url}/chain/1`, { headers: { Authorization: `Bearer ${apiKey}` } })
      expect(ok.status).toBe(200)
      expect(((await ok.json()) as { hmac_valid: boolean }).hmac_valid).toBe(true)
    } finally {
      expect(await s.stop()).toBe(0)
    }
    expect(s.io.stdout + s.io.stderr).not.toContain(apiKey)
  })

  it('--api-key-file errors: with --api-key, an empty or two-line file; exit 2, the key never printed', async () => {
    const twoLines = keyFile('first-line-of-a-key\nsecond-line-of-it\n')
    for (const [argv, words] of [
      [
        ['--api-key', 'x'.repeat(20), '--api-key-file', keyFile('y'.repeat(20))],
        'not allowed with argument --api-key',
      ],
      [['--api-key-file', keyFile('')], 'the file is empty'],
      [['--api-key-file', twoLines], 'the key must be one line'],
    ] as const) {
      const s = await serve(['--db', chain, '--port', '0', ...argv])
      expect(s.code()).toBe(2)
      expect(s.io.stderr).toContain(words)
      expect(s.io.stderr).not.toMatch(/first-line|second-line|yyyy/)
    }
  })

  it('serve --help says why keys on the command line are readable by every local user', async () => {
    const io = memoryIO()
    expect(await runCommand(createServeCommand(), ['--help'], io)).toBe(0)
    expect(io.stdout).toContain('--api-key-file PATH')
    expect(io.stdout).toContain('readable by every local user in the process list')
  })
})

describe('--help of every key-taking command names the key options and says why', () => {
  for (const cmd of [
    'verify',
    'verify-continuity',
    'verify-export',
    'integrity',
    'replay',
    'report',
    'serve',
    'demo',
  ]) {
    it(cmd, () => {
      const r = run([cmd, '--help'])
      expect(r.code).toBe(0)
      expect(r.stdout).toContain('--secret-file PATH')
      expect(r.stdout).toContain('--secret-stdin')
      if (cmd !== 'demo') expect(r.stdout).toMatch(/process list[\s\S]*shell's history/)
    })
  }
})
