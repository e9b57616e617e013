// The examples run as a user runs them (`node examples/…` after a build, the package referring to
// itself by name): the service seals its stub LLM calls, the CLI and the cron job accept the chain,
// and the cron job's exit code turns to 3 once a sealed body is edited.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bijotel, ensureBuilt } from '../main/testing/cli'
import { REPO_ROOT } from '../main/testing/fixtures'

const SECRET = '8f3c1a2b4d5e6f708192a3b4c5d6e7f8'
const tmp = mkdtempSync(join(tmpdir(), 'bijotel-examples-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
beforeAll(() => ensureBuilt(), 300_000)

function example(name: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const env = { ...process.env, BIJOTEL_HMAC_SECRET: SECRET }
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'examples', name), ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env,
    timeout: 120_000,
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

describe('examples', () => {
  const chain = join(tmp, 'chain.db')

  it('seal-llm-calls.mjs seals each stub LLM call; bijotel verify accepts the chain', () => {
    const r = example('seal-llm-calls.mjs', [chain, '5'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout.match(/^sealed seq=\d+ hmac=[0-9a-f]{64}$/gm)).toHaveLength(5)
    const v = bijotel(['verify', '--db', chain, '--secret-hex', SECRET])
    expect(v.stdout).toMatch(
      /^Chain VALID \(5 entries\)\.\nEvidence: db=\S+ size=\d+ sha256=[0-9a-f]{64}; [^\n]+\n$/,
    )
    // Each call carries its replay context: seq 1 had a seed, seq 2 did not.
    const replay = bijotel([
      'replay',
      '--db',
      chain,
      '--seq',
      '1',
      '--output',
      '(stub-model-1, seed 42) You asked: question 1',
      '--json',
    ])
    expect(JSON.parse(replay.stdout)).toMatchObject({ match: true, deterministic: true })
  })

  it('integrity-cron.mjs exits 0 on the valid, clean chain and 3 once a body is edited', () => {
    const ok = example('integrity-cron.mjs', [chain, '10'])
    expect(ok.code, ok.stdout + ok.stderr).toBe(0)
    const [verdict, report] = ok.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(verdict).toMatchObject({ check: 'verify', valid: true, entries: 5 })
    expect(report).toMatchObject({ clean: true, window: 5 })

    const db = new Database(chain)
    db.prepare(
      "UPDATE chain SET canonical_body = CAST(REPLACE(CAST(canonical_body AS TEXT), 'question 3', 'question X') AS BLOB) WHERE seq = 3",
    ).run()
    db.close()
    const broken = example('integrity-cron.mjs', [chain, '10'])
    expect(broken.code).toBe(3)
    expect(JSON.parse(broken.stdout.split('\n')[0]!)).toMatchObject({ valid: false, first_bad_seq: 3 })

    const missing = example('integrity-cron.mjs', [join(tmp, 'none.db')])
    expect(missing.code).toBe(2)
    expect(missing.stderr.trimEnd().split('\n')).toHaveLength(1)
  })
})
