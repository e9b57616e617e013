// Guards of the layout (issue 33; the README's "Architecture"): imports run one way —
// transports (app, server, handlers, cli, library) → session → audit → engines → chain and python
// → base → shared — with no loop between folders (today's file-level check cannot see a loop that
// passes through different files of two folders); every module under src/ is part of a build (no
// test-only code, no dead file); no exported function name defined twice under src/main (two
// meanings under one name is how the Python helpers drifted apart). Each guard is first shown to
// catch what it forbids on a small made-up graph.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cycles, importGraph, rel, ROOT, SRC, sourceFiles } from './graph'

const MAIN = join(SRC, 'main')
const ENGINES = [
  'verify',
  'recovery',
  'integrity',
  'replay',
  'drift',
  'export',
  'search',
  'browse',
  'custody',
  'writer',
]
const TRANSPORTS = ['app', 'server', 'handlers', 'cli', 'library']
const LOW = ['chain', 'python', 'base']

/** The folder of src/main a module is in (`chain` for src/main/chain/direct/open.ts), or null. */
function folderOf(file: string): string | null {
  const r = rel(file)
  return r.startsWith('src/main/') ? (r.split('/')[2] ?? null) : null
}

/** Folder → folders it imports, from a module graph (a folder's imports of itself left out). */
function folderGraph(graph: Map<string, string[]>): Map<string, string[]> {
  const out = new Map<string, Set<string>>()
  for (const [f, deps] of graph) {
    const a = folderOf(f)
    if (a === null) continue
    const set = out.get(a) ?? new Set<string>()
    out.set(a, set)
    for (const d of deps) {
      const b = folderOf(d)
      if (b !== null && b !== a) set.add(b)
    }
  }
  return new Map([...out].map(([k, v]) => [k, [...v].sort()]))
}

/** Imports from a folder of `from` into a folder of `to`, as `a.ts → b.ts` lines. */
function crossings(graph: Map<string, string[]>, from: string[], to: string[]): string[] {
  const out: string[] = []
  for (const [f, deps] of graph) {
    if (!from.includes(folderOf(f) ?? '')) continue
    for (const d of deps) if (to.includes(folderOf(d) ?? '')) out.push(`${rel(f)} → ${rel(d)}`)
  }
  return out.sort()
}

/** The build's entry modules: electron.vite.config.ts's inputs and the renderer page's script. */
function buildEntries(): string[] {
  const config = readFileSync(join(ROOT, 'electron.vite.config.ts'), 'utf8')
  const named = [...config.matchAll(/resolve\(__dirname, '(src\/[^']+\.tsx?)'\)/g)].map((m) =>
    join(ROOT, m[1]!),
  )
  const page = readFileSync(join(SRC, 'renderer', 'index.html'), 'utf8')
  const scripts = [...page.matchAll(/<script[^>]*src="\.\/([^"]+)"/g)].map((m) =>
    join(SRC, 'renderer', m[1]!),
  )
  return [...named, ...scripts]
}

function reachable(graph: Map<string, string[]>, entries: string[]): Set<string> {
  const seen = new Set<string>()
  const stack = [...entries]
  while (stack.length > 0) {
    const f = stack.pop()!
    if (seen.has(f)) continue
    seen.add(f)
    stack.push(...(graph.get(f) ?? []))
  }
  return seen
}

/** Exported function names defined in more than one module (overloads of one function count once). */
function twiceDefined(texts: Map<string, string>): string[] {
  const where = new Map<string, Set<string>>()
  for (const [f, text] of texts)
    for (const m of text.matchAll(/^export\s+(?:async\s+)?function\*?\s*(\w+)/gm)) {
      const set = where.get(m[1]!) ?? new Set<string>()
      set.add(rel(f))
      where.set(m[1]!, set)
    }
  return [...where]
    .filter(([, s]) => s.size > 1)
    .map(([n, s]) => `${n}: ${[...s].sort().join(', ')}`)
    .sort()
}

const files = sourceFiles(SRC)
const graph = importGraph(files)

describe('the guards catch what they forbid (made-up graphs)', () => {
  const m = (p: string): string => join(MAIN, p)
  const fake = new Map([
    [m('chain/a.ts'), [m('verify/b.ts')]],
    [m('verify/b.ts'), [m('chain/c.ts'), m('cli/x.ts')]],
    [m('chain/c.ts'), []],
    [m('cli/x.ts'), []],
    [m('cli/dead.ts'), []],
  ])
  it('a loop through different files of two folders', () => {
    expect(cycles(folderGraph(fake))).toEqual([['chain', 'verify']])
  })
  it('an engine importing a transport, a low folder importing an engine', () => {
    expect(crossings(fake, ENGINES, TRANSPORTS)).toEqual(['src/main/verify/b.ts → src/main/cli/x.ts'])
    expect(crossings(fake, LOW, ENGINES)).toEqual(['src/main/chain/a.ts → src/main/verify/b.ts'])
  })
  it('a module no entry reaches', () => {
    const seen = reachable(fake, [m('chain/a.ts')])
    expect([...fake.keys()].filter((f) => !seen.has(f)).map(rel)).toEqual(['src/main/cli/dead.ts'])
  })
  it('a name exported twice, not an overload', () => {
    const texts = new Map([
      [
        m('a.ts'),
        'export function f(x: 1): 1\nexport function f(x: number): number {}\nexport async function g() {}',
      ],
      [m('b.ts'), 'export function g() {}\nfunction f() {}'],
    ])
    expect(twiceDefined(texts)).toEqual(['g: src/main/a.ts, src/main/b.ts'])
  })
})

describe('the layout of src/', () => {
  it('has the folders the guards name', () => {
    for (const d of [...ENGINES, ...TRANSPORTS, ...LOW, 'session', 'audit'])
      expect(existsSync(join(MAIN, d)), d).toBe(true)
  })
  it('no loop between the folders of src/main', () => {
    expect(cycles(folderGraph(graph))).toEqual([])
  })
  it('engines import no transport, nor session/ or audit/', () => {
    expect(crossings(graph, ENGINES, [...TRANSPORTS, 'session', 'audit'])).toEqual([])
  })
  it('chain/, python/ and base/ import no engine, transport, session or audit', () => {
    expect(crossings(graph, LOW, [...ENGINES, ...TRANSPORTS, 'session', 'audit'])).toEqual([])
  })
  it('every module under src/ is reached from a build entry (app, CLI, workers, library, preload, renderer)', () => {
    const entries = buildEntries()
    expect(entries.length).toBeGreaterThan(8)
    for (const e of entries) expect(existsSync(e), rel(e)).toBe(true)
    const seen = reachable(graph, entries)
    expect(files.filter((f) => !seen.has(f)).map(rel)).toEqual([])
  })
  it('no exported function name is defined twice under src/main', () => {
    const main = files.filter((f) => f.startsWith(MAIN))
    expect(twiceDefined(new Map(main.map((f) => [f, readFileSync(f, 'utf8')])))).toEqual([])
  })
})
