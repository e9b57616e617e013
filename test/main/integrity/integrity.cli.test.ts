// `bin/bijotel integrity` end to end on the shared fixtures and on hand-made chains.
import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dbPath, expected, FIXTURES, fingerprintFolder, fixtureNames, SECRETS } from '../testing/fixtures'
import { pyJsonDumps, pyJsonLoads } from '../../../src/main/python/pyformat'
import { bijotel, ensureBuilt } from './testcli'
import { beforeEvidence, splitEvidence } from '../testing/evidence'
import { seeded, TempChains } from './testchain'

let before: Map<string, string>
const chains = new TempChains()
beforeAll(() => {
  ensureBuilt()
  before = fingerprintFolder()
})
afterAll(() => {
  chains.dispose()
  // Nothing the CLI did may have changed a byte or an mtime in the evidence folder, or added a file.
  expect(fingerprintFolder()).toEqual(before)
})

function pythonLine(name: string, key: 'integrity_window_100' | 'integrity_window_500'): string {
  const doc = pyJsonLoads(readFileSync(join(FIXTURES, `${name}.expected.json`), 'utf8'), {
    typed: true,
  }) as Map<string, never>
  return pyJsonDumps(doc.get(key)!) + '\n'
}

/** One line on stderr, no stack trace. */
function oneErrorLine(stderr: string): void {
  const lines = stderr.trimEnd().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/^ERROR: /)
  expect(stderr).not.toMatch(/\n\s+at /)
}

describe('bijotel integrity --json equals Python byte for byte on every fixture', () => {
  for (const name of fixtureNames()) {
    it(name, () => {
      const exp = expected(name)
      const r100 = bijotel(['integrity', '--db', dbPath(name), '--json'])
      expect(r100.stdout).toBe(pythonLine(name, 'integrity_window_100'))
      expect(r100.code).toBe(exp.integrity_window_100['clean'] ? 0 : 1)
      expect(r100.stderr).toBe('')
      const r500 = bijotel(['integrity', '--db', dbPath(name), '--window', '500', '--json'])
      expect(r500.stdout).toBe(pythonLine(name, 'integrity_window_500'))
      expect(r500.code).toBe(exp.integrity_window_500['clean'] ? 0 : 1)
      const all = bijotel(['integrity', '--db', dbPath(name), '--all', '--json'])
      expect(all.stdout).toBe(r500.stdout)
      expect(all.code).toBe(r500.code)
    })
  }
})

