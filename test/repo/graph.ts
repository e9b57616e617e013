// The import graph of src/, for the repository guards (test/repo/*.test.ts): the specifiers a
// module names (static `import`/`export … from`, `import type` included, dynamic `import()` and
// `require()`; comments stripped), resolved to files, and the strongly connected components.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

export const ROOT = join(__dirname, '..', '..')
export const SRC = join(ROOT, 'src')

/** Every module specifier a TypeScript source names (comments stripped first). */
export function specifiers(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')
  const out: string[] = []
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ]
  for (const re of patterns) for (const m of code.matchAll(re)) out.push(m[1]!)
  return out
}

/** Every .ts/.tsx module under `dir` (declaration files aside). */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) return sourceFiles(p)
    return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [p] : []
  })
}

/** The file a relative specifier names, or null (a package, or not a source file). */
export function resolveSpecifier(from: string, spec: string, files: Set<string>): string | null {
  if (!spec.startsWith('.')) return null
  const base = resolve(dirname(from), spec)
  for (const c of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')])
    if (files.has(c)) return c
  return null
}

/** The strongly connected components of more than one module (or a module importing itself). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0
  const idx = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const out: string[][] = []
  const visit = (v: string): void => {
    idx.set(v, index)
    low.set(v, index++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!))
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        scc.push(w)
      } while (w !== v)
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort())
    }
  }
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v)
  return out
}

/** Module → the modules it imports (relative specifiers that name a file of `files`). */
export function importGraph(files: string[]): Map<string, string[]> {
  const set = new Set(files)
  const graph = new Map<string, string[]>()
  for (const f of files) {
    const deps = specifiers(readFileSync(f, 'utf8'))
      .map((s) => resolveSpecifier(f, s, set))
      .filter((d): d is string => d !== null)
    graph.set(f, [...new Set(deps)])
  }
  return graph
}

/** A path relative to the repository, with forward slashes. */
export const rel = (f: string): string => relative(ROOT, f).split('\\').join('/')
