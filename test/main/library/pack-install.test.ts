// The package as its users get it. `npm pack` of a clean copy of the committed tree (git archive
// HEAD: what a fresh checkout packs; its `prepack` builds the CLI, the library and the types), then:
//  - a plain Node project installs the tarball with @opentelemetry/api and sdk-trace-base (current
//    majors, from the npm registry), seals spans ended on a BasicTracerProvider with the processor
//    and recordReplayContext's attributes, and the chain is checked three ways: the library's
//    verifyChain, the installed `bijotel` CLI, and an independent checker written from the
//    reference's rules (independent_check.py, Python stdlib); its type declarations compile under
//    tsc --strict as ESM and as CommonJS;
//  - `npm install -g --prefix <tmp>` of the tarball on a machine where better-sqlite3 cannot be built
//    (so without it, and without the native addon) gives a `bijotel` that verifies and analyses the
//    shared fixtures in place, and says in one line what to install for a file only SQLite reads.
// Slow (a build and two installs): minutes. Skipped, saying why,
// only when the npm registry cannot be reached.
import { spawnSync, type SpawnSyncOptions } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChainWriter } from '../../../src/main/writer/chain-writer'
import { CHAIN_TABLE_DDL } from '../../../src/main/chain/schema'
import { dbPath, expected, REPO_ROOT, SECRETS } from '../testing/fixtures'
import { SEALED_SPANS, writeConsumerProject } from './consumer-project'
import { heavyModules, loadedBy } from './loaded-modules'

const SECRET = SECRETS['primary']!
const STEP_TIMEOUT = 10 * 60_000
/** Each check (tsc twice over the declarations takes a minute or two on a busy 2-core machine). */
const TEST_TIMEOUT = 5 * 60_000

let work = ''
let skipReason = ''
let tarball = ''
let consumer = ''
let globalBin = ''
/** A chain in a UTF-16 database: valid, but the direct reader declines it (only SQLite reads it). */
let utf16Chain = ''

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** The environment of a fresh shell: none of npm's per-run variables, no key, no module path. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (/^npm_/i.test(k) || k === 'INIT_CWD' || k === 'NODE_PATH' || k === 'BIJOTEL_HMAC_SECRET') continue
    env[k] = v
  }
  return env
}

function run(cmd: string, args: string[], opts: SpawnSyncOptions = {}): Run {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: cleanEnv(), timeout: STEP_TIMEOUT, ...opts })
  return { code: r.status, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') }
}

function mustRun(cmd: string, args: string[], opts: SpawnSyncOptions = {}): Run {
  const r = run(cmd, args, opts)
  if (r.code !== 0)
    throw new Error(
      `${cmd} ${args.join(' ')} exited ${r.code}:\n${r.stderr.slice(-3000)}${r.stdout.slice(-2000)}`,
    )
  return r
}

