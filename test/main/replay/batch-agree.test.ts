// Issue 37's "done when": `bijotel replay --batch`, `POST /replay/verify-batch` and the app's
// contract call (`checkReplayBatch`, what the app's drop sends) answer the same batch with the same
// objects — on the shared fixtures' replay files, and on a generated batch of thousands of lines of
// every class (matching, mismatching with and without a seed, no metadata, seq missing, a tampered
// row, prompts right and wrong, malformed in each way), each line's status also checked against
// what the generator wrote, and sampled lines against the single-entry command.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AuditSession } from '../../../src/main/session/session'
import { startServer, type RunningServer } from '../../../src/main/server/index'
import { batchItemJson } from '../../../src/main/replay/batch-format'
import type { ReplayBatchResult } from '../../../src/shared/replay-types'
import { dbPath, expected, FIXTURES, fingerprintFolder, SECRETS } from '../testing/fixtures'
import { BATCH_KEY, generateLines, jsonlOf, writeReplayChain, type GenLine } from '../testing/replay-batch'
import { callApi, fakeRenderer, fetchAppToken, tempDir } from '../server/testkit'
import { spawnSync } from 'node:child_process'
import { BIN, bijotel, ensureBuilt } from './testcli'

const before = fingerprintFolder()
const tmp = tempDir('bijotel-batch-agree-')
let server: RunningServer
let session: AuditSession
let base: string
let token: string

const SEED = Number(process.env['BATCH_SEED'] ?? 37)
const GEN_ROWS = 1200
const GEN_LINES = 3000

beforeAll(async () => {
  ensureBuilt()
  session = new AuditSession({})
  // Keep-alive outlasts the CLI runs between two requests (a socket the server closed while idle
  // would be reused by fetch and reset).
  server = await startServer({
    session,
    port: 0,
    staticDir: fakeRenderer(tmp.dir),
    openRoots: [FIXTURES, tmp.dir],
    limits: { keepAliveTimeoutMs: 600_000 },
  })
  base = server.url.replace(/\/$/, '')
  token = await fetchAppToken(base)
}, 60_000)

afterAll(async () => {
  await server?.close()
  session?.close()
  tmp.cleanup()
  expect(fingerprintFolder()).toEqual(before)
})

async function open(path: string, keys: { encoding: string; value: string }[]): Promise<void> {
  let r = await callApi(base, 'openChain', { path })
  expect(r.status, r.text).toBe(200)
  r = await callApi(base, 'setSecrets', { secrets: keys }, { 'X-Bijotel-App-Token': token })
  expect(r.status, r.text).toBe(200)
}

/** The CLI with room for a batch's output (spawnSync keeps 1 MiB by default). */
function bijotelBig(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const env = { ...process.env }
  delete env['BIJOTEL_HMAC_SECRET']
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env,
    timeout: 300_000,
    maxBuffer: 1 << 30,
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

const parseLines = (text: string): Record<string, unknown>[] =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)

/** The three answers to one JSONL batch: CLI --json, REST NDJSON, the contract call. */
async function threeWays(db: string, jsonl: Buffer, keyArgs: string[]) {
  const file = join(tmp.dir, `batch-${Math.random().toString(36).slice(2)}.jsonl`)
  writeFileSync(file, jsonl)
  const cli = bijotelBig(['replay', '--db', db, '--batch', file, '--json', ...keyArgs])
  expect(cli.stderr).toBe('')
  const rest = await fetch(`${base}/replay/verify-batch`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-ndjson' },
    body: new Uint8Array(jsonl),
  })
  expect(rest.status, rest.status === 200 ? '' : await rest.text()).toBe(200)
  expect(rest.headers.get('content-type')).toMatch(/^application\/x-ndjson/)
  const restText = await rest.text()
  const call = await callApi(base, 'checkReplayBatch', { jsonl_base64: jsonl.toString('base64') })
  expect(call.status, call.text.slice(0, 300)).toBe(200)
  const result = call.json as ReplayBatchResult
  const keysGiven = keyArgs.length > 0
  const app = [
    ...result.items.map((i) => batchItemJson(i, keysGiven)),
    {
      summary: { lines: result.summary.lines, ...result.summary.counts },
      models: result.summary.models,
      exit: result.summary.exit,
    },
  ]
  return { cli: parseLines(cli.stdout), code: cli.code, rest: parseLines(restText), app }
}