describe('text output and exit codes', () => {
  it('clean: exit 0, CLEAN, Sequence: no gaps', () => {
    const text = [
      'Chain integrity: CLEAN (last 100 entries, seq 141..240)',
      '-------------------------------------------------------',
      'Sequence: no gaps',
      'Timestamps: no anomalies',
      'Hashes: no duplicates',
      'Provider distribution: stable',
      'Rate: stable',
      '',
    ].join('\n')
    const r = bijotel(['integrity', '--db', dbPath('clean')])
    expect(r.code).toBe(0)
    // The reference's lines, byte for byte, ending at Rate: (issue 36).
    expect(r.stdout).toBe(text)
    // --evidence: the same lines, then the evidence judged (issue 25).
    const e = bijotel(['integrity', '--db', dbPath('clean'), '--evidence'])
    expect(e.code).toBe(0)
    const { before, line } = splitEvidence(e.stdout)
    expect(line).toMatch(/; seq=141-240 entries=100; first_time=\S+Z last_time=\S+Z; keys=none$/)
    expect(before).toBe(text)
    const sha = createHash('sha256')
      .update(readFileSync(dbPath('clean')))
      .digest('hex')
    expect(line).toContain(` size=${statSync(dbPath('clean')).size} sha256=${sha}; `)
  })
  it('--evidence with --json: refused as argparse refuses mutually exclusive options (exit 2)', () => {
    const r = bijotel(['integrity', '--db', dbPath('clean'), '--json', '--evidence'])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(
      /^bijotel integrity: error: argument --evidence: not allowed with argument --json\n/,
    )
  })
  it('anomalies: exit 1, ANOMALIES (plural even for one)', () => {
    const r = bijotel(['integrity', '--db', dbPath('row-deleted'), '--window', '500'])
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('Chain integrity: 1 ANOMALIES (last 239 entries, seq 1..240)\n')
    expect(r.stdout).toContain('Sequence: 1 gap(s)\n  WARN  seq 39 -> 41 (1 missing)\n')
  })
  it('--all header', () => {
    const r = bijotel(['integrity', '--db', dbPath('clock-backward'), '--all'])
    expect(r.code).toBe(1)
    expect(r.stdout.split('\n').slice(0, 4)).toEqual([
      'Chain integrity: 1 ANOMALIES (all 240 entries, seq 1..240)',
      '----------------------------------------------------------',
      'Sequence: no gaps',
      'Timestamps: 1 backward',
    ])
  })
  it('more than 5 timestamp anomalies: "... +N more"', () => {
    const rows = seeded(30)
    for (const i of [3, 6, 9, 12, 15, 18, 21]) rows[i] = { ...rows[i]!, ts: rows[i - 1]!.ts - 1_000_000_000n }
    const r = bijotel(['integrity', '--db', chains.write(rows)])
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('Timestamps: 7 backward\n')
    expect(r.stdout.match(/ {2}WARN {2}seq=\d+ type=backward/g)).toHaveLength(5)
    expect(r.stdout).toContain('  ... +2 more\n')
  })
  it('empty chain: EMPTY CHAIN, exit 0; --json clean, exit 0', () => {
    const db = chains.write([])
    const t = bijotel(['integrity', '--db', db])
    expect(t).toEqual({
      code: 0,
      stdout: 'Chain integrity: EMPTY CHAIN (nothing to analyze)\n',
      stderr: '',
    })
    const te = bijotel(['integrity', '--db', db, '--evidence'])
    expect(beforeEvidence(te.stdout)).toBe(t.stdout)
    expect(splitEvidence(te.stdout).line).toMatch(
      /; seq=none entries=0; first_time=none last_time=none; keys=none$/,
    )
    const j = bijotel(['integrity', '--db', db, '--json'])
    expect(j.code).toBe(0)
    expect(j.stdout).toBe(
      '{"window":0,"first_seq":null,"last_seq":null,"clean":true,"anomaly_count":0,"sequence_gaps":[],"timestamp_anomalies":[],"hash_anomalies":[],"provider_shift":null,"rate_anomalies":[],"rotation_boundaries":[]}\n',
    )
  })
  it('rotation with both keys: boundary reported, exit 1; JSON carries it', () => {
    const keys = ['--secret-hex', SECRETS['primary']!, '--secret-hex', SECRETS['rotated']!]
    const t = bijotel(['integrity', '--db', dbPath('rotation'), ...keys])
    expect(t.code).toBe(1)
    expect(t.stdout).toContain(
      'Rotation: 1 key change(s)\n  WARN  seq=161  sealing key changed from key #1 to key #2 at seq=161\n',
    )
    const j = bijotel(['integrity', '--db', dbPath('rotation'), '--window', '80', '--json', ...keys])
    expect(j.code).toBe(0)
    expect(JSON.parse(j.stdout).rotation_boundaries).toEqual([])
    const a = bijotel(['integrity', '--db', dbPath('rotation'), '--all', '--json', ...keys])
    expect(JSON.parse(a.stdout).rotation_boundaries).toEqual([
      { seq: 161, detail: 'sealing key changed from key #1 to key #2 at seq=161' },
    ])
  })
  it('keys on an unrotated chain: "no key change"', () => {
    const r = bijotel(['integrity', '--db', dbPath('clean'), '--secret-hex', SECRETS['primary']!])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(
      'Rotation: no key change (checked with 1 candidate key over seq 141..240: 1 key segment, 0 boundaries)\n',
    )
  })
  it('BIJOTEL_HMAC_SECRET is not read by integrity', () => {
    const r = bijotel(['integrity', '--db', dbPath('clean')], { BIJOTEL_HMAC_SECRET: SECRETS['primary']! })
    // Without a key the text is Python's (it ends at the Rate line), then the evidence line.
    expect(r.stdout).not.toContain('Rotation')
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('Rate: stable')
    const e = bijotel(['integrity', '--db', dbPath('clean'), '--evidence'], {
      BIJOTEL_HMAC_SECRET: SECRETS['primary']!,
    })
    expect(splitEvidence(e.stdout).line).toMatch(/; keys=none$/)
  })
  it('threshold flags', () => {
    const r = bijotel(['integrity', '--db', dbPath('clean'), '--large-gap-sec', '60', '--json'])
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout).timestamp_anomalies.length).toBeGreaterThan(0)
    const b = bijotel(['integrity', '--db', dbPath('burst'), '--burst-threshold', '15', '--json'])
    expect(b.code).toBe(0)
    const p = bijotel(['integrity', '--db', dbPath('provider-shift'), '--provider-shift-pct', '44.5'])
    expect(p.code).toBe(0)
    const q = bijotel([
      'integrity',
      '--db',
      dbPath('rate-drop'),
      '--rate-tol',
      '0.6',
      '--min-split-size',
      '10',
    ])
    expect(q.code).toBe(0)
  })
})