function makeUtf16Chain(path: string): void {
  const db = new Database(path)
  db.pragma("encoding = 'UTF-16le'")
  db.exec(CHAIN_TABLE_DDL)
  db.close()
  const w = ChainWriter.open(path, Buffer.from(SECRET, 'hex'), { mode: 'append' })
  for (let i = 0; i < 5; i++) w.appendEvent({ event: 'utf16', i })
  w.close()
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'bijotel-pack-'))
  const ping = run('npm', ['view', '@opentelemetry/sdk-trace-base@2', 'version'], { timeout: 90_000 })
  if (ping.code !== 0) {
    skipReason = `the npm registry is unreachable (npm view exited ${ping.code}): ${ping.stderr.split('\n')[0]}`
    return
  }
  // A clean copy of the committed tree; its dev tools are the repo's (a fresh checkout runs npm ci).
  const src = join(work, 'src')
  mkdirSync(src)
  mustRun('git', ['archive', '--format=tar', '-o', join(work, 'src.tar'), 'HEAD'], { cwd: REPO_ROOT })
  mustRun('tar', ['-xf', join(work, 'src.tar'), '-C', src])
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(src, 'node_modules'))
  mustRun('npm', ['pack', '--pack-destination', work], { cwd: src })
  const packed = readdirSync(work).filter((f) => f.endsWith('.tgz'))
  if (packed.length !== 1) throw new Error(`npm pack made ${packed.length} tarballs`)
  tarball = join(work, packed[0]!)

  consumer = join(work, 'consumer')
  mkdirSync(consumer)
  writeConsumerProject(consumer)
  // better-sqlite3 (an optional dependency, needed by the writer) at the repo's version, with the
  // binary the repo built for this same Node put in place as prebuild-install would download one:
  // compiling SQLite from source again would take minutes and test better-sqlite3, not this package.
  const sqliteVersion = (
    JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')) as {
      version: string
    }
  ).version
  mustRun(
    'npm',
    [
      'install',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      tarball,
      '@opentelemetry/api@^1',
      '@opentelemetry/sdk-trace-base@^2',
      '@types/node@^20',
      'typescript@~5.9.3',
      `better-sqlite3@${sqliteVersion}`,
    ],
    { cwd: consumer },
  )
  const release = join('node_modules', 'better-sqlite3', 'build', 'Release')
  mkdirSync(join(consumer, release), { recursive: true })
  copyFileSync(
    join(REPO_ROOT, release, 'better_sqlite3.node'),
    join(consumer, release, 'better_sqlite3.node'),
  )

  // A machine where better-sqlite3 cannot be built: no prebuilt binary (built from source only) and
  // no Node headers (an empty nodedir), so its install fails and npm leaves the optional dependency
  // out. (npm's --omit=optional did not stop a global install from building it.)
  const prefix = join(work, 'global')
  const noHeaders = join(work, 'no-node-headers')
  mkdirSync(noHeaders)
  mustRun('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tarball], {
    cwd: work,
    env: { ...cleanEnv(), npm_config_build_from_source: 'true', npm_config_nodedir: noHeaders },
  })
  globalBin = join(prefix, 'bin', 'bijotel')

  utf16Chain = join(work, 'utf16-chain.db')
  makeUtf16Chain(utf16Chain)
}, 30 * 60_000)

afterAll(() => {
  // BIJOTEL_KEEP_PACK=1 keeps the packed tree, the projects and the logs for a look afterwards.
  if (work && !process.env['BIJOTEL_KEEP_PACK']) rmSync(work, { recursive: true, force: true })
  else if (work) process.stderr.write(`pack-install: kept ${work}\n`)
})

/** Skips the test, saying why, when the registry was unreachable. */
function needsRegistry(ctx: { skip: (note?: string) => void }): void {
  if (skipReason) {
    process.stderr.write(`pack-install: skipped: ${skipReason}\n`)
    ctx.skip(skipReason)
  }
}

/** The text output's last line, the evidence judged (issue 25), checked for its shape. */
function evidenceLineOf(stdout: string): string {
  const m = /\nEvidence: db=\S+ size=\d+ sha256=[0-9a-f]{64}; [^\n]+\n$/.exec(stdout)
  expect(m).not.toBeNull()
  return m![0].slice(1)
}

