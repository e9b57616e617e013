// The built CLI loads a command's code only when that command runs: `--version` and `--help` must not
// pay for SQLite, the HTTP server or the writer (start-up time is most of a short `bijotel` call).
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { BIN, ensureBuilt } from '../testing/cli'

beforeAll(() => {
  ensureBuilt()
})

/** Run the built CLI in a child and list the files and built-in modules it loaded. */
function loaded(
  args: string[],
  env: Record<string, string> = {},
): { code: number | null; files: string[]; builtins: string[] } {
  const script = `
    process.argv = [process.execPath, ${JSON.stringify(BIN)}, ...${JSON.stringify(args)}]
    process.stdout.write = () => true
    require(${JSON.stringify(BIN)})
    process.on('exit', () => process.stderr.write('\\n' + JSON.stringify({
      files: Object.keys(require.cache),
      builtins: process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')),
    })))`
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, ...env } })
  const out = JSON.parse(r.stderr.split('\n').pop() ?? '') as { files: string[]; builtins: string[] }
  return { code: r.status, ...out }
}

/** The commands whose `run` modules are among `files` (chunks keep rolldown's source comments). */
function commandsIn(files: string[]): string[] {
  return files.flatMap((f) => {
    if (!/[\\/]out[\\/]main[\\/]chunks[\\/]/.test(f)) return []
    const m = /^\/\/ src\/main\/cli\/commands\/(\w+)\.ts$/m.exec(readFileSync(f, 'utf8'))
    return m ? [m[1]!] : []
  })
}

// Not net: piped stdio loads it.
const HEAVY_BUILTIN = /^NativeModule (http|worker_threads)$/

describe('bijotel start-up', () => {
  for (const args of [['--version'], ['--help'], ['verify', '--help'], ['report', '--help']]) {
    it(`${args.join(' ')} loads no command code`, () => {
      const r = loaded(args)
      expect(r.code).toBe(0)
      expect(commandsIn(r.files)).toEqual([])
      expect(r.files.filter((f) => f.includes('better-sqlite3'))).toEqual([])
      expect(r.builtins.filter((m) => HEAVY_BUILTIN.test(m))).toEqual([])
    })
  }

  it('a command loads its own chunk and not the others', () => {
    const r = loaded(['replay', '--db', 'no-such.db', '--seq', '1', '--output', 'x'])
    expect(r.code).toBe(1)
    expect(commandsIn(r.files)).toEqual(['replay'])
  })

  // The direct reader knows the reference schema's layout: a chain of it is analysed without
  // loading the SQLite driver, which only the fallback path (here forced) pays for.
  it('integrity on a chain of the reference schema loads SQLite only on the fallback path', () => {
    const fixture = join(__dirname, '../../../../shared/fixtures/clean.db')
    const sqlite = (r: { files: string[] }): string[] => r.files.filter((f) => f.includes('better-sqlite3'))
    const direct = loaded(['integrity', '--db', fixture, '--window', '50'])
    expect(direct.code).toBe(0)
    expect(sqlite(direct)).toEqual([])
    const fallback = loaded(['integrity', '--db', fixture, '--window', '50'], { BIJOTEL_READER: 'sqlite' })
    expect(fallback.code).toBe(0)
    expect(sqlite(fallback).length).toBeGreaterThan(0)
  })

  // Issue 36: a keyless window (a cron job's) starts in about Node's own time — no crypto, no
  // verify engine, no file hasher — and each is loaded as soon as keys or --evidence ask for it.
  it('a keyless integrity window loads neither node:crypto nor the verify engine nor the hasher', () => {
    const fixture = join(__dirname, '../../../../shared/fixtures/clean.db')
    const sources = (r: { files: string[] }): string[] =>
      r.files.flatMap((f) =>
        /[\\/]out[\\/]main[\\/]chunks[\\/]/.test(f)
          ? [...readFileSync(f, 'utf8').matchAll(/^\/\/ (src\/main\/\S+\.ts)$/gm)].map((m) => m[1]!)
          : [],
      )
    const crypto = (r: { builtins: string[] }): boolean => r.builtins.includes('NativeModule crypto')
    const plain = loaded(['integrity', '--db', fixture, '--window', '10000'])
    expect(plain.code).toBe(0)
    expect(crypto(plain)).toBe(false)
    expect(sources(plain)).not.toContain('src/main/verify/verify.ts')
    expect(sources(plain)).not.toContain('src/main/chain/statement.ts')
    const withEvidence = loaded(['integrity', '--db', fixture, '--evidence'])
    expect(withEvidence.code).toBe(0)
    expect(sources(withEvidence)).toContain('src/main/chain/statement.ts')
    const withKey = loaded(['integrity', '--db', fixture, '--secret-hex', 'ab'])
    expect([0, 1]).toContain(withKey.code) // the wrong key: still an answer
    expect(crypto(withKey)).toBe(true)
    expect(sources(withKey)).toContain('src/main/verify/verify.ts')
  })
})