describe('errors: exit 2 with one line on stderr', () => {
  it('missing DB (Python wording)', () => {
    const r = bijotel(['integrity', '--db', join(chains.dir, 'missing.db')])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    oneErrorLine(r.stderr)
    expect(r.stderr).toBe(`ERROR: chain DB not found: ${join(chains.dir, 'missing.db')}\n`)
  })
  for (const bad of [
    'bad-empty',
    'bad-not-sqlite',
    'bad-no-chain-table',
    'bad-missing-columns',
    'bad-truncated-file',
  ]) {
    it(`${bad}.db`, () => {
      const r = bijotel(['integrity', '--db', dbPath(bad), '--json'])
      expect(r.code).toBe(2)
      expect(r.stdout).toBe('')
      oneErrorLine(r.stderr)
    })
  }
  it.each([['1'], ['10001'], ['0'], ['-5'], ['abc'], ['2.5']])('--window %s', (w) => {
    // `--window=-5`: a separate value starting with '-' is read as an option (a usage error, also exit 2)
    const r = bijotel(['integrity', '--db', dbPath('clean'), `--window=${w}`])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    oneErrorLine(r.stderr)
  })
  it('bounds 2 and 10000 are accepted', () => {
    expect(bijotel(['integrity', '--db', dbPath('clean'), '--window', '2']).code).toBe(0)
    expect(bijotel(['integrity', '--db', dbPath('clean'), '--window', '10000']).code).toBe(0)
  })
  it.each([
    ['--burst-threshold', '1.5'],
    ['--large-gap-sec', '-1'],
    ['--provider-shift-pct', 'x'],
    ['--rate-tol', ''],
    ['--min-split-size', '0'],
  ])('%s %s', (flag, v) => {
    const r = bijotel(['integrity', '--db', dbPath('clean'), `${flag}=${v}`])
    expect(r.code).toBe(2)
    oneErrorLine(r.stderr)
  })
  it('bad secret, unknown flag, --window with --all, no --db, negative value without =', () => {
    expect(bijotel(['integrity', '--db', dbPath('clean'), '--window', '-5']).code).toBe(2)
    const s = bijotel(['integrity', '--db', dbPath('clean'), '--secret-hex', 'zz'])
    expect(s.code).toBe(2)
    oneErrorLine(s.stderr)
    expect(bijotel(['integrity', '--db', dbPath('clean'), '--frobnicate']).code).toBe(2)
    expect(bijotel(['integrity', '--db', dbPath('clean'), '--all', '--window', '5']).code).toBe(2)
    expect(bijotel(['integrity']).code).toBe(2)
  })
  it('--help lists the exit codes', () => {
    const r = bijotel(['integrity', '--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('exit codes: 0 clean')
    expect(r.stdout).toContain('--min-split-size N')
    expect(bijotel(['--help']).stdout).toMatch(/\n {2}integrity +structural integrity monitor/)
  })
})