describe('the packed library in a plain Node project', () => {
  it(
    'seals spans ended on a BasicTracerProvider; verifyChain, the CLI and an independent checker accept the chain',
    (ctx) => {
      needsRegistry(ctx)
      const chain = join(consumer, 'chain.db')
      const outputs = join(consumer, 'outputs.json')
      mustRun(process.execPath, ['seal.mjs', chain, SECRET, outputs], { cwd: consumer })
      const sealedOutputs = (JSON.parse(readFileSync(outputs, 'utf8')) as { outputs: Record<string, string> })
        .outputs
      expect(Object.keys(sealedOutputs)).toHaveLength(SEALED_SPANS)

      const check = JSON.parse(
        mustRun(process.execPath, ['check.cjs', chain, SECRET, '2', sealedOutputs['2']!], { cwd: consumer })
          .stdout,
      ) as Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
      const rows = SEALED_SPANS + 1 // the spans and check.cjs's appended audit event
      expect(check['event'].seq).toBe(rows)
      expect(check['verdict']).toMatchObject({ valid: true, entries: rows, first_seq: 1, last_seq: rows })
      expect(check['verdict'].head_hmac).toBe(check['event'].hmac_hash)
      expect(check['sameVerdict']).toEqual(check['verdict'])
      expect(check['monitorSame']).toBe(true)
      expect(check['replay'].result.match).toBe(true)
      expect(check['replay'].row_verified).toBe(true)
      expect(check['refused']).toMatchObject({ isAuditError: true, code: 'bad_secret' })
      expect(check['drift'].match).toBe(false)

      // The installed CLI gives the same verdict (both search the files for deleted rows) and the
      // same integrity line.
      const bin = join(consumer, 'node_modules', '.bin', 'bijotel')
      const cli = run(bin, ['verify', '--db', chain, '--secret-hex', SECRET, '--json'], { cwd: consumer })
      expect(cli.code).toBe(0)
      // The CLI's --json adds the evidence judged (issue 25); the verdict beside it is the library's.
      const { evidence, ...cliVerdict } = JSON.parse(cli.stdout) as { evidence: { db: { sha256: string } } }
      expect(evidence.db.sha256).toMatch(/^[0-9a-f]{64}$/)
      expect(cliVerdict).toEqual(check['verdict'])
      const integrity = run(bin, ['integrity', '--db', chain, '--json'], { cwd: consumer })
      expect(integrity.stdout.trim()).toBe(check['reportJson'])

      // Written from the reference alone: JCS bodies, SHA-256, HMAC links, replay output hashes.
      const independent = run('python3', [join(__dirname, 'independent_check.py'), chain, SECRET, outputs], {
        cwd: consumer,
      })
      expect(independent.stderr).toBe('')
      expect(JSON.parse(independent.stdout)).toEqual({
        valid: true,
        rows,
        head: check['verdict'].head_hmac,
        problems: [],
      })
      // …and it can fail: under another key every HMAC is refused.
      const wrongKey = run('python3', [join(__dirname, 'independent_check.py'), chain, SECRETS['attacker']!])
      expect(wrongKey.code).toBe(3)
    },
    TEST_TIMEOUT,
  )

  it(
    'its type declarations compile under tsc --strict: ESM, CommonJS, and the node10 resolution',
    (ctx) => {
      needsRegistry(ctx)
      const tscBin = join(consumer, 'node_modules', 'typescript', 'bin', 'tsc')
      for (const project of ['tsconfig.json', 'tsconfig.node10.json']) {
        const tsc = run(process.execPath, [tscBin, '-p', project], { cwd: consumer })
        expect(tsc.stdout + tsc.stderr).toBe('')
        expect(tsc.code).toBe(0)
      }
    },
    TEST_TIMEOUT,
  )

  it(
    'the writer subpath loads no reading layer, worker, app or UI from the installed package',
    (ctx) => {
      needsRegistry(ctx)
      for (const as of ['require', 'import'] as const) {
        const loaded = loadedBy('bijotel-auditor/writer', consumer, as)
        expect(loaded.modules).toContain('src/main/writer/chain-writer.ts')
        expect(heavyModules(loaded)).toEqual([])
      }
      // Workers the verifier starts resolve from the installed package.
      const pkg = join(consumer, 'node_modules', 'bijotel-auditor', 'out', 'main')
      expect(existsSync(join(pkg, 'verify-worker.js'))).toBe(true)
      expect(existsSync(join(pkg, 'columns-worker.js'))).toBe(true)
    },
    TEST_TIMEOUT,
  )
})

