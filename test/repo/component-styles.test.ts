// Guard: a component's styles live beside it. Every stylesheet but the global one
// (src/renderer/src/styles.css: theme tokens, resets, controls and layout primitives) sits in the
// folder of the components that import it, is imported by at least one of them, and by nothing
// elsewhere. The global sheet may only shrink: new component styles go
// in a sheet beside the component, never back into it.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { rel, SRC, sourceFiles } from './graph'

const RENDERER = join(SRC, 'renderer', 'src')
const GLOBAL = join(RENDERER, 'styles.css')
/** styles.css's length once the components' rules moved beside them (issue 33: it was 1,353). */
const GLOBAL_MAX_LINES = 411

function cssFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) return cssFiles(p)
    return name.endsWith('.css') ? [p] : []
  })
}

/** Module → the stylesheets it imports (`import './x.css'`). */
function cssImports(files: string[]): Map<string, string[]> {
  return new Map(
    files.map((f) => [
      f,
      [...readFileSync(f, 'utf8').matchAll(/^import\s+['"](\.{1,2}\/[^'"]+\.css)['"]/gm)].map((m) =>
        resolve(dirname(f), m[1]!),
      ),
    ]),
  )
}

/** The problems of a layout: sheets not beside (or not imported by) their importers. */
function misplaced(sheets: string[], imports: Map<string, string[]>, global: string): string[] {
  const out: string[] = []
  for (const sheet of sheets) {
    if (sheet === global) continue
    const by = [...imports].filter(([, s]) => s.includes(sheet)).map(([f]) => f)
    if (by.length === 0) out.push(`${rel(sheet)}: imported by no module`)
    for (const f of by) if (dirname(f) !== dirname(sheet)) out.push(`${rel(sheet)}: imported from ${rel(f)}`)
  }
  return out.sort()
}

describe('component styles beside their components', () => {
  it('catches a sheet away from its component, and one nobody imports (made-up layout)', () => {
    const c = (p: string): string => join(RENDERER, p)
    const imports = new Map([
      [c('components/A.tsx'), [c('components/a.css')]],
      [c('components/B.tsx'), [c('b.css')]],
      [c('main.tsx'), [c('styles.css')]],
    ])
    expect(
      misplaced(
        [c('components/a.css'), c('b.css'), c('components/c.css'), c('styles.css')],
        imports,
        c('styles.css'),
      ),
    ).toEqual([
      'src/renderer/src/b.css: imported from src/renderer/src/components/B.tsx',
      'src/renderer/src/components/c.css: imported by no module',
    ])
  })
  it('holds for the renderer', () => {
    const modules = sourceFiles(RENDERER)
    const imports = cssImports(modules)
    expect(misplaced(cssFiles(RENDERER), imports, GLOBAL)).toEqual([])
    // Every stylesheet named exists.
    const sheets = new Set(cssFiles(RENDERER))
    for (const [f, s] of imports) for (const x of s) expect(sheets.has(x), `${rel(f)} → ${rel(x)}`).toBe(true)
  })
  it('the global sheet does not grow', () => {
    const lines = readFileSync(GLOBAL, 'utf8').split('\n').length - 1
    expect(lines).toBeLessThanOrEqual(GLOBAL_MAX_LINES)
  })
})
