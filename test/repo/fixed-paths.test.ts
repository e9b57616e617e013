// Guard: no committed code may read a fixed path outside the repo. CI runs on the machine a session
// worked on, so a test that reads a file left in /tmp (or a home folder) passes there and fails on
// every fresh clone — this happened once (a scratch test read a 1M-row chain under /tmp). Tests read
// only the repo, ../shared and temporary folders they create themselves (mkdtemp under os.tmpdir()).
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(__dirname, '..', '..')

/** A string literal that starts with a machine-local folder (POSIX or Windows). */
const FIXED = /(['"`])(\/(tmp|home|root|Users|var|mnt|media|srv|opt|work|data|private)(\/|\1)|[A-Za-z]:\\\\)/

/** Lines of `text` holding a fixed machine-local path, as `line: text`. */
export function fixedPathLines(text: string): string[] {
  return text
    .split('\n')
    .map((line, i) => [i + 1, line] as const)
    .filter(([, line]) => FIXED.test(line))
    .map(([n, line]) => `${n}: ${line.trim()}`)
}

describe('fixed paths', () => {
  // The samples are put together from pieces, so this file holds no machine-local path itself and
  // the scan below needs no exception for it.
  const root = (folder: string): string => `/${folder}`

  it('recognises the ways a fixed path is written', () => {
    expect(fixedPathLines(`directIndex('${root('tmp')}/bijotel-bench/chain-1000000.db')`)).toHaveLength(1)
    expect(fixedPathLines('const p = `' + root('home') + '/me/${name}`')).toHaveLength(1)
    expect(fixedPathLines(`join("${root('tmp')}", 'x')`)).toHaveLength(1)
    expect(fixedPathLines(`const w = '${'C'}:\\\\Users\\\\me'`)).toHaveLength(1)
    expect(fixedPathLines(`join(tmpdir(), 'bijotel-')`)).toHaveLength(0)
    // Deliberate system paths (a hostile input to refuse, a system tool) are not machine-local data.
    expect(fixedPathLines(`openChain({ path: '${root('etc')}/passwd' })`)).toHaveLength(0)
  })

  it('no committed source, test or script reads a fixed machine-local path', () => {
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
      .split('\0')
      .filter((f) => /\.(ts|tsx|mts|cts|js|cjs|mjs|sh)$/.test(f) && !f.startsWith('node_modules/'))
    expect(files.length).toBeGreaterThan(50)
    const found = files.flatMap((f) =>
      fixedPathLines(readFileSync(join(ROOT, f), 'utf8')).map((l) => `${f}:${l}`),
    )
    expect(found).toEqual([])
  })

  it('no committed file is a scratch file', () => {
    const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n')
    expect(files.filter((f) => /scratch/i.test(f))).toEqual([])
  })
})