describe('the shared fixtures replay files: CLI, REST and app agree, and equal the single-entry command', () => {
  const dbs = ['clean', 'rotation', 'wal-tail']
  for (const name of dbs) {
    it(
      name,
      async () => {
        const exp = expected(name)
        const keyNames = exp.secrets
        const keys = keyNames.map((n) => ({
          encoding: n === 'raw_text' ? 'text' : 'hex',
          value: SECRETS[n]!,
        }))
        const keyArgs = keys.flatMap((k) => [
          k.encoding === 'text' ? '--secret-text' : '--secret-hex',
          k.value,
        ])
        const files = readdirSync(FIXTURES)
          .filter((f) => f.startsWith(`${name}.replay-`))
          .sort()
        expect(files.length).toBeGreaterThan(0)
        const jsonl = jsonlOf(
          files.map((f) => ({
            bytes: Buffer.from(
              JSON.stringify({
                seq: Number(/replay-(\d+)\.txt$/.exec(f)![1]),
                output_base64: readFileSync(join(FIXTURES, f)).toString('base64'),
                name: f,
              }),
            ),
            expect: 'matched',
          })),
        )
        await open(dbPath(name), keys)
        const { cli, rest, app, code } = await threeWays(dbPath(name), jsonl, keyArgs)
        expect(rest).toEqual(cli)
        expect(app).toEqual(cli)
        // Each line: the single-entry command's --json verdict, field for field, and the fixture's answer.
        for (const obj of cli.slice(0, -1)) {
          const f = obj['name'] as string
          const single = bijotel([
            'replay',
            '--db',
            dbPath(name),
            '--seq',
            String(obj['seq']),
            '--output-file',
            join(FIXTURES, f),
            '--json',
            ...keyArgs,
          ])
          const s = JSON.parse(single.stdout) as Record<string, unknown>
          for (const [k, v] of Object.entries(s)) expect(obj[k], `${f} ${k}`).toEqual(v)
          const c = exp.replay?.find((x) => x.file === f)
          if (c) for (const [k, v] of Object.entries(c.expected)) expect(obj[k], `${f} ${k}`).toEqual(v)
        }
        // The folder form of the same files (a copy: fixtures are never written) gives the same objects
        // but for where they came from.
        const dir = join(tmp.dir, `folder-${name}`)
        mkdirSync(dir)
        for (const f of files) copyFileSync(join(FIXTURES, f), join(dir, f))
        const folder = bijotel(['replay', '--db', dbPath(name), '--batch', dir, '--json', ...keyArgs])
        expect(folder.code).toBe(code)
        const strip = (o: Record<string, unknown>): Record<string, unknown> => ({ ...o, line: 0 })
        const bySeq = (a: Record<string, unknown>[]) =>
          a
            .slice(0, -1)
            .map(strip)
            .sort((x, y) => String(x['name']).localeCompare(String(y['name'])))
        expect(bySeq(parseLines(folder.stdout))).toEqual(bySeq(cli))
        expect(parseLines(folder.stdout).at(-1)).toEqual(cli.at(-1))
      },
      120_000,
    )
  }
})

describe(`a generated batch of ${GEN_LINES} lines (seed ${SEED}) on a ${GEN_ROWS}-row chain`, () => {
  let db: string
  let rows: ReturnType<typeof writeReplayChain>
  beforeAll(() => {
    db = join(tmp.dir, 'gen.db')
    rows = writeReplayChain(db, GEN_ROWS)
  })

  for (const keyed of [false, true]) {
    it(
      keyed ? 'with the chain key' : 'without a key',
      async () => {
        const lines: GenLine[] = generateLines(rows, GEN_LINES, SEED + (keyed ? 1 : 0))
        const keys = keyed ? [{ encoding: 'hex', value: BATCH_KEY.toString('hex') }] : []
        await open(db, keys)
        const { cli, rest, app, code } = await threeWays(
          db,
          jsonlOf(lines),
          keyed ? ['--secret-hex', BATCH_KEY.toString('hex')] : [],
        )
        expect(rest).toEqual(cli)
        expect(app).toEqual(cli)
        // Every line answered once, with the status the generator's own knowledge gives it.
        const items = cli.slice(0, -1)
        expect(items.map((o) => o['line']).sort((a, b) => Number(a) - Number(b))).toEqual(
          lines.map((_, i) => i + 1),
        )
        for (const o of items)
          expect(o['status'], JSON.stringify(o).slice(0, 400)).toBe(lines[Number(o['line']) - 1]!.expect)
        const classes = new Set(lines.map((l) => l.expect))
        for (const c of [
          'matched',
          'mismatch_seeded',
          'mismatch_unseeded',
          'no_metadata',
          'seq_missing',
          'bad_line',
          'prompt_differs',
        ])
          expect(classes.has(c as GenLine['expect']), c).toBe(true)
        if (keyed) expect(classes.has('row_not_verified')).toBe(true)
        const summary = cli.at(-1) as { summary: Record<string, number>; exit: number }
        expect(summary.summary['lines']).toBe(GEN_LINES)
        expect(code).toBe(summary.exit)
        expect(code).toBe(3)
        // Sampled lines equal the single-entry command given the same output.
        const checkable = items.filter((o) => o['status'] !== 'bad_line' && o['status'] !== 'seq_missing')
        for (const o of checkable.filter((_, i) => i % Math.ceil(checkable.length / 12) === 0)) {
          const src = JSON.parse(lines[Number(o['line']) - 1]!.bytes.toString('utf8')) as Record<
            string,
            string
          >
          const out = join(tmp.dir, 'single.txt')
          const args = ['replay', '--db', db, '--seq', String(o['seq'])]
          if (src['output'] !== undefined) args.push('--output', src['output'])
          else {
            writeFileSync(out, Buffer.from(src['output_base64']!, 'base64'))
            args.push('--output-file', out)
          }
          if (src['prompt'] !== undefined) args.push('--prompt', src['prompt'])
          if (keyed) args.push('--secret-hex', BATCH_KEY.toString('hex'))
          const s = bijotel([...args, '--json'])
          for (const [k, v] of Object.entries(JSON.parse(s.stdout) as Record<string, unknown>))
            expect(o[k], `line ${o['line']} ${k}`).toEqual(v)
        }
      },
      300_000,
    )
  }
})