describe('the packed CLI installed globally where better-sqlite3 cannot be built', () => {
  function bijotel(args: string[]): Run {
    return run(globalBin, args, { cwd: work })
  }

  it(
    'has neither better-sqlite3 nor the native addon',
    (ctx) => {
      needsRegistry(ctx)
      const pkg = join(work, 'global', 'lib', 'node_modules', 'bijotel-auditor')
      expect(existsSync(join(pkg, 'package.json'))).toBe(true)
      const resolved = run(process.execPath, ['-p', "require.resolve('better-sqlite3')"], { cwd: pkg })
      expect(resolved.stdout, 'better-sqlite3 resolves from the global CLI').toBe('')
      expect(existsSync(join(pkg, 'native'))).toBe(false)
    },
    TEST_TIMEOUT,
  )

  it(
    'verifies the shared fixtures in place with the expected verdicts and exit codes',
    (ctx) => {
      needsRegistry(ctx)
      for (const [name, exit] of [
        ['clean', 0],
        ['body-edit', 3],
        ['wal-tail', 0],
      ] as const) {
        const r = bijotel(['verify', '--db', dbPath(name), '--secret-hex', SECRET, '--json'])
        expect(r.stderr).toBe('')
        expect(r.code).toBe(exit)
        expect(JSON.parse(r.stdout)).toMatchObject(expected(name).verify)
      }
      const text = bijotel(['verify', '--db', dbPath('clean'), '--secret-hex', SECRET])
      expect(text.stdout).toBe(
        `Chain VALID (${expected('clean').verify['entries'] as number} entries).\n` +
          evidenceLineOf(text.stdout),
      )
    },
    TEST_TIMEOUT,
  )

  it(
    'runs integrity on the shared fixtures: Python-exact JSON, 0 clean, 1 anomalies',
    (ctx) => {
      needsRegistry(ctx)
      for (const [name, exit] of [
        ['clean', 0],
        ['provider-shift', 1],
      ] as const) {
        const r = bijotel(['integrity', '--db', dbPath(name), '--json'])
        expect(r.code).toBe(exit)
        expect(JSON.parse(r.stdout)).toEqual(expected(name).integrity_window_100)
      }
    },
    TEST_TIMEOUT,
  )

  it(
    'says in one line what to install for a chain only SQLite can read',
    (ctx) => {
      needsRegistry(ctx)
      for (const [args, exit] of [
        [['verify', '--db', utf16Chain, '--secret-hex', SECRET], 1],
        [['integrity', '--db', utf16Chain], 2],
      ] as const) {
        const r = bijotel([...args])
        expect(r.code).toBe(exit)
        expect(r.stdout).toBe('')
        expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
        expect(r.stderr).toMatch(/^ERROR: better-sqlite3 is not installed.*npm install better-sqlite3@12/)
      }
      // Installed where the message says (beside the global CLI: here the consumer's build, linked),
      // the same file verifies; the file reader, which the search needs, declines it, and the verdict
      // says on a line of its own that it was not searched.
      symlinkSync(
        join(consumer, 'node_modules', 'better-sqlite3'),
        join(work, 'global', 'lib', 'node_modules', 'better-sqlite3'),
      )
      const UTF16_VALID =
        'Chain VALID (5 entries).\n' +
        'Recovery: not searched for recoverable rows: the file reader does not read this file (text encoding is not UTF-8)\n'
      const global = bijotel(['verify', '--db', utf16Chain, '--secret-hex', SECRET]).stdout
      expect(global).toBe(UTF16_VALID + evidenceLineOf(global))
      // And in the consumer project, where better-sqlite3 was installed with the package.
      const withSqlite = run(join(consumer, 'node_modules', '.bin', 'bijotel'), [
        'verify',
        '--db',
        utf16Chain,
        '--secret-hex',
        SECRET,
      ])
      expect(withSqlite.stdout).toBe(UTF16_VALID + evidenceLineOf(withSqlite.stdout))
      expect(withSqlite.code).toBe(0)
    },
    TEST_TIMEOUT,
  )
})
